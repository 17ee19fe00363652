"""Sentences typed in capitals or Title Case: the translator's casing rule (text/casing.py) against a
truecaser trained on the corpus (sacremoses' `MosesTruecaser`), side by side on the same models (docs/trust.md,
"Casing: the rule against a truecaser").

    pip install sacremoses==0.2.0   # B's truecaser; not a dependency of the project, which kept A
    OMP_NUM_THREADS=1 python docs/scripts/casing.py BAHDANAU/models/seq2seq [--tsv ../shared/data/everyday-dev.tsv]

A: the translator as it is: a sentence that `casing.casing` classes "upper" or "title" is sentence-cased word
by word (`casing.sentence_cased`) and, typed in capitals, its translation upper-cased.
B: the same translator, but such a sentence is lower-cased and truecased: sacremoses' English tokenizer
(escape=False) cuts it, the truecaser gives each token the casing the training split writes it with most
often away from a sentence's start, each token's casing is put back on the sentence as typed (only casing
changes: spacing, marks and apostrophes stay as typed), and the first letter is capitalised, as the corpus
writes a sentence. Everything else (sentences, `lower` sentences, apostrophes, carried characters, the output
upper-cased for an "upper" source) is A's: B swaps `text.casing.sentence_cased` for "upper" and "title" sentences
only, while it translates.
The truecaser is trained once, on the English side of the training split (`artifacts/splits/train.parquet`
two folders above the model, as `dvc repro` lays it out, or `--splits`), every row, tokenized as above.

Measured, for each model: the valid split (every distinct source with all its references, as evaluate groups
the test split) as written, upper-cased and in Title Case (`evaluation.report.title_case`), with `--valid-beam`
(greedy by default); the everyday set the same three ways with `--beam` (8). Printed: a markdown table of BLEU
and chrF (`evaluation.bleu.corpus_scores`; chrF on lower-cased outputs and references, as BLEU is
case-insensitive, since an upper-cased source's output is in capitals) for A and B, how many lines each method
reads exactly as A reads the source as written ("read as written", a casing error count with no model in it),
and how many lines A and B read differently (B translates only those: the model reads the others exactly as
in A, and they keep A's translations); then the examples (`--examples`) and each line of the everyday set
the two read differently, with both readings and both translations; then the truecaser's training time and
its size saved (`--save-truecaser`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
from sacremoses import MosesTokenizer, MosesTruecaser

from attention_lab.data.splits import references
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.evaluation.report import title_case
from attention_lab.text import casing as reading
from attention_lab.text.casing import casing
from attention_lab.inference.translator import SearchParams, Translator

EXAMPLES = ("I LOVE NEW YORK.", "THE DR. SAID NO.", "MR. AND MRS. SMITH LIVE IN PARIS.", "I MISS YOU.",
            "TOM WENT TO BOSTON WITH MARY.", "I Love New York.", "The Dr. Said No.", "Tom Went To Boston With Mary.",
            "I Don't Know What To Do.", "Where Is The Train Station?")
TYPED: dict[str, Callable[[str], str]] = {"as written": lambda s: s, "upper": str.upper, "title": title_case}


class Truecaser:
    """A sentence lower-cased, then in the casing the training sentences write each token with (B)."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self.tokenizer = MosesTokenizer(lang="en")
        start = time.perf_counter()
        self.model = MosesTruecaser()
        self.model.train([self.tokenizer.tokenize(s, escape=False) for s in sentences])
        self.seconds = time.perf_counter() - start

    def __call__(self, sentence: str) -> str:
        lower = sentence.lower()
        tokens = self.tokenizer.tokenize(lower, escape=False)
        chars, at = list(lower), 0
        for token, cased in zip(tokens, self.model.truecase(" ".join(tokens))):
            start = lower.find(token, at)
            if start < 0 or len(cased) != len(token):  # a token the tokenizer rewrote: left lower-cased
                continue
            chars[start : start + len(token)] = cased
            at = start + len(token)
        text = "".join(chars)
        first = next((i for i, char in enumerate(text) if char.isalpha()), None)
        return text if first is None else text[:first] + text[first].upper() + text[first + 1 :]

    def sizes(self, path: str | None) -> dict:
        """Bytes of the Moses model file (every casing seen, with counts) and of what truecasing needs:
        the tokens whose most frequent casing is not lower case, as JSON, each also gzipped."""
        best = {low: cased for low, cased in self.model.model["best"].items() if cased != low}
        needed = json.dumps(best, ensure_ascii=False, separators=(",", ":")).encode()
        sizes = {"tokens": len(self.model.model["best"]), "cased_tokens": len(best),
                 "cased_json_bytes": len(needed), "cased_json_gzip_bytes": len(gzip.compress(needed))}
        if path:
            self.model.save_model(path)
            data = Path(path).read_bytes()
            sizes |= {"moses_file_bytes": len(data), "moses_file_gzip_bytes": len(gzip.compress(data))}
        return sizes


@contextmanager
def truecasing(truecase: Callable[[str], str]) -> Iterator[None]:
    """B while inside: reading's sentence-casing of an "upper" or "title" sentence is `truecase`; a "lower"
    one (the only one read with `keep_capitals`) is still the rule's."""
    rule = reading.sentence_cased

    def cased(sentence: str, pieces: Callable, keep_capitals: bool = False, *args, **kwargs) -> str:
        return rule(sentence, pieces, keep_capitals, *args, **kwargs) if keep_capitals else truecase(sentence)

    reading.sentence_cased = cased
    try:
        yield
    finally:
        reading.sentence_cased = rule


def readings(translator: Translator, lines: Sequence[str], search: SearchParams) -> list[str]:
    """What the model reads of each line: its sentences' texts, joined."""
    parts: list[list[str]] = [[] for _ in lines]
    for sentence in translator.read(lines, search).sentences:
        parts[sentence.line].append(sentence.text)
    return [" ".join(p) for p in parts]


def read_tsv(path: str) -> tuple[list[str], list[list[str]]]:
    pairs = [line.rstrip("\r\n").split("\t") for line in Path(path).read_text(encoding="utf-8").splitlines()]
    return [p[0] for p in pairs], [[p[1]] for p in pairs]


def scores(texts: list[str], refs: list[list[str]]) -> tuple[float, float]:
    """BLEU and chrF, both case-insensitive: an upper-cased source's translation is in capitals."""
    low = corpus_scores([t.lower() for t in texts], [[r.lower() for r in rs] for rs in refs])
    return corpus_scores(texts, refs)["bleu"], low["chrf"]


def measure(translator: Translator, truecase: Truecaser, name: str, sources: list[str], refs: list[list[str]],
            search: SearchParams) -> dict:
    """Prints one set's table rows; returns, for each input casing, its lines read differently by A and B:
    (typed, reading A, reading B, output A, output B). B translates those lines only: the others are read
    exactly as A reads them, and A's translations are theirs."""
    differ = {}
    written = readings(translator, sources, search)
    for typed_name, typed in TYPED.items():
        lines = [typed(s) for s in sources]
        read_a = readings(translator, lines, search)
        with truecasing(truecase):
            read_b = readings(translator, lines, search)
        changed = [i for i in range(len(lines)) if read_a[i] != read_b[i]]
        out_a = [t.text for t in translator.translate(lines, search)]
        out_b = list(out_a)
        with truecasing(truecase):
            for i, t in zip(changed, translator.translate([lines[i] for i in changed], search)):
                out_b[i] = t.text
        (bleu_a, chrf_a), (bleu_b, chrf_b) = scores(out_a, refs), scores(out_b, refs)
        same_a, same_b = sum(r == w for r, w in zip(read_a, written)), sum(r == w for r, w in zip(read_b, written))
        print(f"| {name} | {typed_name} | {bleu_a:.2f} | {bleu_b:.2f} | {chrf_a:.2f} | {chrf_b:.2f} | "
              f"{same_a} | {same_b} | {len(changed)} |", flush=True)
        differ[typed_name] = [(lines[i], read_a[i], read_b[i], out_a[i], out_b[i]) for i in changed]
    return differ


def show(item: tuple[str, str, str, str, str]) -> str:
    typed, read_a, read_b, out_a, out_b = item
    return (f"  typed:  {typed}\n  read A: {read_a}\n  read B: {read_b}\n  out A:  {out_a}\n  out B:  {out_b}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", metavar="MODEL_DIR")
    parser.add_argument("--splits", help="folder of train.parquet and valid.parquet (default: the model's run's)")
    parser.add_argument("--tsv", default="../shared/data/everyday-dev.tsv")
    parser.add_argument("--beam", type=int, default=8, help="the everyday set's beam")
    parser.add_argument("--valid-beam", type=int, default=1, help="the valid split's beam (1: greedy)")
    parser.add_argument("--max-valid", type=int, help="the first N distinct valid sources only")
    parser.add_argument("--save-truecaser", metavar="PATH", help="write the Moses model file there, to size it")
    parser.add_argument("--differ", type=int, default=12, help="everyday lines read differently shown per casing")
    args = parser.parse_args()
    splits = Path(args.splits) if args.splits else Path(args.model).parent.parent / "artifacts" / "splits"
    translator = Translator.load(args.model, "cpu")
    truecase = Truecaser(pd.read_parquet(splits / "train.parquet")["src"].tolist())
    print(f"model {args.model}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}; "
          f"truecaser trained in {truecase.seconds:.1f} s: {truecase.sizes(args.save_truecaser)}\n", flush=True)

    print("| set, search | input | BLEU A | BLEU B | chrF A | chrF B | read as written A | B | "
          "lines read differently |\n" + "| --- " * 9 + "|", flush=True)
    valid = references(pd.read_parquet(splits / "valid.parquet"))
    if args.max_valid:
        valid = valid.iloc[: args.max_valid]
    valid_search = "greedy" if args.valid_beam == 1 else f"beam {args.valid_beam}"
    measure(translator, truecase, f"valid ({len(valid)}), {valid_search}", list(valid.index),
            [list(r) for r in valid], SearchParams(beam_size=args.valid_beam))
    sources, refs = read_tsv(args.tsv)
    differ = measure(translator, truecase, f"everyday ({len(sources)}), beam {args.beam}", sources, refs,
                     SearchParams(beam_size=args.beam))

    search = SearchParams(beam_size=args.beam)
    print(f"\nExamples, beam {args.beam}:")
    read_a, out_a = readings(translator, EXAMPLES, search), translator.translate(EXAMPLES, search)
    with truecasing(truecase):
        read_b, out_b = readings(translator, EXAMPLES, search), translator.translate(EXAMPLES, search)
    for item in zip(EXAMPLES, read_a, read_b, [t.text for t in out_a], [t.text for t in out_b]):
        print(f"{casing(item[0])}:\n{show(item)}")
    for typed_name, items in differ.items():
        print(f"\nEveryday, {typed_name}: {len(items)} lines read differently"
              + (f", the first {args.differ}:" if items else ""))
        for item in items[: args.differ]:
            print(show(item))


if __name__ == "__main__":
    main()
