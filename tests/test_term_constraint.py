"""The glossary's constraint on the search: each sentence's terms written whole, on a model that would write
none of their pieces, beside the numbers; a term that does not fit lets the sentence end without it."""

import re

import torch
from conftest import TINY_TRANSFORMER
from hypothesis import given, settings
from hypothesis import strategies as st
from scripted_model import Scripted

from attention_lab.config import from_mapping
from attention_lab.data.special_tokens import EOS_ID
from attention_lab.inference.number_constraint import NumberConstraint
from attention_lab.inference.search import run_search
from attention_lab.inference.search_steps import result_slots
from attention_lab.inference.constraints import Constraints
from attention_lab.inference.term_constraint import TermConstraint
from attention_lab.model.params import ModelParams
from attention_lab.model.seq2seq import build_model

WORDS = ["▁la", "▁base", "▁de", "▁données", "▁mot", "▁passe", "▁équipe", "▁commerciale", "s", "▁le", ".", ","]
PIECES = ["<pad>", "<bos>", "<eos>", "<unk>", *(f"▁{d}" for d in range(10)), *map(str, range(10)), *WORDS]
TERM_PIECES = [PIECES.index(w) for w in WORDS[:9]]  # what the biased model would never write


class Pieces:
    """A target vocabulary as the constraints read it: `len` and `piece`."""

    def __len__(self) -> int:
        return len(PIECES)

    def piece(self, token_id: int) -> str:
        return PIECES[token_id]


def ids(text: str) -> tuple[int, ...]:
    return tuple(PIECES.index(p) for p in text.split())


def written(row: list[int]) -> list[str]:
    """The output's pieces up to `<eos>`."""
    return [PIECES[i] for i in row[: row.index(EOS_ID) if EOS_ID in row else len(row)]]


def holds(pieces: list[str], form: tuple[int, ...]) -> bool:
    """`pieces` spell `form` as whole words: not followed by a piece glued on (`▁données` `s`)."""
    want = [PIECES[i] for i in form]
    return any(pieces[t : t + len(want)] == want and (t + len(want) == len(pieces) or pieces[t + len(want)] != "s")
               for t in range(len(pieces)))


def biased_model(seed: int, terms: float = -6.0, eos: float = 2.0) -> torch.nn.Module:
    """A random Transformer that adds `terms` to the glossary pieces' logits (and `eos` to `<eos>`'s): at -6 it
    writes none of them and ends early."""
    torch.manual_seed(seed)
    model = build_model(from_mapping(ModelParams, TINY_TRANSFORMER, "model"), len(PIECES), len(PIECES)).eval()
    with torch.no_grad():
        model.decoder.output.bias[TERM_PIECES] += terms
        model.decoder.output.bias[EOS_ID] += eos
    return model


def search(model, terms, beam_size: int, limit: int = 14, numbers: list[str] | None = None):
    torch.manual_seed(1)
    src = torch.randint(4, len(PIECES), (len(terms), 7))  # (B, S): what the model reads does not matter here
    src_len = torch.tensor([7, 5, 6, 4, 7, 3, 6, 5][: len(terms)])  # unequal, padded
    limits = torch.full((len(terms),), limit)
    constraint = Constraints.of(
        NumberConstraint.build(numbers, Pieces(), limits, beam_size) if numbers else None,
        TermConstraint.build(terms, Pieces(), limits, beam_size))
    decoded = run_search(model, src, src_len, limits, beam_size, 1.0, constraints=constraint)
    return [written(row) for row in decoded.tokens.tolist()], decoded


TERMS = [[(ids("▁base ▁de ▁données"),), (ids("▁mot ▁de ▁passe"),)],  # two multi-piece terms
         [],  # none: searched as without
         [(ids("▁équipe ▁commerciale"),), (ids("▁équipe"),)],  # one term a prefix of another
         [(ids("▁données"), ids("s"))]]  # two ways to write one term


def test_a_beam_writes_every_term_whole_on_a_model_that_would_write_none():
    for seed in range(3):
        free, _ = search(biased_model(seed), [[]] * len(TERMS), 4)
        assert not any(holds(out, forms[0]) for out, terms in zip(free, TERMS) for forms in terms)
        kept, _ = search(biased_model(seed), TERMS, 4)
        for out, terms in zip(kept, TERMS):
            assert all(any(holds(out, form) for form in forms) for forms in terms), (seed, out)


def test_terms_and_numbers_are_written_together():
    numbers = ["It is 7:45 .", "No number .", "In 1977 .", "2 and 13 ."]
    for seed in range(2):
        kept, _ = search(biased_model(seed), TERMS, 4, limit=20, numbers=numbers)
        for out, terms, source in zip(kept, TERMS, numbers):
            assert all(any(holds(out, form) for form in forms) for forms in terms), (seed, out)
            spelled = " ".join(p if p.strip("▁").isdigit() else "▁" for p in out).replace(" ", "").replace("▁", " ")
            digits = re.findall(r"[0-9]+", spelled)
            assert sorted(digits) == sorted(re.findall(r"[0-9]+", source)), (seed, out)


def test_a_term_glued_onto_is_not_written():
    # `▁données` then `s` spells `données` + `s`: the term is written only where a word or the end follows.
    constraint = TermConstraint.build([[(ids("▁données"),)]], Pieces(), torch.tensor([10]), 1)
    for piece in ("▁données", "s"):
        constraint.advance(torch.tensor([0]), torch.tensor([PIECES.index(piece)]))
    assert not bool(constraint.wrote_all()[0])
    for piece in ("▁données", "."):
        constraint.advance(torch.tensor([0]), torch.tensor([PIECES.index(piece)]))
    assert bool(constraint.wrote_all()[0])


def test_eos_waits_for_the_terms_unless_they_no_longer_fit():
    constraint = TermConstraint.build([[(ids("▁base ▁de ▁données"),)]], Pieces(), torch.tensor([5]), 1)
    log_probs = torch.zeros(1, len(PIECES))
    constraint.mask(torch.tensor([0]), log_probs)
    assert log_probs[0, EOS_ID].isneginf()  # 3 pieces fit in 5
    for piece in ("▁le", "▁la", "▁le"):
        constraint.advance(torch.tensor([0]), torch.tensor([PIECES.index(piece)]))
    log_probs = torch.zeros(1, len(PIECES))
    constraint.mask(torch.tensor([0]), log_probs)
    assert log_probs[0, EOS_ID] == 0  # 2 tokens left: the sentence may end without the term
    assert (log_probs[0, 4:] == 0).all()  # no piece is ever forbidden: a term's pieces are words like any other


def test_a_sentence_is_released_only_once_a_row_has_ended_with_every_term():
    # A row that has just written `▁base ▁de ▁données` and glues `s` on has not ended with the term: its sentence is
    # not released, so the row, which then lacks the term, may not end while the term still fits.
    script, term = list(ids("▁base ▁de ▁données s ▁le .")), ids("▁base ▁de ▁données")
    src, limits = torch.full((1, 5), 5), torch.tensor([12])
    for seed in range(3):
        model = Scripted([script], len(PIECES), 12, [seed])
        assert run_search(model, src, torch.tensor([5]), limits).tokens[0, : len(script) + 1].tolist() == [*script,
                                                                                                          EOS_ID]
        row = run_search(model, src, torch.tensor([5]), limits, constraints=TermConstraint.build(
            [[(term,)]], Pieces(), limits, 1)).tokens[0].tolist()
        fits = row[: int(limits[0]) - len(term) + 1]  # the steps at which the term still fits after them
        assert EOS_ID not in fits or holds(written(row), term), (seed, written(row))


def test_a_released_sentence_may_end_without_its_terms():
    # Once a row of the sentence ended with every span written, the others need not hold <eos> for the terms.
    constraint = TermConstraint.build([[(ids("▁base ▁de ▁données"),)], [(ids("▁mot"),)]], Pieces(),
                                      torch.tensor([9, 9]), 1)
    constraint.release(torch.tensor([True, False]))
    log_probs = torch.zeros(2, len(PIECES))
    constraint.mask(torch.tensor([0, 1]), log_probs)
    assert log_probs[0, EOS_ID] == 0 and log_probs[1, EOS_ID].isneginf()


def test_a_term_that_cannot_fit_leaves_the_search_free():
    # Limit 2 for a 3-piece term: the beam ends its sentences as without the term.
    model = biased_model(0, terms=0.0)
    terms = [[(ids("▁base ▁de ▁données"),)], []]
    kept, decoded = search(model, terms, 4, limit=2)
    free, free_decoded = search(model, [[], []], 4, limit=2)
    assert kept == free
    assert torch.equal(decoded.lengths, free_decoded.lengths)


STARTS = [i for i in TERM_PIECES if PIECES[i].startswith("▁")]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(STARTS), st.lists(st.sampled_from(TERM_PIECES), max_size=2)),
                         max_size=2), min_size=1, max_size=4),
       st.integers(0, 3))
def test_generated_glossaries_are_written_whole(terms, seed):
    # Each sentence's terms (a word's piece, then up to two more; none to two a sentence) fit easily in 16 tokens.
    glossary = [[((first, *rest),) for first, rest in sentence] for sentence in terms]
    kept, _ = search(biased_model(seed), glossary, 4, limit=16)
    for out, sentence in zip(kept, glossary):
        assert all(holds(out, form) for (form,) in sentence), (sentence, out)


def test_the_result_is_the_best_ranked_slot_that_wrote_every_span():
    ranked = torch.tensor([[-1.0, -3.0, -2.0], [-1.0, -2.0, -3.0], [-5.0, -1.0, -2.0]])  # (B, W)
    wrote = torch.tensor([[False, True, True], [False, False, False], [True, False, False]])
    assert result_slots(ranked, wrote).tolist() == [2, 0, 0]  # the best that wrote all; none: the first


def test_only_a_glossary_lets_rows_end_without_their_spans():
    # Rows may end without a term once one ended with them all (`release`), never without a number.
    limits = torch.tensor([10, 10, 10])
    numbers = NumberConstraint.build(["In 1977 .", "No number .", "2 and 13 ."], Pieces(), limits, 1)
    terms = TermConstraint.build([[(ids("▁mot"),)], [], [(ids("▁base ▁de ▁données"),)]], Pieces(), limits, 1)
    for constraint, held in ((numbers, [True, False, True]), (terms, [False, False, False]),
                             (Constraints.of(numbers, terms), [True, False, True])):
        constraint.release(torch.tensor([True, True, True]))
        log_probs = torch.zeros(3, len(PIECES))
        constraint.mask(torch.arange(3), log_probs)
        assert log_probs[:, EOS_ID].isneginf().tolist() == held
