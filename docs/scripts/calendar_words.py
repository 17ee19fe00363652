"""Weekdays and months through one model (docs/trust.md), greedy and beam 8:
- typed sentences naming each day and month: how many outputs name it in French;
- BLEU of the valid pairs that name a day or month on both sides, as written and with them swapped
  alike on both sides for others of their kind (the days and months the corpus rarely names).

    python docs/scripts/calendar_words.py models/seq2seq artifacts/splits
"""

import re
import sys
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from attention_lab.data.calendar_augmentation import FRENCH, KINDS, calendar_words, swapped
from attention_lab.data.splits import load_split, references
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.inference.translator import SearchParams, Translator

DAY_TEMPLATES = ("I'll see you on {}.", "The meeting was moved to {}.", "The shop is closed on {}.",
                 "We can talk about it next {}.")
MONTH_TEMPLATES = ("My birthday is in {}.", "We went to Spain last {}.", "School starts in {}.",
                   "It always rains in {}.")


def typed() -> list[tuple[str, str]]:
    """(sentence, the French word its translation should hold) for each day and month and template."""
    return [(template.format(english), french) for kind, templates in
            ((KINDS[0], DAY_TEMPLATES), (KINDS[1] + KINDS[2], MONTH_TEMPLATES))
            for english, french in kind for template in templates]


def typed_matches(translator: Translator, sentences: Sequence[tuple[str, str]], beam: int,
                  show_misses: bool) -> list[bool]:
    """Whether the translation (beam `beam`) of each typed (sentence, pattern) matches the pattern; with
    `show_misses`, the sentences whose translation does not are printed with it."""
    texts = [t.text for t in translator.translate([s for s, _ in sentences], SearchParams(beam_size=beam))]
    ok = [bool(re.search(pattern, text)) for (_, pattern), text in zip(sentences, texts)]
    for (source, _), text, good in zip(sentences, texts, ok):
        if show_misses and not good:
            print(f"  NOT {source} -> {text}")
    return ok


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    sentences = typed()
    for beam in (1, 8):
        texts = [t.text for t in translator.translate([s for s, _ in sentences], SearchParams(beam_size=beam))]
        kept = [bool(re.search(rf"\b{french}s?\b", text, re.IGNORECASE)) for (_, french), text in zip(sentences, texts)]
        print(f"typed: {sum(kept)} of {len(kept)} name the day or month, beam {beam}", flush=True)
        if beam == 8:
            for (source, _), text, ok in zip(sentences, texts, kept):
                print(f"  {'ok ' if ok else 'NOT'} {source} -> {text}")
    valid_scores(translator, splits, calendar_words, swapped, "naming days or months", named)


def named(source: str, text: str, reference: str) -> bool:
    """Whether `text` names in French each day and month that `source` and `reference` name."""
    return all(re.search(rf"\b{FRENCH[word]}s?\b", text, re.IGNORECASE) for word in calendar_words(source, reference))


def valid_scores(translator: Translator, splits: str, applies: Callable[[str, str], Any],
                 rewrite: Callable[[str, str, np.random.Generator], tuple], what: str,
                 kept: Callable[[str, str, str], bool]) -> None:
    """Print BLEU (greedy, beam 8) of the valid pairs `applies` is true for, as written and as `rewrite`
    makes them (seeded by each source), and the share of outputs `kept(source, output, first reference)`
    holds for."""
    valid = load_split(splits, "valid")
    named = [pair for pair in zip(valid["src"], valid["tgt"]) if applies(*pair)]
    others = [rewrite(*pair, np.random.default_rng(zlib.crc32(pair[0].encode())))[:2] for pair in named]
    for name, chosen in (("as written", named), ("rewritten", others)):
        grouped = references(pd.DataFrame(chosen, columns=["src", "tgt"]))
        sources, refs = list(grouped.index), [list(r) for r in grouped]
        for beam in (1, 8):
            texts = [t.text for t in translator.translate(sources, SearchParams(beam_size=beam))]
            share = np.mean([kept(source, text, refs_[0]) for source, text, refs_ in zip(sources, texts, refs)])
            bleu = corpus_scores(texts, refs)["bleu"]
            print(f"valid {what}, {name:10s} {len(sources):4d} sources, beam {beam}: "
                  f"BLEU {bleu:6.2f}, kept in {100 * share:5.1f} %", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
