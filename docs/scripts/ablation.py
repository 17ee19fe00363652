"""Which text rules pay (docs/trust.md): each model translates with every rule of text/steps.py on, then with
one rule off at a time, and a Markdown table gives, for each rule, what it gains (all on minus rule off):

- everyday BLEU and chrF, beam 8 (`../shared/data/everyday-dev.tsv`, docs/scripts/everyday.py), and how many of its
  100 outputs the rule changes;
- valid BLEU, greedy (the model's `artifacts/splits/valid.parquet` two folders above the model, references
  grouped per source as `evaluate` groups them), and how many valid sources' outputs the rule changes;
- BLEU, greedy, on the rule's own typed set where docs/ has one: `casing` (the first `--typed` valid sources
  upper-cased, in Title Case and lower-cased: `evaluate`'s `inputs`) for Truecase; `no end mark` (the same
  sources without their end marks) for EndMark; `apostrophes` (docs/scripts/apostrophes.py: valid sources with a
  contraction, typed without apostrophes) for contractions; `british` (docs/scripts/british.py: valid sources typed
  British) for spelling; `quotes` (docs/scripts/quotes.py: valid sources with double quotes) for Typography
  (and the speech clauses, which paid nothing and were removed); `unseen names`
  (docs/scripts/unseen_names.py: valid pairs sharing a name, renamed alike with names the corpus lacks) for the
  garbled-name fix and the placeholders.

    OMP_NUM_THREADS=1 python docs/scripts/ablation.py MODEL_DIR [MODEL_DIR ...] \\
        [--tsv ../shared/data/everyday-dev.tsv] [--beam 8] [--typed 1000] [--valid N] [--only RULE ...]

A rule is off when its step is dropped from `steps.STEPS` (Truecase is replaced by a step that reads every
sentence `as written`, since Normalize reads its record), or when the function its caller uses is replaced
by the identity (`normalize.with_currency_names`, ..., `protect.names_written` -> `{}`, `protect.placeheld` ->
no placeholder), or its words are dropped from text/lexicon.py's `LEXICON` (contractions, spellings, shorthand).
A sentence's search depends only on what it reads (its text and placeholders): each sentence is searched
once for the text it is read as, and its search's output written back by the steps again for each rule; so a
rule off re-searches only the sentences it reads otherwise, and on the whole it costs the valid split's greedy
search once per model (checked: the everyday set's outputs are `translate`'s).
The verdict, for each model, is the project's rule: `keep` when the rule gains on the everyday set (BLEU or
chrF) or on its typed set, without losing valid BLEU; else `remove`.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import attention_lab.inference.translator as translator_module
from attention_lab.data.splits import load_split, references
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.evaluation.report import title_case, without_apostrophes, without_end_mark
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.text import lexicon, normalize, protect, steps
from attention_lab.text.casing import Truecase
from attention_lab.text.lexicon import CONTRACTION
from attention_lab.text.end_mark import EndMark, EndRun
from attention_lab.text.protect import placeholders
from attention_lab.text.quotes import Typography
from attention_lab.text.record import Context, Draft, Sentence, Step
from attention_lab.text.repeats import Repair

sys.path.insert(0, str(Path(__file__).parent))
from british import BRITISH  # noqa: E402  (docs/scripts/british.py)
from everyday import read_pairs  # noqa: E402  (docs/scripts/everyday.py)
from quotes import QUOTE  # noqa: E402  (docs/scripts/quotes.py)
from unseen_names import renamed_pairs  # noqa: E402  (docs/scripts/unseen_names.py)

from attention_lab.text.lexicon import respelt  # noqa: E402


class AsWritten(Step):
    """Truecase off: every sentence read as typed, recorded `as written` (Normalize reads the record)."""

    name = "truecase"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        return sentence.read(self, sentence.text, "as written")


def without(kind: type, instead: object | None = None) -> tuple:
    """`steps.STEPS` with the step of `kind` dropped, or replaced by `instead`."""
    return tuple(instead if isinstance(step, kind) else step
                 for step in steps.STEPS if instead or not isinstance(step, kind))


def same(text, *args, **kwargs):
    return text


def less(kind: dict[str, str]) -> dict[str, str]:
    """text/lexicon.py's `LEXICON` without the forms of `kind` (`lexicon.CONTRACTIONS`, ...)."""
    return {form: written for form, written in lexicon.LEXICON.items() if form not in kind}


@dataclass(frozen=True)
class Rule:
    name: str
    side: str  # read, write or both: where the rule acts
    patches: tuple[tuple[object, str, object], ...]  # (module, attribute, what it is while the rule is off)
    typed: str | None = None  # its typed set's name, if any


RULES = (
    Rule("Truecase", "both", ((steps, "STEPS", without(Truecase, AsWritten())),), "casing"),
    Rule("EndRun", "both", ((steps, "STEPS", without(EndRun)),)),
    Rule("Typography", "both", ((steps, "STEPS", without(Typography)),), "quotes"),
    Rule("EndMark", "read", ((steps, "STEPS", without(EndMark)),), "no end mark"),
    Rule("Repair", "write", ((steps, "STEPS", without(Repair)),)),
    Rule("contractions", "read", ((lexicon, "LEXICON", less(lexicon.CONTRACTIONS)),), "apostrophes"),
    Rule("spelling", "read", ((lexicon, "LEXICON", less(lexicon.AMERICAN)),), "british"),
    Rule("shorthand", "read", ((lexicon, "LEXICON", less(lexicon.SHORTHAND)), (lexicon, "TIMES", re.compile("(?!)")))),
    Rule("currency", "read", ((normalize, "with_currency_names", same),)),
    Rule("units", "read", ((normalize, "with_unit_names", same),)),
    Rule("times", "read", ((normalize, "read_times", same),)),
    Rule("garbled names", "write", ((protect, "names_written", lambda *args, **kwargs: {}),), "unseen names"),
    Rule("French numbers", "write", ((protect, "french_numbers", same), (protect, "french_ordinals", same))),
    Rule("name placeholders", "read", ((protect, "placeheld", lambda text, *args, **kwargs: (text, ())),),
         "unseen names"),
)


class Rules:
    """Turns rules off, and back on."""

    def __init__(self, rule: Rule | None) -> None:
        self.rule, self.saved = rule, []

    def __enter__(self) -> None:
        for module, attribute, off in self.rule.patches if self.rule else ():
            self.saved.append((module, attribute, getattr(module, attribute)))
            setattr(module, attribute, off)

    def __exit__(self, *exc) -> None:
        for module, attribute, on in reversed(self.saved):
            setattr(module, attribute, on)
        self.saved.clear()


class Searched:
    """One model's translations, each sentence searched once for each text it is read as."""

    def __init__(self, translator: Translator) -> None:
        self.translator, self.drafts, self.beam = translator, {}, 1
        self.searches = 0
        translator_module.write = self.record  # translate_sentences writes each search's output through it

    def key(self, sentence: Sentence) -> tuple:
        return self.beam, sentence.text, tuple(placeholders(sentence))

    def record(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        if draft.rows:  # a search's output (a sentence with nothing to search is written from an empty draft)
            self.drafts[self.key(sentence)] = draft
        return steps.write(draft, sentence, context)

    def texts(self, lines: Sequence[str], beam: int) -> tuple[list[str], list[tuple]]:
        """Each line's translation under the rules now in force, and what each line was read as."""
        search, self.beam = SearchParams(beam_size=beam), beam
        sentences, ids = self.translator.read(lines, search)
        todo = [i for i, s in enumerate(sentences) if s.text and self.key(s) not in self.drafts]
        if todo:
            self.searches += len(todo)
            self.translator.translate_sentences([sentences[i] for i in todo], [ids[i] for i in todo], search,
                                                None, False, lambda batch: None)
        tokenizer = self.translator.tokenizer
        context = Context(tokenizer.src, tokenizer.tgt, tokenizer.words, search.drop_repeats)
        empty = Draft([], np.zeros((0, 0), np.float32), [])
        by_line: list[list[str]] = [[] for _ in lines]
        readings: list[list] = [[] for _ in lines]
        for s in sentences:
            draft = self.drafts.get(self.key(s), empty) if s.text else empty
            by_line[s.line].append(steps.write(draft, s, context).text)
            readings[s.line].append((s.text, tuple(placeholders(s))))
        return [steps.written_line(parts) for parts in by_line], [tuple(r) for r in readings]


def typed_sets(refs: pd.Series, valid: pd.DataFrame, first: int) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The typed sets (the module's docstring), each as (sources, references)."""
    head = list(refs.index[:first])

    def grouped(pairs: list[tuple[str, str]]) -> tuple[list[str], list[list[str]]]:
        table = references(pd.DataFrame(pairs, columns=["src", "tgt"]))
        return list(table.index), [list(r) for r in table]

    contracted = [s for s in refs.index if CONTRACTION.search(without_apostrophes(s))]
    british = [s for s in refs.index if respelt(s, BRITISH) != s]
    quoted = [s for s in refs.index if QUOTE.search(s)]
    sets = {
        "casing": ([typed(s) for typed in (str.upper, title_case, str.lower) for s in head],
                   [list(refs[s]) for _ in range(3) for s in head]),
        "no end mark": ([without_end_mark(s) for s in head], [list(refs[s]) for s in head]),
        "apostrophes": ([without_apostrophes(s) for s in contracted], [list(refs[s]) for s in contracted]),
        "british": ([respelt(s, BRITISH) for s in british], [list(refs[s]) for s in british]),
        "quotes": (quoted, [list(refs[s]) for s in quoted]),
        "unseen names": grouped(renamed_pairs(list(zip(valid["src"], valid["tgt"])))),
    }
    return {name: chosen for name, chosen in sets.items() if chosen[0]}  # one with no source has no score


@dataclass
class Scores:
    everyday: dict
    everyday_texts: list[str]
    valid: dict
    valid_texts: list[str]
    valid_readings: list[tuple]
    typed: dict[str, float]


def measured(searched: Searched, rule: Rule | None, everyday: tuple, beam: int, valid: tuple, typed: dict) -> Scores:
    """Everyday scores (beam `beam`), valid ones (greedy) and typed sets' BLEU (greedy: all with every rule
    on, `rule`'s own with it off), with `rule` off (`None`: every rule on)."""
    with Rules(rule):
        day_texts = searched.texts(everyday[0], beam)[0]
        texts, readings = searched.texts(valid[0], 1)
        names = typed if rule is None else [name for name in typed if name == rule.typed]
        typed_bleu = {name: corpus_scores(searched.texts(typed[name][0], 1)[0], typed[name][1])["bleu"]
                      for name in names}
    return Scores(corpus_scores(day_texts, everyday[1]), day_texts, corpus_scores(texts, valid[1]), texts, readings,
                  typed_bleu)


def verdict(everyday: tuple[float, float], valid: float, typed: float | None) -> str:
    gains = everyday[0] > 0 or everyday[1] > 0 or (typed is not None and typed > 0)
    return "keep" if gains and valid >= 0 else "remove"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", metavar="MODEL_DIR")
    parser.add_argument("--tsv", default="../shared/data/everyday-dev.tsv")
    parser.add_argument("--beam", type=int, default=8, help="the everyday set's beam")
    parser.add_argument("--typed", type=int, default=1000, metavar="N",
                        help="valid sources in the casing and end-mark typed sets")
    parser.add_argument("--valid", type=int, default=None, metavar="N", help="the first N valid sources only")
    parser.add_argument("--only", nargs="*", metavar="RULE", help="these rules only (names as in the table)")
    args = parser.parse_args()
    rules = [rule for rule in RULES if not args.only or rule.name in args.only]
    sources, refs = map(list, zip(*read_pairs(args.tsv)))
    everyday = (sources, [[r] for r in refs])
    print("| model | rule off | acts | everyday BLEU | everyday chrF | everyday outputs changed | valid BLEU | "
          "valid outputs changed (readings) | typed set | typed BLEU | verdict |\n" + "| --- " * 11 + "|", flush=True)
    for model in args.models:
        start = time.perf_counter()
        translator = Translator.load(model, "cpu")
        searched = Searched(translator)
        splits = Path(model).resolve().parent.parent / "artifacts" / "splits"
        valid_split = load_split(splits, "valid")
        grouped = references(valid_split).iloc[: args.valid]
        valid = (list(grouped.index), [list(r) for r in grouped])
        typed = typed_sets(grouped, valid_split, args.typed)
        # The cached search writes back what translate does: checked on the everyday set.
        direct = [t.text for t in translator.translate(sources, SearchParams(beam_size=args.beam))]
        base = measured(searched, None, everyday, args.beam, valid, typed)
        check = searched.texts(sources, args.beam)[0]
        if check != direct:
            differ = sum(a != b for a, b in zip(check, direct))
            raise SystemExit(f"{model}: cached outputs differ from translate's on {differ} lines")
        print(f"| {model} | none: all on | | {base.everyday['bleu']:.2f} | {base.everyday['chrf']:.2f} | "
              f"{len(sources)} lines | {base.valid['bleu']:.2f} | {len(valid[0])} sources | "
              + ", ".join(f"{name} ({len(typed[name][0])}) {bleu:.2f}" for name, bleu in base.typed.items())
              + " | | |", flush=True)
        print(f"{model}: all on in {time.perf_counter() - start:.0f} s, {searched.searches} searches", file=sys.stderr)
        for rule in rules:
            before = searched.searches
            off = measured(searched, rule, everyday, args.beam, valid, typed)
            day = (base.everyday["bleu"] - off.everyday["bleu"], base.everyday["chrf"] - off.everyday["chrf"])
            gain = base.valid["bleu"] - off.valid["bleu"]
            day_changed = sum(a != b for a, b in zip(base.everyday_texts, off.everyday_texts))
            changed = sum(a != b for a, b in zip(base.valid_texts, off.valid_texts))
            read = sum(a != b for a, b in zip(base.valid_readings, off.valid_readings))
            typed_gain = base.typed[rule.typed] - off.typed[rule.typed] if rule.typed in typed else None
            typed_cells = f"{rule.typed} | {typed_gain:+.2f}" if typed_gain is not None else " | "
            print(f"| {model} | {rule.name} | {rule.side} | {day[0]:+.2f} | {day[1]:+.2f} | {day_changed} | "
                  f"{gain:+.2f} | "
                  f"{changed} ({read}) | {typed_cells} | {verdict(day, gain, typed_gain)} |", flush=True)
            print(f"{model}: {rule.name} in {time.perf_counter() - start:.0f} s, "
                  f"{searched.searches - before} searches", file=sys.stderr)


if __name__ == "__main__":
    main()
