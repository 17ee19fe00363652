"""Greedy BLEU of a split's sources as people also type them (docs/trust.md): as written, upper-cased,
in Title Case, lower-cased, with the first letter lowered, without end marks, lower-cased without end
marks, and without apostrophes; then whether the beam translations of the test split as written are
those of the evaluate stage's translations.tsv. It uses only what every version of the translator has,
so it scores an older checkout's code too: `PYTHONPATH=<checkout>/src python docs/scripts/typed_inputs.py ...`.

    python docs/scripts/typed_inputs.py models/seq2seq artifacts/splits valid reports/evaluate/translations.tsv
"""

import csv
import re
import sys

from attention_lab.data.splits import load_split, references
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.evaluation.report import title_case
from attention_lab.inference.translator import SearchParams, Translator


def unpunctuated(text: str) -> str:
    """`evaluation.report.without_end_mark`, which the code before 2026-11-27 lacks."""
    return re.sub(r"\s*[.!?…]+(?=[\s\"'»”’)\]}]*$)", "", text)


TYPED = {
    "as written": lambda s: s,
    "upper": str.upper,
    "title": title_case,
    "lower": str.lower,
    "first letter lowered": lambda s: s[:1].lower() + s[1:],
    "no end mark": unpunctuated,
    "lower, no end mark": lambda s: unpunctuated(s.lower()),
    "without apostrophes": lambda s: s.replace("'", "").replace("’", ""),
}


def main(model: str, splits: str, split: str, translations: str | None = None) -> None:
    translator = Translator.load(model, "cpu")
    refs = references(load_split(splits, split))
    sources = list(refs.index)
    for name, typed in TYPED.items():
        texts = [t.text for t in translator.translate([typed(s) for s in sources], SearchParams(beam_size=1))]
        bleu = corpus_scores(texts, [list(r) for r in refs])["bleu"]
        print(f"{split} {name:22s} greedy BLEU {bleu:6.2f}", flush=True)
    if translations:
        test = list(references(load_split(splits, "test")).index)
        beam = [t.text for t in translator.translate(test, SearchParams())]
        with open(translations, encoding="utf-8") as handle:
            before = [row["hypothesis"] for row in csv.DictReader(handle, delimiter="\t")]
        print(f"test beam translations unlike {translations}'s: {sum(a != b for a, b in zip(beam, before))} "
              f"of {len(before)}")


if __name__ == "__main__":
    main(*sys.argv[1:])
