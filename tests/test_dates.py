"""The date augmentation: a pair's date (or a month a date stands in for) replaced alike on both sides
by another day of another month, written each way English writes one, train split only."""

import re

import numpy as np
import pytest
from conftest import assert_train_only, prepared_with

from attention_lab.data.calendar_names import MONTHS
from attention_lab.data.date_augmentation import (
    ENGLISH_DATE,
    FRENCH_DATE,
    date_pairs,
    dated,
    month_and_day,
    ordinal,
    redated,
)

PAIRS = [("I'll come on May 23rd.", "Je viendrai le 23 mai."),
         ("I was born on June 4, 1974.", "Je suis né le 4 juin 1974."),
         ("The law is effective from the 1st of April.", "La loi entre en vigueur à partir du 1er avril."),
         ("We left on 3 March 2001.", "Nous sommes partis le 3 mars 2001."),
         ("In October, I moved.", "En octobre, j'ai déménagé."),
         ("I met Tom in May.", "J'ai rencontré Tom en mai.")]
NOT_DATED = [("May I come in?", "Puis-je entrer ?"),  # the verb
             ("I'll come on May 23rd.", "Je viendrai le 24 mai."),  # not the same day
             ("I'll come on May 23rd.", "Je viendrai le vingt-trois mai."),  # the French spells it out
             ("It rains in May and June.", "Il pleut en mai et en juin."),  # two months
             ("On May 2nd or May 3rd.", "Le 2 mai."),  # one more date on the English side
             ("I'll come in May.", "Je viendrai au printemps."),  # the French names no month
             ("It happened in October 1987.", "C'est arrivé en octobre 1987."),  # a month of a year: no day
             ("In October, it rains.", "En octobre, il pleut."),  # the month's weather, every year
             ("School begins in April.", "L'école commence en avril."),  # a month as a period: no one day
             ("Christmas is December 25th.", "Noël est le 25 décembre."),  # a holiday's date
             ("Sputnik was launched on October 4, 1957.", "Spoutnik fut lancé le 4 octobre 1957."),  # history
             ("No dates here.", "Pas de dates ici.")]


@pytest.mark.parametrize("day, written", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                          (13, "13th"), (21, "21st"), (22, "22nd"), (23, "23rd"), (31, "31st")])
def test_ordinal(day, written):
    assert f"{day}{ordinal(day)}" == written


@pytest.mark.parametrize("source, target", NOT_DATED)
def test_a_pair_whose_sides_do_not_date_the_same_day_is_left_alone(source, target):
    assert dated(source, target) is None


def test_redating_writes_one_new_date_alike_on_both_sides_in_every_english_form():
    rng = np.random.default_rng(0)
    forms, firsts = set(), 0
    for _ in range(40):
        for source, target in PAIRS:
            new_source, new_target, (month, day) = redated(source, target, rng)
            english, french = dated(new_source, new_target)  # the new pair qualifies in turn: one date each side
            assert month_and_day(english) == month_and_day(french) == (month, day)
            # Around the date, the sentence is as it was (a month alone became `on` + the date).
            old = dated(source, target)[0]
            assert new_source.startswith(source[: old.start()])
            assert new_source[english.end():].lstrip(",") in (source[old.end():], source[old.end():].lstrip(","))
            assert new_target.endswith(target[dated(source, target)[1].end():])
            assert french.group() == f"{'1er' if day == 1 else day} {MONTHS[month - 1][1]}"
            if source.startswith("In "):
                assert new_source.startswith("On ") and new_target.startswith("Le ")
            forms.add(re.sub(r"[0-9]+", "D", re.sub("|".join(e for e, _ in MONTHS), "M", english.group())))
            firsts += day == 1
    assert forms == {"M D", "M Dst", "M Dnd", "M Drd", "M Dth", "the Dst of M", "the Dnd of M", "the Drd of M",
                     "the Dth of M", "D M", "Dst M", "Dnd M", "Drd M", "Dth M"}
    assert firsts  # `1er` was written


def test_a_british_date_takes_its_year_without_a_comma():
    for seed in range(30):
        new_source, _, _ = redated(*PAIRS[1], np.random.default_rng(seed))
        english = ENGLISH_DATE.search(new_source)
        assert new_source[english.end():] == (", 1974." if english["month"] else " 1974.")


def test_no_date_is_read_inside_a_number_or_a_time():
    assert not ENGLISH_DATE.search("It was May 5.5 percent.") and not ENGLISH_DATE.search("See you May 5:30.")
    assert not FRENCH_DATE.search("Il a 15 mais pas 16.") and FRENCH_DATE.search("le 1er mai")["day"] == "1er"


def test_date_pairs_are_seeded_drawn_from_dated_pairs_and_off_at_zero():
    pairs = PAIRS + NOT_DATED
    made = date_pairs(pairs, fraction=1.0, seed=1)
    assert len(made) == len(pairs) and made == date_pairs(pairs, 1.0, seed=1) != date_pairs(pairs, 1.0, 2)
    assert all(dated(*pair) for pair in made)
    assert date_pairs(pairs, 0.0, seed=1) == [] and date_pairs(NOT_DATED, 1.0, seed=1) == []


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    return prepared_with(tmp_path_factory, "dates", PAIRS * 4)


def test_only_the_train_pairs_are_redated_after_the_calendar_ones(prepared):
    plain, train, _ = assert_train_only(prepared, {"calendar_fraction": 0.2}, "date", date_pairs)
    assert len(plain.train_pairs) > len(train)  # calendar pairs, which the redated ones follow
