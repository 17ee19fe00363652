"""Text conventions: `clean` (what is stored), d2l's word normalisation, and word tokens back to
French text."""

import pytest
import regex
from conftest import linear_work
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab.data.cleaning import CLUSTER, clean, detokenize_words, normalize_words


@pytest.mark.parametrize("raw, expected", [
    ("Go.", "Go."),  # case and punctuation stay
    ("Attends\u202f!", "Attends !"), ("Non\xa0!", "Non !"),  # typographic spaces become plain
    ("J\u2019ai faim.", "J'ai faim."),  # typographic apostrophe becomes plain
    ("I like tea\u3002", "I like tea."), ("Yes\u3001no\uff61", "Yes,no."),  # ideographic stops and commas too
    ("  Il   est\tcalme. \r\n", "Il est calme."),  # runs of whitespace collapse, ends trimmed
    ("Quoi ?!", "Quoi ?!"), ("« Bonjour », dit-il.", "« Bonjour », dit-il."),
    ("", ""), (" \u202f\xa0 ", ""),
])
def test_clean_only_makes_spaces_and_apostrophes_plain(raw, expected):
    assert clean(raw) == expected


@pytest.mark.parametrize("raw", [
    "Hello\x00 world.", "Hello \x00world.", "Hello\u200b world.", "Hel\u200blo world.", "\ufeffHello world.",
    "Hello \x1b[31mworld\x1b[0m.", "\x1b]0;title\x07Hello world.", "Hello\u2060 world\u00ad.", "Hello\x7f world.",
    "Ｈｅｌｌｏ ｗｏｒｌｄ.", "Hello\u3000world.", "Hello\u2028world.", "Hel\u200dlo world.",
])
def test_clean_drops_invisible_characters_and_escapes_and_normalises_unicode(raw):
    assert clean(raw) == "Hello world."


def test_clean_composes_accents_and_keeps_symbols():
    assert clean("Cafe\u0301 \ufb01n, I love 🐱 cats, 寿司.") == "Café fin, I love 🐱 cats, 寿司."


# Regional indicators (🇫, 🇷: two make a flag), marks, a joiner, a spacing mark, a prepended one, Hangul jamo
# and controls: the characters whose clusters UAX #29 joins or breaks by a rule of its own.
CLUSTER_PARTS = ["🇫", "🇷", "a", " ", "\u0301", "\u200d", "\u0903", "\u0600", "👨", "🏻", "\ufe0f", "\r", "\n",
                 "\u1100", "\u1161", "\u11a8", "é"]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(CLUSTER_PARTS), max_size=12))
def test_the_clusters_are_those_of_unicode(text):
    assert CLUSTER.findall(text) == regex.findall(r"\X", text)


def test_a_long_run_of_flags_is_cut_into_clusters_in_linear_work():
    flags = "🇫🇷" * 100_000
    with linear_work(2):  # linear: 0.05 s; quadratic (`\X` alone): minutes
        assert CLUSTER.findall(flags) == ["🇫🇷"] * 100_000
        assert clean(flags) == flags


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aB é'.!? \t\u202f\xa0\u2019«»")), max_size=30))
def test_clean_is_idempotent_and_keeps_every_visible_character(text):
    cleaned = clean(text)
    assert clean(cleaned) == cleaned
    assert cleaned == cleaned.strip() and "  " not in cleaned
    assert "\u202f" not in cleaned and "\xa0" not in cleaned and "\u2019" not in cleaned
    visible = text.replace("\u2019", "'")
    assert "".join(cleaned.split()) == "".join(visible.replace("\u202f", " ").replace("\xa0", " ").split())


@pytest.mark.parametrize("raw, expected", [
    ("Go.", "go ."), ("Va !", "va !"), ("J'ai perdu.", "j'ai perdu ."), ("He's calm.", "he's calm ."),
    ("Il est calme.", "il est calme ."), ("Qui ?", "qui ?"), ("Attends\u202f!", "attends !"),
    ("Non\xa0!", "non !"), ("« Bonjour », dit-il.", "« bonjour » , dit-il ."), ("Quoi ?!", "quoi ? !"),
    ("J’ai faim (très).", "j'ai faim ( très ) ."), ("Go .", "go ."), ("go  .", "go ."),
])
def test_normalize_words_follows_d2l(raw, expected):
    assert normalize_words(raw) == expected


def test_normalize_words_can_keep_case():
    assert normalize_words("Go.", lowercase=False) == "Go ."
    assert normalize_words("Je suis chez Kowalski.", lowercase=False) == "Je suis chez Kowalski ."


@pytest.mark.parametrize("tokens, text", [
    ("va !", "Va !"),  # French puts a space before ! ? : ;
    ("je suis chez moi .", "Je suis chez moi."),
    ("qui ?", "Qui ?"),
    ("il a dit , ( oui ) .", "Il a dit, (oui)."),
    ("j'ai perdu .", "J'ai perdu."),
    ("attends . . .", "Attends..."),  # d2l splits an ellipsis into full stops
    ("écoute !", "Écoute !"),  # an accented first letter is capitalised too
    ("", ""),
])
def test_detokenize_words_gives_french_text(tokens, text):
    assert detokenize_words(tokens.split()) == text


def test_detokenize_words_capitalises_the_first_letter_after_an_opening_quote():
    # 243 lines of the real corpus start with « or "; the docstring promises the first *letter*.
    text = detokenize_words("« bonjour » , dit-il .".split())
    first_letter = next(c for c in text if c.isalpha())
    assert first_letter.isupper(), text
    assert text.endswith("», dit-il.")


TEXT = st.text(alphabet=st.sampled_from(list("abcXYZ é'-,.!?;:«»\"()…¿¡\u202f\xa0\u2019")), max_size=40)


@settings(max_examples=200, deadline=None)
@given(TEXT, st.booleans())
def test_normalize_is_idempotent_and_detokenize_round_trips(text, lowercase):
    tokens = normalize_words(text, lowercase)
    assert normalize_words(tokens, lowercase) == tokens  # idempotent
    # detokenize capitalises the first letter (wherever it is), so compare without case
    back = normalize_words(detokenize_words(tokens.split()), lowercase)
    assert back.lower() == tokens.lower()
    changed = [(a, b) for a, b in zip(back, tokens) if a != b]
    assert len(changed) <= 1 and all(a == b.upper() for a, b in changed)
