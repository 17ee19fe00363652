"""Test-split scoring: corpus BLEU/chrF and number fidelity for greedy and beam search, BLEU and
length ratio by source length, speed, BLEU of the sources as people also type them (upper-cased, Title
Case, lower-cased, without end marks, without apostrophes), and d2l's own BLEU table (§10.7) on its four
example sentences.

Hypotheses are the translator's text and references the corpus' raw French, so scores compare
across tokenizers (word or subword) and against any other system scored the same way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from attention_lab.config import param
from attention_lab.data.cleaning import normalize_words
from attention_lab.data.numbers import number_fidelity
from attention_lab.data.splits import references, word_count
from attention_lab.errors import UserError
from attention_lab.evaluation.bleu import (
    D2L_EXAMPLES,
    corpus_scores,
    d2l_bleu,
    sentence_chrf,
)
from attention_lab.inference.translation import Translation
from attention_lab.inference.translator import SearchParams, SourceTooLong, Translator
from attention_lab.model.precision import DECODING_PRECISIONS
from attention_lab.text.glossary import Glossary, GlossaryError


@dataclass(frozen=True)
class EvaluateParams:
    search: SearchParams = field(default_factory=SearchParams)
    length_buckets: tuple[int, ...] = (4, 6, 8, 10, 13)  # upper bounds of source-length buckets (words)
    max_sentences: int | None = param(None, ge=1)  # evaluate only the first N test sources
    # Greedy BLEU of the test sources as people also type them: upper-cased, in Title Case, lower-cased,
    # without their end marks or apostrophes (the translator reads each: text/steps.py).
    input_checks: bool = False
    # A glossary file (text/glossary.py) whose terms both searches must write; its term use is reported.
    glossary: str | None = None
    # The decoding's precision, as `translate --precision` (model/precision.py): `auto` scores what the CLI writes.
    precision: str = "auto"

    def validate(self) -> None:
        if self.precision not in DECODING_PRECISIONS:
            raise ValueError(f"precision: expected one of {', '.join(DECODING_PRECISIONS)}, got {self.precision!r}")
        if list(self.length_buckets) != sorted(set(self.length_buckets)) or not self.length_buckets:
            raise ValueError(f"length_buckets: expected increasing bounds, got {list(self.length_buckets)}")
        if self.length_buckets[0] < 1:
            raise ValueError(f"length_buckets: a sentence has at least one word, got {list(self.length_buckets)}")


def bucket_label(length: int, bounds: Sequence[int]) -> str:
    low = 1
    for bound in bounds:
        if length <= bound:
            return f"{low}-{bound}"
        low = bound + 1
    return f"{low}+"


def score_test_split(translator: Translator, test: pd.DataFrame,
                     params: EvaluateParams) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """Returns (metrics, one row per source with its beam translation, BLEU per length bucket)."""
    sources = references(test)
    if params.max_sentences is not None:
        sources = sources.iloc[: params.max_sentences]
    src_text, refs = list(sources.index), [list(r) for r in sources]
    metrics: dict = {"sources": len(sources), "references": sum(map(len, refs)), "decoding": translator.decodes_in}
    try:
        glossary = Glossary.load(params.glossary) if params.glossary else None
    except GlossaryError as exc:
        raise GlossaryError(f"evaluate.glossary: {exc}") from None
    outputs = {}
    for name, search in (("greedy", replace(params.search, beam_size=1)), ("beam", params.search)):
        start = time.perf_counter()
        try:
            outputs[name] = translator.translate(src_text, search, glossary=glossary)
        except SourceTooLong as exc:  # as the CLI and the served model refuse it
            raise UserError(f"test split: source {exc.index + 1} ({src_text[exc.index][:40]!r}...): "
                            f"{exc.over(f'evaluate.search.{exc.key}')}") from None
        seconds = time.perf_counter() - start
        texts = [t.text for t in outputs[name]]
        metrics[name] = {**corpus_scores(texts, refs), **number_fidelity(src_text, texts, refs),
                         "beam_size": search.beam_size, "sentences_per_s": round(len(src_text) / seconds, 1)}
        if glossary:
            metrics[name].update(term_use(glossary, src_text, outputs[name]))
    if params.input_checks:
        metrics["inputs"] = input_scores(translator, src_text, refs, replace(params.search, beam_size=1))
    beam = outputs["beam"]
    rows = pd.DataFrame({
        "source": src_text, "hypothesis": [t.text for t in beam], "references": [" ||| ".join(r) for r in refs],
        "sentence_chrf": [sentence_chrf(t.text, r) for t, r in zip(beam, refs)],
        "bucket": [bucket_label(word_count(s), params.length_buckets) for s in src_text]})
    buckets = []
    for label, group in rows.groupby("bucket", sort=False):
        scores = corpus_scores(group["hypothesis"].tolist(), [refs[i] for i in group.index])
        buckets.append({"source_words": label, "sentences": len(group), "bleu": scores["bleu"],
                        "length_ratio": scores["length_ratio"]})
    bounds = params.length_buckets
    order = [bucket_label(b, bounds) for b in bounds] + [f"{bounds[-1] + 1}+"]
    by_length = pd.DataFrame(buckets).set_index("source_words").reindex(order).dropna().reset_index()
    by_length["sentences"] = by_length["sentences"].astype(int)
    metrics["unk_in_outputs"] = sum("<unk>" in t.text for t in beam)
    metrics["d2l_examples"] = d2l_table(translator, params.search)
    return metrics, rows.drop(columns="bucket"), by_length


def term_use(glossary: Glossary, sources: Sequence[str], translations: Sequence[Translation]) -> dict:
    """The glossary's terms in `sources` (each French term once a source) and the share the translations write."""
    terms = sum(len({m.french for m in glossary.matches(s)}) for s in sources)
    missing = sum(len(t.missing_terms) for t in translations)  # each term once a line (`joined`)
    return {"glossary_terms": terms, "term_use": round(1 - missing / terms, 4) if terms else None}


def title_case(text: str) -> str:
    """Every word's first letter a capital, the rest as written: `I have to go.` -> `I Have To Go.`."""
    return " ".join(word[:1].upper() + word[1:] for word in text.split(" "))


def without_end_mark(text: str) -> str:
    """`text` without the marks that end it: `I see it!` -> `I see it`, `« Où ? »` -> `« Où »`."""
    return re.sub(r"\s*[.!?…]+(?=[\s\"'»”’)\]}]*$)", "", text)


def without_apostrophes(text: str) -> str:
    """`text` as typed by someone who skips apostrophes: `I don't know.` -> `I dont know.`."""
    return text.replace("'", "").replace("’", "")


def input_scores(translator: Translator, sources: Sequence[str], refs: Sequence[Sequence[str]],
                 search: SearchParams) -> dict:
    """BLEU (case-insensitive, as `corpus_scores`) of the translations of `sources` upper-cased, in
    Title Case, lower-cased, without their end marks and without apostrophes, under `search`."""
    scores = {}
    for name, typed in (("upper", str.upper), ("title", title_case), ("lower", str.lower),
                        ("unpunctuated", without_end_mark), ("no_apostrophes", without_apostrophes)):
        texts = [t.text for t in translator.translate([typed(s) for s in sources], search)]
        scores[f"{name}_bleu"] = corpus_scores(texts, refs)["bleu"]
    return scores


def d2l_table(translator: Translator, search: SearchParams) -> list[dict]:
    """d2l's table: greedy translations of its four sentences (under `search`'s limits) and their
    BLEU (k=2) against d2l's labels, both in d2l's lowercased, space-tokenised form."""
    translations = translator.translate([src for src, _ in D2L_EXAMPLES], replace(search, beam_size=1))
    table = []
    for (src, ref), t in zip(D2L_EXAMPLES, translations):
        words = normalize_words(t.text)
        table.append({"source": src, "translation": t.text, "reference": ref,
                      "bleu": round(d2l_bleu(words, normalize_words(ref), k=2), 3)})
    return table
