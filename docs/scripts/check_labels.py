"""The check after writing (inference/check.py) against translations labelled by hand: its precision and recall
(docs/trust.md: The check after writing).

    python docs/scripts/check_labels.py MODEL [--labels docs/data/check-labels.tsv] [--show N]

The labels: a header line, then `model<TAB>id<TAB>english<TAB>french<TAB>missing_numbers<TAB>added_numbers<TAB>
missing_names<TAB>missing_carried<TAB>number_role_changed<TAB>missing_units`, each label `-` or spans separated by ` | `
(docs/data/check-labels.md says who wrote them and how). The check runs on each stored pair as the translator runs
it on its own output: MODEL (any model file with the same tokenizer) gives the reading, hence what the text steps
expected the French to write, and the corpus's words. A line *lost* a span when a reader labelled a number, name
or carried span of its source missing; it is *changed* when it lost one, the French adds a number, or a unit typed
beside a number is dropped or another. Printed, per
`model` of the file: recall (the lines that lost a span, and how many of them the check flagged, by label),
precision (the lines flagged, and how many of them are changed, by finding), and with `--show N` the first N
misses and false flags.
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict

from attention_lab.errors import UserError, run_main
from attention_lab.inference.check import Expected, check
from attention_lab.inference.translator import SearchParams, Translator

LOST = ("missing_numbers", "missing_names", "missing_carried")
COLUMNS = ("model", "id", "english", "french", *LOST[:1], "added_numbers", *LOST[1:], "number_role_changed",
           "missing_units")


def read_labels(path: str) -> list[dict[str, str]]:
    """The labelled rows; a file or row not as the module's docstring says is a one-line error naming it."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    if not rows or tuple(rows[0]) != COLUMNS:
        raise UserError(f"{path}:1: expected the header {' '.join(COLUMNS)}")
    for number, row in enumerate(rows[1:], 2):
        if len(row) != len(COLUMNS):
            raise UserError(f"{path}:{number}: expected {len(COLUMNS)} tab-separated fields, found {len(row)}")
    return [dict(zip(COLUMNS, row)) for row in rows[1:]]


def spans(row: dict[str, str], column: str) -> list[str]:
    return [] if row[column].strip() == "-" else row[column].split(" | ")


def share(part: int, whole: int) -> str:  # `5 of 8 (62 %)`
    return f"{part} of {whole} ({100 * part / whole:.0f} %)" if whole else "none"


def checked(translator: Translator, english: str, french: str):
    """What the check finds in `french` for `english`, expecting what the translator's reading of it expects."""
    sentences = translator.read([english], SearchParams()).sentences
    expected = Expected.joined(Expected.of(s, [run.text for run in s.record["protect"][0]]) for s in sentences)
    return check(english, french, expected, translator.tokenizer.words)


def report(model: str, rows: list[dict[str, str]], found: list, show: int) -> None:
    lost = [any(spans(row, c) for c in LOST) for row in rows]
    changed = [lost_ or bool(spans(row, "added_numbers") or spans(row, "missing_units")) for lost_, row in zip(lost, rows)]
    flagged = [bool(f) for f in found]
    print(f"\n### {model}: {len(rows)} lines, {sum(lost)} lost a number, name or carried span, "
          f"{sum(changed)} changed, {sum(flagged)} flagged\n")
    print("| label | lines | flagged (recall) |\n| --- | --- | --- |")
    for column in (*LOST, "added_numbers", "number_role_changed", "missing_units"):
        hit = [i for i, row in enumerate(rows) if spans(row, column)]
        print(f"| {column} | {len(hit)} | {share(sum(flagged[i] for i in hit), len(hit))} |")
    hit = [i for i in range(len(rows)) if lost[i]]
    print(f"| **lost any** | {len(hit)} | {share(sum(flagged[i] for i in hit), len(hit))} |")
    print("\n| finding | lines | changed (precision) |\n| --- | --- | --- |")
    by_kind = defaultdict(list)
    for i, f in enumerate(found):
        for kind, values in f.as_dict().items():
            if values:
                by_kind[kind].append(i)
    for kind, hit in sorted(by_kind.items()):
        print(f"| {kind} | {len(hit)} | {share(sum(changed[i] for i in hit), len(hit))} |")
    hit = [i for i in range(len(rows)) if flagged[i]]
    print(f"| **any** | {len(hit)} | {share(sum(changed[i] for i in hit), len(hit))} |")
    for title, picked in (("missed", [i for i in range(len(rows)) if lost[i] and not flagged[i]]),
                          ("flagged, unchanged", [i for i in range(len(rows)) if flagged[i] and not changed[i]])):
        for i in picked[:show]:
            row = rows[i]
            labels = " ".join(f"{c}={row[c]}" for c in COLUMNS[4:] if spans(row, c))
            print(f"\n{title}: {row['id']} {row['english']}\n  french: {row['french']}\n  labels: {labels}\n"
                  f"  found:  {' '.join(found[i].notes())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--labels", default="docs/data/check-labels.tsv")
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args()
    rows = read_labels(args.labels)
    translator = Translator.load(args.model, "cpu")
    by_model = defaultdict(list)
    for row in rows:
        by_model[row["model"]].append(row)
    for model, model_rows in by_model.items():
        report(model, model_rows, [checked(translator, r["english"], r["french"]) for r in model_rows], args.show)


if __name__ == "__main__":
    run_main(main)
