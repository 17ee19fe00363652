"""Contractions typed without their apostrophe (docs/trust.md): the valid sources with a contraction the
translator reads back (`don't`, `I'm`, not `we're`, whose `were` is a word), typed with every apostrophe
dropped, as a person who skips them types, translated by one model with the reading and without, and as
written; BLEU as `evaluate` scores it. Then a few typed lines, beam 8.

    python docs/scripts/apostrophes.py models/seq2seq artifacts/splits
"""

import sys

from attention_lab.text.lexicon import CONTRACTION, CONTRACTIONS
from typed_lines import measured  # docs/scripts/typed_lines.py

TYPED = ("i cant swim", "I dont know.", "Im tired.", "He doesnt like it.", "Youre late!", "Thats not fair.",
         "We havent eaten yet.", "She isnt here.", "I wont tell anyone.", "Tom didnt come.", "Whats your name?",
         "They werent home.", "It wasnt me.", "I couldnt sleep.", "Ive lost my key.")


def main(model: str, splits: str) -> None:
    measured(model, splits, CONTRACTIONS, lambda s: CONTRACTION.search(s.replace("'", "").replace("’", "")),
             lambda s: s.replace("'", ""), ("with a contraction read back", "apostrophes dropped"), TYPED)


if __name__ == "__main__":
    main(*sys.argv[1:])
