"""Double quotes through one model (docs/trust.md), greedy and beam 8: BLEU of the valid pairs whose
source has double quotes, as written and with the quotes taken out, and the share of outputs whose
guillemets come in turn, each pair around a word, with no straight quote left.

    python docs/scripts/quotes.py models/seq2seq artifacts/splits

Run from the repository root: it imports `valid_scores` from docs/scripts/calendar_words.py beside it.
"""

import re
import sys

from calendar_words import valid_scores

from attention_lab.text.quotes import paired
from attention_lab.inference.translator import Translator

QUOTE = re.compile("[\"“”]")


def unquoted(source: str, target: str, rng) -> tuple[str, str]:
    return " ".join(QUOTE.sub("", source).split()), target


def kept(source: str, output: str, reference: str) -> bool:
    return paired(output) and '"' not in output


def main(model: str, splits: str) -> None:
    valid_scores(Translator.load(model), splits, lambda source, target: QUOTE.search(source), unquoted,
                 "with double quotes", kept)


if __name__ == "__main__":
    main(*sys.argv[1:])
