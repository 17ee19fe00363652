"""Numbers in ordinary English that the rules around the model misread or wrote back wrong, a row each:
the rule, called directly, on what was typed; what it gave then (the misfire; for a row that guards a
reading kept, the same as now) and what it gives now."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from test_number_constraint import PIECES, Pieces, allowed
from test_symbols import Words

from attention_lab.data.numbers import number_groups
from attention_lab.text.amounts import with_currency_names, with_unit_names
from attention_lab.inference.number_constraint import NumberConstraint
from attention_lab.text.number_forms import french_numbers, read_times
from attention_lab.text.symbols import put_back, take_out


def amounts_and_units(sentence: str) -> str:
    """As text/normalize.py reads them: the currency first, then the units."""
    return with_unit_names(with_currency_names(sentence))


def signed(pair: tuple[str, str]) -> str:
    """The output of a (source, output) pair (the translation of the source without its signs, a piece
    a word) with the minus signs of the source put back, attention spread evenly."""
    source, output = pair
    text, runs = take_out(source, lambda char: True)
    codec, pieces = Words(), output.split()
    attention = np.full((len(pieces), len(text.split()) + 1), 1.0)  # (T, S)
    return put_back(runs, text, pieces, attention, codec, codec)


def carried(sentence: str) -> str:
    """What the model reads of `sentence`, then each carried run in brackets."""
    text, runs = take_out(sentence, lambda char: True)
    return " ".join([text, *(f"[{run.text}]" for run in runs)])


def french(pair: tuple[str, str]) -> str:
    """The output of an (output, source) pair with the source's numbers in French form."""
    return french_numbers(*pair)


MISFIRES = [  # rule, typed, then, now
    # 1: an amount's `m` is its scale; `5g` alone the network; a unit's period no end mark (currency, units)
    pytest.param(amounts_and_units, "It cost 2m euros.", "It cost 2 meters euros.", "It cost 2 million euros.",
                 id="2m-euros"),
    pytest.param(amounts_and_units, "It cost £2m.", "It cost £2m.", "It cost 2 million pounds.", id="pound-2m"),
    pytest.param(amounts_and_units, "He won 2m dollars, $3bn.", "He won 2 meters dollars, $3bn.",
                 "He won 2 million dollars, 3 billion dollars.", id="2m-dollars"),
    pytest.param(amounts_and_units, "The project costs 10m.", "The project costs 10 meters.",
                 "The project costs 10m.", id="10m-as-typed"),  # metres, minutes or millions: the model reads it
    pytest.param(amounts_and_units, "Temperature: 5 min, 20 max.", "Temperature: 5 minutes, 20 max.",
                 "Temperature: 5 min, 20 max.", id="min-as-typed"),
    pytest.param(with_unit_names, "Is 5g dangerous?", "Is 5 grams dangerous?", "Is 5g dangerous?", id="5g-network"),
    pytest.param(with_unit_names, "Is 4G or 5G faster?", "Is 4G or 5G faster?", "Is 4G or 5G faster?", id="4G-5G"),
    pytest.param(with_unit_names, "Add 5 g of sugar, 500g of flour and 5g of salt.",
                 "Add 5 grams of sugar, 500 grams of flour and 5 grams of salt.",
                 "Add 5 grams of sugar, 500 grams of flour and 5 grams of salt.", id="grams"),
    pytest.param(with_unit_names, "He is 6 ft. tall.", "He is 6 feet. tall.", "He is 6 feet tall.", id="ft-period"),
    pytest.param(with_unit_names, "He is 6 ft. Tom is 5 ft.", "He is 6 feet. Tom is 5 feet.",
                 "He is 6 feet. Tom is 5 feet.", id="ft-end"),
    # 2: a time with a dot where the sentence says it is one, a price's decimal where it says so (number_forms)
    pytest.param(read_times, "The shop opens at 9.30 on Sundays.", "The shop opens at 9.30 on Sundays.",
                 "The shop opens at 9:30 on Sundays.", id="opens-on-sundays"),
    pytest.param(read_times, "We meet at 9.30 on Mondays.", "We meet at 9.30 on Mondays.",
                 "We meet at 9:30 on Mondays.", id="at-on-mondays"),
    pytest.param(read_times, "It is open from 9.30 to 5.30 pm.", "It is open from 9:30 to 5:30 pm.",
                 "It is open from 9:30 to 5:30 pm.", id="from-to"),
    pytest.param(read_times, "The pH is at 7.40.", "The pH is at 7:40.", "The pH is at 7.40.", id="decimal-at"),
    pytest.param(read_times, "It opens at 9.30 and closes at 5.30.", "It opens at 9.30 and closes at 5:30.",
                 "It opens at 9:30 and closes at 5:30.", id="schedule-verb"),
    pytest.param(read_times, "The euro closed at 1.08.", "The euro closed at 1:08.", "The euro closed at 1.08.",
                 id="euro-closed"),
    pytest.param(read_times, "Prices rose from 1.25 to 1.50.", "Prices rose from 1.25 to 1.50.",
                 "Prices rose from 1.25 to 1.50.", id="price-range"),
    pytest.param(read_times, "Shares fell at 9.30 am.", "Shares fell at 9:30 am.", "Shares fell at 9:30 am.",
                 id="am-whatever"),
    # 3: a minus sign goes back on the number it was typed against, in the source's order (symbols)
    pytest.param(signed, ("Temperatures range from 5 to -5.", "Les températures vont de 5 à 5."),
                 "Les températures vont de -5 à 5.", "Les températures vont de 5 à -5.", id="from-5-to-minus-5"),
    pytest.param(signed, ("It went from -5 to 5.", "Il est passé de 5 à 5."), "Il est passé de -5 à 5.",
                 "Il est passé de -5 à 5.", id="from-minus-5-to-5"),
    pytest.param(signed, ("From -5 to -5.", "De 5 à 5."), "De --5 à 5.", "De -5 à -5.", id="both-signed"),
    pytest.param(signed, ("From 5 to 5 to -5.", "De 5 à 5."), "De -5 à 5.", "De 5 à -5.", id="fewer-in-output"),
    # 4: a range of amounts takes the currency's name once, and is carried as typed (currency, symbols)
    pytest.param(with_currency_names, "It costs $5-10.", "It costs 5 dollars-10.", "It costs 5-10 dollars.",
                 id="dollar-range"),
    pytest.param(with_currency_names, "It costs $5-$10.", "It costs 5 dollars-10 dollars.", "It costs 5-10 dollars.",
                 id="dollar-range-signed"),
    pytest.param(carried, "It costs 5-10 dollars.", "It costs dollars. [5-10]", "It costs dollars. [5-10]",
                 id="range-carried"),
    # 5: thousands in French form, written whole; a phone number as typed (number_forms, numbers, symbols)
    pytest.param(french, ("Ça coûte 2,500, 000 dollars.", "It costs 2,500,000 dollars."),
                 "Ça coûte 2,500, 000 dollars.", "Ça coûte 2 500 000 dollars.", id="thousands-comma-space"),
    pytest.param(number_groups, "2,500,000 people paid 1,299.99 for 2000 items.",
                 ["2", "500", "000", "1", "299", "99", "2000"], ["2500000", "1", "299", "99", "2000"],
                 id="thousands-one-group"),
    pytest.param(french, ("La ville a 2500000 habitants.", "The city has 2,500,000 inhabitants."),
                 "La ville a 2500000 habitants.", "La ville a 2 500 000 habitants.", id="thousands-written-whole"),
    pytest.param(carried, "Her phone number is 06 12 34 56 78.", "Her phone number is 06 12 34 56 78.",
                 "Her phone number is. [06 12 34 56 78]", id="phone-spaced"),
    pytest.param(carried, "Call 555 123 4567 now.", "Call 555 123 4567 now.", "Call now. [555 123 4567]",
                 id="phone-us"),
    pytest.param(carried, "Call 555 123-4567 now.", "Call 555 now. [123-4567]", "Call now. [555 123-4567]",
                 id="phone-mixed"),
    pytest.param(carried, "Count 1 2 3, then 10 20 30.", "Count 1 2 3, then 10 20 30.",
                 "Count 1 2 3, then 10 20 30.", id="list-read"),
    pytest.param(carried, "Call 06 12 34 56 78 9.", "Call 06 12 34 56 78 9.", "Call 06 12 34 56 78 9.",
                 id="no-phone-cut-short"),
]


@pytest.mark.parametrize("rule, typed, then, now", MISFIRES)
def test_misfire(rule, typed, then, now):
    assert rule(typed) == now


clocks = st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda hm: f"{hm[0]}.{hm[1]:02}")


@given(clocks, clocks)
def test_every_valid_time_with_a_times_evidence_is_read_as_a_time(start, end):
    colon = lambda clock: clock.replace(".", ":")  # noqa: E731
    assert read_times(f"The shop opens at {start} on Sundays.") == f"The shop opens at {colon(start)} on Sundays."
    assert read_times(f"We work from {start} to {end} pm.") == f"We work from {colon(start)} to {colon(end)} pm."


@given(clocks, st.sampled_from(["euro", "dollar", "price", "rate", "stock"]))
def test_every_decimal_of_a_price_stays_a_decimal(decimal, word):
    sentence = f"The {word} closed at {decimal}."
    assert read_times(sentence) == sentence


@given(st.integers(1, 99), st.integers(1, 99), st.booleans(), st.booleans())
def test_each_minus_sign_goes_back_on_its_own_number(a, b, a_signed, b_signed):
    typed = lambda n, minus: f"-{n}" if minus else str(n)  # noqa: E731
    assert signed((f"From {typed(a, a_signed)} to {typed(b, b_signed)}.", f"De {a} à {b}.")) == (
        f"De {typed(a, a_signed)} à {typed(b, b_signed)}.")


def test_a_thousands_number_is_one_group_to_the_number_constraint():
    """Written group by group, `2,500,000` came back as `2 octobre 000e`: once begun, it is written whole."""
    constraint = NumberConstraint.build(["It has 2,500,000 people."], Pieces(), torch.tensor([20]), 1)
    digits = {piece for piece in PIECES if piece.strip("▁").isdigit()}
    assert allowed(constraint, 0) & digits == {"▁2", "2"}
    constraint.advance(torch.tensor([0]), torch.tensor([PIECES.index("▁2")]))
    # Its next group, glued or after a thousands separator (`2500000`, `2 500 000`, `2,500,000`, `2.500.000`), not
    # a word nor the end of the number.
    assert allowed(constraint, 0) == {"5", "▁5", "▁", ",", "."}


@given(st.integers(1000, 10**12))
def test_every_thousands_number_comes_back_in_french_form_however_it_is_written(number):
    english, french_form = f"{number:,}", f"{number:,}".replace(",", " ")
    for written in (str(number), english, english.replace(",", ", "), french_form):
        assert french_numbers(f"Il a {written} livres.", f"He has {english} books.") == f"Il a {french_form} livres."
