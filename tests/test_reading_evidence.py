"""Reading only what is certain: a span with more than one reading is left as typed or carried whole, never read
one way (`10m`, `7.40`, `9¾`); a line's casing and names are read from the evidence of the corpus and of the line,
so that a line in capitals or Title Case reads with the capitals of the line as written."""

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_lab.data.cleaning import clean
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer import Codec
from attention_lab.evaluation.report import title_case
from attention_lab.text.amounts import with_currency_names, with_unit_names
from attention_lab.text.casing import english
from attention_lab.text.number_forms import french_numbers, read_times
from attention_lab.text.steps import read_lines


class Letters(Codec):
    """A piece a letter: no casing of a word is read in fewer pieces than another (the corpus's counts decide)."""

    def pieces(self, text):
        return list(text.replace(" ", ""))

    def reads(self, char):
        return char.isascii()


SMALL = "and i met the in at on office will grace see you we love go to may peel shave saw fish hotel place".split()
CASED = frozenset({"Tom", "Paris", "March", "TV", "Monday"})
WORDS = CorpusWords(frozenset(SMALL + ["tom", "paris", "march", "tv", "monday", "president"]), frozenset(), cased=CASED,
                    capitalised=frozenset({*(form.lower() for form in CASED), "president"}))


def read(line: str, words: CorpusWords = WORDS) -> tuple[str, tuple]:
    """What the model reads of `line` (one sentence) and the names carried as placeholders."""
    [sentence] = read_lines([line], Letters(), words=words)
    return sentence.text, sentence.record["protect"][1]


numbers = st.integers(1, 999).map(str) | st.floats(0.1, 99, allow_nan=False).map(lambda x: f"{x:.1f}")


@given(numbers, st.sampled_from(["m", " m", "min", " min", "M"]))
def test_a_symbol_of_several_readings_after_a_number_is_left_as_typed(number, symbol):
    sentence = f"It was {number}{symbol} at most."
    assert with_unit_names(with_currency_names(sentence)) == sentence


@given(numbers)
def test_an_amount_signed_in_millions_and_fahrenheit_are_read(number):
    assert with_currency_names(f"It cost ${number}m.") == f"It cost {number} million dollars."
    assert with_unit_names(f"Bake at {number}°F.").startswith(f"Bake at {number} degree") and "Fahrenheit" in \
        with_unit_names(f"Bake at {number}°F.")


clocks = st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda hm: f"{hm[0]}.{hm[1]:02}")


@given(clocks, st.sampled_from(["The pH is at {}.", "It peaked at {}.", "It was at {} and rising.",
                                "The index closed at {}.", "From {} to 9.15.", "It is around {}."]))
def test_a_number_that_may_be_a_time_or_a_decimal_is_left_as_typed_both_sides(clock, frame):
    sentence = frame.format(clock)
    assert read_times(sentence) == sentence
    assert french_numbers(f"Le chiffre est {clock}.", sentence) == f"Le chiffre est {clock}."  # not `7,40`


@given(clocks, st.sampled_from(["Come at {} pm.", "The train leaves at {}.", "Open until {}.",
                                "Meet at {} tonight.", "From {} to 9.15 am."]))
def test_a_time_the_sentence_says_is_one_is_read_with_a_colon(clock, frame):
    assert clock.replace(".", ":") in read_times(frame.format(clock))


@given(clocks)
def test_a_price_keeps_its_decimal_in_french_form(clock):
    whole, cents = clock.split(".")
    assert french_numbers(f"Ça coûte {clock} dollars.", f"It costs {clock} dollars.") == \
        f"Ça coûte {whole},{cents} dollars."


SAYS_ELSE = [chr(c) for c in range(0x2200) if unicodedata.decomposition(chr(c)).startswith(("<fraction>", "<super>"))]


@given(st.sampled_from(SAYS_ELSE), st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]),
                                           max_size=8))
def test_cleaning_keeps_a_fraction_or_a_raised_character_as_typed(char, around):
    text = f"{around} 9{char} {around}"
    assert char in clean(text) and clean(clean(text)) == clean(text)


def test_cleaning_still_makes_safe_compatibility_forms_plain():
    assert clean("ｆｕｌｌ\u3000ｗｉｄｔｈ ﬁne 5\xa0€ H₂O ℃") == "full width fine 5 € H2O °C"
    assert clean("Platform 9¾, 20 m², Acme™, 1º") == "Platform 9¾, 20 m², Acme™, 1º"


def test_the_corpus_counts_the_words_it_writes_with_capitals_inside_a_sentence():
    words = CorpusWords.of(["We met in March.", "I will go.", "I saw Tom, Tom saw TV.", "March on!", "We march.",
                            "We march now.", "I watch TV.", *["I will stay."] * 30], [])
    assert words.cased == {"Tom", "TV"} and words.forms["tv"] == "TV"  # `march`: once capitalised, twice not
    assert words.capitalised == {"tom", "tv", "march"}  # `will`: never
    assert CorpusWords.from_payload(words.payload()) == words


def test_a_hyphenated_word_is_one_word_of_the_corpus_and_words_used_seldom_are_kept():
    words = CorpusWords.of(["Don't un-shrink it.", "Use the Wi-Fi.", "I use Wi-Fi.", "Be frank.", "I will go.",
                            "We will go.", "You will go."], [])
    assert {"un-shrink", "shrink"} <= words.source and "un" not in words.source  # `THE UN` is then an acronym
    assert "Wi-Fi" in words.cased and "wi-fi" in words.capitalised and "wi-fi" in words.source
    assert "frank" in words.seldom and "will" not in words.seldom
    assert CorpusWords.from_payload(words.payload()) == words
    shirts = CorpusWords.of(["Why did you go?", "Your T-shirt is red.", "My T-shirt is new.", "Did it shrink?"], [])
    assert read("WHY DID YOUR T-SHIRT SHRINK?", shirts)[0] == "Why did your T-shirt shrink?"  # cased whole


# `frank` and `grace` the corpus uses seldom (`CorpusWords.seldom`): typed as given names, they are likelier names.
GIVEN = CorpusWords(WORDS.source | {"frank", "answers", "wedding", "times", "life", "of", "employee", "month", "alarm",
                                    "sound", "chase", "dog", "says", "come", "these", "are", "my", "sister",
                                    "magazines", "orange"}, frozenset(), WORDS.phrases, WORDS.cased,
                    WORDS.capitalised, seldom=frozenset({"frank", "grace", "chase"}))


@pytest.mark.parametrize("line, reading, names", [
    ('ANSWERS TO "FRANK".', "Frank", ()),  # a common given name the corpus uses seldom: the name
    ("The Life And Times Of Frank Sinatra", "of Tom", ("Frank Sinatra",)),  # and the name after it
    ("GRACE AND WILL'S WEDDING", "Tom's wedding", ("Will",)),  # a given name with a possessive
    ("Employee Of The Month: May Chen", "month: Tom", ("May Chen",)),  # a given name before a name
    ("EMPLOYEE OF THE MONTH: MAY CHEN", "month: Tom", ("May Chen",)),
    ("ALARM WILL SOUND", "will sound", ()),  # a given name but no mark: the word
    ("THESE ARE MY SISTER'S MAGAZINES.", "my sister's", ()),  # after a possessive: a common noun
    ("I LOVE ORANGE MARMALADE.", "love orange", ()),  # before a word the corpus lacks but no surname
    ("Will Siobhan come?", "Will Tom come?", ("Siobhan",)),  # typed as written, its capital is the clause's
])
def test_a_given_name_is_read_as_a_persons_where_the_line_says_so(line, reading, names):
    read_as, held = read(line, GIVEN)
    assert reading in read_as and tuple(name for _, name in held) == names


PARTS = ["I met Tom", "we love Paris", "see you on Monday", "go to the TV office", "we met on March 3", "I met Siobhan",
         "we saw the NHS office", "I met Will", "go to Hotel Ritz"]
sentences = st.lists(st.sampled_from(PARTS), min_size=1, max_size=3).map(lambda parts: " and ".join(parts) + ".")


def count(reading: tuple[str, tuple], word: str) -> int:
    """How often `word` is in a `read` reading, its placeholders written as the names they carry."""
    text, names = reading
    for placeholder, name in names:
        text = re.sub(rf"\b{placeholder}\b", name, text)
    return text.replace(".", "").split(" ").count(word)


@given(sentences)
def test_a_line_in_capitals_reads_with_the_names_months_and_acronyms_of_the_line_as_written(sentence):
    as_written, upper = read(sentence[0].upper() + sentence[1:]), read(sentence.upper())
    for word in ("Tom", "Paris", "Monday", "TV", "March", "NHS"):  # the corpus's forms, an acronym it lacks
        assert count(upper, word) == count(as_written, word)


@given(sentences)
def test_a_line_in_title_case_reads_with_the_names_of_the_line_as_written(sentence):
    as_written, title = read(sentence[0].upper() + sentence[1:]), read(title_case(sentence))
    for word in ("Tom", "Paris", "Monday", "TV", "March", "Siobhan", "Ritz"):  # and names the corpus lacks
        assert count(title, word) == count(as_written, word)


@pytest.mark.parametrize("line, names", [
    ("CLOSED FOR RENOVATION UNTIL MARCH 3", ()),  # `RENOVATION`: a word; `MARCH 3`: the month
    ("I ❤️ NY", ("NY",)), ("MEET ME AT THE BBC AT 5 PM EST.", ("BBC", "EST")),  # acronyms the corpus lacks, carried
    ("Hotel Ritz, 15 Place Vendôme", ("Ritz", "Vendôme")),  # Title Case: words the corpus lacks stay capitalised
    ("I met Will yesterday.", ("Will",)), ("Tell Grace.", ("Grace",)),  # capitalised inside a clause: a name
    ("I met the President.", ()),  # ... but not one the corpus capitalises at times
    ("Will you come?", ()), ("Note: Will it rain?", ()),  # a clause's first word: its capital says nothing
    ("Whisk the eggs.", ()), ("lol ok", ()), ("Siobhan went home.", ()),  # a clause's first word: read in context
    ("Siobhan's hotel", ("Siobhan",)), ("Henry VIII had six wives.", ("Henry VIII",)),  # ... the subject, a run
    ("Open on May 3.", ()), ("Signed in May.", ()), ("He Peeled The Fish.", ()),  # a month next to a number; a word the corpus makes
])
def test_names_are_read_by_the_evidence_of_the_line(line, names):
    words = CorpusWords(WORDS.source | {"closed", "for", "until", "ok", "saw", "it", "eggs", "carrots", "went", "home",
                                        "had", "six", "wives", "open", "rain", "note", "yesterday", "tell", "come",
                                        "he", "be", "me", "pm", "meet", "signed"}, frozenset(), WORDS.phrases,
                        WORDS.cased, WORDS.capitalised)
    assert tuple(name for _, name in read(line, words)[1]) == names


def test_a_word_made_of_a_corpus_word_is_english():
    known = frozenset({"peel", "deputy", "rat", "shave", "wine"})
    assert all(english(word, known) for word in ("peeled", "deputies", "ratted", "unpeeled", "wines"))
    assert not any(english(word, known) for word in ("siobhan", "ritz", "rose", "pee"))


def test_a_month_next_to_a_number_is_read_as_the_month_in_capitals():
    words = CorpusWords(WORDS.source | {"open"}, frozenset(), cased=WORDS.cased, capitalised=WORDS.capitalised)
    assert read("OPEN ON MAY 3.", words)[0] == "Open on May 3." and read("YOU MAY GO.", words)[0] == "You may go."
    assert read("SEE YOU 3 MAY.", words)[0] == "See you 3 May."
