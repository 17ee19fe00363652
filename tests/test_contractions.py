"""A contraction typed without its apostrophe is read with it, and only where the typed form is no word."""

import pytest
import torch

from attention_lab.data.tokenizer import Codec
from attention_lab.evaluation.report import without_apostrophes
from attention_lab.text.lexicon import CONTRACTIONS, read_words
from attention_lab.text.steps import read_lines
from attention_lab.inference.translator import Translator

torch.set_num_threads(1)


@pytest.mark.parametrize("typed, read", [
    ("I cant swim.", "I can't swim."), ("Dont go.", "Don't go."), ("im tired", "I'm tired"),
    ("Im here.", "I'm here."), ("youre late and theyve gone.", "you're late and they've gone."),
    ("Thats why it doesnt work.", "That's why it doesn't work."), ("\"Dont!\" he said.", "\"Don't!\" he said."),
    ("We wont. I shouldve known.", "We won't. I should've known."), ("Whats up?", "What's up?"),
    ("I said 'dont go'", "I said 'don't go'"), ("Please dont go", "Please don't go"),
])
def test_a_contraction_without_its_apostrophe_is_read_with_it(typed, read):
    assert read_words(typed) == read


@pytest.mark.parametrize("typed", [
    "We were well.", "Its tail is long.", "I was ill.", "He lets me.", "Show your ID.", "They wed in May.",
    "I can't go.", "Don’t go.", "Write to im@example.com now.", "See dont.com today.", "I met Jony Ive.",
    "Tom said Dont.", "DONT GO.", "dont's", "Cantor is here.", "Send it to /dont now.",
])
def test_words_addresses_names_and_written_contractions_are_left_as_typed(typed):
    assert read_words(typed) == typed


@pytest.mark.parametrize("sentence_cased, read", [
    ("I met jony ive yesterday.", "I met jony ive yesterday."), ("Send me an im now.", "Send me an im now."),
    ("Im tired.", "I'm tired."), ("I cant swim and hes sad.", "I can't swim and hes sad."),
])
def test_in_a_line_typed_in_capitals_a_form_that_may_be_a_name_is_read_back_only_where_it_begins(sentence_cased,
                                                                                                 read):
    assert read_words(sentence_cased, recased=True) == read


class Letters(Codec):
    """Every character read, a piece per letter: sentence-casing lowercases every word (no form is shorter)."""

    def pieces(self, text):
        return list(text.replace(" ", ""))

    def reads(self, char):
        return True


@pytest.mark.parametrize("typed, read", [("I MET JONY IVE.", "I met jony ive."), ("IM TIRED.", "I'm tired."),
                                         ("I Met Jony Ive Today.", "I met jony ive today."),
                                         ("i met ive.", "I met I've.")])  # lower case is no name's
def test_reading_a_line_knows_whether_it_was_typed_in_capitals_or_title_case(typed, read):
    [sentence] = read_lines([typed], Letters())
    assert sentence.text == read


def test_no_form_is_a_word_of_the_corpus_and_each_reads_as_itself_with_an_apostrophe():
    words = {"were", "well", "its", "ill", "id", "lets", "shell", "hell", "wed", "shed"}  # the corpus writes these
    assert not words & set(CONTRACTIONS)
    assert all(written.replace("'", "").lower() == typed for typed, written in CONTRACTIONS.items())


@pytest.mark.parametrize("written", ["I don't know, you're right.", "It isn’t Tom's.", "I'm sure we've won."])
def test_what_evaluate_types_without_apostrophes_the_reading_gives_back_but_for_words_and_possessives(written):
    typed = without_apostrophes(written)
    assert "'" not in typed and "’" not in typed
    assert read_words(typed) == written.replace("’", "'").replace("Tom's", "Toms")


def test_the_translator_reads_a_contraction_typed_without_its_apostrophe_as_written_with_it(trained_model):
    translator = Translator.load(trained_model, "cpu")
    typed, written, capitals = translator.translate(["i dont see the cat", "I don't see the cat.",
                                                     "I DONT SEE THE CAT"])
    assert typed.src_pieces == written.src_pieces == capitals.src_pieces and typed.text == written.text
