"""The number constraint of the search: a translation writes digits only as its source's digit
groups, whole, on a model pushed to write digits everywhere."""

import re

import pytest
import torch
from conftest import TINY_TRANSFORMER

from attention_lab.config import from_mapping
from attention_lab.data.numbers import digit_groups
from attention_lab.data.special_tokens import EOS_ID
from attention_lab.inference.number_constraint import NumberConstraint
from attention_lab.inference.search import run_search
from attention_lab.model.params import ModelParams
from attention_lab.model.seq2seq import build_model

WORDS = ["▁à", "▁h", "▁le", "▁jour", ",", ".", "▁", "h", "x1"]  # "x1": digits mixed with letters
PIECES = ["<pad>", "<bos>", "<eos>", "<unk>", *(f"▁{d}" for d in range(10)), *map(str, range(10)), *WORDS]


class Pieces:
    """A target vocabulary as the constraint reads it: `len` and `piece`."""

    def __len__(self) -> int:
        return len(PIECES)

    def piece(self, token_id: int) -> str:
        return PIECES[token_id]


def text(ids: list[int]) -> str:
    pieces = [PIECES[i] for i in ids[: ids.index(EOS_ID) if EOS_ID in ids else len(ids)]]
    return "".join(pieces).replace("▁", " ").strip()


def allowed(constraint: NumberConstraint, row: int) -> set[str]:
    log_probs = torch.zeros(1, len(PIECES))
    constraint.mask(torch.tensor([row]), log_probs)
    return {PIECES[i] for i in range(len(PIECES)) if log_probs[0, i] == 0}


def test_digits_follow_the_source_groups_whole():
    constraint = NumberConstraint.build(["Let's start at 2:30.", "No digits here.", "10 or 100?"], Pieces(),
                                        torch.tensor([20, 20, 20]), 1)
    digits = {p for p in PIECES if p.strip("▁").isdigit()}
    assert allowed(constraint, 0) & digits == {"▁2", "▁3", "2", "3"}
    assert allowed(constraint, 1) & digits == set() and "x1" not in allowed(constraint, 1)
    steps = {0: ["▁à", "▁3"], 1: ["▁le", "▁jour"], 2: ["▁1", "0"]}
    for k in range(2):
        constraint.advance(torch.arange(3), torch.tensor([PIECES.index(steps[row][k]) for row in range(3)]))
    assert allowed(constraint, 0) == {"0"}  # inside "3": only "30" may go on, nothing may end it
    # "10" is whole and may end ("100" not yet written: not at <eos>), or go on to "100"
    assert allowed(constraint, 2) & ({"0", "1", "<eos>", "."}) == {"0", "."}
    constraint.advance(torch.arange(3), torch.tensor([PIECES.index(p) for p in ("0", ".", "▁h")]))
    # "30" is whole: a word may follow, or "2" (not yet written), not "30" again nor <eos> before "2"
    assert {"▁h", "▁2"} <= allowed(constraint, 0) and not {"0", "2", "▁3", "<eos>"} & allowed(constraint, 0)


def biased_model(seed: int, digits: float) -> torch.nn.Module:
    """A random Transformer whose output layer adds `digits` to the digit pieces' logits: with +6,
    unconstrained, it writes digits everywhere; with -6, nowhere."""
    torch.manual_seed(seed)
    model = build_model(from_mapping(ModelParams, TINY_TRANSFORMER, "model"), len(PIECES), len(PIECES)).eval()
    with torch.no_grad():
        model.decoder.output.bias[4:24] += digits
        model.decoder.output.bias[EOS_ID] += 2.0  # sentences end early unless something holds them
    return model


@pytest.mark.parametrize("digits", [6.0, -6.0])
@pytest.mark.parametrize("beam_size", [1, 4])
def test_a_search_writes_the_source_numbers_whole_and_only_them(beam_size, digits):
    sources = ["It is 7:45 .", "No number at all .", "She has 2 cats and 13 dogs .", "In 1977 ."]
    model = biased_model(seed=beam_size, digits=digits)
    src = torch.randint(4, len(PIECES), (len(sources), 6))  # (B, S): what the model reads does not matter here
    src_len = torch.tensor([6, 3, 5, 4])
    limits = torch.full((len(sources),), 12)

    def outputs(numbers):
        decoded = run_search(model, src, src_len, limits, beam_size, 1.0, constraints=numbers)
        return [(text(row), EOS_ID in row) for row in decoded.tokens.tolist()]

    free = outputs(None)
    assert any(set(digit_groups(out)) != set(digit_groups(source)) for source, (out, _) in zip(sources, free))
    kept = outputs(NumberConstraint.build(sources, Pieces(), limits, beam_size))
    held = 0
    for source, (out, ended) in zip(sources, kept):
        written = re.findall(r"[0-9]+", out)
        assert set(written) <= set(digit_groups(source)), (source, out)  # no number made up
        assert len(written) == len(set(written)), (source, out)  # nor repeated (each is once in the source)
        if set(written) != set(digit_groups(source)):  # nor left out: `<eos>` waits, the row runs to its limit
            assert not ended, (source, out)
            held += 1
    if digits < 0:
        # The model would end each sentence at once, without its numbers (`free`): the constraint held `<eos>`
        # for some, and a beam's banks wrote numbers the model scores lowest.
        assert all(ended and not re.search(r"[0-9]", out) for out, ended in free)
        assert held >= 1
        if beam_size > 1:
            assert any(re.search(r"[0-9]", out) for out, _ in kept)


@pytest.mark.parametrize("beam_size", [1, 4])
def test_a_source_number_too_long_for_the_tokens_left_is_never_started(beam_size):
    # `1977` is four digit pieces: begun with three tokens left, it would be cut at the limit into a made-up `197`.
    sources = ["In 1977 .", "It is 7:45 ."]
    assert "▁1" in allowed(NumberConstraint.build(sources[:1], Pieces(), torch.tensor([4]), 1), 0)
    assert "▁1" not in allowed(NumberConstraint.build(sources[:1], Pieces(), torch.tensor([3]), 1), 0)
    model = biased_model(seed=beam_size, digits=6.0)  # would write digits wherever it may
    src, src_len = torch.randint(4, len(PIECES), (len(sources), 6)), torch.tensor([6, 4])
    for limit in range(1, 7):
        limits = torch.full((len(sources),), limit)
        numbers = NumberConstraint.build(sources, Pieces(), limits, beam_size)
        decoded = run_search(model, src, src_len, limits, beam_size, 1.0, constraints=numbers)
        for source, row in zip(sources, decoded.tokens.tolist()):
            assert set(re.findall(r"[0-9]+", text(row))) <= set(digit_groups(source)), (limit, source, text(row))


def test_a_word_vocabulary_is_searched_without_the_constraint():
    class Words(Pieces):
        def piece(self, token_id: int) -> str:
            return "1977" if token_id == 5 else super().piece(token_id)

    assert NumberConstraint.build(["In 1977."], Words(), torch.tensor([10]), 1) is None

    class NoDigits(Pieces):  # a word vocabulary whose few words have no number: its numbers cannot be written
        def piece(self, token_id: int) -> str:
            return "x" if super().piece(token_id).strip("▁").isdigit() else super().piece(token_id)

    assert NumberConstraint.build(["In 1977."], NoDigits(), torch.tensor([10]), 1) is None


def test_a_beam_writes_every_span_on_a_model_that_would_write_none():
    # Digits 6 below everything else: the likelier hypotheses leave the numbers out and run to the limit;
    # the banks keep those that wrote more of them (dynamic beam allocation), and one that wrote all is the result.
    sources = ["It is 7:45 .", "She has 2 cats and 13 dogs .", "In 1977 ."]
    torch.manual_seed(0)
    src, src_len = torch.randint(4, len(PIECES), (len(sources), 6)), torch.tensor([6, 5, 4])
    limits = torch.full((len(sources),), 12)
    for seed in range(3):
        numbers = NumberConstraint.build(sources, Pieces(), limits, 4)
        decoded = run_search(biased_model(seed, digits=-6.0), src, src_len, limits, 4, 1.0, constraints=numbers)
        for source, row in zip(sources, decoded.tokens.tolist()):
            assert sorted(re.findall(r"[0-9]+", text(row))) == sorted(digit_groups(source)), (seed, source, text(row))
