"""A British spelling is read the American way, as the corpus writes it; names, addresses and forms the
corpus writes British are left as typed."""

import pytest
import torch
from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

from attention_lab.text.steps import read_lines
from attention_lab.text.lexicon import AMERICAN, KEPT, read_words, respelt
from attention_lab.inference.translator import Translator
from test_contractions import Letters

torch.set_num_threads(1)


@pytest.mark.parametrize("typed, read", [
    ("What's your favourite colour?", "What's your favorite color?"), ("Colour me in.", "Color me in."),
    ("The neighbours' dog and the neighbour's cat.", "The neighbors' dog and the neighbor's cat."),
    ("A colour-blind man travelled far.", "A color-blind man traveled far."), ("🐱 Colour it.", "🐱 Color it."),
    ("favourite/colour", "favorite/color"),
    ('"Favourite?" he asked.', '"Favorite?" he asked.'), ("I realised, apologised and left.",
                                                           "I realized, apologized and left."),
])
def test_a_british_spelling_is_read_the_american_way_in_its_casing(typed, read):
    assert read_words(typed) == read


@pytest.mark.parametrize("typed", [
    "I met Mr Grey.", "We saw the Louvre.", "The buses are late.", "Her judgement is sound.",
    "See www.colour.com or colour.com.", "Write to me@colour.uk now.", "Read https://example.com/favourite-colours.",
    "Mail colour-team@example.com.", "See my-favourite-colour.org now.", "Go to www.example.com/?q=colour now.",
    "What's your favorite color?", "He said COLOUR.", "Ask Colour Ltd.",
])
def test_names_addresses_american_and_kept_forms_are_left_as_typed(typed):
    assert read_words(typed) == typed


def test_kept_forms_are_breames_and_no_american_form_is_read_again():
    assert KEPT <= set(BRITISH_ENGLISH_SPELLINGS) and not KEPT & set(AMERICAN)
    assert not set(AMERICAN.values()) & set(AMERICAN)
    assert read_words(" ".join(AMERICAN)) == " ".join(AMERICAN.values())


@pytest.mark.parametrize("written", ["My favorite color is gray.", "Neighbors traveled; TV color, Mr Gray.",
                                     "Program the center's meters.", "🐱 Color it gray."])
def test_the_british_spelling_of_what_the_reading_knows_is_read_back(written):
    british = respelt(written, {american: british for british, american in AMERICAN.items()})
    assert british != written and read_words(british) == written


def test_a_line_typed_in_capitals_is_read_the_american_way_too():
    [sentence] = read_lines(["WHAT IS YOUR FAVOURITE COLOUR"], Letters())
    assert sentence.text == "What is your favorite color?"


def test_the_translator_reads_a_british_spelling_as_the_american_one(trained_model):
    translator = Translator.load(trained_model, "cpu")
    british, american_typed = translator.translate(["The neighbours travelled.", "The neighbors traveled."])
    assert british.src_pieces == american_typed.src_pieces and british.text == american_typed.text
