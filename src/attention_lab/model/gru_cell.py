"""The GRU layer of a recurrence with a hand-written backward (`bahdanau_backward`, training
only): one step, what it keeps for the backward, its derivative factors, the layer's weights.

The equations are `torch.nn.GRU`'s (Cho et al. 2014 §2.3), from the input's product already
computed, `x = W_ih x + b_ih` (..., 3H), and the state's, `gh = W_hh h + b_hh` (..., 3H):

    r, z = σ(x_r + gh_r), σ(x_z + gh_z)     n = tanh(x_n + r ⊙ gh_n)     h' = (1 - z) n + z h
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor


def gru_step(x: Tensor, gh: Tensor, h: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """x, gh (..., 3H), h (..., H) -> r and z together (..., 2H), n (..., H), h' (..., H)."""
    size = h.shape[-1]
    rz = torch.sigmoid(x[..., : 2 * size] + gh[..., : 2 * size])  # (..., 2H)
    n = torch.tanh(torch.addcmul(x[..., 2 * size :], rz[..., :size], gh[..., 2 * size :]))  # (..., H)
    return rz, n, torch.lerp(n, h, rz[..., size:])  # lerp: (1 - z) n + z h


class LayerStep(NamedTuple):
    """What one layer's `gru_step` keeps for the backward: `gru_factors` reads the first four."""
    previous: Tensor  # (B, H): the layer's state before the step
    gates: Tensor  # (B, 2H): r and z
    candidate: Tensor  # (B, H): n
    recurrent_n: Tensor  # (B, H): W_hn h + b_hn, the recurrent product's share that r scales
    inputs: Tensor | None  # (B, H): the layer's input above layer 0, after dropout
    input_mask: Tensor | None  # (B, H): its dropout keep-mask; None without dropout


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
    return (dh.unsqueeze(-2) * c).flatten(-2)  # (..., 3H)


class LayerWeights(NamedTuple):
    """One GRU layer's parameters (or their gradients). Layer 0 has no W_ih, b_ih here: the caller
    computes its input product (in `bahdanau_backward`, x0 plus attention)."""
    w_hh: Tensor  # (3H, H)
    b_hh: Tensor  # (3H,)
    w_ih: Tensor | None  # (3H, H), None for layer 0
    b_ih: Tensor | None  # (3H,), None for layer 0


def flat_layers(layers: list[LayerWeights]) -> list[Tensor]:
    """The argument list autograd sees, (W_hh, b_hh) of layer 0 then (W_hh, b_hh, W_ih, b_ih) of
    each layer above; the backward returns the gradients in the same order."""
    return [tensor for layer in layers for tensor in layer if tensor is not None]


def unflat_layers(flat: tuple[Tensor, ...]) -> list[LayerWeights]:
    """The inverse of `flat_layers`."""
    return [LayerWeights(*flat[:2], None, None)] + [LayerWeights(*flat[i : i + 4]) for i in range(2, len(flat), 4)]
