"""An amount written with a currency sign is read with the currency's name, as the corpus writes it;
the comparison is with the same model's translation of the sentence written that way."""

import pytest
import torch

from attention_lab.text.amounts import with_currency_names
from attention_lab.inference.translator import Translator

torch.set_num_threads(1)


@pytest.mark.parametrize("sentence, expected", [
    ("I paid $20 for it.", "I paid 20 dollars for it."), ("It costs €5.", "It costs 5 euros."),
    ("It costs 5 €.", "It costs 5 euros."), ("It costs 5€, ok", "It costs 5 euros, ok"),
    ("I owe him $1.", "I owe him 1 dollar."), ("It was $5 million.", "It was 5 million dollars."),
    ("Pay £10.50 now.", "Pay 10.50 pounds now."), ("$3,000.", "3,000 dollars."), ("It is 500¥.", "It is 500 yen."),
    ("$ 2 and $3", "2 dollars and 3 dollars"), ("$5 Million in $1 BILLION", "5 million dollars in 1 billion dollars"),
])
def test_an_amounts_sign_becomes_the_currencys_name(sentence, expected):
    assert with_currency_names(sentence) == expected


@pytest.mark.parametrize("sentence", ["US$5 is cheap.", "A $ sign.", "x$5", "It costs 5 dollars.", "5$$",
                                      "See example.com/?p=$5 now.", "See www.a.com/5€ now."])
def test_a_sign_not_against_a_number_or_inside_a_word_is_left_as_written(sentence):
    assert with_currency_names(sentence) == sentence


def test_the_translator_reads_a_signed_amount_as_the_named_one(trained_model):
    translator = Translator.load(trained_model, "cpu")
    signed, spaced, named = translator.translate(["I see the cat for $5.", "I see the cat for 5\u00a0€.",
                                                  "I see the cat for 5 dollars."])
    assert signed.src_pieces == named.src_pieces and signed.text == named.text
    assert spaced.src_pieces == translator.translate(["I see the cat for 5 euros."])[0].src_pieces
