"""British spellings (docs/trust.md): the valid sources with a word whose British spelling the translator
reads the American way (inference/spelling.py), typed British, as a person in Britain types them,
translated by one model with the reading and without, and as written; BLEU as `evaluate` scores it. Then
a few typed lines, beam 8.

    python docs/british.py models/seq2seq artifacts/splits
"""

import sys

from attention_lab.data.splits import load_split, references
from attention_lab.inference import reading
from attention_lab.inference.spelling import AMERICAN, respelt
from attention_lab.inference.translator import Translator
from typed_lines import as_typed, scored, side_by_side  # docs/typed_lines.py

BRITISH = {american: british for british, american in reversed(AMERICAN.items())}  # the first British form of each
TYPED = ("What's your favourite colour?", "I realise that I was wrong.", "The theatre is closed today.",
         "I need to organise my thoughts.", "He apologised for being late.", "The neighbours are very noisy.",
         "She's my favourite teacher.", "Let's meet at the centre of town.", "Tom travelled all over Europe.",
         "I'll check the programme.", "My behaviour was rude.", "Don't spread rumours.", "Do me a favour.",
         "Can you recognise him?", "We cancelled the meeting.")


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    refs = references(load_split(splits, "valid"))
    sources = [s for s in refs.index if respelt(s, BRITISH) != s]
    print(f"valid sources with a word whose British spelling is read back: {len(sources)} of {len(refs)}")
    typed, read = [respelt(s, BRITISH) for s in sources], reading.american
    variants = [("as written", sources, read), ("typed British, read back", typed, read),
                ("typed British, as typed", typed, as_typed)]
    scored(translator, "american", variants, [list(refs[s]) for s in sources])
    print(side_by_side(translator, "american", read, TYPED))


if __name__ == "__main__":
    main(*sys.argv[1:])
