"""The augmentations keep facts: a year stays near its own and on its side of the corpus's present, history's
years stay, a share of 100 stays one, a fact of the calendar is never rewritten, a month used as a period stays
a month, an ordinal stays in its noun's range, and only a word the corpus writes as a name is renamed. Each rule
over generated pairs and seeded draws; beside each, a pair the rule leaves free is still rewritten."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab.data.calendar_augmentation import calendar_words, swapped
from attention_lab.data.calendar_names import DAYS, MONTHS
from attention_lab.data.date_augmentation import dated, redated
from attention_lab.data.name_augmentation import corpus_names, name_pairs
from attention_lab.data.number_augmentation import PRESENT, YEAR_SPAN, renumbered, shared_groups
from attention_lab.data.ordinal_augmentation import ORDINAL_LARGEST, ordinal_words, renumbered_ordinal

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
SEEDS = st.integers(0, 2**32 - 1)


def numbers_of(text: str) -> list[int]:
    return [int(group) for group in re.findall(r"[0-9]+", text)]


def draws(rewrite, source: str, target: str, seed: int, count: int = 10) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed)
    return [rewrite(source, target, rng)[:2] for _ in range(count)]


LIVES = (lambda y: (f"I was born in {y}.", f"Je suis né en {y}."),
         lambda y: (f"Tom moved to Boston in {y}.", f"Tom a déménagé à Boston en {y}."),
         lambda y: (f"We will retire in {y}.", f"Nous prendrons notre retraite en {y}."))


@SETTINGS
@given(st.integers(1000, 2200) | st.integers(PRESENT - 30, PRESENT + 30), st.integers(1, 40), st.sampled_from(LIVES),
       SEEDS)
def test_a_year_moves_little_keeps_its_side_of_the_present_and_years_keep_their_order(year, span, frame, seed):
    source, target = frame(year)
    source, target = source[:-1] + f" and left in {year + span}.", target[:-1] + f" et parti en {year + span}."
    for new_source, new_target in draws(renumbered, source, target, seed):
        (new, new_later), (old, old_later) = numbers_of(new_source), numbers_of(source)
        assert numbers_of(new_target) == [new, new_later] and new_later - new == span  # one shift for both
        assert abs(new - old) <= YEAR_SPAN and 1000 <= new and new_later <= 9999
        for was, now in ((old, new), (old_later, new_later)):
            assert (was <= PRESENT) == (now <= PRESENT)  # a past stays past, a year to come stays ahead


def test_a_year_moves_at_all():
    assert {numbers_of(new)[0] for new, _ in draws(renumbered, *LIVES[0](1990), seed=0, count=40)} - {1990}


@pytest.mark.parametrize("source, target", [
    ("World War I broke out in 1914.", "La Première Guerre mondiale éclata en 1914."),
    ("Columbus discovered America in 1492.", "Colomb a découvert l'Amérique en 1492."),
    ("Pearl Harbor was attacked on December 7, 1941.", "Pearl Harbor fut attaqué le 7 décembre 1941."),
    ("Christmas is December 25th.", "Noël est le 25 décembre."), ("There are 31 days in December.", "Décembre a 31 jours."),
    ("The chemical formula for water is H2O.", "La formule chimique de l'eau est H2O."),
    ("You can't sleep more than 24 hours a day.", "Tu ne peux pas dormir plus de 24 heures par jour."),
    ("They finished 13th.", "Ils ont fini 13e.")])
def test_a_number_that_states_a_fact_or_names_a_thing_stays(source, target):
    assert shared_groups(source, target) == [] and renumbered(source, target, np.random.default_rng(0))[:2] == (
        source, target)


# Each written with a value up to `WRITTEN`, and drawn up to `LARGEST`: `7 days a week`, the whole, stays.
SHARES = (lambda n: (f"I'm {n}% sure.", f"J'en suis sûr à {n} %."),
          lambda n: (f"{n} percent of the students passed.", f"{n} pour cent des étudiants ont réussi."),
          lambda n: (f"They meet {n} days a week.", f"Ils se voient {n} jours par semaine."),
          lambda n: (f"It dates from the {n}th century.", f"Ça date du {n}e siècle."),
          lambda n: (f"Sales rose in the {n}th quarter.", f"Les ventes ont monté au {n}e trimestre."))
WRITTEN, LARGEST = (100, 100, 6, 20, 3), (100, 100, 7, 21, 4)


@SETTINGS
@given(st.integers(0, len(SHARES) - 1).flatmap(lambda i: st.tuples(st.just(i), st.integers(WRITTEN[i] - 2, WRITTEN[i])
                                                                   | st.integers(2, WRITTEN[i]))), SEEDS)
def test_a_share_a_part_or_an_ordinal_stays_in_its_range(case, seed):
    frame, number = case
    for new_source, new_target in draws(renumbered, *SHARES[frame](number), seed):
        assert numbers_of(new_source) == numbers_of(new_target) and numbers_of(new_source)[0] <= LARGEST[frame]


def french(english: str) -> str:
    return dict(DAYS + MONTHS)[english]


# Facts of the calendar, each a function of two days and a month (and the month's days).
FACTS = (lambda a, b, m: (f"{a[0]} is followed by {b[0]}.", f"{a[1].capitalize()} est suivi par {b[1]}."),
         lambda a, b, m: (f"{a[0]} comes after {b[0]}.", f"{a[1].capitalize()} vient après {b[1]}."),
         lambda a, b, m: (f"{a[0]} is the first day of the week.", f"{a[1].capitalize()} est le premier jour."),
         lambda a, b, m: (f"There are 30 days in {m[0]}.", f"Il y a 30 jours en {m[1]}."),
         lambda a, b, m: (f"{m[0]} has 30 days.", f"{m[1].capitalize()} a 30 jours."),
         lambda a, b, m: (f"Christmas falls on {a[0]} this year.", f"Noël tombe un {a[1]} cette année."),
         lambda a, b, m: (f"Christmas is {m[0]} 25th.", f"Noël est le 25 {m[1]}."),
         lambda a, b, m: (f"We have snow in {m[0]}.", f"Nous avons de la neige en {m[1]}."),
         lambda a, b, m: (f"It is cold in {m[0]}.", f"Il fait froid en {m[1]}."),
         lambda a, b, m: (f"Sputnik was launched on {m[0]} 4, 1957.", f"Spoutnik fut lancé le 4 {m[1]} 1957."))
FREE = (lambda a, b, m: (f"See you on {a[0]} or {b[0]}.", f"À {a[1]} ou {b[1]}."),
        lambda a, b, m: (f"I met Tom in {m[0]}.", f"J'ai vu Tom en {m[1]}."))
CALENDAR = st.tuples(st.sampled_from(DAYS), st.sampled_from(DAYS), st.sampled_from(MONTHS)).filter(
    lambda named: named[0] != named[1])


@SETTINGS
@given(CALENDAR, st.sampled_from(FACTS), SEEDS)
def test_no_augmentation_rewrites_a_fact_of_the_calendar(named, frame, seed):
    source, target = frame(*named)
    assert calendar_words(source, target) == [] and dated(source, target) is None
    assert shared_groups(source, target) == [] and swapped(source, target, np.random.default_rng(seed))[:2] == (
        source, target)


@SETTINGS
@given(CALENDAR, st.sampled_from(FREE), SEEDS)
def test_a_pair_stating_no_fact_of_the_calendar_is_still_swapped(named, frame, seed):
    source, target = frame(*named)
    assert calendar_words(source, target) and swapped(source, target, np.random.default_rng(seed))[0] != source


PERIODS = (lambda m: (f"School begins in {m[0]}.", f"L'école commence en {m[1]}."),
           lambda m: (f"The beaches are less crowded in {m[0]}.", f"Les plages sont moins bondées en {m[1]}."),
           lambda m: (f"In {m[0]}, it rains.", f"En {m[1]}, il pleut."))
EVENTS = (lambda m: (f"I met Tom in {m[0]}.", f"J'ai vu Tom en {m[1]}."),
          lambda m: (f"We'll move in {m[0]}.", f"Nous déménagerons en {m[1]}."),
          lambda m: (f"I'm getting married in {m[0]}.", f"Je me marie en {m[1]}."),
          lambda m: (f"Tom disappeared in {m[0]}.", f"Tom a disparu en {m[1]}."))


@SETTINGS
@given(st.sampled_from(MONTHS), st.sampled_from(PERIODS), st.sampled_from(EVENTS), SEEDS)
def test_a_month_used_as_a_period_stays_a_month_and_one_of_an_event_becomes_a_date(month, period, event, seed):
    assert dated(*period(month)) is None
    for new_source, new_target in draws(redated, *event(month), seed, count=3):
        assert re.search(r"\bon (?:the )?[0-9A-Z]", new_source) and re.search(r"\ble (?:1er|[0-9]+) ", new_target)


@SETTINGS
@given(st.sampled_from(sorted(ORDINAL_LARGEST)), st.sampled_from(("second", "third", "tenth")), SEEDS)
def test_an_ordinal_is_drawn_in_its_nouns_range(noun, word, seed):
    in_french = {"second": "deuxième", "third": "troisième", "tenth": "dixième"}[word]
    source, target = f"It's my {word} {noun}.", f"C'est mon {in_french} truc."
    for new_source, new_target in draws(renumbered_ordinal, source, target, seed):
        assert 2 <= numbers_of(new_source)[0] == numbers_of(new_target)[0] <= ORDINAL_LARGEST[noun]


@pytest.mark.parametrize("source, target", [
    ("He was the first man to cross the Pacific.", "Il fut le premier homme à traverser le Pacifique."),
    ("Osaka is the second largest city.", "Osaka est la deuxième plus grande ville."),
    ("He fought in the Second World War.", "Il a combattu pendant la Seconde Guerre mondiale."),
    ("A is the first letter of the alphabet.", "A est la première lettre de l'alphabet."),
    ("I didn't want this in the first place.", "Je ne voulais pas ça en premier lieu."),
    ("The first word of a sentence is capitalized.", "Le premier mot d'une phrase prend une majuscule.")])
def test_an_ordinal_of_a_record_a_rank_a_name_or_an_idiom_stays(source, target):
    assert ordinal_words(source, target) is None


COMMON = ("Excuse", "Wait", "Compare", "Will", "Grace")
NAMES = ("Tom", "Kalo", "Boston")


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(COMMON), st.sampled_from(NAMES)), min_size=1, max_size=4), SEEDS)
def test_only_a_word_the_corpus_writes_as_a_name_is_renamed(drawn, seed):
    pairs = [(f"{word}, I saw {name}.", f"{word}, j'ai vu {name}.") for word, name in drawn]  # both shared
    pairs += [(f"I {word.lower()} often.", "Je le fais souvent.") for word in COMMON]  # each word in small letters
    pairs += [(f"They wrote {word} here.", "Ils l'ont écrit ici.") for word in COMMON]  # and capitalised inside
    assert corpus_names(pairs)["names"] == {name for _, name in drawn}
    made = name_pairs(pairs, 2.0, seed)
    assert made and all(source.split(",")[0] in COMMON for source, _ in made)  # the first word kept
    assert not any(re.search(rf"\b{name}\b", " ".join(pair)) for pair in made for name in NAMES)  # renamed
