"""What the reading steps make of spans with more than one reading, two versions of the code side by side
(docs/trust.md: Reading only what is certain). Each version reads, in a process of its own, with one model's
vocabulary and corpus words:

- the lines of docs/data/reading-probes.tsv: a line's reading keeps its meaning when each of its spans (`;`
  between spans, `|` between the forms that keep every reading of one) survives as its kind asks: `unit`, `dot`,
  `time`, `char` in the English read or carried; `casing` there with its capitals; `names` carried whole (a
  placeholder's name); `word` left in the English, no placeholder's name; `chat` there or carried, any casing;
- the valid split's sources as written (how many read differently between the two versions), and upper-cased
  and in Title Case (how many read as the source as written does, capitals and placeholders alike).

    git worktree add /tmp/before <commit>
    python docs/scripts/reading_probes.py MODEL SPLITS /tmp/before/src src [--recount] [--probes FILE]

`--probes`: another file of lines (docs/data/reading-heldout.tsv: written after the rules; only its `m²` line's forms
were widened after, to `m2`, which keeps the meaning; docs/data/casing-probes.tsv: names, brands, acronyms and units
typed in Title Case or capitals, and phone numbers with a country code; docs/data/reading-names.tsv: ordinary words
and names where a capital says nothing of a name, at a clause's start, typed in small letters, beside a number).
`--recount`: the corpus words counted again from SPLITS' train split, for a model file written before the
tokenizer kept the corpus's casing (data/corpus_words.py).
"""

import csv
import json
import os
import subprocess
import sys

from attention_lab.data.splits import load_split, references
from attention_lab.evaluation.report import title_case

PROBES = os.path.join(os.path.dirname(__file__), "..", "data", "reading-probes.tsv")
READ = """
import dataclasses, json, sys
import pandas as pd
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.inference.model_file import load_model
from attention_lab.text.steps import read_lines
tokenizer = load_model(sys.argv[1]).tokenizer
words = tokenizer.words
if sys.argv[2]:
    train = pd.read_parquet(sys.argv[2] + "/train.parquet")
    words = CorpusWords.of(train["src"], train["tgt"])
out = [[] for _ in range(int(sys.argv[3]))]
for sentence in read_lines(json.load(sys.stdin), tokenizer.src, words=words):
    carried, names = sentence.record["protect"]
    out[sentence.line].append([sentence.text, [run.text for run in carried], [name for _, name in names]])
print(json.dumps(out))
"""


def readings(model: str, src: str, lines: list[str], recount: str) -> list[list]:
    """Each line's sentences as the code in `src` reads them: [text, carried runs, placeholders' names]."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    done = subprocess.run([sys.executable, "-c", READ, model, recount, str(len(lines))], input=json.dumps(lines),
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def kept(kind: str, spans: str, reading: list) -> bool:
    """Whether every span of `spans` survives `reading` (a line's sentences) as its `kind` asks."""
    text = " ".join(sentence[0] for sentence in reading)
    carried = " ".join(" ".join(sentence[1]) for sentence in reading)
    names = [name for sentence in reading for name in sentence[2]]
    for span in spans.split(";"):
        forms = span.split("|")
        named = any(form in name for form in forms for name in names)
        if kind == "word":
            found = not named and any(form in text for form in forms)
        elif kind == "chat":  # copied (as typed, or carried whole as a placeholder) or read: the word is there
            found = any(form.lower() in f"{text} {' '.join(names)}".lower() for form in forms)
        elif kind == "names":
            found = named or any(form in carried for form in forms)
        else:
            found = named or any(form in f"{text} {carried}" for form in forms)
        if not found:
            return False
    return True


def main(model: str, splits: str, before: str, after: str, *options: str) -> None:
    recount = splits if "--recount" in options else ""
    probes_file = options[options.index("--probes") + 1] if "--probes" in options else PROBES
    with open(probes_file, encoding="utf-8") as handle:
        probes = list(csv.DictReader(handle, delimiter="\t"))
    lines = [probe["line"] for probe in probes]
    read = {name: readings(model, src, lines, recount) for name, src in (("before", before), ("after", after))}
    kinds = sorted({probe["kind"] for probe in probes})
    print("| kind | lines | meaning kept before | after |\n| --- | --- | --- | --- |")
    for kind in [*kinds, "all"]:
        rows = [k for k, probe in enumerate(probes) if kind in ("all", probe["kind"])]
        counts = [sum(kept(probes[k]["kind"], probes[k]["spans"], read[name][k]) for k in rows) for name in read]
        print(f"| {kind} | {len(rows)} | {counts[0]} | {counts[1]} |")
    for k, probe in enumerate(probes):
        marks = ["ok" if kept(probe["kind"], probe["spans"], read[name][k]) else "LOST" for name in read]
        print(f"{marks[0]:>4} {marks[1]:>4}  {probe['line']!r} -> {read['after'][k]}")
    sources = list(references(load_split(splits, "valid")).index)
    variants = {"as written": sources, "upper": [s.upper() for s in sources], "title": [title_case(s) for s in sources]}
    for name, src in (("before", before), ("after", after)):
        read[name] = {variant: readings(model, src, typed, recount) for variant, typed in variants.items()}
    changed = sum(a != b for a, b in zip(read["before"]["as written"], read["after"]["as written"]))
    print(f"\nvalid sources ({len(sources)}) read differently, as written: {changed}")
    for variant in ("upper", "title"):
        same = [sum(r == w for r, w in zip(read[name][variant], read[name]["as written"])) for name in read]
        print(f"valid {variant}: read as the source as written {same[0]} before, {same[1]} after")


if __name__ == "__main__":
    main(*sys.argv[1:])
