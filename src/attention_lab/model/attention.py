"""Attention scoring functions and masked attention pooling (d2l §11.3).

Every scorer shares one interface:

    forward(queries (B, Q, H), keys (B, K, D), values (B, K, D), valid_lens) -> (B, Q, D)

A decoder that attends over the same keys at every step calls `prepare_keys` once per sequence
and then `attend` at each step, which also returns the weights (B, Q, K).
`valid_lens` is None (every key counts), (B,) (per sequence) or (B, Q) (per query).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attention_lab.model.fused_attention import fused_attention, key_mask

KINDS = ("additive", "dot", "scaled_dot", "general", "location")


def masked_softmax(scores: Tensor, valid_lens: Tensor | None) -> Tensor:
    """Softmax of `scores` (B, Q, K) over keys, exactly 0 beyond each valid length.

    A row whose valid length is 0 is all zeros (neither NaN nor uniform). Masked scores are -inf,
    not a large negative number, so padding gets exactly zero weight in any dtype.
    """
    if valid_lens is None:
        return F.softmax(scores, dim=-1)
    mask = key_mask(valid_lens, scores.shape[-1])  # (B, Q|1, K)
    any_valid = mask.any(dim=-1, keepdim=True)  # (B, Q|1, 1)
    # Empty rows get finite scores so neither the softmax nor its gradient sees NaN.
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~any_valid, 0.0)
    return F.softmax(scores, dim=-1).masked_fill(~mask, 0.0)


def by_sentence(attend: Callable[[Tensor], tuple[Tensor, Tensor | None]], queries: Tensor,
                sentences: int) -> tuple[Tensor, Tensor | None]:
    """Attention over keys kept once per sentence, for queries (N, T, H) of N = B·W rows, each
    sentence's W rows in a row (beam search's hypotheses): a sentence's W·T queries attend
    together, so its keys are never copied per hypothesis. `attend` maps queries (B, W·T, H) to
    contexts (B, W·T, D) and weights (B, ..., W·T, K) or None -> (N, T, D), (N, ..., T, K)."""
    rows, steps = queries.shape[:2]
    context, weights = attend(queries.reshape(sentences, -1, queries.shape[-1]))  # (B, W·T, D)
    if weights is not None:
        weights = weights.unflatten(-2, (rows // sentences, steps)).movedim(-3, 1).flatten(0, 1)  # (N, ..., T, K)
    return context.reshape(rows, steps, -1), weights  # (N, T, D)


class Attention(nn.Module):
    """Attention pooling `softmax(score(q, k)) v`; subclasses define `score` (and `prepare_keys`)."""

    def __init__(self, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def prepare_keys(self, keys: Tensor) -> Tensor:
        """Work on keys (B, K, D) that does not depend on the query, done once per sequence."""
        return keys

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """Scores (B, Q, K) of queries (B, Q, H) against keys as `prepare_keys` made them."""
        raise NotImplementedError

    def attend(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None,
               need_weights: bool = True) -> tuple[Tensor, Tensor | None]:
        """Context (B, Q, D) and weights (B, Q, K) for prepared keys; weights may be None when
        `need_weights` is False and the scorer has a faster path without them."""
        weights = masked_softmax(self.score(queries, keys), valid_lens)  # (B, Q, K)
        return torch.bmm(self.dropout(weights), values), weights  # (B, Q, D)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None = None,
                need_weights: bool = True) -> Tensor:
        return self.attend(queries, self.prepare_keys(keys), values, valid_lens, need_weights)[0]


class AdditiveAttention(Attention):
    """`w_vᵀ tanh(W_q q + W_k k)`: Bahdanau et al. 2014, "Neural Machine Translation by Jointly
    Learning to Align and Translate", §3.1 and appendix A.1.2."""

    def __init__(self, query_size: int, key_size: int, hidden_size: int, dropout: float = 0.0) -> None:
        super().__init__(dropout)
        self.W_q = nn.Linear(query_size, hidden_size, bias=False)
        self.W_k = nn.Linear(key_size, hidden_size, bias=False)
        self.w_v = nn.Linear(hidden_size, 1, bias=False)

    def prepare_keys(self, keys: Tensor) -> Tensor:
        return self.W_k(keys)  # (B, K, A)

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        features = torch.tanh(self.W_q(queries)[:, :, None, :] + keys[:, None, :, :])  # (B, Q, K, A)
        return self.w_v(features).squeeze(-1)  # (B, Q, K)


class DotAttention(Attention):
    """`qᵀk`: Luong et al. 2015, "Effective Approaches to Attention-based NMT", §3.1 (dot)."""

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        return torch.bmm(queries, keys.transpose(1, 2))  # (B, Q, K)


class ScaledDotAttention(DotAttention):
    """`qᵀk / √d`: Vaswani et al. 2017, "Attention Is All You Need", §3.2.1.

    Without weights to keep, it runs `fused_attention` with the same masking semantics, empty rows
    included.
    """

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        return super().score(queries, keys) / math.sqrt(queries.shape[-1])

    def attend(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None,
               need_weights: bool = True) -> tuple[Tensor, Tensor | None]:
        if need_weights:
            return super().attend(queries, keys, values, valid_lens)
        return fused_attention(queries, keys, values, valid_lens, self.dropout.p if self.training else 0.0), None


class GeneralAttention(Attention):
    """`qᵀ W k`: Luong et al. 2015, §3.1 (general). `W k` is computed once per sequence."""

    def __init__(self, query_size: int, key_size: int, dropout: float = 0.0) -> None:
        super().__init__(dropout)
        self.W = nn.Linear(key_size, query_size, bias=False)

    def prepare_keys(self, keys: Tensor) -> Tensor:
        return self.W(keys)  # (B, K, H)

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        return torch.bmm(queries, keys.transpose(1, 2))  # (B, Q, K)


class LocationAttention(Attention):
    """`softmax(W_a q)` over source positions: Luong et al. 2015, §3.1 (location).

    The scores ignore key content, so at most `max_keys` positions can be attended.
    """

    def __init__(self, query_size: int, max_keys: int, dropout: float = 0.0) -> None:
        super().__init__(dropout)
        self.W_a = nn.Linear(query_size, max_keys)

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        num_keys = keys.shape[1]
        if num_keys > self.W_a.out_features:
            raise ValueError(f"location attention was built for at most {self.W_a.out_features} "
                             f"keys, got {num_keys}")
        return self.W_a(queries)[:, :, :num_keys]  # (B, Q, K)


def check_attention(kind: str, query_size: int, key_size: int) -> None:
    """Raise ValueError if `kind` is unknown or cannot score queries against keys of these sizes."""
    if kind not in KINDS:
        raise ValueError(f"unknown attention kind {kind!r} (known: {', '.join(KINDS)})")
    if kind in ("dot", "scaled_dot") and query_size != key_size:
        raise ValueError(f"{kind} attention needs queries and keys of one size, got {query_size} "
                         f"and {key_size} (use additive or general)")


def make_attention(kind: str, query_size: int, key_size: int, hidden_size: int, dropout: float = 0.0,
                   max_keys: int = 0) -> Attention:
    """The scorer `kind`, for queries of `query_size` and keys of `key_size` features."""
    check_attention(kind, query_size, key_size)
    if kind == "location" and max_keys < 1:
        raise ValueError(f"location attention needs max_keys >= 1, got {max_keys}")
    if kind == "additive":
        return AdditiveAttention(query_size, key_size, hidden_size, dropout)
    if kind == "dot":
        return DotAttention(dropout)
    if kind == "scaled_dot":
        return ScaledDotAttention(dropout)
    if kind == "general":
        return GeneralAttention(query_size, key_size, dropout)
    return LocationAttention(query_size, max_keys, dropout)
