"""A name the model garbled is written as typed; translations, copied words and common words are left."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.text import protect as protect_module
from attention_lab.text.names import names_written, renamed
from attention_lab.inference.translator import Translator
from test_symbols import Words

torch.set_num_threads(1)

WORDS = CorpusWords(source=frozenset({"where", "is", "turn", "left", "i", "saw", "in"}),
                    target=frozenset({"où", "est", "tournez", "à", "gauche", "j", "ai", "vu", "russie", "en"}))


def fixes(source: str, output: str) -> dict[int, str]:
    """`names_written` for word-for-word output, each output word attending to the source word in its place
    (unequal lengths: the last output words attend to the last source word)."""
    typed, pieces = source.split(), output.split()
    attention = np.zeros((len(pieces) + 1, len(typed) + 1))  # (T, S): <eos> row and column
    for t in range(len(pieces)):
        attention[t, min(t, len(typed) - 1)] = 1.0
    attention[-1, -1] = 1.0
    return names_written(source, pieces, attention, Words(), Words(), WORDS)


@pytest.mark.parametrize("source, output, fixed", [
    ("where is Diego ?", "où est Dégo ?", {2: "Diego"}),
    ("where is Diego's ?", "où est d'Dégo, ?", {2: "d'Diego,"}),  # elision and marks stay; a possessive's name
    ("Diego left .", "Dégo gauche .", {0: "Diego"}),  # a first word that is no word of the corpus: a name
    ("where is Jones ?", "où est juonie ?", {2: "Jones"}), ("where is «Diego»", "où est Dégo", {2: "Diego"}),
])
def test_a_garbled_name_is_written_as_typed(source, output, fixed):
    assert fixes(source, output) == fixed


@pytest.mark.parametrize("source, output", [
    ("i saw Russia", "j ai Russie"),  # a French word the model trained on: a translation
    ("Turn left .", "Tunez gauche ."),  # the sentence's first word is an English word: no name
    ("where is Diego ?", "où est Dormeurs ?"),  # unlike the name
    ("where is Diego ?", "où est Lidego ?"),  # another first letter
    ("where is Tom ?", "où est Tom ?"), ("where is Diego ?", "où Dégo Diego"),  # written already
    ("Dino is Diego", "Dino est Dino"),  # a word copied from the source
    ("where is the cat ?", "où est chat ?"),  # no capitalised word
])
def test_translations_unlike_words_and_names_written_are_left(source, output):
    assert fixes(source, output) == {}


def test_pieces_that_cannot_be_told_apart_or_no_output_word_fix_nothing_and_renamed_replaces_by_index():
    pieces = ["où", "est", "Dégo"]
    assert names_written("where is Diego", pieces, np.ones((4, 3)), Words(), Words(), WORDS) == {}
    assert names_written("where is Diego", [""], np.ones((2, 4)), Words(), Words(), WORDS) == {}  # pieces, no word
    assert renamed("où est Dégo ?", {2: "Diego"}) == "où est Diego ?"
    assert renamed("où  est", {}) == "où  est"


def test_the_translator_writes_the_names_before_the_casing_and_only_with_the_corpus_words(trained_model,
                                                                                           monkeypatch):
    translator = Translator.load(trained_model, "cpu")
    plain = translator.translate(["I see the cat."])[0].text
    monkeypatch.setattr(protect_module, "names_written", lambda *args: {0: "Zed"})
    assert translator.tokenizer.words is not None  # the fixture's tokenizer kept its train split's words
    assert translator.translate(["I see the cat."])[0].text.split()[0] == "Zed"
    assert translator.translate(["I SEE THE CAT."])[0].text.split()[0] == "ZED"
    translator.tokenizer = replace(translator.tokenizer, words=None)  # a tokenizer built before the words
    assert translator.translate(["I see the cat."])[0].text == plain
