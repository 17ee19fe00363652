"""The ordinal augmentation: a pair's ordinal word written in digits on both sides, as another ordinal,
train split only."""

import re

import numpy as np
import pytest
from conftest import assert_train_only, prepared_with

from attention_lab.data.ordinal_augmentation import (
    ENGLISH_VALUE,
    FRENCH_VALUE,
    french_ordinal,
    ordinal_pairs,
    ordinal_words,
    renumbered_ordinal,
)

FIRSTS = [("It's the first time.", "C'est la première fois."),
          ("It's my first trip.", "C'est mon premier voyage.")]
OTHERS = [("The elevator stopped on the second floor.", "L'ascenseur s'est arrêté au deuxième étage."),
          ("Today is my seventeenth birthday.", "Aujourd'hui, c'est mon dix-septième anniversaire."),
          ("In 1683, the Turks besieged Vienna for the second time.",
           "En 1683, les Turcs assiégèrent Vienne pour la seconde fois."),
          ("It's their hundredth concert.", "C'est leur centième concert.")]
PAIRS = FIRSTS + OTHERS
NOT_ORDINAL = [("It's the first time.", "C'est la deuxième fois."),  # not the same ordinal
               ("The first and the second.", "Le premier et le second."),  # two
               ("First, listen.", "D'abord, écoute."),  # no determiner, and no French ordinal
               ("The first of May is a holiday.", "Le premier mai est un jour férié."),  # a date
               ("They were the first ones.", "Ils étaient les premiers."),  # the French plural
               ("It's the twenty-second time.", "C'est la vingt-deuxième fois."),  # a compound
               ("Wait a second.", "Attends une seconde."),  # the time unit
               ("He was the first man to arrive.", "Il fut le premier homme à arriver."),  # a record
               ("Osaka is the second largest city.", "Osaka est la deuxième plus grande ville."),  # a rank
               ("It's the first day of the week.", "C'est le premier jour de la semaine."),  # the calendar's
               ("No ordinal here.", "Pas d'ordinal ici.")]


@pytest.mark.parametrize("source, target", PAIRS)
def test_a_pair_naming_one_ordinal_on_each_side_qualifies(source, target):
    english, french = ordinal_words(source, target)
    assert ENGLISH_VALUE[english["word"].lower()] == FRENCH_VALUE[french["word"].lower()]


@pytest.mark.parametrize("source, target", NOT_ORDINAL)
def test_a_pair_whose_sides_do_not_name_the_same_one_ordinal_is_left_alone(source, target):
    assert ordinal_words(source, target) is None


@pytest.mark.parametrize("number, feminine, written", [(1, False, "1er"), (1, True, "1re"), (2, True, "2e"),
                                                       (21, False, "21e"), (100, True, "100e")])
def test_french_abbreviates_an_ordinal_with_the_gender_of_the_first(number, feminine, written):
    assert french_ordinal(number, feminine) == written


def test_renumbering_writes_one_ordinal_in_digits_alike_on_both_sides():
    rng = np.random.default_rng(0)
    endings, numbers = set(), {source: set() for source, _ in PAIRS}
    for _ in range(60):
        for source, target in PAIRS:
            english, french = ordinal_words(source, target)
            new_source, new_target, number = renumbered_ordinal(source, target, rng)
            numbers[source].add(number)
            # Where the word was, its digits: the rest of each side is as it was.
            written = re.fullmatch(r"([0-9]+)(st|nd|rd|th)", new_source[english.end("before"):].split()[0].rstrip("."))
            assert int(written[1]) == number and new_source[: english.end("before")] == source[: english.end("before")]
            assert new_source.endswith(source[english.end():])
            first_gender = french["word"] == "première"
            assert new_target == target[: french.start()] + french_ordinal(number, first_gender) + target[french.end():]
            endings.add(written[2])
            assert ordinal_words(new_source, new_target) is None  # no ordinal word is left
    assert endings == {"st", "nd", "rd", "th"}
    for source, _ in FIRSTS:  # a first stays the first, in digits, some of the time
        assert 1 in numbers[source] and len(numbers[source]) > 10
    for source, _ in OTHERS:  # any other has no gender to write `1er` or `1re` with
        assert min(numbers[source]) >= 2 and max(numbers[source]) >= 32


def test_ordinal_pairs_are_seeded_drawn_from_pairs_with_an_ordinal_and_off_at_zero():
    pairs = PAIRS + NOT_ORDINAL
    made = ordinal_pairs(pairs, fraction=1.0, seed=1)
    assert len(made) == len(pairs) and made == ordinal_pairs(pairs, 1.0, seed=1) != ordinal_pairs(pairs, 1.0, 2)
    assert all(re.search(r"\b[0-9]+(?:st|nd|rd|th)\b", source) and re.search(r"\b[0-9]+(?:er|re|e)\b", target)
               for source, target in made)
    assert ordinal_pairs(pairs, 0.0, seed=1) == [] and ordinal_pairs(NOT_ORDINAL, 1.0, seed=1) == []


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    titled = [("Tom was the first to come.", "Tom fut le premier à venir."), ("Mary is here.", "Mary est là."),
              ("John saw Tom.", "John a vu Tom.")]
    return prepared_with(tmp_path_factory, "ordinals", (PAIRS + titled) * 4)


def test_only_the_train_pairs_are_given_ordinals_in_digits_after_the_titled_ones(prepared):
    plain, train, _ = assert_train_only(prepared, {"title_fraction": 0.2}, "ordinal", ordinal_pairs)
    assert len(plain.train_pairs) > len(train)  # titled pairs, which the ordinal ones follow
