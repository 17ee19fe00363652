"""Numbers whole and in their place (docs/search.md): each model's translations, greedy and beam 8, of the number
probes (docs/data/number-probes.txt) and of the valid and test splits' sources with a digit, and the whole test
split with the beam: lines whose numbers are all kept whole and in the source's order, those whose numbers are
all there in another order, BLEU and chrF (`evaluation.bleu.corpus_scores`, every reference), seconds. One
thread. `run` writes a JSON file; `compare` prints two runs side by side (a code before and after a change, each
run from its own checkout: `PYTHONPATH=OLD/src python ... run`), the outputs that differ, and the lines that
lost their numbers' order or wholeness.

    python docs/scripts/number_order.py run SPLITS PROBES OUT.json MODEL [MODEL ...]
    python docs/scripts/number_order.py compare BEFORE.json AFTER.json [BEFORE2.json AFTER2.json ...]

A number is read apart from the search's own reading (inference/number_spans.py), as a reader would: in the
English, digit groups joined by `.` (a decimal), `:` (a time) or, in a number of 1-3 digits then groups of 3,
by `,` or a space (thousands: one group); in the French, by `,` (a decimal), `:` or `h` (a time) and, before a
group of 3 digits, by a space or `.` (thousands). A line keeps its numbers in order when the French's numbers,
so read, are the English's in the same order; a number written in words is not kept.
"""

import json
import re
import sys
import time

ENGLISH = re.compile(r"(?<![0-9])(?:[0-9]{1,3}(?:(?:,|[ \u00a0])[0-9]{3})+(?![0-9])(?:\.[0-9]+)?"
                     r"|[0-9]+(?:[.:][0-9]+)*)")
THOUSANDS = r"(?:[ \u00a0\u202f]|\.)(?=[0-9]{3}(?![0-9]))"  # in the French
FRENCH = re.compile(rf"(?<![0-9])[0-9]+(?:(?:{THOUSANDS}|,(?=[0-9])|:(?=[0-9])"
                    r"| ?h ?(?=[0-9]))[0-9]+)*")


def numbers(text: str, english: bool) -> list[tuple[str, ...]]:
    """`text`'s numbers in order, each its digit groups with thousands run together."""
    found = []
    for match in (ENGLISH if english else FRENCH).finditer(text):
        thousands = r"(?:,|[ \u00a0])(?=[0-9]{3})" if english else THOUSANDS
        found.append(tuple(re.findall(r"[0-9]+", re.sub(thousands, "", match.group()))))
    return found


def keeps(source: str, output: str) -> tuple[bool, bool]:
    """(the output's numbers are the source's in order, they are the source's in some order)."""
    wanted, written = numbers(source, True), numbers(output, False)
    return written == wanted, sorted(written) == sorted(wanted)


def run(splits: str, probes: str, out: str, models: list[str]) -> None:
    import torch

    from attention_lab.data.splits import load_split, references
    from attention_lab.evaluation.bleu import corpus_scores
    from attention_lab.inference.translator import SearchParams, Translator

    torch.set_num_threads(1)
    with open(probes, encoding="utf-8") as handle:
        sets = {"probes": ([line.strip() for line in handle if line.strip()], None)}
    for name in ("valid", "test"):
        refs = references(load_split(splits, name))
        digits = [s for s in refs.index if re.search(r"[0-9]", s)]
        sets[f"{name} with digits"] = (digits, [refs[s] for s in digits])
    test = references(load_split(splits, "test"))
    results = {}
    for model in models:
        translator = Translator.load(model, "cpu")
        translator.translate(sets["probes"][0][:8], SearchParams(beam_size=8))  # warm-up
        for beam in (1, 8):
            for name, (sources, refs) in [*sets.items(), *([("test", (list(test.index), list(test)))] * (beam > 1))]:
                start = time.perf_counter()
                outputs = [t.text for t in translator.translate(sources, SearchParams(beam_size=beam))]
                seconds = time.perf_counter() - start
                kept = [keeps(s, o) for s, o in zip(sources, outputs)]
                numbered = [k for k, s in zip(kept, sources) if numbers(s, True)]
                results[f"{model} | {name}, beam {beam}"] = {
                    "lines": len(numbered), "in order": sum(k[0] for k in numbered),
                    "other order": sum(k[1] and not k[0] for k in numbered), "seconds": round(seconds, 2),
                    **({k: v for k, v in corpus_scores(outputs, refs).items() if k in ("bleu", "chrf")} if refs else {}),
                    "sources": sources, "outputs": outputs}
                print(model, name, beam, {k: v for k, v in results[f"{model} | {name}, beam {beam}"].items()
                                          if k not in ("sources", "outputs")}, flush=True)
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(results, handle, ensure_ascii=False)


def compare(paths: list[str]) -> None:
    runs = [json.load(open(path, encoding="utf-8")) for path in paths]
    befores, afters = runs[0::2], runs[1::2]
    print("| model, set, search | lines | in order | other order | BLEU | chrF | seconds (best of runs) | outputs "
          "changed |\n" + "| --- " * 8 + "|")
    for key, before in befores[0].items():
        after = afters[0][key]

        def pair(field: str) -> str:
            return f"{before.get(field, '-')} → {after.get(field, '-')}"

        seconds = (f"{min(r[key]['seconds'] for r in befores)} → {min(r[key]['seconds'] for r in afters)}")
        changed = sum(a != b for a, b in zip(before["outputs"], after["outputs"]))
        print(f"| {key} | {before['lines']} | {pair('in order')} | {pair('other order')} | {pair('bleu')} | "
              f"{pair('chrf')} | {seconds} | {changed} |")
    for key, before in befores[0].items():
        for source, old, new in zip(before["sources"], before["outputs"], afters[0][key]["outputs"]):
            if old != new and keeps(source, old)[0] != keeps(source, new)[0]:
                print(f"{key}: {source}\n    before {old}\n    after  {new}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"] and len(sys.argv) >= 6:
        run(*sys.argv[2:5], sys.argv[5:])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) >= 4 and len(sys.argv) % 2 == 0:
        compare(sys.argv[2:])
    else:
        sys.exit(__doc__.split("\n\n")[1])
