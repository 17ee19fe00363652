"""Ordinals in digits through one model (docs/trust.md), greedy and beam 8:
- typed sentences with an ordinal in digits (`It's my 2nd time here.`, `She finished 3rd.`): how many
  outputs write it as French abbreviates it (`2e`, `3e`; `1er` or `1re`), whatever the rest;
- BLEU of the valid pairs naming an ordinal on both sides, as written and in digits, as the ordinal
  augmentation makes them.

    python docs/scripts/ordinals.py models/seq2seq artifacts/splits

Run from the repository root: it imports from docs/scripts/calendar_words.py beside it.
"""

import re
import sys

from calendar_words import typed_matches, valid_scores

from attention_lab.data.date_augmentation import ordinal
from attention_lab.data.ordinal_augmentation import ordinal_words, renumbered_ordinal
from attention_lab.inference.translator import Translator

# Four of them without `the` or a possessive before the ordinal, which the augmentation always has.
TEMPLATES = ("It's my {} time here.", "I live on the {} floor.", "This is his {} birthday.",
             "Take the {} street on the left.", "It was the {} century.", "She finished {} in the race.",
             "He came {} in the competition.", "Today is our {} anniversary.", "Tom was {} in line.",
             "Our team ranked {} in the world.")
NUMBERS = (1, 2, 3, 4, 5, 8, 11, 12, 15, 20, 21, 22, 23, 30, 50, 100)


def typed() -> list[tuple[str, str]]:
    """(sentence, a pattern its translation should match) for each template and number."""
    return [(template.format(f"{number}{ordinal(number)}"), rf"(?<![\w,.]){number}(?:er|re)\b"
             if number == 1 else rf"(?<![\w,.]){number}e\b") for template in TEMPLATES for number in NUMBERS]


def kept(source: str, text: str, reference: str) -> bool:
    """Whether `text` writes each abbreviated ordinal of the reference (`14e`, `1re`) as it does."""
    return all(re.search(rf"(?<!\w){re.escape(found)}\b", text) for found in re.findall(r"\b[0-9]+(?:er|re|e)\b",
                                                                                           reference))


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    sentences = typed()
    for beam in (1, 8):
        ok = typed_matches(translator, sentences, beam, show_misses=beam == 8)
        by_template = ", ".join(str(sum(ok[i * len(NUMBERS):(i + 1) * len(NUMBERS)])) for i in range(len(TEMPLATES)))
        print(f"typed ordinals: {sum(ok)} of {len(ok)} written as French abbreviates them, beam {beam} "
              f"(by template: {by_template})", flush=True)
    valid_scores(translator, splits, ordinal_words, renumbered_ordinal, "naming an ordinal", kept)


if __name__ == "__main__":
    main(*sys.argv[1:])
