"""Tests for greedy and beam search (attention_lab.inference.search).

Search results are checked against an independent path: every output sequence the search could
produce is enumerated here and scored by teacher forcing (`model(src, src_len, tgt_in)` on one
sentence at a time, never the search code). The target vocabulary is tiny (ids 0-3 reserved,
two words), so enumeration is exhaustive, and the model is a real, seeded `Seq2Seq` or, for
decoder "transformer", a real `TransformerSeq2Seq` decoding from its key-value cache.
"""

from __future__ import annotations

import itertools
import math
import time

import pytest
import torch

from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from attention_lab.inference.search import beam_search, run_search
from attention_lab.inference.search_steps import (
    SearchTimeout,
    coverage_penalty,
    length_penalty,
    next_candidates,
    output_limits,
    source_words,
)
from attention_lab.model.seq2seq import ModelParams, build_model
from attention_lab.model.transformer import TransformerParams

SRC_V, TGT_V = 9, 6  # target ids: <pad> <bos> <eos> <unk> and the words 4, 5
WORDS = (4, 5)
LENGTHS = (5, 2, 4)  # unequal source lengths: rows 1 and 2 are padded
LIMITS = torch.tensor([3, 2, 3])  # per-sentence output limits, unequal too


DECODERS = ["bahdanau", "luong", "transformer"]
TINY_TRANSFORMER = TransformerParams(layers=2, heads=2, model_size=8, ffn_size=16, dropout=0.0)


# Seed 7 (5 for the Transformer) gives sentences where greedy misses the most likely output and
# where the length penalty changes the best output (both asserted below), so a beam that
# degenerates into greedy search, or ranks without the penalty, is caught.
def make_model(decoder="bahdanau", attention="additive", rnn="gru", bidirectional=False, seed=None):
    torch.manual_seed((5 if decoder == "transformer" else 7) if seed is None else seed)
    if decoder == "transformer":
        params = ModelParams(arch="transformer", transformer=TINY_TRANSFORMER)
    else:
        params = ModelParams(rnn=rnn, embed_size=8, hidden_size=8, num_layers=1, dropout=0.0,
                             bidirectional=bidirectional, decoder=decoder, attention=attention)
    model = build_model(params, SRC_V, TGT_V).double().eval()
    with torch.no_grad():
        model.decoder.output.linear.weight *= 4  # sharper next-token distributions: search matters
        model.decoder.output.linear.bias[EOS_ID] -= 2.0  # outputs often run past one token
    return model


def batch(lengths=LENGTHS, seed=1) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded sources (B, S) of unequal lengths and their lengths (B,)."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, SRC_V, (len(lengths), max(lengths)), generator=g)
    for row, n in enumerate(lengths):
        src[row, n:] = PAD_ID
    return src, torch.tensor(lengths)


def allowed(forbid=()) -> tuple[int, ...]:
    """What a search may emit: never <pad> or <bos>, nor the forbidden ids."""
    return tuple(t for t in (EOS_ID, UNK_ID, *WORDS) if t not in forbid)


def hypotheses(limit: int, tokens: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every finished output: ends at its first <eos>, or reaches `limit` tokens."""
    out = []
    for length in range(1, limit + 1):
        for seq in itertools.product(tokens, repeat=length):
            if EOS_ID not in seq[:-1] and (seq[-1] == EOS_ID or length == limit):
                out.append(seq)
    return out


def step_log_probs(model, src_row, n, seqs) -> torch.Tensor:
    """Teacher-forced log-probabilities (M, T, V) of each step of each sequence, for the source
    `src_row[:n]` alone (no padding). Padding after a short sequence cannot reach earlier steps."""
    steps = max(map(len, seqs))
    tgt_in = torch.full((len(seqs), steps), PAD_ID)
    tgt_in[:, 0] = BOS_ID
    for r, seq in enumerate(seqs):
        tgt_in[r, 1 : len(seq)] = torch.tensor(seq[:-1], dtype=torch.long)
    src = src_row[None, :n].expand(len(seqs), n)
    with torch.no_grad():
        return model(src, torch.full((len(seqs),), n), tgt_in).log_softmax(-1)


def log_prob(model, src_row, n, seqs) -> torch.Tensor:
    """log p(seq | source) (M,) by teacher forcing, summed over each sequence's own steps."""
    lp = step_log_probs(model, src_row, n, seqs)
    return torch.stack([lp[r, range(len(seq)), list(seq)].sum() for r, seq in enumerate(seqs)])


def penalty(length: int, alpha: float) -> float:
    return ((5 + length) / 6) ** alpha  # GNMT, Wu et al. 2016 §7


def outputs(decoded) -> list[tuple[int, ...]]:
    """Each row's output up to its length, <eos> included."""
    return [tuple(decoded.tokens[r, :n].tolist()) for r, n in enumerate(decoded.lengths.tolist())]


def check_well_formed(decoded, limits, forbid=()) -> None:
    for row, n in enumerate(decoded.lengths.tolist()):
        tokens = decoded.tokens[row].tolist()
        assert 1 <= n <= limits[row]
        assert set(tokens[:n]) <= set(allowed(forbid))  # never <pad>, <bos> or a forbidden id
        assert EOS_ID not in tokens[: n - 1]  # <eos> only ever last
        assert tokens[n - 1] == EOS_ID or n == limits[row]  # stopped for a reason
        assert all(t == PAD_ID for t in tokens[n:])
        assert (decoded.attention[row, n:] == 0).all()
    assert decoded.scores.isfinite().all()


# ---------------------------------------------------------------------------------------------
# Greedy: the most likely allowed token at every step, and the log-probability of what it returns.


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("forbid", [(), (UNK_ID,)], ids=["all", "no-unk"])
def test_greedy_takes_the_best_allowed_token_and_reports_its_log_probability(decoder, forbid):
    model = make_model(decoder)
    src, src_len = batch()
    greedy = run_search(model, src, src_len, LIMITS, forbid=forbid)
    check_well_formed(greedy, LIMITS.tolist(), forbid)
    for row, seq in enumerate(outputs(greedy)):
        n = int(src_len[row])
        lp = step_log_probs(model, src[row], n, [seq])[0]  # (T, V)
        for t, token in enumerate(seq):
            assert token == max(allowed(forbid), key=lambda c: lp[t, c].item())
        # Scores are log-probabilities under the full softmax: forbidding does not renormalise.
        torch.testing.assert_close(greedy.scores[row], log_prob(model, src[row], n, [seq])[0], rtol=0, atol=1e-10)


# ---------------------------------------------------------------------------------------------
# Beam search against exhaustive search.


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("alpha", [0.0, 0.6])
@pytest.mark.parametrize("forbid", [(), (UNK_ID,)], ids=["all", "no-unk"])
def test_a_beam_as_wide_as_every_hypothesis_finds_the_exhaustive_optimum(decoder, alpha, forbid):
    model = make_model(decoder)
    src, src_len = batch()
    tokens = allowed(forbid)
    width = len(hypotheses(int(LIMITS.max()), tokens))  # enough to keep every hypothesis alive
    beam = beam_search(model, src, src_len, LIMITS, beam_size=width, alpha=alpha, forbid=forbid)
    greedy = run_search(model, src, src_len, LIMITS, forbid=forbid)
    check_well_formed(beam, LIMITS.tolist(), forbid)
    greedy_missed, penalty_mattered = [], []
    for row, (found, greedy_seq) in enumerate(zip(outputs(beam), outputs(greedy))):
        n, limit = int(src_len[row]), int(LIMITS[row])
        candidates = hypotheses(limit, tokens)
        scores = log_prob(model, src[row], n, candidates)
        ranked = [s / penalty(len(seq), alpha) for s, seq in zip(scores.tolist(), candidates)]
        best = max(range(len(candidates)), key=ranked.__getitem__)
        assert found == candidates[best]
        torch.testing.assert_close(beam.scores[row].item(), ranked[best], rtol=0, atol=1e-10)
        penalty_mattered.append(best != int(scores.argmax()))
        if alpha == 0.0:  # log-probabilities: the optimum is at least as likely as greedy's output
            greedy_score = log_prob(model, src[row], n, [greedy_seq])[0].item()
            assert ranked[best] >= greedy_score - 1e-12
            greedy_missed.append(ranked[best] > greedy_score + 1e-9)
    if alpha == 0.0:
        assert any(greedy_missed)  # the model is one where searching wider pays off
    else:
        assert any(penalty_mattered)  # and one where the length penalty changes the answer


def reference_beam(model, src_row, n, limit, width, alpha, rank_alpha=None, tokens=allowed()):
    """Beam search as the textbook states it, one sentence, scored by teacher forcing: extend
    every open hypothesis by every allowed token, keep the `width` best of those and the finished
    ones by log-probability / length penalty, stop when all are finished; return the best.
    `rank_alpha` (default `alpha`) is the penalty used for ranking inside the loop."""
    rank_alpha = alpha if rank_alpha is None else rank_alpha
    beams = [((), 0.0)]  # (output so far, log-probability)

    def done(seq):
        return len(seq) > 0 and (seq[-1] == EOS_ID or len(seq) == limit)

    while not all(done(seq) for seq, _ in beams):
        growing = [(seq, lp) for seq, lp in beams if not done(seq)]
        # Appending any token makes step len(seq) the next-token distribution after `seq`.
        nxt = step_log_probs(model, src_row, n, [seq + (EOS_ID,) for seq, _ in growing])
        candidates = [(seq, lp) for seq, lp in beams if done(seq)]
        candidates += [(seq + (t,), lp + nxt[i, len(seq), t].item())
                       for i, (seq, lp) in enumerate(growing) for t in tokens]
        beams = sorted(candidates, key=lambda b: b[1] / penalty(len(b[0]), rank_alpha), reverse=True)[:width]
    return max(beams, key=lambda b: b[1] / penalty(len(b[0]), alpha))


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("width", [2, 3])
@pytest.mark.parametrize("alpha", [0.0, 0.6, 4.0])
def test_a_narrow_beam_equals_the_textbook_beam_search(decoder, width, alpha):
    # Narrower than exhaustive, so the ranking inside the loop decides what survives. The length
    # penalty only reorders finished against open hypotheses there, which rarely changes the
    # result; with a strong penalty and a few models it must, so ranking without it is caught.
    src, src_len = batch((6, 3, 5, 1, 4, 7, 2, 5), seed=4)
    limits = torch.tensor([5, 4, 3, 5, 4, 5, 3, 4])
    changed = []
    for seed in range(5) if alpha == 4.0 else [5]:
        model = make_model(decoder, seed=seed)
        beam = beam_search(model, src, src_len, limits, beam_size=width, alpha=alpha)
        check_well_formed(beam, limits.tolist())
        for row, seq in enumerate(outputs(beam)):
            n, limit = int(src_len[row]), int(limits[row])
            expected, log_p = reference_beam(model, src[row], n, limit, width, alpha)
            assert seq == expected
            torch.testing.assert_close(beam.scores[row].item(), log_p / penalty(len(seq), alpha), rtol=0, atol=1e-10)
            if alpha == 4.0:
                unpenalised_ranking = reference_beam(model, src[row], n, limit, width, alpha, rank_alpha=0.0)
                changed.append(expected != unpenalised_ranking[0])
    if alpha == 4.0:
        assert any(changed)


def forced_attention(model, src_row, n, seq) -> torch.Tensor:
    """Every attention map (T, R, S) of the decoder stepping through `seq` for the source alone."""
    state = model.encode(src_row[None, :n], torch.tensor([n]))
    maps, token = [], BOS_ID
    with torch.no_grad():
        for t in seq:
            _, state, weights = model.decoder.step(torch.tensor([[token]]), state)
            maps.append(weights.reshape(-1, n))  # (R, S)
            token = t
    return torch.stack(maps).float()  # (T, R, S), as the search keeps them


@pytest.mark.parametrize("decoder", DECODERS)
def test_the_beams_attention_is_that_of_its_own_output(decoder):
    # The winners' maps are read back through each step's pointers: a pointer off by a step or a
    # row gives the maps of another hypothesis.
    model = make_model(decoder)
    src, src_len = batch((6, 3, 5, 1, 4, 7, 2, 5), seed=4)
    limits = torch.tensor([9, 8, 9, 7, 9, 9, 8, 9])
    beam = beam_search(model, src, src_len, limits, beam_size=4, alpha=2.0, maps=True)  # long outputs
    for row, seq in enumerate(outputs(beam)):
        n = int(src_len[row])
        torch.testing.assert_close(beam.attention[row, : len(seq), :, :n], forced_attention(model, src[row], n, seq))


@pytest.mark.parametrize("width, forbid, limits", [(5, (), [1, 1, 1]), (13, (), [2, 1, 2]),
                                                   (TGT_V + 3, (UNK_ID, 4), [3, 2, 3])],
                         ids=["wider-than-emittable", "wider-than-vocab", "wider-than-2-emittable"])
def test_a_beam_wider_than_the_vocabulary(width, forbid, limits):
    # A row has at most len(allowed) candidates; the extra slots must neither crash top-k nor
    # surface as <pad> or -inf hypotheses. Each beam is wide enough to be exhaustive.
    model = make_model()
    src, src_len = batch()
    limits = torch.tensor(limits)
    tokens = allowed(forbid)
    assert width > len(tokens) and width >= len(hypotheses(int(limits.max()), tokens))
    beam = beam_search(model, src, src_len, limits, beam_size=width, forbid=forbid)
    check_well_formed(beam, limits.tolist(), forbid)
    for row, found in enumerate(outputs(beam)):
        candidates = hypotheses(int(limits[row]), tokens)
        scores = log_prob(model, src[row], int(src_len[row]), candidates)
        assert found == candidates[int(scores.argmax())]
        torch.testing.assert_close(beam.scores[row], scores.max(), rtol=0, atol=1e-10)


def test_beam_size_must_be_positive():
    src, src_len = batch()
    with pytest.raises(ValueError, match="beam_size must be at least 1, got 0"):
        beam_search(make_model(), src, src_len, LIMITS, beam_size=0)


# ---------------------------------------------------------------------------------------------
# Options that finish the sentence (docs/search.md): coverage penalty, minimum length.


def coverage_score(model, src_row, n, seq, beta) -> float:
    """GNMT's coverage penalty of `seq` (Wu et al. 2016, §7), from its teacher-forced attention
    averaged over the maps, summed over the steps; floored at 1e-10 as the search does."""
    received = forced_attention(model, src_row, n, seq).mean(dim=1).sum(dim=0)  # (S,)
    words = received[: n - 1]  # the source's last position is its <eos>, which is no word to cover
    return beta * words.clamp(min=1e-10, max=1.0).log().sum().item()


def exhaustive_best(model, src_row, n, limit, alpha, beta=0.0, min_len_ratio=0.0, tokens=allowed()):
    """The best output of every one allowed (no <eos> before floor(ratio * n) tokens, unless at the
    limit) by log-probability / length penalty + coverage penalty: (output, score)."""
    shortest = min(math.floor(min_len_ratio * n), limit)
    candidates = [seq for seq in hypotheses(limit, tokens) if seq[-1] != EOS_ID or len(seq) - 1 >= shortest]
    scores = log_prob(model, src_row, n, candidates).tolist()
    ranked = [lp / penalty(len(seq), alpha) + (coverage_score(model, src_row, n, seq, beta) if beta else 0.0)
              for lp, seq in zip(scores, candidates)]
    best = max(range(len(candidates)), key=ranked.__getitem__)
    return candidates[best], ranked[best]


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("options", [{"coverage": 1.0}, {"min_len_ratio": 0.8},
                                     {"coverage": 1.0, "min_len_ratio": 0.8}],
                         ids=lambda options: "-".join(options))
def test_with_the_options_a_beam_as_wide_as_every_hypothesis_finds_the_exhaustive_optimum(decoder, options):
    model = make_model(decoder)
    src, src_len = batch()
    width = len(hypotheses(int(LIMITS.max()), allowed()))  # keeps every hypothesis
    beam = beam_search(model, src, src_len, LIMITS, beam_size=width, alpha=0.6, **options)
    check_well_formed(beam, LIMITS.tolist())
    for row, found in enumerate(outputs(beam)):
        expected, score = exhaustive_best(model, src[row], int(src_len[row]), int(LIMITS[row]), 0.6,
                                          options.get("coverage", 0.0), options.get("min_len_ratio", 0.0))
        assert found == expected
        torch.testing.assert_close(beam.scores[row].item(), score, rtol=1e-6, atol=1e-6)  # attention in float32


@pytest.mark.parametrize("decoder", ["bahdanau", "transformer"])  # seeded Luong's optima do not change
def test_the_coverage_penalty_picks_outputs_that_read_more_of_the_source(decoder):
    # The penalty trades likelihood for coverage: an output it picks instead of the unpenalised
    # optimum attends to the source more completely, and on these models it does pick others.
    model = make_model(decoder)
    src, src_len = batch()
    width = len(hypotheses(int(LIMITS.max()), allowed()))
    plain = beam_search(model, src, src_len, LIMITS, beam_size=width, alpha=0.6, coverage=0.0)
    covered = beam_search(model, src, src_len, LIMITS, beam_size=width, alpha=0.6, coverage=1.0)
    changed = []
    for row, (before, after) in enumerate(zip(outputs(plain), outputs(covered))):
        n = int(src_len[row])
        assert coverage_score(model, src[row], n, after, 1.0) >= coverage_score(model, src[row], n, before, 1.0) - 1e-6
        changed.append(after != before)
    assert any(changed)
    assert all(torch.equal(getattr(plain, f), getattr(run_search(model, src, src_len, LIMITS, width, 0.6), f))
               for f in plain._fields)  # beta 0 is the search without the option


def test_the_coverage_penalty_counts_the_source_words_not_its_eos_nor_padding():
    src_len = torch.tensor([5, 2, 4])  # each source's last position is its <eos>
    words = source_words(src_len, 5)  # (N, S)
    coverage = torch.rand(3, 5, generator=torch.Generator().manual_seed(0)) * 0.8  # (N, S), every word short of 1
    assert words.sum(dim=1).tolist() == [4, 1, 3]
    penalty = coverage_penalty(coverage, words, 1.0)
    for on_ends in (0.0, 3.0):  # no attention on <eos> (and <pad>), or much
        assert torch.equal(coverage_penalty(coverage.masked_fill(~words, on_ends), words, 1.0), penalty)
    more = coverage.clone()
    more[1, 0] = 1.0  # a word read whole: less penalty
    assert (coverage_penalty(more, words, 1.0) > penalty).tolist() == [False, True, False]


@pytest.mark.parametrize("beam", [1, 3])
def test_min_len_ratio_forbids_eos_before_a_share_of_the_source(beam):
    model = biased(make_model(), EOS_ID)  # ends every sentence at once unless kept from it
    src, src_len = batch()  # sources of 5, 2 and 4 tokens
    limits = torch.tensor([3, 4, 5])
    assert run_search(model, src, src_len, limits, beam_size=beam).lengths.tolist() == [1, 1, 1]
    decoded = run_search(model, src, src_len, limits, beam_size=beam, min_len_ratio=0.8)
    check_well_formed(decoded, limits.tolist())
    # floor(0.8 * 5) = 4 tokens is over the limit of 3: the output runs to it; then 1 and 3 tokens and <eos>.
    assert decoded.lengths.tolist() == [3, 2, 4]
    assert [seq[-1] for seq in outputs(decoded)] == [outputs(decoded)[0][-1], EOS_ID, EOS_ID]
    assert EOS_ID not in outputs(decoded)[0]


# ---------------------------------------------------------------------------------------------
# forbid: extra ids never emitted (the translator forbids <unk> in subword mode).


def biased(model, token, amount=50.0):
    with torch.no_grad():
        model.decoder.output.linear.bias[token] += amount
    return model


@pytest.mark.parametrize("beam", [1, 3])
def test_forbid_keeps_a_likely_token_out(beam):
    model = biased(make_model(), UNK_ID, 8.0)
    src, src_len = batch()
    free = run_search(model, src, src_len, LIMITS, beam_size=beam)
    assert all(UNK_ID in seq for seq in outputs(free))  # without forbid, <unk> is what comes out
    kept_out = run_search(model, src, src_len, LIMITS, beam_size=beam, forbid=(UNK_ID,))
    check_well_formed(kept_out, LIMITS.tolist(), (UNK_ID,))
    for row, seq in enumerate(outputs(kept_out)):
        expected = log_prob(model, src[row], int(src_len[row]), [seq])[0]
        torch.testing.assert_close(kept_out.scores[row], expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("beam", [1, 3])
@pytest.mark.parametrize("forbid, message", [
    ((TGT_V,), f"forbid: token ids \\[{TGT_V}\\] are outside the vocabulary of {TGT_V}"),
    ((-1,), f"forbid: token ids \\[-1\\] are outside the vocabulary of {TGT_V}"),
    ((EOS_ID, UNK_ID, 4, 5), f"forbid: no token of the vocabulary of {TGT_V} is left to emit"),
])
def test_forbid_is_checked(beam, forbid, message):
    src, src_len = batch()
    with pytest.raises(ValueError, match=message):
        run_search(make_model(), src, src_len, LIMITS, beam_size=beam, forbid=forbid)


def test_forbidding_eos_runs_every_sentence_to_its_limit():
    src, src_len = batch()
    for beam in (1, 3):
        decoded = run_search(biased(make_model(), EOS_ID), src, src_len, LIMITS, beam_size=beam, forbid=(EOS_ID,))
        assert decoded.lengths.tolist() == LIMITS.tolist()
        assert EOS_ID not in decoded.tokens.tolist()


# ---------------------------------------------------------------------------------------------
# Batching, attention, stopping.


@pytest.mark.parametrize("decoder, rnn, bidirectional", [("bahdanau", "gru", False), ("luong", "lstm", True),
                                                         ("transformer", "gru", False)])
@pytest.mark.parametrize("beam, forbid, options", [
    (1, (), {}), (1, (UNK_ID,), {}), (3, (), {}), (3, (UNK_ID,), {}), (40, (), {}),
    (1, (), {"min_len_ratio": 0.8}), (3, (), {"coverage": 0.5}), (3, (), {"min_len_ratio": 0.8}),
    (3, (UNK_ID,), {"coverage": 0.5, "min_len_ratio": 0.8})],
    ids=lambda value: "-".join(map(str, value)) if isinstance(value, dict) else None)
def test_batch_equals_one_by_one(decoder, rnn, bidirectional, beam, forbid, options):
    model = make_model(decoder, rnn=rnn, bidirectional=bidirectional)
    src, src_len = batch((3, 7, 5, 6, 2), seed=3)
    limits = torch.tensor([3, 2, 4, 3, 2]) + (3 if options else 0)  # longer: the options have steps to act on
    together = run_search(model, src, src_len, limits, beam_size=beam, alpha=0.6, forbid=forbid, **options)
    for row in range(5):
        n = int(src_len[row])
        alone = run_search(model, src[row : row + 1, :n], src_len[row : row + 1], limits[row : row + 1],
                           beam_size=beam, alpha=0.6, forbid=forbid, **options)
        length = int(alone.lengths[0])
        assert int(together.lengths[row]) == length
        assert together.tokens[row, :length].tolist() == alone.tokens[0, :length].tolist()
        torch.testing.assert_close(together.scores[row], alone.scores[0], rtol=0, atol=1e-10)
        torch.testing.assert_close(together.attention[row, :length, :, :n], alone.attention[0, :length])
        assert (together.attention[row, :, :, n:] == 0).all()  # no attention on padding


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("beam", [1, 3])
def test_attention_rows_are_distributions_over_the_source(decoder, beam):
    model = make_model(decoder)
    src, src_len = batch()
    decoded = run_search(model, src, src_len, LIMITS, beam_size=beam, alpha=0.6, maps=True)
    maps = math.prod(model.decoder.attention_layout)  # one per layer and head
    assert decoded.attention.shape[0] == 3 and decoded.attention.shape[2:] == (maps, max(LENGTHS))
    for row, n in enumerate(decoded.lengths.tolist()):
        weights = decoded.attention[row, :n]  # (T, R, S)
        torch.testing.assert_close(weights.sum(-1), torch.ones(n, maps))
        assert (weights[..., LENGTHS[row]:] == 0).all()
    average = run_search(model, src, src_len, LIMITS, beam_size=beam, alpha=0.6)  # by default the maps' mean
    assert torch.equal(average.tokens, decoded.tokens)
    torch.testing.assert_close(average.attention, decoded.attention.mean(dim=2, keepdim=True))


@pytest.mark.parametrize("beam", [1, 4])
def test_stops_at_eos(beam):
    model = biased(make_model(), EOS_ID)
    src, src_len = batch()
    decoded = run_search(model, src, src_len, LIMITS, beam_size=beam)
    assert decoded.lengths.tolist() == [1, 1, 1] and decoded.tokens[:, 0].tolist() == [EOS_ID] * 3
    assert (decoded.tokens[:, 1:] == PAD_ID).all()  # nothing after the <eos>


@pytest.mark.parametrize("beam", [1, 4])
def test_never_emits_pad_or_bos_and_respects_limits(beam):
    model = biased(biased(make_model(), PAD_ID), BOS_ID)
    src, src_len = batch()
    decoded = run_search(model, src, src_len, LIMITS, beam_size=beam)
    check_well_formed(decoded, LIMITS.tolist())


def test_length_penalty_and_limits():
    assert length_penalty(torch.tensor([1]), 0.0).item() == 1.0
    assert length_penalty(torch.tensor([7]), 1.0).item() == pytest.approx(2.0)
    assert output_limits(torch.tensor([3, 4]), 1.5).tolist() == [5, 6]
    assert output_limits(torch.tensor([3, 40]), 2.0, cap=10).tolist() == [6, 10]
    assert output_limits(torch.tensor([3, 40]), 2.0, cap=85, extra=10).tolist() == [16, 85]


@pytest.mark.parametrize("beam", [1, 3])
def test_search_under_bf16_autocast_keeps_float32_log_probabilities(beam):
    # Validation decodes inside the training step's bf16 autocast on CUDA (precision: auto): the
    # output layer returns bf16 logits there, and search must still rank and sum in float32.
    model = make_model().float()
    src, src_len = batch()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        state = model.encode(src, src_len)
        tokens = torch.full((3, 1), BOS_ID)
        finished = torch.tensor([False, True, False])
        log_probs, _, _, weights = next_candidates(model, tokens, state, finished, torch.arange(3), 2,
                                                    [PAD_ID, BOS_ID], False)
        decoded = run_search(model, src, src_len, LIMITS, beam_size=beam, alpha=0.6)
    assert log_probs.dtype == weights.dtype == torch.float32
    check_well_formed(decoded, LIMITS.tolist())


@pytest.mark.parametrize("beam", [1, 4])
def test_a_search_past_its_deadline_stops_with_search_timeout(beam, monkeypatch):
    model = biased(make_model(), EOS_ID)
    src, src_len = batch()
    with monkeypatch.context() as patch:  # every step reads the clock: one that ticks a second per reading
        ticks = iter(range(1000))
        patch.setattr(time, "monotonic", lambda: float(next(ticks)))
        with pytest.raises(SearchTimeout, match="^search passed its deadline at output step 3$"):
            run_search(biased(make_model(), EOS_ID, -50.0), src, src_len, LIMITS + 5, beam_size=beam, deadline=1.5)
        assert next(ticks) == 3  # no step after the one that tripped
    in_time = run_search(model, src, src_len, LIMITS, beam_size=beam, deadline=time.monotonic() + 60)
    assert torch.equal(in_time.tokens, run_search(model, src, src_len, LIMITS, beam_size=beam).tokens)
