"""Sentences with currency signs, web and e-mail addresses and negative numbers, translated by one model
with the translator's readings of them and without (docs/trust.md), beam 8. Without them: amounts keep
their sign, and addresses and minus signs reach the model as any other text.

    python docs/scripts/typed_symbols.py models/seq2seq
"""

import re
import sys

from attention_lab.text import normalize as reading, symbols
from attention_lab.inference.translator import Translator
from typed_lines import table  # docs/scripts/typed_lines.py

SENTENCES = (
    "I paid $20 for this shirt.", "It costs 5 €.", "It costs €5.", "The price is $5.", "I owe him $1.",
    "The ticket costs £12.", "He earns $3,000 a month.", "It's only 10$.", "A coffee costs 2.50 €.",
    "The house sold for $5 million.", "I found $50 on the street.", "Can you lend me $10?",
    "Send an email to tom@example.com.", "Visit www.example.com for more information.",
    "My address is mary.smith@gmail.com.", "You can find it on tatoeba.org.", "The temperature is -5 degrees.",
    "It's -10 degrees outside.",
)


def main(model: str) -> None:
    loaded = Translator.load(model, "cpu")
    readings = reading.with_currency_names, symbols.VERBATIM
    reading.with_currency_names, symbols.VERBATIM = (lambda sentence: sentence), re.compile(r"(?!)")
    before = loaded.translate(SENTENCES)
    reading.with_currency_names, symbols.VERBATIM = readings
    after = loaded.translate(SENTENCES)
    print(table(list(SENTENCES), [t.text for t in before], [t.text for t in after],
                ("without the readings", "with them")))


if __name__ == "__main__":
    main(*sys.argv[1:])
