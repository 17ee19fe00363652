"""The title augmentation: a pair's people given a title and a made-up surname alike on both sides,
train split only."""

import re

import numpy as np
import pytest
from conftest import assert_train_only, prepared_with

from attention_lab.data.drawn_pairs import drawn_pairs
from attention_lab.data.title_augmentation import COUPLES, PEOPLE, TITLES, couple, title_pairs, titled, titled_people

PAIRS = [("Tom is here.", "Tom est là."), ("I talked to Tom about Mary.", "J'ai parlé de Mary à Tom."),
         ("This is Tom's car.", "C'est la voiture de Tom."), ("Mary is tired.", "Mary est fatiguée."),
         ("Thank you, Tom.", "Merci, Tom."), ("John met Tom in Boston.", "John a rencontré Tom à Boston."),
         ("À Tom!", "À Tom !"), ("Quick! Tom is hurt.", "Vite ! Tom est blessé."),
         ("Tom, wait for Mary.", "Tom, attends Mary."),
         ("Tom, who is tall, saw Mary.", "Tom, qui est grand, a vu Mary.")]
UNTITLED = [("Mary is tired.", "Marie est fatiguée."),  # the French names her otherwise
            ("Boston is big.", "Boston est grande."),  # a place, not a person
            ("Tom Jackson is here.", "Tom Jackson est là."),  # a surname already
            ("Uncle Tom sleeps.", "Oncle Tom dort."), ("Mr. John is here.", "M. John est là."),  # a title already
            ("No people here.", "Personne ici.")]
COUPLED = [("Tom and Mary are here.", "Tom et Mary sont là.", ("Tom", "Mary")),
           ("Where are Mary and John?", "Où sont Mary et John ?", ("Mary", "John")),
           ("I saw Tom and Mary with John.", "J'ai vu Tom et Mary avec John.", ("Tom", "Mary"))]
NOT_COUPLED = [("Tom and John are here.", "Tom et John sont là."),  # two men
               ("Tom and Mary are here.", "Mary et Tom sont là."),  # not in the same order
               ("Tom met Mary.", "Tom a rencontré Mary."),  # not side by side
               ("Tom and Mary say Tom won.", "Tom et Mary disent que Tom a gagné.")]  # Tom twice
FRENCH_TITLES = {english: french for titles in TITLES.values() for english, french, _ in titles}
SPELLED_OUT = {english: alone for titles in TITLES.values() for english, _, alone in titles}


def count(words: str, text: str) -> int:
    return len(re.findall(rf"\b{re.escape(words)}(?!\w)", text))


def people_in(source: str, target: str) -> list[tuple[str, str, str]]:
    """(English title, surname, French words before the surname) for each titled person of a pair."""
    titles = "|".join(map(re.escape, sorted(FRENCH_TITLES, key=len, reverse=True)))
    english = re.findall(rf"\b({titles}) ([A-Z][a-z]+)", source)
    return [(title, surname, re.search(rf"(\w+\.?) {surname}\b", target).group(1)) for title, surname in english]


@pytest.mark.parametrize("source, target", UNTITLED)
def test_a_pair_naming_no_person_on_both_sides_is_left_alone(source, target):
    assert titled_people(source, target) == []
    assert titled(source, target, np.random.default_rng(0)) == (source, target, {})


def test_each_person_gets_a_title_of_their_gender_and_a_new_surname_alike_on_both_sides():
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(40):
        for source, target in PAIRS:
            new_source, new_target, replacements = titled(source, target, rng)
            assert list(replacements) == titled_people(source, target)
            assert ("Boston" in source) == ("Boston" in new_source)  # a place keeps its name
            words = set(re.findall(r"\w+", f"{source} {target}"))
            surnames = [new.split()[-1] for new in replacements.values()]
            assert len(set(surnames)) == len(surnames) and not words & set(surnames)
            for name, new in replacements.items():
                title, surname = new.split()
                assert (title, FRENCH_TITLES[title], SPELLED_OUT[title]) in TITLES[PEOPLE[name]]
                assert count(new, new_source) == count(name, source)
                assert count(surname, new_target) == count(name, target) and not count(name, new_target)
                seen.add(title)
            for title, surname, before in people_in(new_source, new_target):
                spoken = source in ("Thank you, Tom.", "Tom, wait for Mary.") and replacements["Tom"].endswith(surname)
                assert before.lower() == (SPELLED_OUT if spoken else FRENCH_TITLES)[title].split()[-1].lower()
    assert seen == set(FRENCH_TITLES)


@pytest.mark.parametrize("source, target, together", COUPLED)
def test_a_man_and_a_woman_side_by_side_become_a_couple_of_one_surname(source, target, together):
    assert couple(source, target) == together
    for seed in range(10):
        new_source, new_target, replacements = titled(source, target, np.random.default_rng(seed))
        titles, surname = replacements[together[0]].rsplit(" ", 1)
        assert replacements[together[1]] == f"{titles} {surname}" and not re.search(surname, source + target)
        in_french = dict(COUPLES)[titles]
        others = {name: new for name, new in replacements.items() if name not in together}
        assert new_source == re.sub(rf"{together[0]} and {together[1]}", f"{titles} {surname}",
                                    source.replace("John", others.get("John", "John")))
        assert f"{in_french} {surname}" in new_target and not re.search(r"\b(Tom|Mary|John)\b", new_target)
        assert all(not new.endswith(surname) for new in others.values())


@pytest.mark.parametrize("source, target", NOT_COUPLED)
def test_no_couple_unless_both_sides_name_the_man_and_the_woman_once_side_by_side(source, target):
    assert couple(source, target) is None
    assert " and Mr" not in titled(source, target, np.random.default_rng(0))[0]


def test_a_surname_that_is_a_word_of_the_pair_or_taken_is_drawn_again(monkeypatch):
    drawn = iter(["Boston", "Kavo", "Kavo", "Lumi"])
    monkeypatch.setattr("attention_lab.data.name_augmentation.made_up_name", lambda rng, vowel_first: next(drawn))
    _, _, replacements = titled(*PAIRS[5], np.random.default_rng(0))
    assert [new.split()[-1] for new in replacements.values()] == ["Kavo", "Lumi"]


def test_a_doctor_takes_the_french_article_contracted_and_capitalised_but_none_when_spoken_to():
    doctors = {}
    for seed in range(60):
        for source, target in PAIRS:
            new_source, new_target, replacements = titled(source, target, np.random.default_rng(seed))
            if replacements.get("Tom", "").startswith("Dr"):
                doctors[source] = new_target.replace(replacements["Tom"].split()[-1], "X")
    assert doctors["Tom is here."] == "Le docteur X est là."
    assert doctors["I talked to Tom about Mary."].endswith("au docteur X.")
    assert doctors["This is Tom's car."] == "C'est la voiture du docteur X."
    assert doctors["À Tom!"] == "Au docteur X !"
    assert doctors["Quick! Tom is hurt."] == "Vite ! Le docteur X est blessé."
    assert doctors["Thank you, Tom."] == "Merci, docteur X."  # French addresses a doctor without the article
    assert doctors["Tom, wait for Mary."].startswith("Docteur X, attends")
    assert doctors["Tom, who is tall, saw Mary."].startswith("Le docteur X, qui")


def test_titled_pairs_are_seeded_drawn_from_pairs_naming_people_those_naming_a_woman_8_times_as_often():
    men, woman, both = PAIRS[0], PAIRS[3], ("Tom saw Mary.", "Tom a vu Mary.")
    pairs = [men] * 8 + [woman, both] + UNTITLED
    made = title_pairs(pairs, fraction=100.0, seed=1)
    assert len(made) == 100 * len(pairs) and made == title_pairs(pairs, 100.0, seed=1) != title_pairs(pairs, 100.0, 2)
    person = r"(?:M\.|Le docteur|Mme|Mlle) [A-Z][a-z]+"
    shapes = [next(i for i, shape in enumerate((f"{person} est là\\.", f"{person} est fatiguée\\.",
                                                 f"{person} a vu {person}\\.")) if re.fullmatch(shape, target))
              for _, target in made]
    # Eight pairs naming a man, weighing 1 each, against two naming a woman, weighing 8 each.
    assert all(abs(shapes.count(shape) / len(made) - 1 / 3) < 0.05 for shape in range(3))
    assert title_pairs(pairs, 0.0, seed=1) == [] and title_pairs(UNTITLED, 1.0, seed=1) == []


def test_a_pair_of_weight_zero_is_never_drawn():
    pairs = [("a", "b"), ("c", "d")]
    made = drawn_pairs(pairs, 50.0, 0, 1, lambda s, t: True, lambda s, t, rng: (s, t), lambda s, t: float(s == "c"))
    assert made == [("c", "d")] * 100


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    people = [(f"{name} sees the cat on Monday.", f"{name} voit le chat lundi.") for name in ("Tom", "Mary")] * 9
    return prepared_with(tmp_path_factory, "titles", people)


def test_only_the_train_pairs_are_titled_after_the_calendar_ones(prepared):
    plain, train, _ = assert_train_only(prepared, {"calendar_fraction": 0.2}, "title", title_pairs)
    assert len(plain.train_pairs) > len(train)  # calendar pairs, which the titled ones follow
