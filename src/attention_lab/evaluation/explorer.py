"""The attention explorer: one self-contained HTML page (`explorer.html` beside this module: its script
and styles inline, no network) of sentences translated greedily and by beam search side by side, with
every attention map the model computes: a recurrent decoder's additive attention (Bahdanau et al.
2015, §3.1; d2l §11.4), or a Transformer's cross-attention, encoder self-attention and decoder masked
self-attention by layer and head (Vaswani et al. 2017, §3.2.3; d2l §11.7.6).

The `heatmaps` stage writes it for `heatmaps.sentences` and the test split's worst and best
translations by sentence chrF; `attention-lab translate --html` for the sentences typed. Weights are
kept in thousandths: a page of 50 sentences of the Transformer stays well under a few MB.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from attention_lab.inference.translator import SearchParams, Translation, Translator

TEMPLATE = Path(__file__).with_suffix(".html")
DATA_MARK = "/*EXPLORER-DATA*/"
SCALE = 1000  # weights are written as integers in thousandths


@dataclass(frozen=True)
class Entry:
    """One sentence of the page: its source, the group it is listed under, and, from the test split,
    its references and the beam translation's sentence chrF."""

    source: str
    group: str
    references: tuple[str, ...] = ()
    chrf: float | None = None


def scored_sample(translations: pd.DataFrame, count: int) -> list[Entry]:
    """The `count` worst and `count` best beam translations of `evaluate`'s translations.tsv
    (columns source, hypothesis, references joined by ` ||| `) by sentence chrF, worst first."""
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    rows = [(chrf.sentence_score(hyp, refs.split(" ||| ")).score, src, tuple(refs.split(" ||| ")))
            for src, hyp, refs in zip(translations["source"], translations["hypothesis"], translations["references"])]
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])  # stable: ties keep the split's order
    worst = order[:count]
    best = [i for i in reversed(order) if i not in set(worst)][:count]
    return ([Entry(rows[i][1], "worst chrF (beam)", rows[i][2], round(rows[i][0], 1)) for i in worst]
            + [Entry(rows[i][1], "best chrF (beam)", rows[i][2], round(rows[i][0], 1)) for i in best])


def thousandths(maps: np.ndarray | None) -> list[list[int]] | None:
    """(R, X, Y) weights -> each map's rows one after another, in thousandths."""
    if maps is None:
        return None
    return np.rint(np.asarray(maps, np.float64) * SCALE).astype(np.int64).reshape(len(maps), -1).tolist()


def result_data(translation: Translation, search: str) -> dict:
    return {"search": search, "text": translation.text, "src": translation.src_pieces,
            "out": translation.output_labels, "cross": thousandths(translation.maps),
            "encoder": thousandths(translation.encoder_maps), "decoder": thousandths(translation.decoder_maps)}


def explored(translator: Translator, entries: Sequence[Entry], search: SearchParams) -> list[dict]:
    """Each entry translated greedily and with `search`'s beam (if wider than 1), every attention map kept."""
    sources = [e.source for e in entries]
    searches = {"greedy": replace(search, beam_size=1)}
    if search.beam_size > 1:
        searches[f"beam {search.beam_size}"] = search
    results = {name: translator.translate(sources, s, maps=True, self_maps=True) for name, s in searches.items()}
    return [{"source": e.source, "group": e.group, "references": list(e.references), "chrf": e.chrf,
             "results": [result_data(results[name][i], name) for name in searches]}
            for i, e in enumerate(entries)]


def model_summary(translator: Translator) -> str:
    p = translator.model.params
    size = sum(t.numel() for t in translator.model.parameters())
    if p.arch == "transformer":
        t = p.transformer
        kind = f"Transformer, {t.layers} layers × {t.heads} heads, width {t.model_size}, FFN {t.ffn_size}"
    else:
        kind = (f"{p.rnn.upper()} encoder-decoder{' (bidirectional)' if p.bidirectional else ''}, "
                f"{p.decoder.capitalize()} decoder with {p.attention} attention, hidden {p.hidden_size}")
    return f"{kind}; {size / 1e6:.2f} M parameters"


def identity(translator: Translator, search: SearchParams, run_id: str | None = None, commit: str | None = None,
             test_metrics: dict | None = None) -> list[tuple[str, str]]:
    """The run the page shows, as (label, value) pairs: model, search, and what is known of the MLflow
    run, the commit and the test scores."""
    pairs = [("model", model_summary(translator)),
             ("search", f"greedy and beam {search.beam_size}, length penalty {search.length_penalty}")]
    if run_id:
        pairs.append(("MLflow run", run_id))
    if commit:
        pairs.append(("commit", commit[:12]))
    if test_metrics:
        beam, greedy = test_metrics["beam"], test_metrics["greedy"]
        pairs.append(("test BLEU, beam (greedy)", f"{beam['bleu']} ({greedy['bleu']})"))
        pairs.append(("test chrF, beam (greedy)", f"{beam['chrf']} ({greedy['chrf']})"))
    return pairs


def page(title: str, identity: Sequence[tuple[str, str]], translator: Translator, sentences: list[dict]) -> str:
    """The page's HTML: the template with the run's `identity` (label, value pairs) and `sentences`
    (`explored`) embedded as JSON."""
    data = {"title": title, "identity": [list(pair) for pair in identity],
            "layout": list(translator.model.decoder.attention_layout), "sentences": sentences}
    # A `<` inside the JSON could end its script element early (`</script>`, `<!--`): JSON's escape instead.
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return TEMPLATE.read_text(encoding="utf-8").replace("__TITLE__", html.escape(title)).replace(DATA_MARK, text)


def read_page_data(text: str) -> dict:
    """The data a page embeds (the inverse of `page`): what a test or a script reads back."""
    start = text.index('<script type="application/json" id="explorer-data">') + len(
        '<script type="application/json" id="explorer-data">')
    return json.loads(text[start: text.index("</script>", start)])
