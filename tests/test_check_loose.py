"""The words the check asks for in some form (inference/check_loose.py): a capitalised word of a name, written as
typed or translated word by word; a word of order or of a part, written as its French word, its rendering or its
number; silent where the French writes them so, or where the line does not ask for them."""

from dataclasses import replace

import pytest
from conftest import linear_work

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.inference.check import check

# The corpus renders `world` by `monde`, `park` by `parc`, `first` by `premier` (`CorpusWords.rendered`); it writes
# `new year` as one phrase and `crystal` by no word of its own.
WORDS = CorpusWords(
    frozenset("the world health organization warned of measles we drove ring road in june draw at park ended use level "
              "happy new year to all crystal palace won park here charge it before first use free coffee for cut by a "
              "fifth rinse once month check heat pan take left floor live on second third half an hour "
              "ambulance times worst record report finds staff please both".split()),
    frozenset("l' organisation mondiale monde de la santé a averti rougeole nous avons conduit route parc premier "
              "première fois moitié demi cinquièmes".split()),
    phrases=frozenset({"new year"}),
    french=(("world", "monde"), ("health", "santé"), ("ring", "bague"), ("road", "route"), ("park", "parc"),
            ("level", "niveau"), ("happy", "heureux"), ("year", "année"), ("palace", "palais"), ("first", "premier"),
            ("once", "fois"), ("half", "moitié"), ("report", "rapport"), ("record", "record"),
            ("third", "troisième"), ("fifth", "cinquième"), ("fifths", "cinquièmes")))


@pytest.mark.parametrize("source, output, missing", [
    ("The World Health Organization warned of measles.", "L'Organization a averti de la rougeole.",
     ("World", "Health")),  # neither as typed nor translated
    ("We drove the Ring Road in June.", "Nous avons conduit la Road en juin.", ("Ring",)),
    ("The draw at Goodison Park ended 0-0.", "Le match nul à Goodison s'est fini 0-0.", ("Park",)),
])
def test_a_capitalised_word_of_a_name_written_in_no_form_is_missing(source, output, missing):
    assert check(source, output, words=WORDS).missing_names == missing
    assert not check(source, output, words=replace(WORDS, french=())).missing_names  # an older model file


@pytest.mark.parametrize("source, output", [
    ("The World Health Organization warned of measles.", "L'Organisation mondiale de la santé a averti."),  # like
    ("We drove the Ring Road in June.", "Nous avons conduit la Ring Road en juin."),  # as typed
    ("Crystal Palace won.", "Palace a gagné."),  # first in its sentence, and `Crystal` has no rendering
    ("Park here.", "Garez-vous ici."),  # a clause's capital
    ("Ambulance Times Worst on Record, Report Finds", "Le pire temps"),  # a headline in Title Case
    ("Staff please use Level 2.", "Le personnel utilise le 2."),  # a label beside a number
    ("We wish a Happy New Year to all.", "Bonne année à tous."),  # one of the corpus's phrases
    ("We finally met on Third Avenue.", "Nous nous sommes enfin vus sur la 3e avenue."),  # an order: its number
])
def test_a_capitalised_word_written_in_some_form_or_not_asked_is_not_flagged(source, output):
    assert not check(source, output, words=WORDS).missing_names


@pytest.mark.parametrize("source, output, missing", [
    ("Charge it before first use.", "Chargez-le avant usage.", ("first",)),
    ("FREE COFFEE FOR THE FIRST 100", "CAFÉ GRATUIT POUR LES 100", ("FIRST",)),
    ("It was cut by a fifth.", "Il a été réduit.", ("fifth",)),  # a part, after `a`
    ("We live on the second floor, half an hour away.", "Nous vivons à l'étage, à une heure.", ("second", "half")),
])
def test_a_word_of_order_or_of_a_part_stated_in_no_form_is_missing(source, output, missing):
    assert check(source, output, words=WORDS).missing_numbers == missing
    assert check(source, output).missing_numbers == missing  # its French words are known without the corpus


@pytest.mark.parametrize("source, output", [
    ("Charge it before first use.", "Chargez-le avant la première utilisation."),
    ("Take the first left.", "Prenez la 1re à gauche."),  # its number: neither missing nor added
    ("We live on the second floor.", "Nous vivons au 2e étage."),
    ("Both live on the fifth floor.", "Tous deux vivent aux cinquièmes étages."),  # like a rendering of it
    ("It was cut by a third.", "Il a été réduit d'un tiers."),
    ("Rinse it once a month.", "Rincez-le chaque mois."),  # `once` is as often no number (`at once`)
    ("Give it a second chance.", "Donne-lui une autre chance."),  # after `a`: another
    ("It takes half an hour.", "Ça prend une demi-heure."),
    ("Check it first.", "Vérifiez-le."),  # an order last in a clause: French may leave it unsaid
    ("First, heat the pan.", "Chauffez la poêle."),
])
def test_a_word_of_order_stated_in_some_form_or_not_asked_is_not_flagged(source, output):
    found = check(source, output, words=WORDS)
    assert not found.missing_numbers and not found.added_numbers


@pytest.mark.parametrize("source, output, missing", [
    ("Meet me at The Fox & Hound.", "Retrouve-moi au Fox et Hound.", ("&",)),  # a name's own sign
    ("FISH & CHIPS £9", "POISSON ET FRITES 9 £", ("&",)),
    ("Meet me at The Fox & Hound.", "Retrouve-moi au Fox & Hound.", ()),
    ("salt & pepper", "sel et poivre", ()),  # between words, no name's
    ("Press Ctrl + Shift + T.", "Appuyez sur Ctrl et Shift et T.", ("+",)),  # keys
    ("Press Ctrl + Shift + T.", "Appuyez sur Ctrl + Maj + T.", ()),
])
def test_a_sign_between_capitalised_words_is_a_name_s_or_keys_to_write_as_typed(source, output, missing):
    assert check(source, output).missing_carried == missing


def test_a_long_line_is_checked_in_linear_work():
    capitalised = "Park at Ring Road, " * 20_000  # no small word of four letters: each word looked for one anew
    with linear_work(10):  # linear: a few seconds; n² lookups: hours
        check(capitalised, "", words=WORDS)
