"""The check after writing (inference/check.py) on hand-labelled probes: of the lines whose French lost or changed a
number, name or carried span of the source, how many it flags (recall), and how many of the lines it flags lost
one (precision); the same for units typed beside a number, apart (docs/trust.md: The check after writing).

    python docs/scripts/check_probes.py [--tsv docs/data/check-probes.tsv] [--model MODEL] [--show]

docs/data/check-probes.tsv was written before the check's rules for names, codes, runs of digits, scales, number
words and units; docs/data/check-heldout.tsv after them, on other lines, to measure them; docs/data/check-names.tsv
before its rules for names of words the corpus knows, acronyms that are words and names French writes otherwise,
docs/data/check-names-heldout.tsv after them.

The probes: a header line, then `origin<TAB>english<TAB>french<TAB>lost`, and a fifth column `group` where the header
names it; `origin` is the model file that wrote the French (`rnn`, `tf`) or `hand`; `lost` is `-` or items `kind:span`
separated by ` | ` (kinds `number`, `name`, `carried`, `unit`); `group` is what a line probes (`acronym`), scored
apart. Each line is read as the translator reads it, by MODEL's text steps (its corpus words, the
names it holds as placeholders, the text it carries), and checked with what that reading expects. `--show` prints
the lines missed and those flagged wrongly.
"""

import argparse
from collections import Counter

from attention_lab.errors import UserError, run_main
from attention_lab.inference.check import Expected, Findings, check
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.text.protect import Protect
from attention_lab.text.quotes import read
from meaning_check import share  # docs/scripts/, beside this script

SCOPE = ("number", "name", "carried")  # what the check is asked to catch; units are counted apart
KINDS = (*SCOPE, "unit")


HEADER = ["origin", "english", "french", "lost"]


def read_probes(path: str) -> list[tuple[str, str, str, tuple[tuple[str, str], ...], str]]:
    """(origin, english, french, ((kind, span), ...), group) per probe (group `-` without the column); a file or
    line not as the docstring says is a one-line error naming it."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = handle.read().splitlines()
    except (FileNotFoundError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: {exc}") from None
    if not rows or rows[0].split("\t") not in (HEADER, [*HEADER, "group"]):
        raise UserError(f"{path}:1: expected the header origin<TAB>english<TAB>french<TAB>lost[<TAB>group]")
    width = len(rows[0].split("\t"))
    probes = []
    for number, row in enumerate(rows[1:], 2):
        fields = row.split("\t")
        if len(fields) != width or not all(fields):
            raise UserError(f"{path}:{number}: expected {width} tab-separated fields")
        lost = tuple(tuple(item.split(":", 1)) for item in ([] if fields[3] == "-" else fields[3].split(" | ")))
        if any(len(item) != 2 or item[0] not in KINDS for item in lost):
            raise UserError(f"{path}:{number}: lost {fields[3]!r} is not - or kind:span items ({', '.join(KINDS)})")
        probes.append((fields[0], fields[1], fields[2], lost, fields[4] if width > len(HEADER) else "-"))
    if not probes:
        raise UserError(f"{path}: no probes")
    return probes


def expectations(translator: Translator, lines: list[str]) -> list[Expected]:
    """What the translator's reading of each of `lines` expects its French to write (the translator's own)."""
    sentences = translator.read(lines, SearchParams()).sentences
    return [Expected.joined(Expected.of(s, read([run.text for run in s.record[Protect.name][0]]))
                            for s in sentences if s.line == k) for k in range(len(lines))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tsv", default="docs/data/check-probes.tsv")
    parser.add_argument("--model", default="/work/models2/rnn/model.pt")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    probes = read_probes(args.tsv)
    translator = Translator.load(args.model, "cpu")
    english = list(dict.fromkeys(probe[1] for probe in probes))
    expected = dict(zip(english, expectations(translator, english)))
    found = [check(en, fr, expected[en], translator.tokenizer.words) for _, en, fr, _, _ in probes]
    units = [bool(getattr(f, "missing_units", ())) for f in found]  # a kind of its own, where the check has one
    flagged = [any(spans for kind, spans in f.as_dict().items() if kind != "missing_units") for f in found]
    lost = [{kind for kind, _ in probe[3]} for probe in probes]
    scoped = [bool(kinds & set(SCOPE)) for kinds in lost]
    print(f"{len(probes)} probes, {sum(scoped)} lost a number, name or carried span, {sum(flagged)} flagged for one\n")
    print("| lost | lines | flagged (recall) |\n| --- | --- | --- |")
    for kind in SCOPE:
        rows = [i for i, kinds in enumerate(lost) if kind in kinds]
        print(f"| {kind} | {len(rows)} | {share(sum(flagged[i] for i in rows), len(rows))} |")
    rows = [i for i in range(len(probes)) if scoped[i]]
    print(f"| **any of them** | {len(rows)} | {share(sum(flagged[i] for i in rows), len(rows))} |")
    rows = [i for i, kinds in enumerate(lost) if "unit" in kinds]
    print(f"| unit (missing_units) | {len(rows)} | {share(sum(units[i] for i in rows), len(rows))} |")
    print("\n| finding | lines | lost one (precision) |\n| --- | --- | --- |")
    kinds = Counter(kind for f in found for kind, spans in f.as_dict().items() if spans)
    for kind in Findings().as_dict():
        rows = [i for i, f in enumerate(found) if f.as_dict()[kind]]
        want = {"unit"} if kind == "missing_units" else set(SCOPE)
        if kinds[kind]:
            print(f"| {kind} | {len(rows)} | {share(sum(bool(lost[i] & want) for i in rows), len(rows))} |")
    rows = [i for i in range(len(probes)) if flagged[i]]
    print(f"| **flagged** | {len(rows)} | {share(sum(scoped[i] for i in rows), len(rows))} |")
    groups = list(dict.fromkeys(probe[4] for probe in probes if probe[4] != "-"))
    if groups:
        print("\n| group | lines | lost one: flagged (recall) | flagged: lost one (precision) |\n"
              "| --- | --- | --- | --- |")
    for group in groups:
        rows = [i for i, probe in enumerate(probes) if probe[4] == group]
        lost_rows, flagged_rows = [i for i in rows if scoped[i]], [i for i in rows if flagged[i]]
        print(f"| {group} | {len(rows)} | {share(sum(flagged[i] for i in lost_rows), len(lost_rows))} "
              f"| {share(sum(scoped[i] for i in flagged_rows), len(flagged_rows))} |")
    if args.show:
        for i, (origin, en, fr, spans, _) in enumerate(probes):
            if scoped[i] != flagged[i] or ("unit" in lost[i]) != units[i]:
                what = "missed" if scoped[i] and not flagged[i] else "wrong" if flagged[i] and not scoped[i] else "unit"
                print(f"\n{what} "
                      f"({origin}): {en}\n  {fr}\n  lost:  {' | '.join(':'.join(s) for s in spans) or '-'}\n"
                      f"  found: {' '.join(found[i].notes()) or '-'}")


if __name__ == "__main__":
    run_main(main)
