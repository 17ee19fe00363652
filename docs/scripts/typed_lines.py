"""Typed lines through one model with two versions of the translator side by side (docs/trust.md): each
`src` folder's translator translates the same lines, read from standard input, in a process of its own,
beam 8, and a Markdown table gives both.

    git worktree add /tmp/before 6dae68e   # the code before the change
    python docs/scripts/typed_lines.py models/seq2seq /tmp/before/src src < lines.txt

Also what the scripts measuring one reading share (docs/scripts/apostrophes.py, docs/scripts/british.py): valid sources
typed as a person types them, scored with the reading and without, then typed lines side by side.
"""

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence

from attention_lab.data.splits import load_split, references
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.text import lexicon
from attention_lab.inference.translator import SearchParams, Translator

TRANSLATE = """
import json, sys
from attention_lab.inference.translator import Translator
lines = json.load(sys.stdin)
print(json.dumps([t.text for t in Translator.load(sys.argv[1], "cpu").translate(lines)]))
"""


def translations(model: str, src: str, lines: list[str]) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    done = subprocess.run([sys.executable, "-c", TRANSLATE, model], input=json.dumps(lines), env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def table(lines: list[str], before: list[str], after: list[str], headers: tuple[str, str]) -> str:
    """A Markdown table of `lines` and their two translations, under `headers`."""
    rows = [f"| typed | {headers[0]} | {headers[1]} |", "| --- | --- | --- |"]
    return "\n".join(rows + [f"| {line} | {a} | {b} |" for line, a, b in zip(lines, before, after)])


def scored(translator: Translator, variants: Sequence[tuple[str, list[str], dict]], refs: list[list[str]]) -> None:
    """Prints BLEU, beam 8 and greedy, as `evaluate` scores it, for each (label, sources, forms) of
    `variants`: the sources translated with `forms` as text/lexicon.py's `LEXICON`."""
    everything = lexicon.LEXICON
    for label, sources, forms in variants:
        lexicon.LEXICON = forms
        scores = {beam: corpus_scores([t.text for t in translator.translate(sources, SearchParams(beam_size=beam))],
                                      refs)["bleu"] for beam in (8, 1)}
        print(f"{label:32s} BLEU beam 8 {scores[8]:6.2f}, greedy {scores[1]:6.2f}", flush=True)
    lexicon.LEXICON = everything


def side_by_side(translator: Translator, off: dict, lines: Sequence[str]) -> str:
    """The table of `lines` translated, beam 8, with the lexicon `off` (without the reading) and with
    text/lexicon.py's."""
    everything, lexicon.LEXICON = lexicon.LEXICON, off
    before = translator.translate(lines)
    lexicon.LEXICON = everything
    after = translator.translate(lines)
    return table(list(lines), [t.text for t in before], [t.text for t in after], ("without the reading", "with it"))


def measured(model: str, splits: str, kind: dict[str, str], chosen: Callable[[str], bool],
             typed: Callable[[str], str], what: tuple[str, str], lines: Sequence[str]) -> None:
    """Prints the scores (`scored`) of the valid sources `chosen` picks (`what[0]` says which) as written,
    `typed` (`what[1]` says how) and read back by text/lexicon.py, and typed and read without the `kind`
    of its lexicon (`lexicon.CONTRACTIONS`, `lexicon.AMERICAN`); then the table of `lines` without the
    reading and with it (`side_by_side`)."""
    translator = Translator.load(model, "cpu")
    refs = references(load_split(splits, "valid"))
    sources = [s for s in refs.index if chosen(s)]
    print(f"valid sources {what[0]}: {len(sources)} of {len(refs)}")
    everything, retyped = lexicon.LEXICON, [typed(s) for s in sources]
    off = {form: written for form, written in everything.items() if form not in kind}
    variants = [("as written", sources, everything), (f"{what[1]}, read back", retyped, everything),
                (f"{what[1]}, as typed", retyped, off)]
    scored(translator, variants, [list(refs[s]) for s in sources])
    print(side_by_side(translator, off, lines))


def main(model: str, before: str, after: str) -> None:
    lines = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    print(table(lines, translations(model, before, lines), translations(model, after, lines), (before, after)))


if __name__ == "__main__":
    main(*sys.argv[1:])
