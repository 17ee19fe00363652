"""Sentences with decimals, thousands, times written with a dot, chains of dots and unit symbols,
translated by one model with the translator's number forms and unit names and without (docs/trust.md),
beam 8. Without them: no number is rewritten after the search, no time is read with a colon, a chain of
dots reaches the model, and so do unit symbols.

    python docs/scripts/typed_numbers.py models/seq2seq
"""

import re
import sys

from attention_lab.text import normalize as reading, protect as translator, symbols
from attention_lab.inference.translator import Translator
from typed_lines import table  # docs/scripts/typed_lines.py

SENTENCES = (
    "We need 3 eggs and 2.5 cups of flour.", "I bought 1.5 kg of apples.", "The population is 67.8 million.",
    "He ran 42.195 kilometers.", "I paid €3.99 for it.", "It costs $1,299.99.", "The rate is 4.8%.",
    "It's 1.5 times bigger.", "She has 2,000 books.", "More than 3,000 people came.", "I go to bed at 10.30.",
    "We close at 5.30 p.m. today.", "The shop sold it at 10.30 dollars.", "Version 1.2.3 fixes the bug.",
    "My IP is 192.168.1.1.", "Use v1.2.3 now.", "I ran 5km this morning.", "The box weighs 3 kg.",
    "He is 180 cm tall.", "The river is 20 m wide.", "Drive at 50 km/h.", "I weigh 150 lbs.", "It's 30°C today.",
    "It's -5°C outside.", "Water boils at 212 °F.", "Add 200 g of sugar.", "Take 5 mg of it.", "Pour 50 ml of milk.",
    "It weighs 5 oz.", "It's 10 mm thick.", "He drove at 60 mph.", "The board is 6 ft long.",
)


def main(model: str) -> None:
    loaded = Translator.load(model, "cpu")
    forms = reading.read_times, reading.with_unit_names, translator.french_numbers, symbols.VERBATIM
    reading.read_times = reading.with_unit_names = translator.french_numbers = lambda text, *source: text
    symbols.VERBATIM = re.compile(symbols.VERBATIM.pattern.replace(symbols.DOTTED_CHAIN, "(?!)"), re.VERBOSE)
    before = loaded.translate(SENTENCES)
    reading.read_times, reading.with_unit_names, translator.french_numbers, symbols.VERBATIM = forms
    after = loaded.translate(SENTENCES)
    print(table(list(SENTENCES), [t.text for t in before], [t.text for t in after],
                ("without the number forms and unit names", "with them")))


if __name__ == "__main__":
    main(*sys.argv[1:])
