"""A line's translation (`Translation`), and a line's from its sentences' (`joined`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np

from attention_lab.data.numbers import missing_numbers
from attention_lab.text.steps import written_line


@dataclass(frozen=True)
class Translation:
    """One line's translation; a line of several sentences is theirs put together (`joined`)."""

    source: str  # the line as given
    # What the model read, as the text steps read it (text/steps.py): pieces (or words, `<unk>` for unknown
    # ones), `<eos>` after each sentence.
    src_pieces: list[str]
    pieces: list[str]  # output pieces, `<eos>` excluded, any `<unk>` already replaced
    output_labels: list[str]  # an attention row's: its output piece, or `<eos>` where a sentence emitted it
    text: str  # the translation as a person reads it, carried characters in place
    score: float  # summed over the line's sentences
    attention: np.ndarray  # (T, S): a row per output label, a column per source piece, the maps' average
    unknown: list[str]  # source words the vocabulary lacks (word mode; subwords have none)
    carried: list[str]  # runs of characters the model cannot read, carried to `text` (text/symbols.py)
    # (R, T, S): each attention map, layer-major (R = L·M; one for a recurrent decoder), when asked for
    maps: np.ndarray | None = None
    layout: tuple[int, int] = (1, 1)  # (L, M): the model's layers and heads of attention
    # The source's digit groups `text` does not write in digits (data/numbers.py): lines to check.
    missing_numbers: list[str] = field(default_factory=list)
    # A Transformer's self-attention when asked for (`self_maps`), R = L·M maps layer-major as `maps`;
    # None for a recurrent model, which has none. Row = query, column = key.
    # (R, S, S): the encoder's, rows and columns the `src_pieces`.
    encoder_maps: np.ndarray | None = None
    # (R, T, T): the decoder's masked self-attention, zero above the diagonal. Row t is the step that wrote
    # output_labels[t]; its columns are the decoder's inputs it read, ["<bos>"] + output_labels[:-1] (in a
    # line of several sentences, each sentence's from its own `<bos>`).
    decoder_maps: np.ndarray | None = None
    # The glossary's terms (text/glossary.py) `text` does not write: lines to check.
    missing_terms: list[str] = field(default_factory=list)
    term_rows: list[int] = field(default_factory=list)  # the output labels a glossary term wrote, by index


def joined(source: str, parts: Sequence[Translation]) -> Translation:
    """The translations of a line's sentences as the line's (text/sentences.py): lists in sentence order, texts
    joined (`text.steps.written_line`), scores summed, attention block-diagonal."""
    text = written_line([t.text for t in parts])
    return Translation(
        source=source, src_pieces=[p for t in parts for p in t.src_pieces], pieces=[p for t in parts for p in t.pieces],
        output_labels=[p for t in parts for p in t.output_labels], text=text,
        score=sum(t.score for t in parts), attention=block_diagonal([t.attention for t in parts]),
        unknown=[w for t in parts for w in t.unknown], carried=[c for t in parts for c in t.carried],
        layout=parts[0].layout, missing_numbers=missing_numbers(source, text),
        missing_terms=list(dict.fromkeys(term for t in parts for term in t.missing_terms)),
        term_rows=[offset + row for t, offset in zip(parts, _offsets([len(t.output_labels) for t in parts]))
                   for row in t.term_rows],
        **{name: None if getattr(parts[0], name) is None else block_diagonal([getattr(t, name) for t in parts])
           for name in ("maps", "encoder_maps", "decoder_maps")})


def _offsets(sizes: Sequence[int]) -> list[int]:
    """Where each of blocks of `sizes` starts when they are put one after another."""
    return [0, *accumulate(sizes)][:-1]


def block_diagonal(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """(..., T_k, S_k) blocks as one (..., ΣT_k, ΣS_k) array, zero outside them."""
    rows, cols = sum(b.shape[-2] for b in blocks), sum(b.shape[-1] for b in blocks)
    out = np.zeros((*blocks[0].shape[:-2], rows, cols), dtype=blocks[0].dtype)
    t = s = 0
    for block in blocks:
        out[..., t : t + block.shape[-2], s : s + block.shape[-1]] = block
        t, s = t + block.shape[-2], s + block.shape[-1]
    return out
