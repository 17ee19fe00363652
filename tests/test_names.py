"""The renaming augmentation: a pair's shared names replaced alike on both sides by made-up ones,
train split only."""

import re

import numpy as np
import pytest
from conftest import assert_train_only, prepared_with

from attention_lab.data.name_augmentation import NAME, name_pairs, renamed, shared_names

PAIRS = [("Tom is here.", "Tom est là."), ("Tom met Mary in Boston, Tom said.", "Tom a dit avoir vu Mary à Boston."),
         ("The cat sleeps.", "Le chat dort."), ("I like Tom's car.", "J'aime la voiture de Tom."),
         ("Ask Mary, not John.", "Demande à Mary, pas à Jean."), ("No names here.", "Pas de noms ici.")]


def unelided(text: str) -> str:
    """`text` with `d'` and `qu'` before a name written out, as the pairs of `PAIRS` write them."""
    return re.sub(r"\b([Dd]|[Qq]u)'(?=[A-Z])", r"\1e ", text)


def test_renaming_replaces_shared_names_alike_with_new_words_and_round_trips():
    rng = np.random.default_rng(0)
    for _ in range(20):
        for source, target in PAIRS:
            new_source, new_target, replacements = renamed(source, target, rng)
            assert list(replacements) == shared_names(source, target)
            assert "John" not in replacements and "The" not in replacements  # one side only; not a name
            assert len(set(replacements.values())) == len(replacements)  # no two names merge
            words = set(re.findall(r"\w+", f"{source} {target}"))
            for old, new in replacements.items():
                assert NAME.fullmatch(new) and new not in words
                assert new_source.count(new) == source.count(old) and new_target.count(new) == target.count(old)
            undo = {new: old for old, new in replacements.items()}
            for text, new_text in ((source, new_source), (target, new_target)):
                assert unelided(NAME.sub(lambda m: undo.get(m.group(), m.group()), new_text)) == text


def test_a_made_up_name_that_is_a_word_of_the_pair_or_taken_is_drawn_again(monkeypatch):
    drawn = iter(["Boston", "Kavo", "Kavo", "Lumi", "Tom", "Zeda"])
    monkeypatch.setattr("attention_lab.data.name_augmentation.made_up_name", lambda rng, vowel_first: next(drawn))
    _, _, replacements = renamed(*PAIRS[1], np.random.default_rng(0))
    assert replacements == {"Tom": "Kavo", "Mary": "Lumi", "Boston": "Zeda"}


def test_renamed_pairs_are_seeded_drawn_from_pairs_sharing_a_name_and_off_at_zero():
    made = name_pairs(PAIRS, fraction=2.0, seed=1)
    assert len(made) == 2 * len(PAIRS) and made == name_pairs(PAIRS, 2.0, seed=1) != name_pairs(PAIRS, 2.0, 2)
    shapes = {tuple(NAME.sub("X", side) for side in pair) for pair in PAIRS if shared_names(*pair)}
    assert {tuple(NAME.sub("X", unelided(side)) for side in pair) for pair in made} <= shapes
    assert all(not {"Tom", "Mary", "Boston"} & set(re.findall(r"\w+", " ".join(pair))) for pair in made)
    assert name_pairs(PAIRS, 0.0, seed=1) == [] and name_pairs(PAIRS[2:3], 1.0, seed=1) == []


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    people = [(f"The cat sees {name}.", f"Le chat voit {name}.") for name in ("Tom", "Mary")] * 9
    return prepared_with(tmp_path_factory, "names", people)


def test_only_the_train_pairs_are_renamed_after_the_renumbered_ones(prepared):
    assert_train_only(prepared, {"number_fraction": 0.1}, "name", name_pairs)
