"""The attention explorer: one self-contained HTML page (`explorer.html` beside this module: its script
and styles inline, no network) of sentences translated greedily and by beam search side by side, with
every attention map the model computes: a recurrent decoder's additive attention (Bahdanau et al.
2015, §3.1; d2l §11.4), or a Transformer's cross-attention, encoder self-attention and decoder masked
self-attention by layer and head (Vaswani et al. 2017, §3.2.3; d2l §11.7.6).

The `heatmaps` stage writes it for `heatmaps.sentences` and, in each source-length bucket, the test
split's worst and best translations by sentence chrF; `attention-lab translate --html` for the sentences
typed. Weights are kept in thousandths: a page of 50 sentences of the Transformer stays well under a few MB.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from attention_lab.data.special_tokens import BOS
from attention_lab.inference.translation import Translation
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.text.glossary import Glossary

if TYPE_CHECKING:  # pandas costs `translate --html` a second of start-up; only the stage passes a frame
    import pandas as pd

TEMPLATE = Path(__file__).with_suffix(".html")
DATA_MARK = "/*EXPLORER-DATA*/"
DATA_ELEMENT = '<script type="application/json" id="explorer-data">'
SCALE = 1000  # weights are written as integers in thousandths


@dataclass(frozen=True)
class Entry:
    """One sentence of the page: its source, the group it is listed under and, from the test split,
    its references."""

    source: str
    group: str
    references: tuple[str, ...] = ()


def scored_sample(translations: pd.DataFrame, count: int, bounds: Sequence[int] = (5, 10, 20)) -> list[Entry]:
    """In each source-length bucket (words as evaluate counts them, `bounds` the buckets' upper bounds), the
    `count` worst and `count` best beam translations of `evaluate`'s translations.tsv (columns source, hypothesis,
    references joined by ` ||| `) by sentence chrF: the worst first, worst to better, then the best, best to worse;
    a bucket of fewer than 2·count sources lists each once. Buckets short to long: a long sentence is always shown
    where the split has one (its worst are otherwise all short, its best all chrF 100)."""
    from attention_lab.data.splits import word_count
    from attention_lab.evaluation.bleu import sentence_chrf
    from attention_lab.evaluation.report import bucket_label  # evaluate's buckets, as its BLEU-by-length table

    refs = [tuple(r.split(" ||| ")) for r in translations["references"]]
    scores = [sentence_chrf(hyp, r) for hyp, r in zip(translations["hypothesis"], refs)]
    sources = list(translations["source"])
    buckets: dict[str, list[int]] = {bucket_label(b, bounds): [] for b in bounds}
    buckets[f"{bounds[-1] + 1 if bounds else 1}+"] = []
    for i, source in enumerate(sources):
        buckets[bucket_label(word_count(source), bounds)].append(i)
    entries = []
    for label, members in buckets.items():
        order = sorted(members, key=scores.__getitem__)
        worst, best = order[:count], order[count:][::-1][:count]
        entries += [Entry(sources[i], f"test split, {label} words: worst chrF (beam)", refs[i]) for i in worst]
        entries += [Entry(sources[i], f"test split, {label} words: best chrF (beam)", refs[i]) for i in best]
    return entries


def thousandths(maps: np.ndarray | None) -> list[list[int]] | None:
    """Maps (R, T, S), (R, S, S) or (R, T, T) -> each map's rows one after another, in thousandths."""
    if maps is None:
        return None
    return np.rint(np.asarray(maps, np.float64) * SCALE).astype(np.int64).reshape(len(maps), -1).tolist()


def decoder_inputs(translation: Translation) -> list[str] | None:
    """What labels the columns of `decoder_maps` (R, T, T): each step's input, the piece written before it or
    `<bos>` where its sentence starts. A line's maps are block-diagonal, so a sentence starts at the step
    that reads no earlier column (softmax weights inside a block are never 0): also after a sentence
    the output limit cut, which ends with no `<eos>`."""
    maps = translation.decoder_maps
    if maps is None:
        return None
    labels = translation.output_labels
    return [BOS if t == 0 or not maps[:, t, :t].any() else labels[t - 1] for t in range(len(labels))]


def result_data(translation: Translation, search: str) -> dict:
    return {"search": search, "text": translation.text, "out": translation.output_labels,
            "terms": translation.term_rows, "cross": thousandths(translation.maps),
            "decoder": thousandths(translation.decoder_maps),
            "inputs": decoder_inputs(translation)}


def explored(translator: Translator, entries: Sequence[Entry], search: SearchParams,
             glossary: Glossary | None = None) -> list[dict]:
    """Each entry translated greedily and with `search`'s beam (if wider than 1) with `glossary`'s terms, every
    attention map kept, and, with references, the last search's sentence chrF. The source's pieces and its encoder
    self-attention depend on the source alone: kept once per sentence."""
    from attention_lab.evaluation.bleu import sentence_chrf  # evaluate's translations table's score

    sources = [e.source for e in entries]
    searches = {"greedy": replace(search, beam_size=1)}
    if search.beam_size > 1:
        searches[f"beam {search.beam_size}"] = search
    results = {name: translator.translate(sources, s, maps=True, self_maps=True, glossary=glossary)
               for name, s in searches.items()}
    last = results[list(searches)[-1]]
    return [{"source": e.source, "group": e.group, "references": list(e.references),
             "chrf": sentence_chrf(last[i].text, e.references) if e.references else None,
             "src": last[i].src_pieces, "encoder": thousandths(last[i].encoder_maps),
             "results": [result_data(results[name][i], name) for name in searches]}
            for i, e in enumerate(entries)]


def model_summary(translator: Translator) -> tuple[str, str]:
    """(the model in words with its size, the name of its cross-attention)."""
    p = translator.model.params
    size = f"{sum(t.numel() for t in translator.model.parameters()) / 1e6:.2f} M parameters"
    if p.arch == "transformer":
        t = p.transformer
        return (f"Transformer, {t.layers} layers × {t.heads} heads, width {t.model_size}, FFN {t.ffn_size}; {size}",
                "cross-attention (decoder → source)")
    encoder = f"{p.rnn.upper()} encoder{' (bidirectional)' if p.bidirectional else ''}"
    return (f"{encoder}, {p.decoder.capitalize()} decoder, hidden {p.hidden_size}, {p.num_layers} layer(s); {size}",
            f"{p.attention} attention (decoder → source)")


def identity(translator: Translator, search: SearchParams, run_id: str | None = None, commit: str | None = None,
             test_metrics: dict | None = None) -> list[tuple[str, str]]:
    """The run the page shows, as (label, value) pairs: model, tokenizer, search, and what is known of the
    DVC experiment, the MLflow run, the commit and the test scores."""
    codec = translator.tokenizer.src
    pairs = [("model", model_summary(translator)[0]),
             ("tokenizer", f"{type(codec).__name__.removesuffix('Codec').lower()}, {len(codec):,} source tokens"),
             ("search", f"greedy and beam {search.beam_size}, length penalty {search.length_penalty}")]
    known = (("DVC experiment", os.environ.get("DVC_EXP_NAME")), ("MLflow run", run_id),
             ("commit", commit[:12] if commit else None))
    pairs += [(label, value) for label, value in known if value]
    if test_metrics:
        beam, greedy = test_metrics["beam"], test_metrics["greedy"]
        pairs.append(("test BLEU, beam (greedy)", f"{beam['bleu']} ({greedy['bleu']})"))
        pairs.append(("test chrF, beam (greedy)", f"{beam['chrf']} ({greedy['chrf']})"))
    return pairs


def page(title: str, identity: Sequence[tuple[str, str]], translator: Translator, sentences: list[dict]) -> str:
    """The page's HTML: the template with the run's `identity` (label, value pairs) and `sentences`
    (`explored`) embedded as JSON."""
    data = {"title": title, "identity": [list(pair) for pair in identity], "scale": SCALE,
            "layout": list(translator.model.decoder.attention_layout), "attention": model_summary(translator)[1],
            "sentences": sentences}
    # A `<` inside the JSON could end its script element early (`</script>`, `<!--`): JSON's escape instead.
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return TEMPLATE.read_text(encoding="utf-8").replace("__TITLE__", html.escape(title)).replace(DATA_MARK, text)


def read_page_data(text: str) -> dict:
    """The data a page embeds (the inverse of `page`): what a test or a script reads back."""
    start = text.index(DATA_ELEMENT) + len(DATA_ELEMENT)
    return json.loads(text[start: text.index("</script>", start)])
