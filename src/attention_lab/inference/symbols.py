"""Characters the model cannot read (an emoji, a CJK character in an English sentence, a letter the
corpus never had), carried around it: taken out of a sentence before it is encoded, and put back into
the translation where attention sent the word next to them.

Which characters: those no token of the source vocabulary holds (`Codec.reads`). SentencePiece would
spell them in byte pieces and a word vocabulary as `<unk>`, neither of which training ever showed the
model, and one of them garbles the whole sentence. A run of such characters (`🐱🐱`) travels as one.

Where it goes back (W = the words of the translation, split at spaces):
- a run with a space on each side, or at an end of the sentence: before the output word that attends
  most to the source word after it; at the sentence's start or end when there is no word before or after;
- a run touching a word (`Łódź`, `cats🐱`): touching that word's output word, on the same side.
The output word of a source word is that of the output piece whose attention (the (T, S) average) sums
most over the word's pieces; when the pieces of the words cannot be told apart it goes by relative
position. Taking the runs out of the result gives back the translation of the sentence without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import groupby

import numpy as np

from attention_lab.data.cleaning import clean
from attention_lab.data.tokenizer import Codec


@dataclass(frozen=True)
class Carried:
    text: str  # a run of characters the model cannot read
    word: int | None  # the word of the sentence left that it goes with; None: a sentence edge
    after: bool  # it follows that word (else precedes it); with no word: the end (else the start)
    attached: bool  # no space between it and that word


def take_out(sentence: str, reads: Callable[[str], bool]) -> tuple[str, tuple[Carried, ...]]:
    """The cleaned `sentence` without the characters `reads` refuses (spaces collapsed), and those
    characters' runs with the places they go back to."""
    text = clean(sentence)
    kept, runs, end = "", [], 0
    for readable, chars in groupby(text, key=reads):
        run = "".join(chars)
        end += len(run)
        if readable:
            kept += run
            continue
        before, left, right = len(kept.split()), kept[-1:].strip() != "", text[end : end + 1].strip() != ""
        runs.append((run, before, left, right))
    words = len(kept.split())
    carried = []
    for run, before, left, right in runs:
        if left:
            carried.append(Carried(run, before - 1, True, True))
        elif right or 0 < before < words:
            carried.append(Carried(run, before, False, right))
        else:
            carried.append(Carried(run, None, before > 0, False))
    return " ".join(kept.split()), tuple(carried)


def output_words(pieces: Sequence[str], join: Callable[[Sequence[str]], str]) -> list[int]:
    """The word of `join(pieces)` (split at spaces) each output piece falls in."""
    return [max(len(join(pieces[: t + 1]).split()) - 1, 0) for t in range(len(pieces))]


def put_back(carried: Sequence[Carried], source: str, pieces: Sequence[str], attention: np.ndarray, src: Codec,
             tgt: Codec) -> str:
    """The translation of `pieces` as text, with the runs `carried` out of `source` in place.
    attention (T, S): a row per output piece (and `<eos>` when emitted), a column per piece `src`
    reads in `source` and one for `<eos>`."""
    text = tgt.join(pieces)
    words = text.split()
    if not carried:
        return text
    if not words:
        return " ".join(run.text for run in carried)
    source_words = [len(src.pieces(word)) for word in source.split()]  # pieces never span a space
    aligned = sum(source_words) == attention.shape[1] - 1 and len(pieces) > 0
    starts = np.cumsum([0, *source_words])
    of_piece = output_words(pieces, tgt.join) if aligned else []
    slots: dict[tuple[int, bool, bool], list[str]] = {}  # (output word, after, attached) -> runs, in order
    edges: dict[bool, list[str]] = {False: [], True: []}
    for run in carried:
        if run.word is None:
            edges[run.after].append(run.text)
            continue
        if aligned:
            weight = attention[: len(pieces), starts[run.word] : starts[run.word + 1]].sum(axis=1)  # (T,)
            target = of_piece[int(np.argmax(weight))]
        else:
            target = round(run.word / max(len(source_words) - 1, 1) * (len(words) - 1))
        slots.setdefault((min(target, len(words) - 1), run.after, run.attached), []).append(run.text)
    items = list(edges[False])
    for i, word in enumerate(words):
        glued = "".join(slots.get((i, False, True), [])) + word + "".join(slots.get((i, True, True), []))
        items += [*slots.get((i, False, False), []), glued]
    return " ".join(items + edges[True])
