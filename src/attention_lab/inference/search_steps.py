"""What greedy and beam search (`search.py`) share: the decoded result, output length limits, the
ranking penalties, and one decoder step over the open rows. Shapes as in `search.py`."""

from __future__ import annotations

import time
from typing import NamedTuple

import torch
from torch import Tensor

from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID
from attention_lab.inference.constraints import SearchConstraint
from attention_lab.model.encoder_decoder import EncoderDecoder


class Decoded(NamedTuple):
    tokens: Tensor  # (B, T) output ids, `<eos>` included where emitted, `<pad>` after
    lengths: Tensor  # (B,) output tokens per sentence, `<eos>` included
    scores: Tensor  # (B,) log-probability (greedy) or the beam's ranking score (length and coverage penalised)
    attention: Tensor  # (B, T, R, S) attention weights of each output token, zero after the end; R = 1 (the
    # average) unless the search was asked for every map


def output_limits(src_len: Tensor, ratio: float, cap: int | None = None, extra: int = 0) -> Tensor:
    """Maximum output tokens (B,) per sentence: `ceil(ratio * source length) + extra`, at most `cap`."""
    limits = (torch.ceil(src_len.double() * ratio).long() + extra).clamp(min=1)
    return limits if cap is None else limits.clamp(max=cap)


def length_penalty(lengths: Tensor, alpha: float) -> Tensor:
    """GNMT length penalty `((5 + |Y|) / 6) ** alpha` (Wu et al. 2016, §7)."""
    return ((5.0 + lengths.double()) / 6.0) ** alpha


def minimum_lengths(src_len: Tensor, ratio: float, limits: Tensor) -> Tensor:
    """Output tokens (B,) before which `<eos>` is forbidden: `floor(ratio * source length)`, at
    most the output limit (a sentence whose minimum reaches its limit simply runs to it)."""
    return torch.minimum(torch.floor(src_len.double() * ratio).long(), limits)


# Attention a source position never received would give log 0 = -inf, and a float32 softmax weight
# can underflow to 0: the floor keeps such a hypothesis rankable (20 positions missed cost 460·beta).
_COVERAGE_FLOOR = 1e-10


def source_words(src_len: Tensor, width: int) -> Tensor:
    """(N, S) mask of the source words, `<pad>` and the source's own `<eos>` (its last position)
    left out: a translation has no word to give the end marker, so not attending to it is no gap."""
    return torch.arange(width, device=src_len.device) < (src_len - 1)[:, None]  # (N, S)


def coverage_penalty(coverage: Tensor, words: Tensor, beta: float) -> Tensor:
    """GNMT coverage penalty (Wu et al. 2016, §7) (N,): `beta * sum_i log(min(sum_j a_ij, 1))` over
    the source words i in `words` (N, S) (`source_words`), from `coverage` (N, S), the attention
    a_ij each position received summed over the output steps j. 0 once every word got a total
    weight of 1; a hypothesis that leaves source words unread scores lower."""
    covered = coverage.clamp(min=_COVERAGE_FLOOR, max=1.0).log().masked_fill(~words, 0.0)  # (N, S)
    return beta * covered.sum(dim=-1).double()


def banned_ids(model: EncoderDecoder, forbid: tuple[int, ...], min_len_ratio: float = 0.0) -> list[int]:
    """The ids never emitted: `<pad>`, `<bos>` and `forbid`, checked against the vocabulary (and,
    with a minimum length, that something besides `<eos>` is left)."""
    vocab_size = model.decoder.embedding.num_embeddings
    outside = [i for i in forbid if not 0 <= i < vocab_size]
    if outside:
        raise ValueError(f"forbid: token ids {outside} are outside the vocabulary of {vocab_size}")
    banned = sorted({PAD_ID, BOS_ID, *(int(i) for i in forbid)})
    if len(banned) >= vocab_size:
        raise ValueError(f"forbid: no token of the vocabulary of {vocab_size} is left to emit")
    if min_len_ratio > 0 and len({*banned, EOS_ID}) >= vocab_size:
        raise ValueError("min_len_ratio: forbid leaves only <eos> to emit")
    return banned


def next_candidates(model: EncoderDecoder, tokens: Tensor, state, finished: Tensor, rows: Tensor, k: int,
                     banned: list[int], maps: bool, no_eos: Tensor | None = None,
                     constraints: SearchConstraint | None = None) -> tuple[Tensor, Tensor, object, Tensor]:
    """Each row's `k` best next tokens (N, k) with their log-probabilities (N, k); `constraints` (the
    constraints: number_constraint.py, term_constraint.py) blocks the tokens a row may not write (a digit out
    of its number's turn, a word inside a number: then fewer than `k` may be finite) and, for k > 1 (a beam), adds each constraint's best symbol as a candidate after
    the `k` (-inf where already offered).

    The decoder steps only `rows` (n,), the rows of the sentences still open, which `state`
    holds; the other rows are finished. `k` is at most the number of tokens not `banned`, so
    every candidate of an open row is finite, except `<eos>` in the rows `no_eos` (N,) (shorter
    than their minimum length), which is -inf. The output layer, log-softmax and top-k (the work
    that grows with the vocabulary) run only for open rows; a finished row offers `<pad>` at no
    cost (then -inf). Taking each row's top k before ranking across beams keeps the cross-beam
    ranking to (B, W·k).
    """
    features, state, weights = model.decoder.step(tokens[rows], state)  # (n, 1, H), ., (n, 1, S) or (n, 1, R, S)
    open_rows = (~finished[rows]).nonzero()[:, 0]  # (o,) among the n
    logits = model.decoder.output(features[open_rows, 0])  # (o, V)
    # At least float32, also under bf16 autocast (validation on CUDA): scores are ranked and summed.
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
    # One fused log-softmax kernel: 1.5x faster than `logsumexp`'s four passes (ad hoc, (1200, 8000), 2026-11-25)
    log_probs = torch.log_softmax(logits, dim=-1)  # (o, V)
    log_probs[:, banned] = float("-inf")
    if no_eos is not None:
        log_probs[no_eos[rows[open_rows]], EOS_ID] = float("-inf")
    if constraints is not None:
        constraints.mask(rows[open_rows], log_probs)
    open_log_probs, open_tokens = log_probs.topk(k, dim=-1)  # (o, k)
    if constraints is not None and constraints.most > 0 and k > 1:  # a beam's: each row's best symbol(s) besides
        best, symbol = constraints.best_symbols(rows[open_rows], log_probs)  # (o,) or (o, P): one per constraint
        best, symbol = best.view(len(open_rows), -1), symbol.view(len(open_rows), -1)  # (o, P)
        for p in range(best.shape[1]):  # a candidate already there is not offered twice
            offered = torch.cat([open_tokens, symbol[:, :p]], dim=1)
            best[:, p] = best[:, p].masked_fill((offered == symbol[:, p : p + 1]).any(dim=1), float("-inf"))
        open_log_probs = torch.cat([open_log_probs, best], dim=1)  # (o, k + P)
        open_tokens = torch.cat([open_tokens, symbol], dim=1)
        k += best.shape[1]
    top_log_probs = torch.full((len(finished), k), float("-inf"), dtype=logits.dtype, device=logits.device)
    top_log_probs[:, 0] = 0.0  # what a finished row offers: <pad> for free
    top_tokens = torch.full_like(top_log_probs, PAD_ID, dtype=torch.long)
    top_log_probs[rows[open_rows]], top_tokens[rows[open_rows]] = open_log_probs, open_tokens
    weights = weights.reshape(len(rows), -1, weights.shape[-1]).float()  # (n, R, S)
    if not maps:
        weights = weights.mean(dim=1, keepdim=True)  # (n, 1, S)
    all_weights = weights.new_zeros(len(finished), *weights.shape[1:])  # (N, R, S): zero on rows not stepped
    all_weights[rows] = weights
    return top_log_probs, top_tokens, state, all_weights  # (N, k), (N, k), ., (N, R, S)


def allocated(ranked: Tensor, banks: Tensor, count: int, width: int) -> Tensor:
    """The `width` candidates (B, W) kept of each sentence's `ranked` (B, W·k), each in one of `count` banks
    (B, W·k) (`NumberConstraint.banks`): the banks take turns, each its best candidate left, the highest first.
    Dynamic beam allocation (Post & Vilar 2018, "Fast Lexically Constrained Decoding with Dynamic Beam
    Allocation") with its even shares given a slot at a time, so that a bank short of candidates leaves its
    slots to the others: likely hypotheses that wrote less of the spans never crowd out all those that wrote
    more. One bank (no spans) keeps the beam's order: by rank."""
    order = ranked.argsort(dim=1, descending=True, stable=True)  # (B, W·k)
    in_order = banks.gather(1, order)  # (B, W·k)
    chosen = torch.nn.functional.one_hot(in_order, count)  # (B, W·k, count)
    turn = (chosen.cumsum(dim=1) * chosen).sum(dim=-1) - 1  # (B, W·k) its place in its bank
    key = (turn * count - in_order).double().masked_fill(ranked.gather(1, order).isneginf(), float("inf"))
    return order.gather(1, key.topk(width, dim=1, largest=False).indices)  # (B, W)


def result_slots(ranked: Tensor, wrote_all: Tensor) -> Tensor:
    """Each sentence's result among its W slots (B,): the best `ranked` (B, W) of those that wrote every span
    (`wrote_all` (B, W)), else the first. The slots' order is the banks' turns, not the ranking: the row kept for
    having ended first with every span comes first whatever its score."""
    best = ranked.masked_fill(~wrote_all, float("-inf")).argmax(dim=1)  # (B,)
    return torch.where(wrote_all.any(dim=1), best, 0)


def drop_finished(state, finished: Tensor, width: int, sentences: Tensor, step: int) -> tuple[object, Tensor]:
    """The state and the open sentences (b,) without those whose every row (W each) is `finished`
    (N,): from the next step on they cost the decoder nothing. Reading the flags back waits for
    the device: on CUDA only every 8 steps, as `all_done`."""
    if finished.device.type != "cpu" and step % 8 != 7:
        return state, sentences
    still_open = ~finished.view(-1, width)[sentences].all(dim=1)  # (b,)
    if bool(still_open.all()):
        return state, sentences
    kept = still_open.nonzero()[:, 0]  # (b',)
    return state.keep(kept), sentences[kept]


class SearchTimeout(TimeoutError):
    """The search passed its deadline (a served request's share of time) before every sentence ended."""


def all_done(finished: Tensor, step: int, deadline: float | None) -> bool:
    if deadline is not None and time.monotonic() > deadline:
        raise SearchTimeout(f"search passed its deadline at output step {step + 1}")
    # Reading the flag back waits for the device; on CUDA do it every 8 steps, not every step.
    return (finished.device.type == "cpu" or step % 8 == 7) and bool(finished.all())
