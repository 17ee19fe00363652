"""Two versions of the text steps on the same model files, against the labelled meaning set (docs/trust.md: What
was measured): lines whose meaning changed silently, at reading and in the final French.

    PYTHONPATH=OLD/src python docs/scripts/meaning_versions.py outputs MODEL OUT.jsonl [--tsv SET] [--beam 8]
    python docs/scripts/meaning_versions.py outputs MODEL NEW.jsonl
    python docs/scripts/meaning_versions.py table OUT.jsonl NEW.jsonl [--readings READINGS.tsv] [--labels LABELS.tsv]

`outputs` translates the set's English with whichever attention_lab is importable (a worktree of an older commit
on PYTHONPATH), writing per line what the model read (the sentences as the text steps left them), the French, and
whether the translator gave a sign: a check's finding, or before the check existed, the note on the source's digit
groups or glossary terms the output lacks. `table` prints, per file, the lines that lost a span in the French
(none of its French forms: docs/scripts/meaning_check.py's rule), how many of them silently, and the lines whose
reading differs from the typed line. `--readings` writes those differences, every file's shuffled together without
saying which version made them, for a reader to label; `--labels` (id, reading, changed: yes/no) counts the
readings labelled as changing the meaning, per file.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path


def read_english(tsv: str) -> list[tuple[str, str]]:
    with open(tsv, encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [(row[0], row[2]) for row in rows[1:]]


def reading(translator, english: str, search) -> str:
    """What the model reads of `english`, then the runs Protect carries around it (written back in the French,
    absent from the model's input): `text ⟦carried: 5-7 | @⟧`."""
    sentences = translator.read([english], search).sentences
    carried = [run.text for s in sentences for run in s.record["protect"][0]]
    return " ".join(s.text for s in sentences) + (f" ⟦carried: {' | '.join(carried)}⟧" if carried else "")


def outputs(args: argparse.Namespace) -> None:
    from attention_lab.inference.translator import SearchParams, Translator

    translator, search = Translator.load(args.model, "cpu"), SearchParams(beam_size=args.beam)
    lines = read_english(args.tsv)
    results = translator.translate([english for _, english in lines], search)
    with open(args.out, "w", encoding="utf-8") as out:
        for (line_id, english), result in zip(lines, results):
            read = reading(translator, english, search)
            found = getattr(result, "found", None)
            flagged = bool(found) if found is not None else bool(result.missing_numbers or result.missing_terms)
            out.write(json.dumps({"id": line_id, "english": english, "read": read, "french": result.text,
                                  "flagged": flagged}, ensure_ascii=False) + "\n")


def table(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from meaning_check import lost, read_set

    spans = {line.id: line for line in read_set(args.tsv)}
    runs = {path: [json.loads(row) for row in open(path, encoding="utf-8")] for path in args.files}
    labels = {}
    if args.labels:
        with open(args.labels, encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                labels[(row["id"], row["reading"])] = row["changed"].strip().lower() == "yes"
    print("| outputs | lines | lost a span in the French | silently | flagged | reading differs from typed "
          "| reading changed the meaning |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    differing = set()
    for path, rows in runs.items():
        changed = [r for r in rows if lost(spans[r["id"]], r["french"])]
        silent = [r for r in changed if not r["flagged"]]
        read = [r for r in rows if r["read"] != r["english"]]  # a carried run counts as a difference
        differing.update((r["id"], r["english"], r["read"]) for r in read)
        misread = [r for r in read if labels.get((r["id"], r["read"]))]
        unlabelled = sum((r["id"], r["read"]) not in labels for r in read)
        print(f"| {Path(path).stem} | {len(rows)} | {len(changed)} | {len(silent)} | "
              f"{sum(r['flagged'] for r in rows)} | {len(read)} | "
              f"{len(misread) if labels else '—'}{f' ({unlabelled} unlabelled)' if labels and unlabelled else ''} |")
    if args.readings:
        shuffled = sorted(differing)
        random.Random(0).shuffle(shuffled)
        with open(args.readings, "w", encoding="utf-8") as out:
            out.write("id\ttyped\treading\tchanged\n")
            out.writelines(f"{i}\t{typed}\t{read}\t\n" for i, typed, read in shuffled)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(required=True)
    run = commands.add_parser("outputs")
    run.add_argument("model")
    run.add_argument("out")
    run.add_argument("--beam", type=int, default=8)
    run.set_defaults(func=outputs)
    score = commands.add_parser("table")
    score.add_argument("files", nargs="+")
    score.add_argument("--readings")
    score.add_argument("--labels")
    score.set_defaults(func=table)
    for command in (run, score):
        command.add_argument("--tsv", default="docs/data/meaning-set.tsv")
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
