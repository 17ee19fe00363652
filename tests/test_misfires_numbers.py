"""Numbers in ordinary English that the rules around the model misread or wrote back wrong, a row each:
the rule, called directly, on what was typed; what it gave then (the misfire; for a row that guards a
reading kept, the same as now) and what it gives now."""

import pytest

from attention_lab.inference.currency import with_currency_names
from attention_lab.inference.units import with_unit_names


def amounts_and_units(sentence: str) -> str:
    """As inference/reading.py reads them: the currency first, then the units."""
    return with_unit_names(with_currency_names(sentence))


MISFIRES = [  # rule, typed, then, now
    # 1: an amount's `m` is its scale; `5g` alone the network; a unit's period no end mark (currency, units)
    pytest.param(amounts_and_units, "It cost 2m euros.", "It cost 2 meters euros.", "It cost 2 million euros.",
                 id="2m-euros"),
    pytest.param(amounts_and_units, "It cost £2m.", "It cost £2m.", "It cost 2 million pounds.", id="pound-2m"),
    pytest.param(amounts_and_units, "He won 2m dollars, $3bn.", "He won 2 meters dollars, $3bn.",
                 "He won 2 million dollars, 3 billion dollars.", id="2m-dollars"),
    pytest.param(amounts_and_units, "The wall is 5m high.", "The wall is 5 meters high.", "The wall is 5 meters high.",
                 id="5m-high"),
    pytest.param(with_unit_names, "Is 5g dangerous?", "Is 5 grams dangerous?", "Is 5g dangerous?", id="5g-network"),
    pytest.param(with_unit_names, "Is 4G or 5G faster?", "Is 4G or 5G faster?", "Is 4G or 5G faster?", id="4G-5G"),
    pytest.param(with_unit_names, "Add 5 g of sugar, 500g of flour and 5g of salt.",
                 "Add 5 grams of sugar, 500 grams of flour and 5 grams of salt.",
                 "Add 5 grams of sugar, 500 grams of flour and 5 grams of salt.", id="grams"),
    pytest.param(with_unit_names, "He is 6 ft. tall.", "He is 6 feet. tall.", "He is 6 feet tall.", id="ft-period"),
    pytest.param(with_unit_names, "He is 6 ft. Tom is 5 ft.", "He is 6 feet. Tom is 5 feet.",
                 "He is 6 feet. Tom is 5 feet.", id="ft-end"),
]


@pytest.mark.parametrize("rule, typed, then, now", MISFIRES)
def test_misfire(rule, typed, then, now):
    assert rule(typed) == now
