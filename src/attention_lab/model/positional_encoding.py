"""Sinusoidal positional encoding (Vaswani et al. 2017 §3.5; d2l §11.6.3).

    P[i, 2j] = sin(i / 10000^(2j/H)),   P[i, 2j+1] = cos(i / 10000^(2j/H))

Computed for the positions asked, so no sentence is too long for it, and an incremental decoder
asks for position t alone.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def sinusoids(positions: Tensor, size: int) -> Tensor:
    """positions (T,) integer -> encodings (T, H) for H = `size` features."""
    frequencies = torch.exp(torch.arange(0, size, 2, device=positions.device, dtype=torch.float32)
                            * (-math.log(10000.0) / size))  # (ceil(H / 2),)
    angles = positions.float()[:, None] * frequencies[None, :]  # (T, ceil(H / 2))
    encoding = torch.empty(len(positions), size, device=positions.device)
    encoding[:, 0::2] = torch.sin(angles)
    encoding[:, 1::2] = torch.cos(angles[:, : size // 2])
    return encoding  # (T, H)
