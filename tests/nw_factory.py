"""Nadaraya-Watson test data shared by the tests/test_nw_*.py files."""

from __future__ import annotations

import torch

from attention_lab.nw.data import target

KERNELS = ("gaussian", "boxcar", "epanechnikov")
BIG = 10 ** 12  # a chunk_size that keeps everything in one chunk


def sample(n: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Sorted x (n,) on [0, 5) and noisy targets y (n,)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.sort(torch.rand(n, generator=generator) * 5).values
    return x, target(x) + 0.5 * torch.randn(n, generator=generator)
