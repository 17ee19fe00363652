"""The roofline of a training run: the machine's matrix-multiply peak and the FLOPs a training step
does, both measured rather than assumed, so that throughput reads as a fraction of the hardware.

FLOPs are counted by PyTorch (`torch.utils.flop_counter.FlopCounterMode`: matrix products,
attention kernels and convolutions; elementwise work counts zero), for the forward and backward
of the loss. Shapes: see the package notation.

The peak is a large square product, which a model's own products, a few rows or a short inner
dimension, cannot reach. `matmul_ceiling` times each counted product of a training step alone,
with its own shapes and layouts: the rate training would reach if everything between the
products cost nothing, the roof that the fraction of peak is read against.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode, flop_registry

from attention_lab.model.encoder_decoder import EncoderDecoder
from attention_lab.model.loss import token_loss


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def matmul_trial(device: torch.device, dtype: torch.dtype = torch.float32, size: int = 2048,
                 repeats: int = 10) -> Callable[[], float]:
    """A timing to call as often as wanted: GFLOP/s of `repeats` (size, size) @ (size, size) products. Its
    operands are made, and a product warms up (allocation, library initialisation), at the first call."""
    operands: list[torch.Tensor] = []

    def trial() -> float:
        if not operands:
            operands.extend(torch.randn(size, size, device=device, dtype=dtype) for _ in range(2))
            operands[0] @ operands[1]
        a, b = operands
        synchronize(device)
        start = time.perf_counter()
        for _ in range(repeats):
            a @ b
        synchronize(device)
        return 2 * size**3 * repeats / (time.perf_counter() - start) / 1e9

    return trial


def matmul_peak(device: torch.device, dtype: torch.dtype = torch.float32, size: int = 2048,
                repeats: int = 10, trials: int = 3) -> float:
    """GFLOP/s of the best of `trials` timings of `repeats` (size, size) @ (size, size) products."""
    trial = matmul_trial(device, dtype, size, repeats)
    return max(trial() for _ in range(trials))


class CountedProducts(TorchDispatchMode):
    """Records each operation that `FlopCounterMode` counts (the same formulas), with what a
    replay needs: the operator, its arguments' shapes, strides and dtypes, and its FLOPs."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: Counter = Counter()  # (operator, argument layouts, kwargs) -> times called
        self.flops: dict = {}  # the same key -> FLOPs of one call

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if func._overloadpacket in flop_registry:
            key = (func, tuple(map(layout, args)), tuple(sorted(kwargs.items())))
            self.calls[key] += 1
            self.flops[key] = flop_registry[func._overloadpacket](*args, **kwargs, out_val=out)
        return out


MAX_KEPT_VALUES = 1024  # integer and boolean arguments up to this size are replayed with their own values


class Layout(NamedTuple):
    """A recorded tensor argument: enough to make another like it. Floating-point operands are
    replayed on random values; integer and boolean ones (CUDA attention's random seed and offset,
    sequence offsets, masks) index or select, so they keep the values they had (`values`, when
    small enough; zeros otherwise)."""
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    values: tuple | None = None

    def make(self) -> torch.Tensor:
        out = torch.empty_strided(self.shape, self.stride, dtype=self.dtype, device=self.device)
        if self.dtype.is_floating_point or self.dtype.is_complex:
            return out.normal_()
        if self.values is None:
            return out.zero_()
        return out.copy_(torch.tensor(self.values, dtype=self.dtype).reshape(self.shape))


def layout(arg: Any) -> Any:
    """A tensor's Layout; lists (convolutions' strides) as tuples, so that a call is a dict key.
    Replays make the top-level tensors again: the counted products take no lists of tensors."""
    if isinstance(arg, torch.Tensor):
        exact = not (arg.dtype.is_floating_point or arg.dtype.is_complex) and arg.numel() <= MAX_KEPT_VALUES
        values = tuple(arg.detach().cpu().flatten().tolist()) if exact else None
        return Layout(tuple(arg.shape), arg.stride(), arg.dtype, arg.device, values)
    if isinstance(arg, list):
        return tuple(map(layout, arg))
    return arg


def training_flops_per_token(model: EncoderDecoder, batches: list[dict],
                             label_smoothing: float = 0.0) -> tuple[float, CountedProducts]:
    """FLOPs of forward + backward of the training loss, per non-padding target token, over
    `batches` (collated training batches: src (B, S), src_len (B,), tgt_in and tgt_out (B, T)),
    and the counted products themselves."""
    device = next(model.parameters()).device
    counter, products = FlopCounterMode(display=False), CountedProducts()
    tokens = 0
    with counter, products:
        for batch in batches:
            logits = model(batch["src"].to(device), batch["src_len"].to(device), batch["tgt_in"].to(device))
            token_loss(logits, batch["tgt_out"].to(device), label_smoothing).backward()
            tokens += batch["n_tokens"]
    model.zero_grad(set_to_none=True)
    return counter.get_total_flops() / tokens, products


def matmul_ceiling(products: CountedProducts, min_seconds: float = 0.002, trials: int = 3) -> float:
    """GFLOP/s of the counted products each run alone (best of `trials`, each of enough repeats
    to take `min_seconds`) on random operands of their recorded layouts."""
    seconds = 0.0
    for (func, args, options), count in products.calls.items():
        operands, kwargs = [a.make() if isinstance(a, Layout) else a for a in args], dict(options)
        device = next(a.device for a in args if isinstance(a, Layout) and a.dtype.is_floating_point)
        func(*operands, **kwargs)  # warm-up
        synchronize(device)
        start = time.perf_counter()
        func(*operands, **kwargs)
        synchronize(device)
        repeats = max(1, int(min_seconds / max(time.perf_counter() - start, 1e-7)))
        best = float("inf")
        for _ in range(trials):
            start = time.perf_counter()
            for _ in range(repeats):
                func(*operands, **kwargs)
            synchronize(device)
            best = min(best, (time.perf_counter() - start) / repeats)
        seconds += best * count
    return sum(products.flops[key] * count for key, count in products.calls.items()) / seconds / 1e9
