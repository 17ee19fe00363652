"""The glossary measured (README: Glossary; design.md: Glossary): for each model, the terminology set
`docs/data/terms-dev.tsv` (written by hand, none from the corpus; docs/data/README.md) translated without and
with `docs/data/glossary.tsv`, beam 8 and greedy: term use (each line's French terms, each once, written as
whole words, case aside), term use on the lines with a plural term, BLEU and chrF against references that use
the terms. `--test DATA` adds the test split: the md5 of its beam translations without a glossary (the same with
an empty one) and sentences/s without a glossary and with 1,000 sampled terms (bench/inference_speed.py), the
two passes alternating, each keeping its best. Prints a markdown table a model a row.

    python docs/scripts/glossary_eval.py RNN/models/seq2seq TF/models/seq2seq [--test artifacts/splits]
"""

import argparse
import hashlib
import time
from pathlib import Path

from attention_lab.bench.inference_speed import sampled_glossary
from attention_lab.data.splits import load_split, references
from attention_lab.errors import run_main
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.text.glossary import Glossary, missing_terms

DATA = Path(__file__).resolve().parents[1] / "data"


def term_use(glossary: Glossary, sources: list[str], texts: list[str], lines: list[int]) -> str:
    """`written of asked (share)` over `lines`: each line's distinct French terms and those the text writes."""
    asked = written = 0
    for i in lines:
        terms = list(dict.fromkeys(m.french for m in glossary.matches(sources[i])))
        asked += len(terms)
        written += len(terms) - len(missing_terms(texts[i], terms))
    return f"{written} of {asked} ({100 * written / asked:.1f} %)"


def measure(model: str, test: str | None) -> list[str]:
    translator = Translator.load(model, "cpu")
    glossary = Glossary.load(DATA / "glossary.tsv")
    pairs = [line.split("\t") for line in (DATA / "terms-dev.tsv").read_text(encoding="utf-8").splitlines()]
    sources, refs = [p[0] for p in pairs], [[p[1]] for p in pairs]
    singular = {english.lower() for english, _ in glossary.pairs}
    plural = [i for i, p in enumerate(pairs)
              if any(t.lower().endswith("s") and t.lower()[:-1] in singular for t in p[2].split(" | "))]
    rows = []
    for beam in (8, 1):
        search = SearchParams(beam_size=beam)
        for name, used in (("without", None), ("with", glossary)):
            texts = [t.text for t in translator.translate(sources, search, glossary=used)]
            scores = corpus_scores(texts, refs)
            every, plurals = (term_use(glossary, sources, texts, lines) for lines in (range(len(pairs)), plural))
            rows.append(f"| {model} | beam {beam}, {name} glossary | {every} | {plurals} | {scores['bleu']} | "
                        f"{scores['chrf']} |")
    if test:
        src = list(references(load_split(test, "test")).index)
        plain = translator.translate(src, SearchParams())
        digest = hashlib.md5("\n".join(t.text for t in plain).encode()).hexdigest()
        empty = translator.translate(src, SearchParams(), glossary=Glossary([]))
        large = sampled_glossary(translator, 1_000)
        best = {"none": 0.0, "1,000": 0.0}
        for _ in range(2):
            for name, used in (("none", None), ("1,000", large)):
                start = time.perf_counter()
                translator.translate(src, SearchParams(), glossary=used)
                best[name] = max(best[name], len(src) / (time.perf_counter() - start))
        with_terms = sum(bool(large.matches(s)) for s in src)
        rows.append(f"| {model} | test split, beam 8: md5 {digest[:12]}, the same with an empty glossary: "
                    f"{[t.text for t in empty] == [t.text for t in plain]}; sentences/s without {best['none']:.1f}, "
                    f"with 1,000 sampled terms {best['1,000']:.1f} ({best['1,000'] / best['none']:.2f}x; "
                    f"{with_terms} of {len(src)} sources hold a term) | | | | |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="model.pt files or their folders")
    parser.add_argument("--test", help="the split stage's folder: also the test split's md5 and speed")
    args = parser.parse_args()
    print("| model | set, search | term use | plural terms | BLEU | chrF |\n" + "| --- " * 6 + "|")
    for model in args.models:
        print("\n".join(measure(model, args.test)), flush=True)


if __name__ == "__main__":
    run_main(main)
