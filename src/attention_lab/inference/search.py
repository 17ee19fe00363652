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
`min_len_ratio` forbids `<eos>` before a share of the source length; `keep_live` keeps W open
hypotheses per sentence and moves finished ones to a pool, as fairseq does (Ott et al. 2019),
instead of letting them hold beam slots.

Shapes use the package notation (B sentences, W beam width, N = B·W hypothesis rows, S source
steps, T output steps, V vocabulary, R attention maps per step: 1 for a recurrent decoder, one
per layer and head for the Transformer, or 1 for their average); `n` counts the open rows and
`k` the candidates per row.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID
from attention_lab.inference.number_constraint import NumberConstraint
from attention_lab.inference.search_steps import (
    Decoded,
    all_done,
    banned_ids,
    coverage_penalty,
    drop_finished,
    length_penalty,
    minimum_lengths,
    allocated,
    next_candidates,
    source_words,
)
from attention_lab.model.encoder_decoder import EncoderDecoder, sentence_rows


@torch.no_grad()
def greedy_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, *, min_len_ratio: float = 0.0,
                  forbid: tuple[int, ...] = (), deadline: float | None = None, maps: bool = False,
                  numbers: NumberConstraint | None = None) -> Decoded:
    """src (B, S), src_len (B,), limits (B,) maximum output tokens -> `Decoded` (B, T, ...).

    `min_len_ratio`: `<eos>` is forbidden before `minimum_lengths` tokens. `forbid`: token ids
    never emitted, besides `<pad>` and `<bos>`. `deadline`: a `time.monotonic()` after which a
    step raises `SearchTimeout`. `maps`: keep every attention map, not only their average.
    `numbers`: the digits each sentence may write (`number_constraint.py`), one row a sentence."""
    batch = src.shape[0]
    banned = banned_ids(model, forbid, min_len_ratio)
    limits = limits.to(src.device)
    min_lens = minimum_lengths(src_len.to(src.device), min_len_ratio, limits) if min_len_ratio > 0 else None
    state = model.encode(src, src_len)
    tokens = torch.full((batch, 1), BOS_ID, device=src.device)
    finished = torch.zeros(batch, dtype=torch.bool, device=src.device)
    lengths = torch.zeros(batch, dtype=torch.long, device=src.device)
    scores = torch.zeros(batch, dtype=torch.float64, device=src.device)  # summed in float64: no drift
    outputs, attention = [], []
    sentences = torch.arange(batch, device=src.device)  # (b,) still open, the rows `state` holds
    for step in range(int(limits.max())):
        no_eos = None if min_lens is None else lengths < min_lens  # (B,)
        best, tokens, state, weights = next_candidates(model, tokens, state, finished, sentences, 1, banned,
                                                        maps, no_eos, numbers)  # (B, 1) each
        if numbers is not None:
            numbers.advance(torch.arange(batch, device=src.device), tokens[:, 0])
        attention.append(weights.masked_fill(finished[:, None, None], 0.0))  # (B, R, S)
        scores += best[:, 0]
        lengths += ~finished
        outputs.append(tokens[:, 0])
        finished = finished | (tokens[:, 0] == EOS_ID) | (lengths >= limits)
        if all_done(finished, step, deadline):
            break
        state, sentences = drop_finished(state, finished, 1, sentences, step)
    return Decoded(torch.stack(outputs, dim=1), lengths, scores, torch.stack(attention, dim=1))


class _Pool:
    """The finished hypotheses of `keep_live` beam search: each sentence's `width` best so far,
    best first (by bank first: `NumberConstraint.banks`), each as its score, the step that ended it, the
    row it extended at that step and its last token; -inf scores are empty places."""

    def __init__(self, batch: int, width: int, device: torch.device) -> None:
        self.scores = torch.full((batch, width), float("-inf"), dtype=torch.float64, device=device)
        self.steps = torch.zeros(batch, width, dtype=torch.long, device=device)
        self.parents = torch.zeros(batch, width, dtype=torch.long, device=device)
        self.tokens = torch.zeros(batch, width, dtype=torch.long, device=device)
        self.banks = torch.full((batch, width), -1, dtype=torch.long, device=device)

    def full(self) -> Tensor:
        """(B,) whether a sentence has `width` finished hypotheses: by fairseq's rule it is done."""
        return self.scores[:, -1].isfinite()

    def add(self, scores: Tensor, step: int, parents: Tensor, tokens: Tensor, banks: Tensor) -> None:
        """Candidates (B, C) ending at `step` (-inf: none) in `banks` (B, C) join the pool, which keeps the best
        `width`: of the highest bank, then by score."""
        width = self.scores.shape[1]
        merged = torch.cat([self.scores, scores], dim=1)  # (B, W + C)
        banks = torch.cat([self.banks, banks], dim=1).masked_fill(merged.isneginf(), -1)  # an empty place: last
        by_score = merged.argsort(dim=1, descending=True, stable=True)  # (B, W + C)
        best = by_score.gather(1, banks.gather(1, by_score).argsort(dim=1, descending=True, stable=True))[:, :width]
        self.scores, self.banks = merged.gather(1, best), banks.gather(1, best)  # (B, W)
        self.steps = torch.cat([self.steps, torch.full_like(parents, step)], dim=1).gather(1, best)
        self.parents = torch.cat([self.parents, parents], dim=1).gather(1, best)
        self.tokens = torch.cat([self.tokens, tokens], dim=1).gather(1, best)


def _read_back(origins: list[Tensor], outputs: list[Tensor], attention: list[Tensor], ends: Tensor,
               parents: Tensor, last: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
    """The outputs (B, T) and attention (B, T, R, S) of the hypotheses that emit `last` (B,) at step
    `ends` (B,), extending the rows `parents` (B,), read back through each step's pointers:
    `origins` (N,) the row each row extends, `outputs` (N,) its token, `attention` (N, R, S) by the
    row extended. Steps from `lengths` (B,) on are `<pad>` with zero attention."""
    tokens_back, weights_back = [], []
    for step in reversed(range(len(origins))):
        before = ends > step  # (B,) the hypothesis passed this step as a row
        tokens_back.append(torch.where(before, outputs[step][parents], last))
        parents = torch.where(before, origins[step][parents], parents)
        weights_back.append(attention[step][parents])
    steps = torch.arange(len(origins), device=ends.device)
    after = steps[None, :] >= lengths[:, None]  # (B, T)
    tokens = torch.stack(tokens_back[::-1], dim=1).masked_fill(after, PAD_ID)  # (B, T)
    weights = torch.stack(weights_back[::-1], dim=1).masked_fill(after[:, :, None, None], 0.0)  # (B, T, R, S)
    return tokens, weights


@torch.no_grad()
def beam_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int,
                alpha: float = 0.0, *, coverage: float = 0.0, min_len_ratio: float = 0.0, keep_live: bool = False,
                forbid: tuple[int, ...] = (), deadline: float | None = None, maps: bool = False,
                numbers: NumberConstraint | None = None) -> Decoded:
    """Beam search keeping `beam_size` hypotheses (W) per sentence, ranked by log-probability
    divided by the GNMT length penalty with `alpha`, plus the GNMT coverage penalty with beta
    `coverage` (0: not computed). `min_len_ratio`, `forbid`, `deadline`, `maps` and `numbers` (W
    rows a sentence) as in `greedy_search`.

    How finished hypotheses are kept. By default (d2l, §10.8) a finished hypothesis keeps its beam
    slot and its score and competes with the open ones until every slot is finished or at its
    limit; the best slot is the result. With `keep_live` (fairseq, Ott et al. 2019) each step
    ranks the 2W best candidates of a sentence: those among the first W that end (`<eos>` or the
    limit) join the sentence's pool of its W best finished hypotheses, and the W best that do not
    end stay live, so finished hypotheses never crowd open ones out of the beam. A sentence is
    done when its pool holds W hypotheses (fairseq's rule: a live hypothesis could still score
    higher, but waiting for it costs steps on every sentence) or, at its limit, when every live
    hypothesis ended; the result is the pool's best.

    With `numbers`, the candidates are ranked in turns by how many of the sentence's spans they wrote
    (`search_steps.allocated`) until one ends with all of them written (then the beam ranks as without
    spans, and a sentence takes no more steps than it would), and the result is the best that wrote all.

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
    ranked_width = 2 * width if keep_live else width  # candidates ranked per sentence
    k = min(ranked_width, model.decoder.embedding.num_embeddings - len(banned))  # candidates per row
    taken = min(ranked_width, width * k)  # C, candidates kept per sentence
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
    pool = _Pool(batch, width, device) if keep_live else None
    for step in range(int(limits.max())):
        rows = sentence_rows(sentences, width)  # (n,)
        no_eos = None if min_lens is None else lengths < min_lens  # (N,)
        # (N, k) each (k + 1 with `numbers`: a row's best digit or placeholder besides), ., (N, R, S)
        log_probs, next_tokens, state, weights = next_candidates(model, tokens, state, finished, rows, k, banned,
                                                                  maps, no_eos, numbers)
        attention.append(weights)
        candidates = sums.view(-1, 1) + log_probs  # (N, k)
        new_lengths = lengths + ~finished  # (N,)
        ranked = candidates / length_penalty(new_lengths, alpha)[:, None]  # (N, k)
        if coverage > 0:
            new_covered = covered + weights.mean(dim=1) * (~finished)[:, None]  # (N, S)
            ranked = ranked + coverage_penalty(new_covered, words, coverage)[:, None]
        spans = numbers is not None and numbers.most > 0
        banks = numbers.banks(next_tokens).view(batch, -1) if spans else None  # (B, W·k)
        if banks is not None:  # once one ended with every span written, the beam ranks as without spans
            banks = banks.masked_fill((finished & numbers.wrote_all()).view(batch, width).any(1, keepdim=True), 0)
        if banks is None:
            top_ranked, top = ranked.view(batch, -1).topk(taken, dim=-1)  # (B, C) among W·k, best first
        else:  # the banks take turns, best first in each (dynamic beam allocation)
            top = allocated(ranked.view(batch, -1), banks, 2 * numbers.most + 1, taken)  # (B, C)
            top_ranked = ranked.view(batch, -1).gather(1, top)
        origin = row_offset + top // log_probs.shape[1]  # (B, C) the row each candidate extends
        top_sums = candidates.view(batch, -1).gather(1, top)  # (B, C)
        top_tokens = next_tokens.view(batch, -1).gather(1, top)  # (B, C)
        if pool is not None:
            ending = (top_tokens == EOS_ID) | (new_lengths[origin] >= limits[origin])  # (B, C)
            was_full = pool.full()[:, None]  # (B, 1): a done sentence's pool no longer changes
            first_w = torch.arange(taken, device=device) < width  # (C,)
            pool.add(top_ranked.masked_fill(~(ending & first_w) | was_full, float("-inf")), step, origin, top_tokens,
                     torch.zeros_like(top) if banks is None else banks.gather(1, top))
            # The W best candidates that do not end stay live, in rank order (C >= W); too few: -inf, closed.
            live = (ending.long() * taken + torch.arange(taken, device=device)).argsort(dim=1)[:, :width]  # (B, W)
            origin = origin.gather(1, live).view(-1)  # (N,)
            sums = top_sums.gather(1, live).masked_fill(ending.gather(1, live), float("-inf"))  # (B, W)
            tokens = top_tokens.gather(1, live).view(-1, 1)  # (N, 1)
            lengths = new_lengths[origin]
            finished = (sums.isneginf() | pool.full()[:, None]).view(-1)  # (N,)
        else:
            origin = origin.view(-1)  # (N,), C = W
            sums, tokens = top_sums, top_tokens.view(-1, 1)  # (B, W), (N, 1)
            lengths = new_lengths[origin]
            finished = finished[origin] | (tokens[:, 0] == EOS_ID) | (lengths >= limits) | sums.view(-1).isneginf()
        if coverage > 0:
            covered = new_covered[origin]
        if numbers is not None:
            numbers.advance(origin, tokens[:, 0])
        local[rows] = torch.arange(len(rows), device=device)
        state = state.select(local[origin[rows]])  # survivors never leave their sentence
        origins.append(origin)
        outputs.append(tokens[:, 0])
        if all_done(finished, step, deadline):
            break
        state, sentences = drop_finished(state, finished, width, sentences, step)
    if pool is not None:  # the pool's best; its length is the step that ended it
        scores, ends, parents, last = pool.scores[:, 0], pool.steps[:, 0], pool.parents[:, 0], pool.tokens[:, 0]
        best_lengths = ends + 1
    else:  # the best slot (ranked best first), of those that wrote every span if any; read from the last step
        slot = torch.zeros(batch, dtype=torch.long, device=device)
        if numbers is not None:
            wrote_all = numbers.wrote_all().view(batch, width)  # (B, W)
            slot = torch.where(wrote_all.any(dim=1), wrote_all.long().argmax(dim=1), 0)  # (B,)
        best = row_offset[:, 0] + slot  # (B,)
        scores, parents, last, best_lengths = top_ranked.gather(1, slot[:, None])[:, 0], origins[-1][best], \
            outputs[-1][best], lengths[best]
        ends = torch.full_like(best, len(origins) - 1)
    tokens, weights = _read_back(origins, outputs, attention, ends, parents, last, best_lengths)
    return Decoded(tokens, best_lengths, scores, weights)  # (B, T), ., ., (B, T, R, S)


def run_search(model: EncoderDecoder, src: Tensor, src_len: Tensor, limits: Tensor, beam_size: int = 1,
               alpha: float = 0.0, *, coverage: float = 0.0, min_len_ratio: float = 0.0, keep_live: bool = False,
               forbid: tuple[int, ...] = (), deadline: float | None = None, maps: bool = False,
               numbers: NumberConstraint | None = None) -> Decoded:
    """Greedy search for `beam_size` 1, beam search otherwise; the options as in both. Greedy
    search ignores `coverage` and `keep_live`: all its candidates extend one hypothesis, so a
    coverage penalty ranks them as their log-probabilities do, and it has no beam to keep."""
    if beam_size == 1:
        return greedy_search(model, src, src_len, limits, min_len_ratio=min_len_ratio, forbid=forbid,
                             deadline=deadline, maps=maps, numbers=numbers)
    return beam_search(model, src, src_len, limits, beam_size, alpha, coverage=coverage, min_len_ratio=min_len_ratio,
                       keep_live=keep_live, forbid=forbid, deadline=deadline, maps=maps, numbers=numbers)
