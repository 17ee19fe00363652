"""Batched greedy and beam search over an encoder-decoder (d2l §10.8).

Both stop each sentence at `<eos>` or at its own length limit, never emit `<pad>`/`<bos>`, and
return the attention weights of the chosen hypothesis, so heatmaps work for beam output too.
Sentences never interact: a batch decodes exactly as its sentences would one at a time.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from attention_lab.model import Seq2Seq
from attention_lab.vocab import BOS_ID, EOS_ID, PAD_ID


class Decoded(NamedTuple):
    tokens: Tensor  # (B, T) output ids, `<eos>` included where emitted, `<pad>` after
    lengths: Tensor  # (B,) output tokens per sentence, `<eos>` included
    scores: Tensor  # (B,) log-probability (greedy) or length-normalised log-probability (beam)
    attention: Tensor  # (B, T, S) attention weights of each output token, zero rows after the end


def output_limits(src_len: Tensor, ratio: float, cap: int | None = None) -> Tensor:
    """Maximum output tokens (B,) per sentence: `ceil(ratio * source length)`, at most `cap`."""
    limits = torch.ceil(src_len.double() * ratio).long().clamp(min=1)
    return limits if cap is None else limits.clamp(max=cap)


def length_penalty(lengths: Tensor, alpha: float) -> Tensor:
    """GNMT length penalty `((5 + |Y|) / 6) ** alpha` (Wu et al. 2016, §7)."""
    return ((5.0 + lengths.double()) / 6.0) ** alpha


def _next_candidates(model: Seq2Seq, tokens: Tensor, state, finished: Tensor,
                     k: int) -> tuple[Tensor, Tensor, object, Tensor]:
    """Each row's `k` best next tokens (N, k) with their log-probabilities (N, k).

    The output layer, log-softmax and top-k (the work that grows with the vocabulary) run only
    for unfinished rows; a finished row offers `<pad>` at no cost (then -inf). Taking each row's
    top k before ranking across beams keeps the cross-beam ranking to (N, k).
    """
    features, state, weights = model.decoder.step(tokens, state)  # (N, 1, H), ., (N, 1, S)
    open_rows = (~finished).nonzero()[:, 0]  # (n,)
    logits = model.decoder.output(features[open_rows, 0])  # (n, V)
    # log-softmax of the top k only: logit - logsumexp, without writing an (n, V) result
    normalizer = torch.logsumexp(logits, dim=-1, keepdim=True)  # (n, 1)
    logits[:, [PAD_ID, BOS_ID]] = float("-inf")
    open_logits, open_tokens = logits.topk(k, dim=-1)  # (n, k)
    open_log_probs = open_logits - normalizer
    top_log_probs = torch.full((len(finished), k), float("-inf"), dtype=logits.dtype, device=logits.device)
    top_log_probs[:, 0] = 0.0  # what a finished row offers: <pad> for free
    top_tokens = torch.full_like(top_log_probs, PAD_ID, dtype=torch.long)
    top_log_probs[open_rows], top_tokens[open_rows] = open_log_probs, open_tokens
    return top_log_probs, top_tokens, state, weights[:, 0].float()  # (N, k), (N, k), ., (N, S)


def _all_done(finished: Tensor, step: int) -> bool:
    # Reading the flag back waits for the device; on CUDA do it every 8 steps, not every step.
    return (finished.device.type == "cpu" or step % 8 == 7) and bool(finished.all())


@torch.no_grad()
def greedy_search(model: Seq2Seq, src: Tensor, src_len: Tensor, limits: Tensor) -> Decoded:
    """src (B, S), src_len (B,), limits (B,) maximum output tokens -> `Decoded` (B, T, ...)."""
    batch = src.shape[0]
    limits = limits.to(src.device)
    state = model.encode(src, src_len)
    tokens = torch.full((batch, 1), BOS_ID, device=src.device)
    finished = torch.zeros(batch, dtype=torch.bool, device=src.device)
    lengths = torch.zeros(batch, dtype=torch.long, device=src.device)
    scores = torch.zeros(batch, dtype=torch.float64, device=src.device)  # summed in float64: no drift
    outputs, attention = [], []
    for step in range(int(limits.max())):
        best, tokens, state, weights = _next_candidates(model, tokens, state, finished, k=1)  # (B, 1) each
        attention.append(weights.masked_fill(finished[:, None], 0.0))  # (B, S)
        scores += best[:, 0]
        lengths += ~finished
        outputs.append(tokens[:, 0])
        finished = finished | (tokens[:, 0] == EOS_ID) | (lengths >= limits)
        if _all_done(finished, step):
            break
    return Decoded(torch.stack(outputs, dim=1), lengths, scores, torch.stack(attention, dim=1))


@torch.no_grad()
def beam_search(model: Seq2Seq, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int,
                alpha: float = 0.0) -> Decoded:
    """Beam search keeping `beam_size` hypotheses (K) per sentence, ranked by log-probability
    divided by the GNMT length penalty with `alpha`; a finished hypothesis keeps its score and
    competes with the open ones until every beam is finished or at its limit."""
    batch, beams = src.shape[0], beam_size
    device = src.device
    expand = torch.arange(batch, device=device).repeat_interleave(beams)  # (B·K,)
    state = model.encode(src, src_len).select(expand)
    limits = limits.to(device)[expand]  # (B·K,)
    sums = torch.full((batch, beams), float("-inf"), dtype=torch.float64, device=device)  # running log-probs
    sums[:, 0] = 0.0  # all beams start identical: only the first may expand at step 1
    finished = torch.zeros(batch * beams, dtype=torch.bool, device=device)
    lengths = torch.zeros(batch * beams, dtype=torch.long, device=device)
    tokens = torch.full((batch * beams, 1), BOS_ID, device=device)
    history = torch.zeros(batch * beams, 0, dtype=torch.long, device=device)  # (B·K, t)
    attention = torch.zeros(batch * beams, 0, src.shape[1], device=device)  # (B·K, t, S)
    row_offset = (torch.arange(batch, device=device) * beams)[:, None]  # (B, 1)
    for step in range(int(limits.max())):
        log_probs, next_tokens, state, weights = _next_candidates(model, tokens, state, finished, beams)  # (B·K, K)
        candidates = sums.view(-1, 1) + log_probs  # (B·K, K)
        new_lengths = lengths + ~finished  # (B·K,)
        ranked = candidates / length_penalty(new_lengths, alpha)[:, None]  # (B·K, K)
        _, top = ranked.view(batch, beams * beams).topk(beams, dim=-1)  # (B, K) among K·K
        origin = (row_offset + top // beams).view(-1)  # (B·K,) the beam each survivor extends
        sums = candidates.view(batch, -1).gather(1, top)  # (B, K)
        tokens = next_tokens.view(batch, -1).gather(1, top).view(-1, 1)  # (B·K, 1)
        finished, lengths = finished[origin], new_lengths[origin]
        state = state.select(origin)
        history = torch.cat([history[origin], tokens], dim=1)  # (B·K, t + 1)
        step_weights = weights[origin].masked_fill(finished[:, None], 0.0)  # (B·K, S)
        attention = torch.cat([attention[origin], step_weights[:, None, :]], dim=1)  # (B·K, t + 1, S)
        finished = finished | (tokens[:, 0] == EOS_ID) | (lengths >= limits)
        if _all_done(finished, step):
            break
    final = sums.view(-1) / length_penalty(lengths, alpha)  # (B·K,)
    best = (row_offset[:, 0] + final.view(batch, beams).argmax(dim=-1))  # (B,)
    return Decoded(history[best], lengths[best], final[best], attention[best])


def decode(model: Seq2Seq, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int = 1,
           alpha: float = 0.0) -> Decoded:
    """Greedy search for `beam_size` 1, beam search otherwise."""
    if beam_size == 1:
        return greedy_search(model, src, src_len, limits)
    return beam_search(model, src, src_len, limits, beam_size, alpha)


def ids_to_lists(decoded: Decoded) -> list[list[int]]:
    """Each sentence's output ids, without the `<eos>` and the padding."""
    rows = decoded.tokens.tolist()
    return [[i for i in row[:n] if i != EOS_ID] for row, n in zip(rows, decoded.lengths.tolist())]

