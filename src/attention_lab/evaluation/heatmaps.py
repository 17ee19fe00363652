"""Attention heatmaps of translations (d2l §11.4.3): source pieces + `<eos>` across, output down.

A multi-head model (the Transformer) gets, besides the average of its maps, a grid of every
layer's and head's cross-attention (d2l §11.7.6): a row per layer, a column per head."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from matplotlib.figure import Figure

from attention_lab.config import param
from attention_lab.errors import UserError
from attention_lab.inference.translator import (
    SearchParams,
    SourceTooLong,
    Translation,
    Translator,
)
from attention_lab.plotting import heatmap_grid

# d2l's four sentences, then longer ones where alignment is less trivial.
DEFAULT_SENTENCES = ("Go.", "I lost.", "He's calm.", "I'm home.", "I don't know what to do.",
                     "She is taller than her brother.", "We have to leave now.")


@dataclass(frozen=True)
class HeatmapParams:
    sentences: tuple[str, ...] = DEFAULT_SENTENCES
    search: SearchParams = field(default_factory=lambda: SearchParams(beam_size=4))
    # The explorer page also lists the test split's N worst and N best beam translations by sentence chrF.
    test_sample: int = param(20, ge=0)

    def validate(self) -> None:
        if not self.sentences or not all(s.strip() for s in self.sentences):
            raise ValueError("sentences: expected a non-empty list of non-empty sentences")


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
