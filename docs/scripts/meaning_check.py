"""The check after writing (inference/check.py) against a labelled set: does it flag the lines whose meaning the
translation changed, and only those? (docs/trust.md: The check after writing.)

    python docs/scripts/meaning_check.py MODEL [MODEL ...] [--tsv docs/data/meaning-set.tsv] [--beam 8] [--show N]

The set: a header line, then `id<TAB>genre<TAB>english<TAB>spans<TAB>french`; `spans` is `-` or items
`kind:text=>french1/french2/...` separated by ` | ` (docs/data/meaning-set.md). A span is lost when the
translation holds none of its French forms (case counts); a line is changed when it lost a span, and changed in
scope when the span lost is one the check looks for: a name, a symbol, or a span with a digit (a number, an
amount, a time, a date, a unit). A line is flagged when the check found anything in it.

Printed per model: for each kind of span, the lines that lost one and how many of them were flagged (recall);
for each kind of finding, the lines flagged with it and how many were changed (precision); the lines changed
silently (changed, not flagged); and the same for the notes the translator gave before the check (the source's
digit groups its output lacks, `data.numbers.missing_numbers`), on the same outputs. `--show N` prints N lines
changed silently and N flagged but unchanged, per model.
"""

import re
from collections import Counter
from dataclasses import dataclass

from attention_lab.data.numbers import missing_numbers
from attention_lab.errors import UserError, run_main
from attention_lab.inference.check import Findings
from attention_lab.inference.translator import SearchParams, Translator
from everyday import model_set_arguments  # docs/scripts/, beside this script


@dataclass(frozen=True)
class Span:
    kind: str
    text: str
    forms: tuple[str, ...]

    def in_scope(self) -> bool:
        """Whether the check looks for this span: a name, a symbol, or text with a digit."""
        return self.kind in ("name", "symbol") or re.search(r"[0-9]", self.text) is not None


@dataclass(frozen=True)
class Line:
    id: str
    english: str
    spans: tuple[Span, ...]


def read_set(path: str) -> list[Line]:
    """The set's lines; a file or line that is not as the module's docstring says is a one-line error naming it."""
    lines = []
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = handle.read().splitlines()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not rows or rows[0].split("\t") != ["id", "genre", "english", "spans", "french"]:
        raise UserError(f"{path}:1: expected the header id<TAB>genre<TAB>english<TAB>spans<TAB>french")
    for number, row in enumerate(rows[1:], 2):
        fields = row.split("\t")
        if len(fields) != 5 or not fields[2].strip():
            raise UserError(f"{path}:{number}: expected 5 tab-separated fields with English text")
        spans = []
        for item in [] if fields[3].strip() == "-" else fields[3].split(" | "):
            kind, _, rest = item.partition(":")
            text, arrow, forms = rest.partition("=>")
            if not (kind.strip() and text and arrow and forms):
                raise UserError(f"{path}:{number}: span {item!r} is not kind:text=>french1/french2")
            spans.append(Span(kind.strip(), text, tuple(forms.split("/"))))
        lines.append(Line(fields[0], fields[2], tuple(spans)))
    if not lines:
        raise UserError(f"{path}: no lines")
    return lines


def lost(line: Line, output: str) -> list[Span]:
    """The spans of `line` whose French forms `output` holds none of."""
    return [span for span in line.spans if not any(form in output for form in span.forms)]


def share(part: int, whole: int) -> str:  # `5 of 8 (62 %)`
    return f"{part} of {whole} ({100 * part / whole:.0f} %)" if whole else "none"


def report(lines: list[Line], outputs: list[str], found: list[Findings], label: str, show: int) -> None:
    """The tables of the module's docstring for one model's `outputs` and the check's `found`."""
    losses = [lost(line, output) for line, output in zip(lines, outputs)]
    changed = [bool(spans) for spans in losses]
    scoped = [any(span.in_scope() for span in spans) for spans in losses]
    flagged = [bool(f) for f in found]
    before = [bool(missing_numbers(line.english, output)) for line, output in zip(lines, outputs)]
    print(f"\n### {label}\n\n{len(lines)} lines, {sum(changed)} changed ({sum(scoped)} in the check's scope), "
          f"{sum(flagged)} flagged\n")
    print("| span kind | lines that lost one | flagged (recall) | before the check |\n| --- | --- | --- | --- |")
    for kind in sorted({span.kind for line in lines for span in line.spans}):
        rows = [i for i, spans in enumerate(losses) if any(span.kind == kind for span in spans)]
        print(f"| {kind} | {len(rows)} | {share(sum(flagged[i] for i in rows), len(rows))} | "
              f"{share(sum(before[i] for i in rows), len(rows))} |")
    rows = [i for i in range(len(lines)) if scoped[i]]
    print(f"| **in scope** | {len(rows)} | {share(sum(flagged[i] for i in rows), len(rows))} | "
          f"{share(sum(before[i] for i in rows), len(rows))} |")
    print("\n| finding | lines flagged | changed in scope (precision) | changed at all |\n| --- | --- | --- | --- |")
    kinds = Counter(kind for f in found for kind, spans in f.as_dict().items() if spans)
    for kind in [*Findings().as_dict(), "any"]:
        rows = [i for i, f in enumerate(found) if (f if kind == "any" else f.as_dict()[kind])]
        if kinds[kind] or kind == "any":
            print(f"| {kind} | {len(rows)} | {share(sum(scoped[i] for i in rows), len(rows))} | "
                  f"{share(sum(changed[i] for i in rows), len(rows))} |")
    rows = [i for i in range(len(lines)) if before[i]]
    print(f"| before the check | {len(rows)} | {share(sum(scoped[i] for i in rows), len(rows))} | "
          f"{share(sum(changed[i] for i in rows), len(rows))} |")
    silent = [i for i in range(len(lines)) if changed[i] and not flagged[i]]
    print(f"\nChanged silently: {len(silent)} lines ({sum(scoped[i] for i in silent)} in scope); before the check "
          f"{sum(changed[i] and not before[i] for i in range(len(lines)))} "
          f"({sum(scoped[i] and not before[i] for i in range(len(lines)))} in scope).")
    wrong = [i for i in range(len(lines)) if flagged[i] and not scoped[i]]
    for title, rows in (("changed silently", silent), ("flagged, nothing in scope lost", wrong)):
        for i in rows[:show]:
            print(f"\n{title}: {lines[i].id} {lines[i].english}\n  output: {outputs[i]}\n"
                  f"  lost:   {' | '.join(f'{s.kind}:{s.text}' for s in losses[i])}\n"
                  f"  found:  {' '.join(found[i].notes())}")


def main() -> None:
    args = model_set_arguments(__doc__, "docs/data/meaning-set.tsv")
    lines = read_set(args.tsv)
    translators = {model: Translator.load(model, "cpu") for model in args.models}  # a bad one before any work
    for model, translator in translators.items():
        results = translator.translate([line.english for line in lines], SearchParams(beam_size=args.beam))
        report(lines, [r.text for r in results], [r.found for r in results],
               f"{model}, {'greedy' if args.beam == 1 else f'beam {args.beam}'}", args.show)


if __name__ == "__main__":
    run_main(main)
