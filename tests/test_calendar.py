"""The calendar augmentation: a pair's weekdays and months replaced alike on both sides by others of
their kind, train split only."""

import re

import numpy as np
import pytest
from conftest import assert_train_only, prepared_with

from attention_lab.data.calendar_augmentation import FRENCH, KIND, calendar_pairs, calendar_words, swapped

PAIRS = [("See you on Monday.", "À lundi."), ("Sunday is a holiday.", "Dimanche est un jour férié."),
         ("He works every Monday.", "Il travaille tous les lundis."),
         ("I was born in April, not in May.", "Je suis né en avril, pas en mai."),
         ("Between Monday and Friday, not on Sundays.", "Entre lundi et vendredi, pas le dimanche."),
         ("April, August and October.", "Avril, août et octobre."), ("It's the end of August.", "C'est la fin d'août."),
         ("It's March, but I'm busy.", "C'est mars, mais je suis occupé."),  # mais is no plural month
         ("See you on Friday!", "À VENDREDI !")]
NOT_SWAPPED = [("May I come in?", "Puis-je entrer ?"),  # the verb
               ("I'll come in May.", "Je viendrai au printemps."),  # the French does not name it
               ("See you on Monday.", "À mardi."),  # not the same day
               ("Monday or Tuesday.", "Lundi."),  # one of them missing
               ("Tuesday.", "Mardi ou mercredi."),  # one more on the French side
               ("No dates here.", "Pas de dates ici.")]


def put_back(text: str, undo: dict[str, str]) -> str:
    """`text` with each word of `undo` (lower case; singular or plural, any capital; `mais` is no
    plural) replaced back."""
    if not undo:
        return text

    def back(match: re.Match[str]) -> str:
        old, typed = undo[match.group(1).lower()], match.group(1)
        old = old.upper() if typed.isupper() and len(typed) > 1 else old[0].upper() + old[1:] if typed[0].isupper() \
            else old.lower()
        return old + (match.group(2) or "")

    return re.sub(r"\b(" + "|".join(undo) + r")((?<!mai)s)?\b", back, text, flags=re.IGNORECASE)


@pytest.mark.parametrize("source, target", NOT_SWAPPED)
def test_a_pair_whose_sides_do_not_name_the_same_days_and_months_is_left_alone(source, target):
    assert calendar_words(source, target) == []
    assert swapped(source, target, np.random.default_rng(0)) == (source, target, {})


def test_swapping_replaces_days_and_months_alike_by_others_of_their_kind_and_round_trips():
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        for source, target in PAIRS:
            new_source, new_target, replacements = swapped(source, target, rng)
            words = calendar_words(source, target)
            assert words and set(replacements) <= set(words)
            assert len(set(replacements.values())) == len(replacements)  # no two merge
            for old, new in replacements.items():
                assert new in dict(KIND[old]) and new not in words
                assert calendar_words(new_source, new_target).count(new) == 1
                seen.add(new)
            # Each word keeps its number and capital: undoing the replacements gives the pair back.
            undo = {new.lower(): old for old, new in replacements.items()}
            undo |= {FRENCH[new]: FRENCH[old] for old, new in replacements.items()}
            assert put_back(new_source, undo) == source and put_back(new_target, undo) == target
    # April, August and October, all three in one pair, have none free: that pair keeps them.
    assert swapped(*PAIRS[5], rng)[2] == {}
    assert {"Tuesday", "Wednesday", "Thursday", "Saturday", "January", "November", "August"} <= seen


def test_a_vowel_month_is_swapped_for_a_vowel_month_so_elision_still_reads():
    for seed in range(10):
        new_source, new_target, replacements = swapped(*PAIRS[6], np.random.default_rng(seed))
        assert replacements["August"] in ("April", "October")
        assert re.fullmatch(r"C'est la fin d'(avril|octobre)\.", new_target), new_target


def test_calendar_pairs_are_seeded_drawn_from_pairs_naming_days_or_months_and_off_at_zero():
    pairs = PAIRS + NOT_SWAPPED
    made = calendar_pairs(pairs, fraction=1.0, seed=1)
    assert len(made) == len(pairs) and made == calendar_pairs(pairs, 1.0, seed=1) != calendar_pairs(pairs, 1.0, 2)
    assert all(calendar_words(*pair) for pair in made)
    assert calendar_pairs(pairs, 0.0, seed=1) == [] and calendar_pairs(NOT_SWAPPED, 1.0, seed=1) == []


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    days = [(f"See you on {day}.", f"À {FRENCH[day]}.") for day in ("Monday", "Sunday", "Friday")] * 6
    people = [(f"I see {name}.", f"Je vois {name}.") for name in ("Tom", "Mary")] * 3  # names for the renamed pairs
    return prepared_with(tmp_path_factory, "calendar", days + people)


def test_only_the_train_pairs_are_swapped_after_the_renamed_ones(prepared):
    plain, train, _ = assert_train_only(prepared, {"name_fraction": 0.2}, "calendar", calendar_pairs)
    assert len(plain.train_pairs) > len(train)  # renamed pairs, which the swapped ones follow
