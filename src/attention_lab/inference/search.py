"""Batched greedy and beam search over an encoder-decoder (d2l §10.8).

Both stop each sentence at `<eos>` or at its own length limit, never emit `<pad>`, `<bos>` or the
ids in `forbid`, and return the attention weights of the chosen hypothesis, so heatmaps work for
beam output too: the maps' average per step, or with `maps=True` every map (a Transformer's 12
maps per step cost 12 times the memory, so only heatmaps ask for them). Sentences never
interact: a batch decodes exactly as its sentences would one at a time. Scores are
log-probabilities under the model's full distribution: forbidding a token does not renormalise
over the others.

Options that make a search finish the sentence (long sources came out short, measured in
docs/search.md): GNMT's length and coverage penalties (Wu et al. 2016, §7) rank beam hypotheses;
`min_len_ratio` forbids `<eos>` before a share of the source length.

Shapes use the package notation (B sentences, W beam width, N = B·W hypothesis rows, S source
steps, T output steps, V vocabulary, R attention maps per step: 1 for a recurrent decoder, one
per layer and head for the Transformer, or 1 for their average); `n` counts the open rows and
`k` the candidates per row.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID
from attention_lab.inference.constraints import SearchConstraint
from attention_lab.inference.search_steps import (Decoded, all_done, allocated, banned_ids, coverage_penalty,
                                                  drop_finished, length_penalty, minimum_lengths, next_candidates,
                                                  result_slots, source_words)
from attention_lab.model.encoder_decoder import EncoderDecoder, sentence_rows


def _read_back(origins: list[Tensor], outputs: list[Tensor], attention: list[Tensor], rows: Tensor,
               lengths: Tensor) -> tuple[Tensor, Tensor]:
    """The outputs (B, T) and attention (B, T, R, S) of the hypotheses in `rows` (B,) after the last
    step, read back through each step's pointers: `origins` (N,) the row each row extends, `outputs`
    (N,) its token, `attention` (N, R, S) by the row extended. Steps from `lengths` (B,) on are
    `<pad>` with zero attention."""
    tokens_back, weights_back = [], []
    for step in reversed(range(len(origins))):
        tokens_back.append(outputs[step][rows])
        rows = origins[step][rows]
        weights_back.append(attention[step][rows])
    steps = torch.arange(len(origins), device=rows.device)
    after = steps[None, :] >= lengths[:, None]  # (B, T)
    tokens = torch.stack(tokens_back[::-1], dim=1).masked_fill(after, PAD_ID)  # (B, T)
    weights = torch.stack(weights_back[::-1], dim=1).masked_fill(after[:, :, None, None], 0.0)  # (B, T, R, S)
    return tokens, weights


@torch.no_grad()
def beam_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int,
                alpha: float = 0.0, *, coverage: float = 0.0, min_len_ratio: float = 0.0,
                forbid: tuple[int, ...] = (), deadline: float | None = None, maps: bool = False,
                constraints: SearchConstraint | None = None) -> Decoded:
    """src (B, S), src_len (B,), limits (B,) maximum output tokens -> `Decoded` (B, T, ...).

    Beam search keeping `beam_size` hypotheses (W) per sentence, ranked by log-probability divided by
    the GNMT length penalty with `alpha`, plus the GNMT coverage penalty with beta `coverage` (0: not
    computed); a beam of one is greedy search. `min_len_ratio`: `<eos>` is forbidden before
    `minimum_lengths` tokens. `forbid`: token ids never emitted, besides `<pad>` and `<bos>`.
    `deadline`: a `time.monotonic()` after which a step raises `SearchTimeout`. `maps`: keep every
    attention map, not only their average. `constraints`: the spans each sentence must write
    (`number_constraint.py`, `term_constraint.py`), W rows a sentence.

    As in d2l (§10.8), a finished hypothesis keeps its beam slot and its score and competes with the
    open ones until every slot is finished or at its limit; the best slot is the result.

    With `constraints`, the candidates are ranked in turns by how many of the sentence's spans they wrote
    (`search_steps.allocated`) until one ends with all of them written (then the beam ranks as without
    spans, but the best that ended so keeps its slot), and the result is the best that wrote all.

    Each step keeps its survivors' tokens, the rows they extend and the attention of the rows
    extended; the winners' outputs are read back through those pointers at the end, so a step
    costs the same at the 500th output token as at the first (copying every hypothesis's history
    each step would not).

    A beam may be wider than the tokens there are to emit: slots left without a finite
    hypothesis stay closed at -inf, so they are never extended nor returned."""
    if beam_size < 1:
        raise ValueError(f"beam_size must be at least 1, got {beam_size}")
    banned = banned_ids(model, forbid, min_len_ratio)
    batch, width = src.shape[0], beam_size
    k = min(width, model.decoder.embedding.num_embeddings - len(banned))  # candidates per row
    device = src.device
    expand = torch.arange(batch, device=device).repeat_interleave(width)  # (N,)
    state = model.encode(src, src_len).select(expand)  # the source once per sentence, W rows each
    src_len = src_len.to(device)
    limits = limits.to(device)[expand]  # (N,)
    min_lens = minimum_lengths(src_len[expand], min_len_ratio, limits) if min_len_ratio > 0 else None  # (N,)
    if coverage > 0:
        words = source_words(src_len, src.shape[1])[expand]  # (N, S)
        covered = torch.zeros(batch * width, src.shape[1], device=device)  # (N, S) attention received so far
    sums = torch.full((batch, width), float("-inf"), dtype=torch.float64, device=device)  # running log-probs
    sums[:, 0] = 0.0
    # All beams start identical: only the first is open, the others start closed at -inf. A
    # survivor at -inf (a slot left over when the beam is wider than what there is to emit, or
    # `<eos>` forbidden below the minimum length) is closed too: it is never extended.
    finished = (torch.arange(batch * width, device=device) % width) != 0  # (N,)
    lengths = torch.zeros(batch * width, dtype=torch.long, device=device)
    tokens = torch.full((batch * width, 1), BOS_ID, device=device)
    origins, outputs, attention = [], [], []  # per step: (N,) row extended, (N,) token, (N, R, S) by row extended
    row_offset = (torch.arange(batch, device=device) * width)[:, None]  # (B, 1)
    sentences = torch.arange(batch, device=device)  # (b,) still open, whose rows `state` holds
    local = torch.empty(batch * width, dtype=torch.long, device=device)  # a row's place among the rows held
    for step in range(int(limits.max())):
        rows = sentence_rows(sentences, width)  # (n,)
        no_eos = None if min_lens is None else lengths < min_lens  # (N,)
        # (N, k) each (k + P with `constraints`: a row's best span symbol of each of P besides), ., (N, R, S)
        log_probs, next_tokens, state, weights = next_candidates(model, tokens, state, finished, rows, k, banned,
                                                                  maps, no_eos, constraints)
        attention.append(weights)
        candidates = sums.view(-1, 1) + log_probs  # (N, k)
        new_lengths = lengths + ~finished  # (N,)
        ranked = candidates / length_penalty(new_lengths, alpha)[:, None]  # (N, k)
        if coverage > 0:
            new_covered = covered + weights.mean(dim=1) * (~finished)[:, None]  # (N, S)
            ranked = ranked + coverage_penalty(new_covered, words, coverage)[:, None]
        spans = constraints is not None and constraints.most > 0
        banks = constraints.banks(next_tokens).view(batch, -1) if spans else None  # (B, W·k)
        if banks is not None:  # once one ended with every span written, the beam ranks as without spans but for
            # the best that ended so, which keeps a bank of its own: likelier open rows, which may never write the
            # spans (a number is held until its turn) or may end without them (a glossary's terms, `release`d),
            # never crowd it out.
            ended = (finished & constraints.wrote_all()).view(batch, width)  # (B, W)
            best_ended = ranked.view(batch, width, -1)[:, :, 0].masked_fill(~ended, float("-inf")).argmax(dim=1)  # (B,)
            own = torch.zeros_like(banks)  # (B, W·k): its one candidate, `<pad>`, first of its row's
            own[torch.arange(batch, device=device), best_ended * log_probs.shape[1]] = 1
            done = ended.any(dim=1, keepdim=True)  # (B, 1)
            banks = torch.where(done, own, banks)
            constraints.release(done[:, 0])
        if banks is None:
            top_ranked, top = ranked.view(batch, -1).topk(width, dim=-1)  # (B, W) among W·k, best first
        else:  # the banks take turns, best first in each (dynamic beam allocation)
            top = allocated(ranked.view(batch, -1), banks, 2 * constraints.most + 1, width)  # (B, W)
            top_ranked = ranked.view(batch, -1).gather(1, top)
        origin = (row_offset + top // log_probs.shape[1]).view(-1)  # (N,) the row each survivor extends
        sums = candidates.view(batch, -1).gather(1, top)  # (B, W)
        tokens = next_tokens.view(batch, -1).gather(1, top).view(-1, 1)  # (N, 1)
        lengths = new_lengths[origin]
        finished = finished[origin] | (tokens[:, 0] == EOS_ID) | (lengths >= limits) | sums.view(-1).isneginf()
        if coverage > 0:
            covered = new_covered[origin]
        if constraints is not None:
            constraints.advance(origin, tokens[:, 0])
        local[rows] = torch.arange(len(rows), device=device)
        state = state.select(local[origin[rows]])  # survivors never leave their sentence
        origins.append(origin)
        outputs.append(tokens[:, 0])
        if all_done(finished, step, deadline):
            break
        state, sentences = drop_finished(state, finished, width, sentences, step)
    # The best slot (ranked best first), of those that wrote every span if any; read back from the last step.
    slot = torch.zeros(batch, dtype=torch.long, device=device)
    if constraints is not None:
        slot = result_slots(top_ranked, constraints.wrote_all().view(batch, width))  # (B,)
    best = row_offset[:, 0] + slot  # (B,)
    tokens, weights = _read_back(origins, outputs, attention, best, lengths[best])  # (B, T), (B, T, R, S)
    return Decoded(tokens, lengths[best], top_ranked.gather(1, slot[:, None])[:, 0], weights)


def run_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int = 1,
               alpha: float = 0.0, *, coverage: float = 0.0, min_len_ratio: float = 0.0,
               forbid: tuple[int, ...] = (), deadline: float | None = None, maps: bool = False,
               constraints: SearchConstraint | None = None) -> Decoded:
    """Beam search, greedy for `beam_size` 1 (d2l §10.8): the likeliest allowed token at each step, its
    score the log-probability (the penalties are for ranking hypotheses, and greedy has one)."""
    if beam_size == 1:
        alpha = coverage = 0.0
    return beam_search(model, src, src_len, limits, beam_size, alpha, coverage=coverage, min_len_ratio=min_len_ratio,
                       forbid=forbid, deadline=deadline, maps=maps, constraints=constraints)
