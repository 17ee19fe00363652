import pytest
import torch
from test_model import batch, make_model

from attention_lab.search import beam_search, decode, greedy_search, ids_to_lists, length_penalty, output_limits
from attention_lab.vocab import BOS_ID, EOS_ID, PAD_ID

LENGTHS = (7, 5, 3)


def limits_for(src_len):
    return output_limits(src_len, ratio=2.0)


def check_well_formed(decoded, limits):
    for row, n in enumerate(decoded.lengths.tolist()):
        tokens = decoded.tokens[row].tolist()
        assert 1 <= n <= limits[row]
        assert PAD_ID not in tokens[:n] and BOS_ID not in tokens[:n]
        assert EOS_ID not in tokens[: n - 1]  # <eos> only ever last
        assert all(t == PAD_ID for t in tokens[n:])
        assert (decoded.attention[row, n:] == 0).all()


@pytest.mark.parametrize("decoder", ["bahdanau", "luong"])
@pytest.mark.parametrize("beam", [1, 3])
def test_outputs_are_well_formed(decoder, beam):
    model = make_model(decoder)
    src, src_len, _ = batch(LENGTHS)
    limits = limits_for(src_len)
    decoded = decode(model, src, src_len, limits, beam_size=beam, alpha=0.6)
    assert decoded.tokens.shape[0] == 3 and decoded.attention.shape[::2] == (3, 7)
    check_well_formed(decoded, limits.tolist())
    for row, n in enumerate(decoded.lengths.tolist()):
        weights = decoded.attention[row, :n]
        torch.testing.assert_close(weights.sum(-1), torch.ones(n))
        assert (weights[:, LENGTHS[row]:] == 0).all()  # no attention on padding


def biased(model, token, amount=50.0):
    with torch.no_grad():
        model.decoder.output.bias[token] += amount
    return model


@pytest.mark.parametrize("beam", [1, 4])
def test_stops_at_eos(beam):
    model = biased(make_model(), EOS_ID)
    src, src_len, _ = batch(LENGTHS)
    decoded = decode(model, src, src_len, limits_for(src_len), beam_size=beam)
    assert decoded.lengths.tolist() == [1, 1, 1] and decoded.tokens[:, 0].tolist() == [EOS_ID] * 3
    assert ids_to_lists(decoded) == [[], [], []]


@pytest.mark.parametrize("beam", [1, 4])
def test_never_emits_pad_or_bos_and_respects_limits(beam):
    model = biased(biased(make_model(), PAD_ID), BOS_ID)
    src, src_len, _ = batch(LENGTHS)
    limits = torch.tensor([4, 2, 6])
    decoded = decode(model, src, src_len, limits, beam_size=beam)
    check_well_formed(decoded, limits.tolist())


@pytest.mark.parametrize("decoder", ["bahdanau", "luong"])
@pytest.mark.parametrize("beam", [1, 4])
def test_batch_equals_one_by_one(decoder, beam):
    model = make_model(decoder, rnn="lstm", bidirectional=True)
    src, src_len, _ = batch((3, 7, 5, 6, 2))
    limits = limits_for(src_len)
    together = decode(model, src, src_len, limits, beam_size=beam, alpha=0.6)
    for row in range(5):
        n = int(src_len[row])
        alone = decode(model, src[row : row + 1, :n], src_len[row : row + 1], limits[row : row + 1], beam_size=beam,
                       alpha=0.6)
        length = int(alone.lengths[0])
        assert int(together.lengths[row]) == length
        assert together.tokens[row, :length].tolist() == alone.tokens[0, :length].tolist()
        torch.testing.assert_close(together.scores[row], alone.scores[0])
        torch.testing.assert_close(together.attention[row, :length, :n], alone.attention[0, :length])


@pytest.mark.parametrize("decoder", ["bahdanau", "luong"])
def test_beam_of_one_equals_greedy(decoder):
    model = make_model(decoder, attention="general")
    src, src_len, _ = batch(LENGTHS)
    limits = limits_for(src_len)
    greedy = greedy_search(model, src, src_len, limits)
    beam = beam_search(model, src, src_len, limits, beam_size=1, alpha=0.0)
    assert torch.equal(greedy.tokens, beam.tokens) and torch.equal(greedy.lengths, beam.lengths)
    torch.testing.assert_close(greedy.scores, beam.scores)
    torch.testing.assert_close(greedy.attention, beam.attention)


def test_beam_finds_a_sequence_at_least_as_likely_as_greedy():
    model = make_model("bahdanau", seed=3)
    src, src_len, _ = batch((7, 5, 3, 6, 4, 2, 7), seed=5)
    limits = torch.full_like(src_len, 4)
    greedy = greedy_search(model, src, src_len, limits)
    beam = beam_search(model, src, src_len, limits, beam_size=8, alpha=0.0)
    # With alpha = 0 beam scores are log-probabilities; a wide beam on short outputs never does worse.
    assert (beam.scores >= greedy.scores - 1e-9).all()


def test_length_penalty_and_limits():
    assert length_penalty(torch.tensor([1]), 0.0).item() == 1.0
    assert length_penalty(torch.tensor([7]), 1.0).item() == pytest.approx(2.0)
    assert output_limits(torch.tensor([3, 4]), 1.5).tolist() == [5, 6]
    assert output_limits(torch.tensor([3, 40]), 2.0, cap=10).tolist() == [6, 10]
