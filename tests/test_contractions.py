"""A contraction typed without its apostrophe is read with it, and only where the typed form is no word."""

import pytest
import torch

from attention_lab.evaluation.report import without_apostrophes
from attention_lab.inference.contractions import FORMS, with_apostrophes
from attention_lab.inference.translator import Translator

torch.set_num_threads(1)


@pytest.mark.parametrize("typed, read", [
    ("I cant swim.", "I can't swim."), ("Dont go.", "Don't go."), ("im tired", "I'm tired"),
    ("Im here.", "I'm here."), ("youre late and theyve gone.", "you're late and they've gone."),
    ("Thats why it doesnt work.", "That's why it doesn't work."), ("\"Dont!\" he said.", "\"Don't!\" he said."),
    ("We wont. I shouldve known.", "We won't. I should've known."), ("Whats up?", "What's up?"),
])
def test_a_contraction_without_its_apostrophe_is_read_with_it(typed, read):
    assert with_apostrophes(typed) == read


@pytest.mark.parametrize("typed", [
    "We were well.", "Its tail is long.", "I was ill.", "He lets me.", "Show your ID.", "They wed in May.",
    "I can't go.", "Don’t go.", "Write to im@example.com now.", "See dont.com today.", "I met Jony Ive.",
    "Tom said Dont.", "DONT GO.", "dont's", "Cantor is here.", "Send it to /dont now.",
])
def test_words_addresses_names_and_written_contractions_are_left_as_typed(typed):
    assert with_apostrophes(typed) == typed


def test_no_form_is_a_word_of_the_corpus_and_each_reads_as_itself_with_an_apostrophe():
    words = {"were", "well", "its", "ill", "id", "lets", "shell", "hell", "wed", "shed"}  # the corpus writes these
    assert not words & set(FORMS)
    assert all(written.replace("'", "").lower() == typed for typed, written in FORMS.items())


@pytest.mark.parametrize("written", ["I don't know, you're right.", "It isn’t Tom's.", "I'm sure we've won."])
def test_what_evaluate_types_without_apostrophes_the_reading_gives_back_but_for_words_and_possessives(written):
    typed = without_apostrophes(written)
    assert "'" not in typed and "’" not in typed
    assert with_apostrophes(typed) == written.replace("’", "'").replace("Tom's", "Toms")


def test_the_translator_reads_a_contraction_typed_without_its_apostrophe_as_written_with_it(trained_model):
    translator = Translator.load(trained_model, "cpu")
    typed, written, capitals = translator.translate(["i dont see the cat", "I don't see the cat.",
                                                     "I DONT SEE THE CAT"])
    assert typed.src_pieces == written.src_pieces == capitals.src_pieces and typed.text == written.text
