"""The number constraint of the search: a translation writes digits only as its source's numbers, each whole, in
one of its French forms, and in the source's order, on models pushed to write digits everywhere, nowhere, or
the source's numbers swapped and merged."""

import itertools
import re

import pytest
import torch
from conftest import TINY_TRANSFORMER
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scripted_model import Scripted

from attention_lab.config import from_mapping
from attention_lab.data.special_tokens import EOS_ID
from attention_lab.inference.number_constraint import NumberConstraint
from attention_lab.inference.number_spans import Span, number_spans
from attention_lab.inference.search import run_search
from attention_lab.model.params import ModelParams
from attention_lab.model.seq2seq import build_model

WORDS = ["▁à", "▁h", "▁le", "▁jour", ",", ".", ":", "▁", "h", "x1", "er"]  # "x1": digits mixed with letters
PIECES = ["<pad>", "<bos>", "<eos>", "<unk>", *(f"▁{d}" for d in range(10)), *map(str, range(10)), *WORDS]
# What French may write between two digit groups, by how the source wrote them (the oracle, apart from FORMS).
GAPS = {"thousands": ("", " ", ",", "."), "decimal": (",", "."), "clock": (":", "h", " h ", "h ", " h"),
        "spaced": (" ",)}


class Pieces:
    """A target vocabulary as the constraint reads it: `len` and `piece`."""

    def __len__(self) -> int:
        return len(PIECES)

    def piece(self, token_id: int) -> str:
        return PIECES[token_id]


def text(ids: list[int]) -> str:
    pieces = [PIECES[i] for i in ids[: ids.index(EOS_ID) if EOS_ID in ids else len(ids)]]
    return "".join(pieces).replace("▁", " ").strip()


def spell(written: str, bare: bool = False) -> list[int]:
    """`written` in PIECES: after a space a digit or word starts a word (`▁7`; `▁` then `7` if `bare`, as in
    a SentencePiece vocabulary whose digits are never word starts)."""
    pieces = []
    for space, token in re.findall(r"( ?)([0-9]|h|le|jour|à|er|[,.:])", " " + written):
        pieces += ["▁", token] if space and bare and token.isdigit() else [("▁" if space else "") + token]
    return [PIECES.index(p) for p in pieces]


def allowed(constraint: NumberConstraint, row: int) -> set[str]:
    log_probs = torch.zeros(1, len(PIECES))
    constraint.mask(torch.tensor([row]), log_probs)
    return {PIECES[i] for i in range(len(PIECES)) if log_probs[0, i] == 0}


def writes(source: str, written: str, bare: bool) -> bool:
    """Whether a translation of `source` may be `written` and end there."""
    constraint = NumberConstraint.build([source], Pieces(), torch.tensor([30]), 1)
    for token in spell(written, bare) + [EOS_ID]:
        if PIECES[token] not in allowed(constraint, 0):
            return False
        constraint.advance(torch.tensor([0]), torch.tensor([token]))
    return True


@pytest.mark.parametrize(("source", "spans"), [
    ("We need 100,000 dollars, not 10,000.", [Span(("100", "000"), ("thousands",)),
                                               Span(("10", "000"), ("thousands",))]),
    ("It costs 9.99 dollars/month, 1,299.99 a year.", [Span(("9", "99"), ("decimal",)),
                                                       Span(("1", "299", "99"), ("thousands", "decimal"))]),
    ("From 10:30 to 14:45, 3:1 after 10 000 fans.", [Span(("10", "30"), ("clock",)), Span(("14", "45"), ("clock",)),
                                                     Span(("3", "1"), ("typed :",)), Span(("10", "000"), ("spaced",))]),
    ("Take the v2.5 or the A4, 1.299,99 or 1.2.3.", [Span(("2", "5"), ("typed .",), True), Span(("4",), (), True),
                                                     Span(("1", "299", "99"), ("typed .", "typed ,")),
                                                     Span(("1", "2", "3"), ("typed .", "typed ."))]),
    ("In 2020 100 came, 5 more.", [Span(("2020",), ()), Span(("100",), ()), Span(("5",), ())]),
])
def test_each_number_as_typed_is_one_span(source, spans):
    assert number_spans(source) == spans


@pytest.mark.parametrize("bare", [False, True])
@pytest.mark.parametrize(("source", "written", "ok"), [
    ("It is 9.99 .", "le 9,99", True), ("It is 9.99 .", "le 9.99", True),
    ("It is 9.99 .", "le 99.9", False), ("It is 9.99 .", "le 9 99", False), ("It is 9.99 .", "le 9", False),
    ("Add 100,000 .", "le 100 000", True), ("Add 100,000 .", "le 100000", True),
    ("Add 100,000 .", "le 100.000", True), ("Add 100,000 .", "le 100,000", True),
    ("Add 100,000 .", "le 10 000", False), ("Add 100,000 .", "le 100 00 0", False),
    ("It has 2,500,000 people.", "le 2 500 000", True), ("It has 2,500,000 people.", "le 2500000", True),
    ("It has 2,500,000 people.", "le 2.500.000", True), ("It has 2,500,000 people.", "le 2,500000", False),
    ("It has 2,500,000 people.", "le 2 500.000", False), ("It costs 1,299.99 .", "le 1 299,99", True),
    ("It is 1.2 million.", "le 1,2", True), ("It is 1.2 million.", "le 1 jour 2", False),
    ("At 10:30 .", "à 10 h 30", True), ("At 10:30 .", "à 10h30", True), ("At 10:30 .", "à 10:30", True),
    ("The score was 3:1 .", "le 3:1", True), ("The score was 3:1 .", "le 3 h 1", False),
    ("The city has 10 000 people.", "le 10 000", True), ("The city has 10 000 people.", "le 10000", False),
    ("We need 100,000 dollars, not 10,000.", "le 100 000 le 10 000", True),
    ("We need 100,000 dollars, not 10,000.", "le 10 000 le 100 000", False),
    ("We need 100,000 dollars, not 10,000.", "le 100 000", False),  # `<eos>` waits for the second
    ("We need 100,000 dollars, not 10,000.", "le 100 000 le 10 000 le 10 000", False),  # once each
    ("Buy 5 and 3 .", "le 5, 3", True), ("Buy 5 and 3 .", "le 5,3", False), ("Buy 5 and 3 .", "le 53", False),
    ("Buy 5 and 3 .", "le 5 3", True), ("Buy 5 and 3 .", "le 3 5", False),
    ("It is 9.99 .", "le9,99", False), ("It is 9.99 .", "h9,99", False),  # never glued to a word
    ("The code is 4 .", "le jour4", False), ("The code is x4 .", "le jour4", True),  # ... unless typed so
    ("We won 3 to 1 .", "le 3er à 1", False), ("We won 3 to 1 .", "le 3 jour à 1", True),  # letters after it too
    ("He came 3rd .", "le 3er", True),
    ("It costs 9.99 .", "le jour.9,99", False), ("It costs 9.99 .", "le jour. 9,99", True),  # nor on a mark
    ("Half of it is .5 .", "le jour.5", True),
])
def test_a_number_is_written_whole_in_a_french_form_and_in_its_place(source, written, ok, bare):
    assert writes(source, written, bare) == ok


def test_a_number_starts_only_once_the_one_before_is_whole():
    constraint = NumberConstraint.build(["It was 7:45 , then 2 .", "No digits here.", "10 or 100?"], Pieces(),
                                        torch.tensor([20, 20, 20]), 1)
    digits = {p for p in PIECES if p.strip("▁").isdigit()}
    assert allowed(constraint, 0) & digits == {"▁7", "7"}  # not `2`: it comes after `7:45`
    assert allowed(constraint, 1) & digits == set() and "x1" not in allowed(constraint, 1)
    for tokens in zip(spell("le à 7"), spell("le le jour"), spell("le 10")):
        constraint.advance(torch.arange(3), torch.tensor(tokens))
    assert allowed(constraint, 0) == {":", "h", "▁h"}  # inside `7:45`: its separator only
    assert allowed(constraint, 2) & ({"0", "1", "▁1", "<eos>", "."} | digits) == {"▁1", "."}  # `10` whole; `100`


def biased_model(seed: int, digits: float) -> torch.nn.Module:
    """A random Transformer whose output layer adds `digits` to the digit pieces' logits: with +6,
    unconstrained, it writes digits everywhere; with -6, nowhere."""
    torch.manual_seed(seed)
    model = build_model(from_mapping(ModelParams, TINY_TRANSFORMER, "model"), len(PIECES), len(PIECES)).eval()
    with torch.no_grad():
        model.decoder.output.bias[4:24] += digits
        model.decoder.output.bias[EOS_ID] += 2.0  # sentences end early unless something holds them
    return model


def in_order(written: str, numbers: list[tuple[list[str], list[str]]]) -> int | None:
    """How many of `numbers` (each its digit groups and the GAPS key of each gap) `written` writes, each whole in
    a French form, in order, and no other digit; None if it does not."""
    def number(groups: list[str], gaps: list[str]) -> str:  # gaps of one kind written alike
        kinds = list(dict.fromkeys(gaps))
        forms = ["".join(g + dict(zip(kinds, seps)).get(gap, "") for g, gap in zip(groups, [*gaps, ""]))
                 for seps in itertools.product(*(GAPS[kind] for kind in kinds))]
        return r"(?<![0-9])(?:" + "|".join(map(re.escape, forms)) + r")(?![0-9]|[.,:h][0-9])"

    found = [k for k in range(len(numbers) + 1)
             if re.fullmatch(r"[^0-9]*" + r"[^0-9]*".join(number(*n) for n in numbers[:k]) + r"[^0-9]*", written)]
    return found[0] if found else None


NUMBER = st.one_of(
    st.integers(0, 9999).map(lambda n: (str(n), [str(n)], [])),
    st.integers(1000, 10**7).map(lambda n: (f"{n:,}", f"{n:,}".split(","), ["thousands"] * f"{n:,}".count(","))),
    st.tuples(st.integers(0, 999), st.integers(1, 999)).map(lambda d: (f"{d[0]}.{d[1]}", list(map(str, d)),
                                                                       ["decimal"])),
    st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda t: (f"{t[0]}:{t[1]:02d}", [str(t[0]), f"{t[1]:02d}"],
                                                                     ["clock"])),
    st.integers(1000, 10**6).map(lambda n: (f"{n:,}".replace(",", " "), f"{n:,}".split(","),
                                            ["spaced"] * f"{n:,}".count(","))),
)


def swapped(numbers: list[tuple[str, list[str], list[str]]]) -> str:
    """A French the adversary wants: the numbers in reverse order, each one's groups reversed and run together,
    the first two glued by a comma."""
    merged = ["".join(reversed(groups)) for _, groups, _ in reversed(numbers)]
    return "le " + " jour ".join([",".join(merged[:2]), *merged[2:]]) + "."


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(NUMBER, min_size=1, max_size=3), min_size=3, max_size=3), st.booleans(), st.integers(0, 9))
def test_a_model_that_swaps_and_merges_numbers_writes_each_whole_and_in_order(sentences, bare, seed):
    sources = ["Le " + " et ".join(typed for typed, _, _ in numbers) + " ." for numbers in sentences]
    scripts = [spell(swapped(numbers), bare) for numbers in sentences]
    oracle = [[(groups, gaps) for _, groups, gaps in numbers] for numbers in sentences]
    assume(any(in_order(text(script), wanted) is None for script, wanted in zip(scripts, oracle)))
    limits, src_len = torch.tensor([40, 44, 48]), torch.tensor([7, 4, 5])  # unequal, padded
    src = torch.randint(4, len(PIECES), (3, 7))
    seeds = [seed, seed + 10, seed + 20]
    model = Scripted(scripts, len(PIECES), 48, seeds)
    free = run_search(model, src, src_len, limits, 1).tokens.tolist()
    assert [row[: len(script)] for row, script in zip(free, scripts)] == scripts  # it writes its script if it may
    for beam in (1, 4):
        numbers = NumberConstraint.build(sources, Pieces(), limits, beam)
        decoded = run_search(model, src, src_len, limits, beam, 1.0, constraints=numbers).tokens.tolist()
        for row, wanted, source in zip(decoded, oracle, sources):
            written = in_order(text(row), wanted)
            assert written is not None, (beam, source, text(row))
            assert EOS_ID not in row or written == len(wanted), (beam, source, text(row))  # `<eos>` waits for all
            assert beam == 1 or written == len(wanted), (source, text(row))  # a beam finds them all
        alone = [run_search(Scripted([scripts[b]], len(PIECES), 48, seeds[b : b + 1]), src[b : b + 1, : src_len[b]],
                            src_len[b : b + 1], limits[b : b + 1], beam, 1.0, constraints=NumberConstraint.build(
                                sources[b : b + 1], Pieces(), limits[b : b + 1], beam)).tokens[0].tolist()
                 for b in range(3)]
        assert [row[: len(a)] for row, a in zip(decoded, alone)] == alone  # a batch as its sentences one by one


@pytest.mark.parametrize("digits", [6.0, -6.0])
@pytest.mark.parametrize("beam_size", [1, 4])
def test_a_model_that_writes_digits_everywhere_or_nowhere_writes_the_numbers_in_order(beam_size, digits):
    sources = ["It is 7:45 .", "No number at all .", "She has 2 cats and 13 dogs .", "In 1977 ."]
    wanted = [([["7", "45"], ["clock"]],), (), ([["2"], []], [["13"], []]), ([["1977"], []],)]
    model = biased_model(seed=4, digits=digits)
    # (B, S): what the model reads does not matter here
    src = torch.randint(4, len(PIECES), (len(sources), 6), generator=torch.Generator().manual_seed(0))
    src_len, limits = torch.tensor([6, 3, 5, 4]), torch.full((len(sources),), 12)

    def outputs(numbers):
        decoded = run_search(model, src, src_len, limits, beam_size, 1.0, constraints=numbers)
        return [(text(row), EOS_ID in row) for row in decoded.tokens.tolist()]

    free = outputs(None)
    assert any(in_order(out, list(numbers)) != len(numbers) for (out, _), numbers in zip(free, wanted))
    if digits < 0:  # the model would end each sentence at once, without its numbers
        assert all(ended and not re.search(r"[0-9]", out) for out, ended in free)
    for (out, ended), numbers in zip(outputs(NumberConstraint.build(sources, Pieces(), limits, beam_size)), wanted):
        written = in_order(out, list(numbers))
        assert written is not None, out  # none made up, each whole and in its place
        assert not ended or written == len(numbers), out  # `<eos>` waits for all
        assert digits > 0 or beam_size == 1 or written == len(numbers), out  # a beam's banks write the numbers
        # the model scores lowest


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
        for source, row, wanted in zip(sources, decoded.tokens.tolist(), [[(["1977"], [])],
                                                                          [(["7", "45"], ["clock"])]]):
            assert in_order(text(row), wanted) is not None, (limit, source, text(row))


def test_a_word_vocabulary_is_searched_without_the_constraint():
    class Words(Pieces):
        def piece(self, token_id: int) -> str:
            return "1977" if token_id == 5 else super().piece(token_id)

    assert NumberConstraint.build(["In 1977."], Words(), torch.tensor([10]), 1) is None

    class NoDigits(Pieces):  # a word vocabulary whose few words have no number: its numbers cannot be written
        def piece(self, token_id: int) -> str:
            return "x" if super().piece(token_id).strip("▁").isdigit() else super().piece(token_id)

    assert NumberConstraint.build(["In 1977."], NoDigits(), torch.tensor([10]), 1) is None


def test_a_gap_the_vocabulary_cannot_write_splits_the_number():
    class NoClock(Pieces):  # neither `:` nor `h`: `7:45` is written as `7` then `45`, in order
        def piece(self, token_id: int) -> str:
            return "x" if super().piece(token_id) in (":", "h", "▁h") else super().piece(token_id)

    constraint = NumberConstraint.build(["It is 7:45 ."], NoClock(), torch.tensor([10]), 1)
    for token in spell("le 7 45"):
        assert PIECES[token] in allowed(constraint, 0)
        constraint.advance(torch.tensor([0]), torch.tensor([token]))
    assert bool(constraint.wrote_all()[0])
