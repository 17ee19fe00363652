"""British spellings (docs/trust.md): the valid sources with a word whose British spelling the translator
reads the American way (text/lexicon.py), typed British, as a person in Britain types them,
translated by one model with the reading and without, and as written; BLEU as `evaluate` scores it. Then
a few typed lines, beam 8.

    python docs/scripts/british.py models/seq2seq artifacts/splits
"""

import sys

from attention_lab.text.lexicon import AMERICAN, respelt
from typed_lines import measured  # docs/scripts/typed_lines.py

BRITISH = {american: british for british, american in reversed(AMERICAN.items())}  # the first British form of each
TYPED = ("What's your favourite colour?", "I realise that I was wrong.", "The theatre is closed today.",
         "I need to organise my thoughts.", "He apologised for being late.", "The neighbours are very noisy.",
         "She's my favourite teacher.", "Let's meet at the centre of town.", "Tom travelled all over Europe.",
         "I'll check the programme.", "My behaviour was rude.", "Don't spread rumours.", "Do me a favour.",
         "Can you recognise him?", "We cancelled the meeting.")


def main(model: str, splits: str) -> None:
    measured(model, splits, AMERICAN, lambda s: respelt(s, BRITISH) != s, lambda s: respelt(s, BRITISH),
             ("with a word whose British spelling is read back", "typed British"), TYPED)


if __name__ == "__main__":
    main(*sys.argv[1:])
