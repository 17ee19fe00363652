"""Batched greedy and beam search over an encoder-decoder (d2l §10.8).

Both stop each sentence at `<eos>` or at its own length limit, never emit `<pad>`, `<bos>` or the
ids in `forbid`, and return the attention weights of the chosen hypothesis, so heatmaps work for
beam output too: the maps' average per step, or with `maps=True` every map (a Transformer's 12
maps per step cost 12 times the memory, so only heatmaps ask for them). Sentences never
interact: a batch decodes exactly as its sentences would one at a time. Scores are
log-probabilities under the model's full distribution: forbidding a token does not renormalise
over the others.

Shapes use the package notation (B sentences, W beam width, N = B·W hypothesis rows, S source
steps, T output steps, V vocabulary, R attention maps per step: 1 for a recurrent decoder, one
per layer and head for the Transformer, or 1 for their average); `n` counts the open rows and
`k` the candidates per row.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import torch
from torch import Tensor

from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID
from attention_lab.model.encoder_decoder import EncoderDecoder, sentence_rows


class Decoded(NamedTuple):
    tokens: Tensor  # (B, T) output ids, `<eos>` included where emitted, `<pad>` after
    lengths: Tensor  # (B,) output tokens per sentence, `<eos>` included
    scores: Tensor  # (B,) log-probability (greedy) or length-normalised log-probability (beam)
    attention: Tensor  # (B, T, R, S) attention weights of each output token, zero after the end; R = 1 (the
    # average) unless the search was asked for every map


def output_limits(src_len: Tensor, ratio: float, cap: int | None = None) -> Tensor:
    """Maximum output tokens (B,) per sentence: `ceil(ratio * source length)`, at most `cap`."""
    limits = torch.ceil(src_len.double() * ratio).long().clamp(min=1)
    return limits if cap is None else limits.clamp(max=cap)


def length_penalty(lengths: Tensor, alpha: float) -> Tensor:
    """GNMT length penalty `((5 + |Y|) / 6) ** alpha` (Wu et al. 2016, §7)."""
    return ((5.0 + lengths.double()) / 6.0) ** alpha


def _banned(model: EncoderDecoder, forbid: tuple[int, ...]) -> list[int]:
    """The ids never emitted: `<pad>`, `<bos>` and `forbid`, checked against the vocabulary."""
    vocab_size = model.decoder.embedding.num_embeddings
    outside = [i for i in forbid if not 0 <= i < vocab_size]
    if outside:
        raise ValueError(f"forbid: token ids {outside} are outside the vocabulary of {vocab_size}")
    banned = sorted({PAD_ID, BOS_ID, *(int(i) for i in forbid)})
    if len(banned) >= vocab_size:
        raise ValueError(f"forbid: no token of the vocabulary of {vocab_size} is left to emit")
    return banned


def _next_candidates(model: EncoderDecoder, tokens: Tensor, state, finished: Tensor, rows: Tensor, k: int,
                     banned: list[int], maps: bool) -> tuple[Tensor, Tensor, object, Tensor]:
    """Each row's `k` best next tokens (N, k) with their log-probabilities (N, k).

    The decoder steps only `rows` (n,), the rows of the sentences still open, which `state`
    holds; the other rows are finished. `k` is at most the number of tokens not `banned`, so
    every candidate of an open row is finite. The output layer, log-softmax and top-k (the work
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
    open_log_probs, open_tokens = log_probs.topk(k, dim=-1)  # (o, k)
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


def _drop_finished(state, finished: Tensor, width: int, sentences: Tensor, step: int) -> tuple[object, Tensor]:
    """The state and the open sentences (b,) without those whose every row (W each) is `finished`
    (N,): from the next step on they cost the decoder nothing. Reading the flags back waits for
    the device: on CUDA only every 8 steps, as `_all_done`."""
    if finished.device.type != "cpu" and step % 8 != 7:
        return state, sentences
    still_open = ~finished.view(-1, width)[sentences].all(dim=1)  # (b,)
    if bool(still_open.all()):
        return state, sentences
    kept = still_open.nonzero()[:, 0]  # (b',)
    return state.keep(kept), sentences[kept]


class SearchTimeout(TimeoutError):
    """The search passed its deadline (a served request's share of time) before every sentence ended."""


def _all_done(finished: Tensor, step: int, deadline: float | None) -> bool:
    if deadline is not None and time.monotonic() > deadline:
        raise SearchTimeout(f"search passed its deadline at output step {step + 1}")
    # Reading the flag back waits for the device; on CUDA do it every 8 steps, not every step.
    return (finished.device.type == "cpu" or step % 8 == 7) and bool(finished.all())


@torch.no_grad()
def greedy_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, *,
                  forbid: tuple[int, ...] = (), deadline: float | None = None, maps: bool = False) -> Decoded:
    """src (B, S), src_len (B,), limits (B,) maximum output tokens -> `Decoded` (B, T, ...).

    `forbid`: token ids never emitted, besides `<pad>` and `<bos>`. `deadline`: a
    `time.monotonic()` after which a step raises `SearchTimeout`. `maps`: keep every attention
    map, not only their average."""
    batch = src.shape[0]
    banned = _banned(model, forbid)
    limits = limits.to(src.device)
    state = model.encode(src, src_len)
    tokens = torch.full((batch, 1), BOS_ID, device=src.device)
    finished = torch.zeros(batch, dtype=torch.bool, device=src.device)
    lengths = torch.zeros(batch, dtype=torch.long, device=src.device)
    scores = torch.zeros(batch, dtype=torch.float64, device=src.device)  # summed in float64: no drift
    outputs, attention = [], []
    sentences = torch.arange(batch, device=src.device)  # (b,) still open, the rows `state` holds
    for step in range(int(limits.max())):
        best, tokens, state, weights = _next_candidates(model, tokens, state, finished, sentences, 1, banned,
                                                        maps)  # (B, 1) each
        attention.append(weights.masked_fill(finished[:, None, None], 0.0))  # (B, R, S)
        scores += best[:, 0]
        lengths += ~finished
        outputs.append(tokens[:, 0])
        finished = finished | (tokens[:, 0] == EOS_ID) | (lengths >= limits)
        if _all_done(finished, step, deadline):
            break
        state, sentences = _drop_finished(state, finished, 1, sentences, step)
    return Decoded(torch.stack(outputs, dim=1), lengths, scores, torch.stack(attention, dim=1))


@torch.no_grad()
def beam_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int,
                alpha: float = 0.0, *, forbid: tuple[int, ...] = (), deadline: float | None = None,
                maps: bool = False) -> Decoded:
    """Beam search keeping `beam_size` hypotheses (W) per sentence, ranked by log-probability
    divided by the GNMT length penalty with `alpha`; a finished hypothesis keeps its score and
    competes with the open ones until every beam is finished or at its limit. `forbid`,
    `deadline` and `maps` as in `greedy_search`.

    Each step keeps its survivors' tokens, weights and the rows they extend; the winners' outputs
    are read back through those pointers at the end, so a step costs the same at the 500th
    output token as at the first (copying every hypothesis's history each step would not).

    A beam may be wider than the tokens there are to emit: slots left without a finite
    hypothesis stay closed at -inf, so they are never extended nor returned."""
    if beam_size < 1:
        raise ValueError(f"beam_size must be at least 1, got {beam_size}")
    banned = _banned(model, forbid)
    batch, width = src.shape[0], beam_size
    k = min(width, model.decoder.embedding.num_embeddings - len(banned))  # candidates per row
    device = src.device
    expand = torch.arange(batch, device=device).repeat_interleave(width)  # (N,)
    state = model.encode(src, src_len).select(expand)  # the source once per sentence, W rows each
    limits = limits.to(device)[expand]  # (N,)
    sums = torch.full((batch, width), float("-inf"), dtype=torch.float64, device=device)  # running log-probs
    sums[:, 0] = 0.0
    # All beams start identical: only the first is open, the others start closed at -inf. An open
    # row's k candidates are all finite, so a survivor at -inf always descends from a closed row
    # (a slot left over when the beam is wider than what there is to emit): it stays closed.
    finished = (torch.arange(batch * width, device=device) % width) != 0  # (N,)
    lengths = torch.zeros(batch * width, dtype=torch.long, device=device)
    tokens = torch.full((batch * width, 1), BOS_ID, device=device)
    origins, outputs, attention = [], [], []  # per step: (N,) row extended, (N,) token, (N, R, S) weights
    row_offset = (torch.arange(batch, device=device) * width)[:, None]  # (B, 1)
    sentences = torch.arange(batch, device=device)  # (b,) still open, whose rows `state` holds
    local = torch.empty(batch * width, dtype=torch.long, device=device)  # a row's place among the rows held
    for step in range(int(limits.max())):
        rows = sentence_rows(sentences, width)  # (n,)
        log_probs, next_tokens, state, weights = _next_candidates(model, tokens, state, finished, rows, k,
                                                                  banned, maps)  # (N, k), (N, k), ., (N, R, S)
        candidates = sums.view(-1, 1) + log_probs  # (N, k)
        new_lengths = lengths + ~finished  # (N,)
        ranked = candidates / length_penalty(new_lengths, alpha)[:, None]  # (N, k)
        _, top = ranked.view(batch, width * k).topk(width, dim=-1)  # (B, W) among W·k
        origin = (row_offset + top // k).view(-1)  # (N,) the row each survivor extends
        sums = candidates.view(batch, width * k).gather(1, top)  # (B, W)
        tokens = next_tokens.view(batch, width * k).gather(1, top).view(-1, 1)  # (N, 1)
        finished, lengths = finished[origin], new_lengths[origin]
        local[rows] = torch.arange(len(rows), device=device)
        state = state.select(local[origin[rows]])  # survivors never leave their sentence
        origins.append(origin)
        outputs.append(tokens[:, 0])
        attention.append(weights[origin].masked_fill(finished[:, None, None], 0.0))  # (N, R, S)
        finished = finished | (tokens[:, 0] == EOS_ID) | (lengths >= limits)
        if _all_done(finished, step, deadline):
            break
        state, sentences = _drop_finished(state, finished, width, sentences, step)
    final = sums.view(-1) / length_penalty(lengths, alpha)  # (N,)
    best = row_offset[:, 0] + final.view(batch, width).argmax(dim=-1)  # (B,)
    rows, tokens_back, weights_back = best, [], []
    for origin, step_tokens, step_weights in zip(reversed(origins), reversed(outputs), reversed(attention)):
        tokens_back.append(step_tokens[rows])
        weights_back.append(step_weights[rows])
        rows = origin[rows]  # the winners' rows one step earlier
    return Decoded(torch.stack(tokens_back[::-1], dim=1), lengths[best], final[best],
                   torch.stack(weights_back[::-1], dim=1))  # (B, T), ., ., (B, T, R, S)


def run_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int = 1,
               alpha: float = 0.0, *, forbid: tuple[int, ...] = (), deadline: float | None = None,
               maps: bool = False) -> Decoded:
    """Greedy search for `beam_size` 1, beam search otherwise; `forbid`, `deadline` and `maps` as in both."""
    if beam_size == 1:
        return greedy_search(model, src, src_len, limits, forbid=forbid, deadline=deadline, maps=maps)
    return beam_search(model, src, src_len, limits, beam_size, alpha, forbid=forbid, deadline=deadline, maps=maps)
