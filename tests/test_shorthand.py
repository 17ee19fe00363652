"""Shorthand is read as the words it stands for; text that only looks like it is left as typed."""

import pytest
import torch

from attention_lab.text.lexicon import read_words
from attention_lab.inference.translator import Translator

torch.set_num_threads(1)


@pytest.mark.parametrize("typed, read", [
    ("Tom & Mary are here.", "Tom and Mary are here."), ("Buy fruit, e.g. apples.", "Buy fruit, for example apples."),
    ("He is the boss, i.e. he decides.", "He is the boss, that is he decides."), ("E.g. this.", "For example this."),
    ("It's 3x faster.", "It's 3 times faster."), ("It's 2.5x faster and 10x cheaper!",
                                                 "It's 2.5 times faster and 10 times cheaper!"),
    ("It grew 4x.", "It grew 4 times."), ("It's 2x, maybe 3x faster.", "It's 2 times, maybe 3 times faster."),
])
def test_shorthand_is_spelt_out(typed, read):
    assert read_words(typed) == read


@pytest.mark.parametrize("typed", ["R&D grew.", "AT&T called.", "A 2x2 grid.", "Set 0x1F now.", "The 3x Club.",
                                   "Read the.e.g file.", "My egg.", "Use x86 chips.", "It is 3 x 4."])
def test_text_that_only_looks_like_shorthand_is_left_as_typed(typed):
    assert read_words(typed) == typed


def test_the_translator_reads_shorthand_as_its_words(trained_model):
    translator = Translator.load(trained_model, "cpu")
    typed, spelt = translator.translate(["I see Tom & Mary.", "I see Tom and Mary."])
    assert typed.src_pieces == spelt.src_pieces and typed.text == spelt.text
