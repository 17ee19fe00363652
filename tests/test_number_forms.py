"""A source's English numbers come back in French form, from the digits the model wrote; a time
written with a dot is read as the corpus writes times."""

import pytest
import torch
from conftest import linear_work

from attention_lab.text.number_forms import ENGLISH, french_form, french_numbers, french_ordinals, read_times
from attention_lab.inference.translator import Translator
from attention_lab.text.protect import as_written

torch.set_num_threads(1)


@pytest.mark.parametrize("number, french", [("2.5", "2,5"), ("1,299.99", "1 299,99"), ("2,000", "2 000"),
                                            ("1,000,000", "1 000 000"), ("0.05", "0,05"), ("1299.99", "1299,99")])
def test_french_form(number, french):
    assert ENGLISH.fullmatch(number) and french_form(number) == french


@pytest.mark.parametrize("text", ["v2.5 is out.", "Use 1.2.3 now.", "Call 555-1234.", "I have 2000 books.",
                                  "It is 10,5 in French.", "A 1,2345 mistake.", "See example.com/1.5 now.",
                                  "It is 2.5x faster.", "Ends 3.", "1.5.5"])
def test_no_english_number_in_words_addresses_chains_or_french_forms(text):
    assert ENGLISH.findall(text) == []


@pytest.mark.parametrize("output, source, expected", [
    ("Ça coûte 2.5 dollars.", "It costs 2.5 dollars.", "Ça coûte 2,5 dollars."),
    ("Cela coûte 1,299. 99 dollars.", "It costs 1,299.99 dollars.", "Cela coûte 1 299,99 dollars."),
    ("Il y a 2,000 livres et 2 000 autres.", "There are 2,000 books and 2,000 more.",
     "Il y a 2 000 livres et 2 000 autres."),
    ("J'ai 2.5, 3.5 et 2 5.", "I have 2.5, 3.5 and 4.", "J'ai 2,5, 3,5 et 2,5."),  # each, where it is whole
    ("Un 1.1 ici.", "A 1.1 here.", "Un 1,1 ici."),  # a group that repeats
    ("De 2.5-3.5 tasses.", "Add 2.5-3.5 cups.", "De 2,5-3,5 tasses."),  # a range
    ("1.500 kg et 1.500 gens.", "1.500 kg and 1,500 people.", "1,500 kg et 1 500 gens."),  # alike: in source order
])
def test_french_numbers_rewrites_the_separators_of_a_sources_numbers(output, source, expected):
    assert french_numbers(output, source) == expected


@pytest.mark.parametrize("output, source", [
    ("Il est 2.5.", "It is 2.6."),  # not the source's number: what the model wrote stays for the reader to check
    ("Il a 1299,99 dollars.", "He has 1,299.99 dollars."),  # merged: one group where the source has two
    ("Il a 2 et 5 ans.", "He has 2.5 years."),  # written apart
    ("Il a 12.5 ans.", "He has 2.5 years."),  # a group is never part of another
    ("Les chapitres 1, 2 et 3.", "Chapters 1, 2 and 3 cost 1.2."),  # `, ` lists
    ("Version 1.2.3 : 2,5.", "Version 1.2.3 costs 2.5."),  # a chain's groups are not the decimal's
    ("Il a 3.5 ans.", "He is 3 and 5."),  # no English number in the source
])
def test_french_numbers_leaves_other_numbers_as_written(output, source):
    assert french_numbers(output, source) == output


@pytest.mark.parametrize("sentence, read", [
    ("I go to bed at 10.30 pm.", "I go to bed at 10:30 pm."), ("Meet me at 9.15 tomorrow.", "Meet me at 9:15 tomorrow."),
    ("Wait until 10.30, then go.", "Wait until 10:30, then go."), ("Come AT 6.45 p.m.!", "Come AT 6:45 p.m.!"),
    ("At 23.59 it ends.", "At 23.59 it ends."),  # not before the end or a word of time: a decimal
    ("He left after 8.05. Then I slept.", "He left after 8:05. Then I slept."),
    ("Up at 6.30 every day.", "Up at 6:30 every day."), ("At 7.15 in the morning.", "At 7:15 in the morning."),
])
def test_read_times(sentence, read):
    assert read_times(sentence) == read


@pytest.mark.parametrize("sentence", ["It sold at 10.30 dollars.", "Be there at 25.30.", "at 10.75.",
                                      "It is at 0.50 and rising.", "Rates at 1.25 in May.", "Sell at 2.50 or more.",
                                      "It rose at 3.5.", "Look at 10.30.5 now.", "Come at 10.305.", "It is 10.30.",
                                      # a level is at a decimal too: left as typed where nothing says a time
                                      "The pH is at 7.40.", "It was at 0.15.", "Unemployment peaked at 10.20.",
                                      "The index closed at 10.20.", "I go to bed at 10.30.", "From 1.25 to 1.50."])
def test_a_decimal_is_no_time(sentence):
    assert read_times(sentence) == sentence


def test_as_written_writes_numbers_the_french_way():
    assert as_written("ça coûte 2.5 dollars.", "It costs 2.5 dollars.", {}) == "ça coûte 2,5 dollars."


@pytest.mark.parametrize("output, expected", [
    ("Il habite au 4ième étage.", "Il habite au 4e étage."), ("le 2ème", "le 2e"), ("les 3èmes places", "les 3es places"),
    ("la 1ère fois", "la 1re fois"), ("la 1ière fois", "la 1re fois"), ("au 1ier étage", "au 1er étage"),
    ("C'est le 1 septembre.", "C'est le 1er septembre."), ("Le 1 Mai", "Le 1er Mai"),
    ("le 1 mai 2020 et le 11 mai", "le 1er mai 2020 et le 11 mai"),
])
def test_french_ordinals_abbreviates_as_the_corpus_does(output, expected):
    assert french_ordinals(output) == expected


@pytest.mark.parametrize("output", ["Il a fini 13e.", "le 1er mai", "le 21 septembre", "dans 1 heure", "il y a 1 mois",
                                    "le 11 mai", "le fichier v2ème", "1,1 mai", "https://example.com/1ère"])
def test_french_ordinals_leaves_the_rest_as_written(output):
    assert french_ordinals(output) == output


def test_as_written_abbreviates_ordinals():
    assert as_written("il habite au 4ième étage.", "He lives on the 4th floor.", {}) == "il habite au 4e étage."


def test_the_translator_reads_a_time_with_a_dot_as_one_with_a_colon(trained_model):
    translator = Translator.load(trained_model, "cpu")
    dotted, colon = translator.translate(["I see the cat at 10.30 pm.", "I see the cat at 10:30 pm."])
    assert dotted.src_pieces == colon.src_pieces and dotted.text == colon.text


def test_a_line_of_clocks_is_read_in_linear_work():
    """Each clock searched the whole line before it for the words that make it a time: n² steps."""
    n = 100_000
    with linear_work(5):  # linear: 0.6 s; quadratic: hours
        assert read_times("10.30 " * n) == "10.30 " * n  # no word says any is a time
        assert read_times("left at 10.30, " * n) == "left at 10:30, " * n
