"""A unit symbol after a number is read with the unit's name, as the corpus writes units."""

import pytest
import torch

from attention_lab.inference.translator import Translator
from attention_lab.text.amounts import UNITS, with_unit_names

torch.set_num_threads(1)


@pytest.mark.parametrize("typed, read", [
    ("I ran 5 km.", "I ran 5 kilometers."), ("I ran 5km today.", "I ran 5 kilometers today."),
    ("It is 1 km away.", "It is 1 kilometer away."), ("Buy 1.5 kg of rice.", "Buy 1.5 kilograms of rice."),
    ("Drive at 50 km/h.", "Drive at 50 kilometers per hour."), ("It is 30°C.", "It is 30 degrees Celsius."),
    ("It boils at 100ºC.", "It boils at 100 degrees Celsius."), ("It is -5 °C, and 20° inside.",
                                                                 "It is -5 degrees Celsius, and 20 degrees inside."),
    ("I weigh 150 lbs, he 1 lb.", "I weigh 150 pounds, he 1 pound."), ("It is 6 ft long.", "It is 6 feet long."),
    ("Back in 2 hrs, or 1 hr.", "Back in 2 hours, or 1 hour."), ("Wait 5 mins.", "Wait 5 minutes."),
    ("Water boils at 212 °F.", "Water boils at 212 degrees Fahrenheit."), ("Bake at 350°F.", "Bake at 350 degrees Fahrenheit."),
    ("It is 5ºF.", "It is 5 degrees Fahrenheit."), ("It is 1,500 m high.", "It is 1,500 meters high."),
    ("The flat is 60 m².", "The flat is 60 m2."), ("It holds 1m³ of water.", "It holds 1m3 of water."),
    ("It took 30 secs.", "It took 30 seconds."),
])
def test_a_unit_symbol_after_a_number_is_read_with_its_name(typed, read):
    assert with_unit_names(typed) == read


@pytest.mark.parametrize("typed", [
    "He paid $5m.", "Use 5 M now.", "A 10-km run.", "Read page 5 m.a.", "It is 5 oz.",
    "It was 5 mg.", "Call 911 mmm.", "I am 5 g-force.", "Room 5km/x.", "See v5km now.", "No. 5 kg/",
    # More than one reading: metres, minutes or millions; minutes or a minimum. Left for the model to read in context.
    "It is 1,500 m.", "The film is 90m long.", "The project costs 10m.", "The flight is 2h 15m long.", "Wait 5 min.", "Low: 5 min, 20 max.",
])
def test_text_that_is_no_number_and_unit_is_left_as_typed(typed):
    assert with_unit_names(typed) == typed


def test_every_name_is_a_word_of_english():
    assert all(one.replace(" ", "").isalpha() and many.replace(" ", "").isalpha() for one, many in UNITS.values())


def test_the_translator_reads_a_unit_symbol_as_its_name(trained_model):
    translator = Translator.load(trained_model, "cpu")
    typed, named = translator.translate(["I see 5 km.", "I see 5 kilometers."])
    assert typed.src_pieces == named.src_pieces and typed.text == named.text
