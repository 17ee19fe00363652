"""One GRU step and its derivative factors, for a recurrence with a hand-written backward
(`bahdanau_recurrence`).

The equations are `torch.nn.GRU`'s (Cho et al. 2014 §2.3), from the input's product already
computed, `x = W_ih x + b_ih` (..., 3H), and the state's, `gh = W_hh h + b_hh` (..., 3H):

    r, z = σ(x_r + gh_r), σ(x_z + gh_z)     n = tanh(x_n + r ⊙ gh_n)     h' = (1 - z) n + z h
"""

from __future__ import annotations

import torch
from torch import Tensor


def gru_step(x: Tensor, gh: Tensor, h: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """x, gh (..., 3H), h (..., H) -> r and z together (..., 2H), n (..., H), h' (..., H)."""
    size = h.shape[-1]
    rz = torch.sigmoid(x[..., : 2 * size] + gh[..., : 2 * size])  # (..., 2H)
    n = torch.tanh(torch.addcmul(x[..., 2 * size :], rz[..., :size], gh[..., 2 * size :]))  # (..., H)
    return rz, n, torch.lerp(n, h, rz[..., size:])  # lerp: (1 - z) n + z h


def gru_factors(rz: Tensor, n: Tensor, h: Tensor, gh_n: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Derivative factors of steps (any leading shape ...), computed for all of them at once, so
    that a step of the backward is three products: with dh' the gradient of h',

        d(input product x) = `input_grad(dh', c)`    d(gh) = d(x) · g    d(h, through h') = dh' · z

    from r and z (..., 2H), n, h and gh_n (..., H). Returns c (..., 3, H), g (..., 3H), z (..., H)."""
    r, z = rz.chunk(2, dim=-1)
    c_n = (1 - z) * (1 - n * n)  # tanh' and the (1 - z) weight of n
    c = torch.stack([c_n * gh_n * r * (1 - r), (h - n) * z * (1 - z), c_n], dim=-2)  # (..., 3, H)
    g = torch.cat([torch.ones_like(rz), r], dim=-1)  # gh_r and gh_z enter as x does; gh_n through r
    return c, g, z


def input_grad(dh: Tensor, c: Tensor) -> Tensor:
    """dh' (..., H) and a step's factors c (..., 3, H) -> the gradient of its input product (..., 3H)."""
    return (dh.unsqueeze(-2) * c).flatten(-2)
