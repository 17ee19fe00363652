"""A line's translation (`Translation`), and a line's from its sentences' (`joined`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.special_tokens import UNK
from attention_lab.inference.check import Expected, Findings, check
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
    # What `text` must write beyond the source's numbers (a sentence's), and what the check after writing found
    # in it (a line's: inference/check.py): lines to check.
    expected: Expected = Expected()
    found: Findings = Findings()
    # A Transformer's self-attention when asked for (`self_maps`), R = L·M maps layer-major as `maps`;
    # None for a recurrent model, which has none. Row = query, column = key.
    # (R, S, S): the encoder's, rows and columns the `src_pieces`.
    encoder_maps: np.ndarray | None = None
    # (R, T, T): the decoder's masked self-attention, zero above the diagonal. Row t is the step that wrote
    # output_labels[t]; its columns are the decoder's inputs it read, ["<bos>"] + output_labels[:-1] (in a
    # line of several sentences, each sentence's from its own `<bos>`).
    decoder_maps: np.ndarray | None = None
    term_rows: list[int] = field(default_factory=list)  # the output labels a glossary term wrote, by index

    @property
    def missing_numbers(self) -> list[str]:
        """The source's numbers `text` does not write (`found`)."""
        return list(self.found.missing_numbers)

    @property
    def missing_terms(self) -> list[str]:
        """The glossary's terms (text/glossary.py) `text` does not write (`found`)."""
        return list(self.found.missing_terms)

    def notes(self) -> list[str]:
        """What a reader of `text` should know, a line each: source words read as `<unk>`, text carried around
        the model, and what the check found."""
        told = ((self.unknown, f"words outside the vocabulary, read as {UNK} and copied through attention"),
                (self.carried, "not read by the model, carried to the output as written"))
        return [f"{what}: {' '.join(spans)}" for spans, what in told if spans] + self.found.notes()


def report_line(number: int, result: Translation | None) -> str:
    """Line `number`'s JSON object (a blank line's when `result` is None), as `translate --report` writes it: the
    source, its translation, whether the check flagged it, and what each of its checks found (inference/check.py)."""
    source, text, found = (result.source, result.text, result.found) if result else ("", "", Findings())
    return json.dumps({"line": number, "source": source, "translation": text, "flagged": bool(found),
                       **found.as_dict()}, ensure_ascii=False) + "\n"


def joined(source: str, parts: Sequence[Translation], words: CorpusWords | None = None) -> Translation:
    """The translations of a line's sentences as the line's (text/sentences.py): lists in sentence order, texts
    joined (`text.steps.written_line`), scores summed, attention block-diagonal, and the line checked
    (inference/check.py) with the corpus's `words`."""
    text, expected = written_line([t.text for t in parts]), Expected.joined(t.expected for t in parts)
    return Translation(
        source=source, src_pieces=[p for t in parts for p in t.src_pieces], pieces=[p for t in parts for p in t.pieces],
        output_labels=[p for t in parts for p in t.output_labels], text=text,
        score=sum(t.score for t in parts), attention=block_diagonal([t.attention for t in parts]),
        unknown=[w for t in parts for w in t.unknown], carried=[c for t in parts for c in t.carried],
        layout=parts[0].layout, expected=expected, found=check(source, text, expected, words),
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
