"""Attention heatmaps of translations (d2l §11.4.3): source pieces + `<eos>` across, output down.

A multi-head model (the Transformer) gets, besides the average of its maps, a grid of every
layer's and head's cross-attention (d2l §11.7.6): a row per layer, a column per head.

Weights are probabilities: every panel is drawn on one fixed 0-1 scale, matplotlib's "Blues", with one
colour bar, the scale and colours of the explorer page (explorer.html), so a colour is one weight anywhere."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from matplotlib.figure import Figure

from attention_lab.config import param
from attention_lab.errors import UserError
from attention_lab.inference.translator import (
    SearchParams,
    SourceTooLong,
    Translation,
    Translator,
)

CMAP = "Blues"  # explorer.html's BLUES: ColorBrewer's nine blues, the same colours

# d2l's four sentences, then longer ones where alignment is less trivial.
DEFAULT_SENTENCES = ("Go.", "I lost.", "He's calm.", "I'm home.", "I don't know what to do.",
                     "She is taller than her brother.", "We have to leave now.")


@dataclass(frozen=True)
class HeatmapParams:
    sentences: tuple[str, ...] = DEFAULT_SENTENCES
    search: SearchParams = field(default_factory=lambda: SearchParams(beam_size=4))
    # The explorer page also lists, in each source-length bucket, the test split's N worst and N best beam
    # translations by sentence chrF: otherwise its worst are all short and its best all chrF 100.
    test_sample: int = param(5, ge=0)
    length_buckets: tuple[int, ...] = (5, 10, 20)  # the buckets' upper bounds in source words: 1-5, 6-10, 11-20, 21+

    def validate(self) -> None:
        if not self.sentences or not all(s.strip() for s in self.sentences):
            raise ValueError("sentences: expected a non-empty list of non-empty sentences")
        if not self.length_buckets or list(self.length_buckets) != sorted(set(self.length_buckets)) \
                or self.length_buckets[0] < 1:
            raise ValueError(f"length_buckets: expected increasing word counts from 1, got {list(self.length_buckets)}")


def heatmap_grid(panels: Sequence[dict], ncols: int = 2, xlabel: str = "source", ylabel: str = "output",
                 title: str = "") -> Figure:
    """Heatmaps of attention weights (each panel's `weights` (T, S) with `xlabels` (S), `ylabels` (T), `title`),
    `ncols` to a row, all on the 0-1 scale with one colour bar."""
    nrows = max(1, -(-len(panels) // ncols))
    figure = Figure(figsize=(5.0 * ncols + 0.8, 4.0 * nrows), layout="constrained")
    if title:
        figure.suptitle(title)
    axes = figure.subplots(nrows, ncols, squeeze=False)
    image = None
    for ax, p in zip(axes.flat, panels):
        image = ax.imshow(np.asarray(p["weights"], dtype=float), cmap=CMAP, vmin=0.0, vmax=1.0, aspect="auto",
                          interpolation="nearest")
        ax.set_xticks(range(len(p["xlabels"])), labels=list(p["xlabels"]), rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(len(p["ylabels"])), labels=list(p["ylabels"]), fontsize=8)
        ax.set_title(p.get("title", ""), fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    if image is not None:
        figure.colorbar(image, ax=axes, shrink=0.8, label="attention weight")
    return figure


def panel(translation: Translation, title: str) -> dict:
    return {"weights": translation.attention, "xlabels": translation.src_pieces,
            "ylabels": translation.output_labels, "title": f"{title}: {translation.text}"}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "sentence"


def heads_grid(translation: Translation, title: str) -> Figure:
    """Every attention map of one translation (translated with `maps=True`), layers down and heads across."""
    heads = translation.layout[1]
    panels = [{**panel(translation, ""), "weights": weights, "title": f"layer {r // heads + 1}, head {r % heads + 1}"}
              for r, weights in enumerate(translation.maps)]
    return heatmap_grid(panels, ncols=heads, xlabel="source", ylabel="output",
                        title=f"{title}: {translation.source} -> {translation.text}")


def attention_figures(translator: Translator, sentences: Sequence[str],
                      search: SearchParams) -> tuple[dict[str, Figure], Figure]:
    """One figure per sentence (greedy beside beam), keyed by a file name, and a grid of all (beam);
    for a multi-head model also each sentence's maps by layer and head, greedy and beam."""
    try:
        greedy = translator.translate(sentences, replace(search, beam_size=1), maps=True)
    except SourceTooLong as exc:
        raise UserError(f"heatmaps.sentences[{exc.index}]: {exc.over(f'heatmaps.search.{exc.key}')}") from None
    beam = translator.translate(sentences, search, maps=True)
    figures = {f"{i:02d}-{slug(s)}.png": heatmap_grid([panel(g, "greedy"), panel(b, f"beam {search.beam_size}")],
                                                      ncols=2, xlabel="source", ylabel="output")
               for i, (s, g, b) in enumerate(zip(sentences, greedy, beam))}
    if beam[0].layout != (1, 1):
        for i, (s, g, b) in enumerate(zip(sentences, greedy, beam)):
            figures[f"{i:02d}-{slug(s)}-heads-greedy.png"] = heads_grid(g, "greedy")
            figures[f"{i:02d}-{slug(s)}-heads-beam.png"] = heads_grid(b, f"beam {search.beam_size}")
    return figures, translations_grid(beam)


def translations_grid(translations: Sequence[Translation]) -> Figure:
    """Every translation's heatmap, titled by its source, three to a row."""
    return heatmap_grid([panel(t, t.source) for t in translations], ncols=min(len(translations), 3),
                        xlabel="source", ylabel="output")
