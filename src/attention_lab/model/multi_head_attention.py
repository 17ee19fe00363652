"""Multi-head attention (Vaswani et al. 2017, "Attention Is All You Need", §3.2.2; d2l §11.5).

M heads attend in parallel, each over its own Z = H / M features of learned projections of the
queries, keys and values; their contexts are concatenated and projected back to H. The scoring
function is any of the five scorers of `attention.py` (scaled dot product, as in the paper, by
default). Heads are 4-D views (B, M, K, Z) of the projections, never copies: scaled dot product
without weights to keep runs `fused_attention` on them (on CPU the flash kernel, whose output's
memory is already (B, Q, M, Z), so the merge is a view too). Weights to keep, or any other
scorer, fold the heads into the batch, (B·M, K, Z), so every scorer and its masking serve one
head as they serve one sentence.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attention_lab.model.attention import ScaledDotAttention, make_attention
from attention_lab.model.fused_attention import fused_attention


def check_heads(size: int, heads: int) -> None:
    """Heads split the width evenly: each reads Z = H / M features."""
    if size % heads:
        raise ValueError(f"{heads} heads do not divide model_size {size}")


def fused_heads(q: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None, dropout: float,
                causal: bool) -> Tensor:
    """`fused_attention` of per-head queries (B, M, Q, Z) over keys and values (B, M, K, Z), key
    lengths `valid_lens` (B,), (B, Q) or None -> the heads' contexts side by side (B, Q, H)."""
    context = fused_attention(q, keys, values, valid_lens, dropout, causal)  # (B, M, Q, Z)
    return context.transpose(1, 2).flatten(2)  # (B, Q, H); a view where the memory is (B, Q, M, Z)


def _between_graphs(*args: Tensor | float | bool | None) -> Tensor:
    # The graph after attention guards on its input's layout, and whether `fused_heads` returns a view
    # or a copy depends on the kernel and the packing: a tensor of its own always, so it compiles once.
    context = fused_heads(*args)  # (B, Q, H)
    return context if context._base is None else context.clone()


_attend_fused = fused_heads  # what `attend` runs: `fused_heads`, or `_between_graphs` once a model compiles


def keep_out_of_compiled_graphs() -> None:
    """From now on, `torch.compile` traces every part of a `MultiHeadAttention` but its fused attention
    and the heads' merge (training/training_pass.py): the kernel is fused already, and a packed row's
    sentences, a number from each batch's shape, would compile the graph around it again. Called
    when a model compiles, not on import, as the decorator loads TorchDynamo: over a second of the
    translator's start-up, which never compiles."""
    global _attend_fused
    if _attend_fused is fused_heads:  # once: compiled code checks it is the same function
        _attend_fused = torch.compiler.disable(_between_graphs)


class MultiHeadAttention(nn.Module):
    """forward(queries (B, Q, H), keys (B, K, H), values (B, K, H), valid_lens) -> (B, Q, H) and
    the weights of every head (B, M, Q, K), or None when `need_weights` is False.

    `valid_lens` is None, (B,) or (B, Q), as for the scorers. A decoder attending over the same
    keys step after step projects them once (`project`) and calls `attend` at each step.
    """

    def __init__(self, size: int, heads: int, dropout: float = 0.0, scorer: str = "scaled_dot",
                 max_keys: int = 256) -> None:
        super().__init__()
        check_heads(size, heads)
        self.heads, self.head_size = heads, size // heads
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(size, size, bias=False) for _ in range(4))
        z = self.head_size
        self.scorer = make_attention(scorer, z, z, z, dropout, max_keys)

    def split(self, x: Tensor) -> Tensor:
        """(B, K, H) -> (B, M, K, Z)."""
        return x.unflatten(-1, (self.heads, self.head_size)).transpose(1, 2)  # (B, M, K, Z)

    def project(self, keys: Tensor, values: Tensor) -> tuple[Tensor, Tensor]:
        """keys, values (B, K, H) -> per-head keys as the scorer prepares them (B, M, K, Z) (or its
        own last size) and values (B, M, K, Z). Position-wise, so cached steps concatenate."""
        keys = self.split(self.W_k(keys))  # (B, M, K, Z)
        if not self.fused:
            keys = self.scorer.prepare_keys(keys.flatten(0, 1)).unflatten(0, keys.shape[:2])  # (B, M, K, Z)
        return keys, self.split(self.W_v(values))

    @property
    def fused(self) -> bool:
        """Whether the scorer is the paper's, which `fused_attention` computes on 4-D heads."""
        return isinstance(self.scorer, ScaledDotAttention)

    def attend(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None,
               need_weights: bool = False, causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """queries (B, Q, H) against projected keys and values (B, M, K, Z) -> (B, Q, H), (B, M, Q, K).
        `causal` (with `valid_lens` None, Q = K): query i reads keys up to i."""
        batch, steps = queries.shape[:2]
        q = self.split(self.W_q(queries))  # (B, M, Q, Z)
        if self.fused and not need_weights:
            dropout = self.scorer.dropout.p if self.training else 0.0
            return self.W_o(_attend_fused(q, keys, values, valid_lens, dropout, causal)), None  # (B, Q, H)
        if causal:
            valid_lens = torch.arange(1, steps + 1, device=queries.device).expand(batch, -1)  # (B, Q)
        if valid_lens is not None:
            valid_lens = valid_lens.repeat_interleave(self.heads, dim=0)  # (B·M,) or (B·M, Q)
        context, weights = self.scorer.attend(q.flatten(0, 1), keys.flatten(0, 1), values.flatten(0, 1),
                                              valid_lens, need_weights)  # (B·M, Q, Z), (B·M, Q, K)
        merged = context.unflatten(0, (batch, self.heads)).transpose(1, 2).flatten(2)  # (B, Q, H)
        if weights is not None:
            weights = weights.unflatten(0, (batch, self.heads))  # (B, M, Q, K)
        return self.W_o(merged), weights

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None = None,
                need_weights: bool = False, causal: bool = False) -> tuple[Tensor, Tensor | None]:
        return self.attend(queries, *self.project(keys, values), valid_lens, need_weights, causal)
