"""Scaled dot-product attention (Vaswani et al. 2017, §3.2.1) through PyTorch's fused kernels
(`F.scaled_dot_product_attention`): key masks, the kernels allowed, and sentences packed side by side.

Packing is for short sentences on a GPU: a fused kernel works on tiles of 64 or 128 queries, one
(sentence, head) at a time, so a batch of 2,000 sentences of a dozen pieces runs 16,000 tiny
tiles, most of each tile idle. Within `packed_rows(N)`, Y = N // max(Q, K) sentences share one row
of Y·Q queries and Y·K keys, and a block-diagonal mask keeps each sentence to its own keys: the
same contexts as one sentence a row, Y times fewer tiles for Y times the (masked) products. Heads
as `MultiHeadAttention` makes them, views of (B, Q, H) memory, pack into rows that are views too.
The mask is no flash kernel's: packed rows need the memory-efficient, cuDNN or math kernel.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn.attention import SDPBackend, sdpa_kernel

KERNELS = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
           "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}

_row_tokens: int | None = None  # set by `packed_rows`


def key_mask(valid_lens: Tensor, num_keys: int) -> Tensor:
    """Boolean mask, True on keys that count: (B, 1, K) for (B,) lengths, (B, Q, K) for (B, Q)."""
    if valid_lens.dim() == 1:
        valid_lens = valid_lens[:, None]  # (B, 1)
    positions = torch.arange(num_keys, device=valid_lens.device)
    return positions[None, None, :] < valid_lens[:, :, None]  # (B, Q|1, K)


def allowed_kernels(names: tuple[str, ...] | None) -> contextlib.AbstractContextManager:
    """A context in which `fused_attention` may run only the kernels `names` (keys of KERNELS), in
    PyTorch's order of preference; None: any, as PyTorch chooses."""
    return contextlib.nullcontext() if names is None else sdpa_kernel([KERNELS[name] for name in names])


@contextlib.contextmanager
def packed_rows(tokens: int | None) -> Iterator[None]:
    """A context in which `fused_attention` packs sentences side by side into rows of at most
    `tokens` queries and keys (module docstring); None: one sentence a row."""
    global _row_tokens
    before, _row_tokens = _row_tokens, tokens
    try:
        yield
    finally:
        _row_tokens = before


def masked_attention(queries: Tensor, keys: Tensor, values: Tensor, mask: Tensor, dropout: float) -> Tensor:
    """Attention of queries (B, ..., Q, D) over keys and values (B, ..., K, D) where `mask`
    (broadcast to (B, ..., Q, K)) is True; a query with no such key gets zeros -> (B, ..., Q, D)."""
    any_valid = mask.any(dim=-1, keepdim=True)  # (B, ..., Q|1, 1)
    # An all-False row would give NaN: it reads every key instead, and its context is zeroed.
    context = F.scaled_dot_product_attention(queries, keys, values, attn_mask=mask | ~any_valid, dropout_p=dropout)
    return context * any_valid


def fused_attention(queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None,
                    dropout: float = 0.0, causal: bool = False) -> Tensor:
    """Scaled dot-product attention: queries (B, ..., Q, D), keys and values (B, ..., K, D), any
    head dimensions between -> contexts (B, ..., Q, D).

    `valid_lens` (B,) or (B, Q) masks keys as `attention.masked_softmax` does, a row with no valid
    key giving zeros; `causal` (without `valid_lens`) lets query i read keys up to i. On CPU the
    flash kernel runs with a boolean mask or `is_causal` alike, but not with dropout, which takes
    the math path (the full (Q, K) score matrix)."""
    if queries.device.type == "cpu" and queries.dtype == torch.bfloat16:
        # PyTorch's CPU kernels attend ~10x slower in bf16 than in float32 at these sizes (docs/speed.md: bf16 on
        # the CPU); autocast would cast float32 inputs back to bf16.
        with torch.autocast("cpu", enabled=False):
            context = fused_attention(queries.float(), keys.float(), values.float(), valid_lens, dropout, causal)
        return context.to(queries.dtype)
    batch, steps, num_keys = queries.shape[0], queries.shape[-2], keys.shape[-2]
    group = min(batch, _row_tokens // max(steps, num_keys)) if _row_tokens else 1
    if group > 1:
        return _packed(queries, keys, values, valid_lens, dropout, causal, group)
    if valid_lens is None:
        return F.scaled_dot_product_attention(queries, keys, values, dropout_p=dropout, is_causal=causal)
    mask = key_mask(valid_lens, num_keys)  # (B, Q|1, K)
    mask = mask.view(batch, *(1,) * (queries.dim() - 3), *mask.shape[1:])  # (B, ..., Q|1, K)
    return masked_attention(queries, keys, values, mask, dropout)


def side_by_side(x: Tensor, group: int) -> Tensor:
    """Sentences (B, ..., Q, D), B a multiple of Y = `group`, Y to a row -> (B/Y, ..., Y·Q, D); a view
    where x's memory is (B, Q, ..., D), as heads split from (B, Q, H) are."""
    return x.unflatten(0, (-1, group)).movedim(1, -3).flatten(-3, -2)  # (B/Y, ..., Y·Q, D)


def _packed(queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None, dropout: float,
            causal: bool, group: int) -> Tensor:
    """`fused_attention` with Y = `group` sentences a row; the last B mod Y in a row of their own."""
    batch, steps, num_keys = queries.shape[0], queries.shape[-2], keys.shape[-2]
    whole = batch - batch % group
    if valid_lens is not None:
        allowed = key_mask(valid_lens[:whole], num_keys).expand(-1, steps, -1)  # (B - B mod Y, Q, K): (B,) or (B, Q)
    elif causal:
        allowed = torch.ones(steps, num_keys, dtype=torch.bool, device=queries.device).tril().expand(whole, -1, -1)
    else:
        allowed = torch.ones(1, 1, 1, dtype=torch.bool, device=queries.device).expand(whole, steps, num_keys)
    same = torch.eye(group, dtype=torch.bool, device=queries.device)  # (Y, Y): a sentence reads its own keys
    allowed = allowed.unflatten(0, (-1, group))  # (B/Y, Y, Q, K)
    rows = same[None, :, None, :, None] & allowed[:, :, :, None, :]  # (B/Y, Y, Q, Y, K)
    rows = rows.reshape(-1, *(1,) * (queries.dim() - 3), group * steps, group * num_keys)  # (B/Y, ..., Y·Q, Y·K)
    packed = (side_by_side(x[:whole], group) for x in (queries, keys, values))  # (B/Y, ..., Y·Q|Y·K, D)
    context = masked_attention(*packed, rows, dropout)  # (B/Y, ..., Y·Q, D)
    context = context.unflatten(-2, (group, steps)).movedim(-3, 1).flatten(0, 1)  # (B - B mod Y, ..., Q, D)
    if whole == batch:
        return context
    rest = valid_lens[whole:] if valid_lens is not None else None
    tail = fused_attention(queries[whole:], keys[whole:], values[whole:], rest, dropout, causal)  # (B mod Y, ..., Q, D)
    return torch.cat([context, tail])  # (B, ..., Q, D)
