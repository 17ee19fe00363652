"""Kernels and chunked attention pooling.

A prediction is attention pooling over the training set: queries are test inputs, keys the
training inputs, values the training targets,

    ŷ(q) = Σ_i α(q, k_i) v_i,   α(q, ·) = softmax_i(log K((q - k_i) / h)),

which is exactly K(u_i) / Σ_j K(u_j), computed in log space so that a tiny bandwidth cannot
underflow every weight to 0/0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import torch
from torch import Tensor

Kernel = Literal["gaussian", "boxcar", "epanechnikov"]
Scores = Callable[[Tensor], Tensor]  # differences q - k (C, K) -> logits (C, K), -inf = no weight


def log_kernel(kernel: Kernel | Literal["constant"], u: Tensor) -> Tensor:
    """log K(u) elementwise for u of any shape; -inf outside a compact kernel's support.

    Normalising constants are dropped: the softmax cancels them. Epanechnikov is the true
    (1 - u²)₊; d2l's "epanechikov" max(0, 1 - |u|) is the triangular kernel.
    """
    if kernel == "gaussian":
        return -u ** 2 / 2
    if kernel == "boxcar":
        return torch.log((u.abs() <= 1).to(u.dtype))
    if kernel == "epanechnikov":
        return torch.log((1 - u ** 2).clamp(min=0))
    if kernel == "constant":
        return torch.zeros_like(u)
    raise ValueError(f"unknown kernel {kernel!r}")


def kernel_scores(kernel: Kernel | Literal["constant"], scale: float | Tensor) -> Scores:
    """Scores log K((q - k) · scale): scale is 1 / bandwidth, or the parametric model's w."""
    return lambda diffs: log_kernel(kernel, diffs * scale)  # (C, K)


def pool(queries: Tensor, keys: Tensor, values: Tensor, scores: Scores, chunk_size: int,
         exclude: Tensor | None = None, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
    """Attention pooling ŷ(q) = Σ_i softmax_i(scores(q - k_i)) v_i over queries (Q,), keys (K,) and
    values (K,), returning predictions (Q,) and, with `need_weights`, the weights (Q, K).

    At most `chunk_size` scores, but always at least one whole row of K, exist at once, so Q × K is
    never materialised unless the weights are asked for (under autograd the saved activations
    still add up to Q × K: chunking bounds inference, not training). `exclude` (Q,) names for every query the
    key it must not see: leave-one-out, where the query is that training point. A row with no key
    inside a compact kernel's window takes the value of the nearest key it may see (the h → 0
    limit of every kernel) instead of 0/0, so every weight row sums to 1 and nothing is NaN.
    """
    rows = max(1, chunk_size // keys.shape[0])
    predictions, weights = [], []
    for start in range(0, queries.shape[0], rows):
        chunk = slice(start, start + rows)
        diffs = queries[chunk, None] - keys[None, :]  # (C, K)
        hidden = torch.zeros_like(diffs, dtype=torch.bool)  # (C, K)
        if exclude is not None:
            hidden.scatter_(1, exclude[chunk, None], True)  # (C, K) from indices (C, 1)
        logits = scores(diffs).masked_fill(hidden, float("-inf"))  # (C, K)
        empty = torch.isneginf(logits).all(dim=-1, keepdim=True)  # (C, 1)
        nearest = diffs.abs().masked_fill(hidden, float("inf")).argmin(dim=-1, keepdim=True)  # (C, 1)
        fallback = torch.zeros_like(logits).scatter_(1, nearest, 1.0)  # (C, K)
        # Empty rows get finite logits so that neither softmax nor its gradient sees NaN.
        alpha = torch.where(empty, fallback, torch.softmax(logits.masked_fill(empty, 0.0), dim=-1))  # (C, K)
        predictions.append(alpha @ values)  # (C,)
        if need_weights:
            weights.append(alpha)
    return torch.cat(predictions), torch.cat(weights) if need_weights else None  # (Q,), (Q, K)


def mse(prediction: Tensor, target_values: Tensor) -> float:
    """Mean squared error of predictions against targets of the same shape, (Q,) or (P,)."""
    return float(((prediction - target_values) ** 2).mean())
