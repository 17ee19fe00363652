"""Contractions typed without their apostrophe (docs/trust.md): the valid sources with a contraction the
translator reads back (`don't`, `I'm`, not `we're`, whose `were` is a word), typed with every apostrophe
dropped, as a person who skips them types, translated by one model with the reading and without, and as
written; BLEU as `evaluate` scores it. Then a few typed lines, beam 8.

    python docs/apostrophes.py models/seq2seq artifacts/splits
"""

import sys

from attention_lab.data.splits import load_split, references
from attention_lab.inference import reading
from attention_lab.inference.contractions import WORD
from attention_lab.inference.translator import Translator
from typed_lines import as_typed, scored, side_by_side  # docs/typed_lines.py

TYPED = ("i cant swim", "I dont know.", "Im tired.", "He doesnt like it.", "Youre late!", "Thats not fair.",
         "We havent eaten yet.", "She isnt here.", "I wont tell anyone.", "Tom didnt come.", "Whats your name?",
         "They werent home.", "It wasnt me.", "I couldnt sleep.", "Ive lost my key.")


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    refs = references(load_split(splits, "valid"))
    sources = [s for s in refs.index if WORD.search(s.replace("'", "").replace("’", ""))]
    print(f"valid sources with a contraction read back: {len(sources)} of {len(refs)}")
    dropped, read = [s.replace("'", "") for s in sources], reading.with_apostrophes
    variants = [("as written", sources, read), ("apostrophes dropped, read back", dropped, read),
                ("apostrophes dropped, as typed", dropped, as_typed)]
    scored(translator, "with_apostrophes", variants, [list(refs[s]) for s in sources])
    print(side_by_side(translator, "with_apostrophes", read, TYPED))


if __name__ == "__main__":
    main(*sys.argv[1:])
