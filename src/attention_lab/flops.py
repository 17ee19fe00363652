"""The roofline of a training run: the machine's matrix-multiply peak and the FLOPs a training step
does, both measured rather than assumed, so that throughput reads as a fraction of the hardware.

FLOPs are counted by PyTorch (`torch.utils.flop_counter.FlopCounterMode`: matrix products,
attention kernels and convolutions; elementwise work counts zero), for the forward and backward
of the loss. Shapes: see the package notation.
"""

from __future__ import annotations

import time

import torch
from torch.utils.flop_counter import FlopCounterMode

from attention_lab.model import Seq2Seq
from attention_lab.training_module import token_loss


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def matmul_peak(device: torch.device, dtype: torch.dtype = torch.float32, size: int = 2048,
                repeats: int = 10, trials: int = 3) -> float:
    """GFLOP/s of the best of `trials` timings of `repeats` (size, size) @ (size, size) products."""
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    a @ b  # warm-up: allocation, library initialisation
    best = float("inf")
    for _ in range(trials):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(repeats):
            a @ b
        synchronize(device)
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 * repeats / best / 1e9


def training_flops_per_token(model: Seq2Seq, batches: list[dict], label_smoothing: float = 0.0) -> float:
    """FLOPs of forward + backward of the training loss, per non-padding target token, over
    `batches` (collated training batches: src (B, S), src_len (B,), tgt_in and tgt_out (B, T))."""
    device = next(model.parameters()).device
    counter = FlopCounterMode(display=False)
    tokens = 0
    with counter:
        for batch in batches:
            logits = model(batch["src"].to(device), batch["src_len"].to(device), batch["tgt_in"].to(device))
            token_loss(logits, batch["tgt_out"].to(device), label_smoothing).backward()
            tokens += batch["n_tokens"]
    model.zero_grad(set_to_none=True)
    return counter.get_total_flops() / tokens
