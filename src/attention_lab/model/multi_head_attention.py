"""Multi-head attention (Vaswani et al. 2017, "Attention Is All You Need", §3.2.2; d2l §11.5).

M heads attend in parallel, each over its own Z = H / M features of learned projections of the
queries, keys and values; their contexts are concatenated and projected back to H. The scoring
function is any of the five scorers of `attention.py` (scaled dot product, as in the paper, by
default): the heads are folded into the batch, (B, M, K, Z) -> (B·M, K, Z), so every scorer, its
masking and its `scaled_dot_product_attention` path serve one head as they serve one sentence.
"""

from __future__ import annotations

from torch import Tensor, nn

from attention_lab.model.attention import make_attention


def check_heads(size: int, heads: int) -> None:
    """Heads split the width evenly: each reads Z = H / M features."""
    if size % heads:
        raise ValueError(f"{heads} heads do not divide model_size {size}")


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
        folded = self.split(self.W_k(keys)).flatten(0, 1)  # (B·M, K, Z)
        prepared = self.scorer.prepare_keys(folded).unflatten(0, (keys.shape[0], self.heads))  # (B, M, K, Z)
        return prepared, self.split(self.W_v(values))

    def attend(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None,
               need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        """queries (B, Q, H) against projected keys and values (B, M, K, Z) -> (B, Q, H), (B, M, Q, K)."""
        batch, steps = queries.shape[:2]
        q = self.split(self.W_q(queries)).flatten(0, 1)  # (B·M, Q, Z)
        if valid_lens is not None:
            valid_lens = valid_lens.repeat_interleave(self.heads, dim=0)  # (B·M,) or (B·M, Q)
        context, weights = self.scorer.attend(q, keys.flatten(0, 1), values.flatten(0, 1), valid_lens,
                                              need_weights)  # (B·M, Q, Z), (B·M, Q, K)
        merged = context.unflatten(0, (batch, self.heads)).transpose(1, 2).reshape(batch, steps, -1)  # (B, Q, H)
        if weights is not None:
            weights = weights.unflatten(0, (batch, self.heads))  # (B, M, Q, K)
        return self.W_o(merged), weights

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None = None,
                need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        return self.attend(queries, *self.project(keys, values), valid_lens, need_weights)
