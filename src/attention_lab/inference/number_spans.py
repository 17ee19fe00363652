"""A source's numbers as the search may write them (number_constraint.py): each number one span, whole, and a
sentence's numbers in the source's order, as one automaton over the target pieces (design.md: The search copies
numbers; docs/search.md: Numbers whole and in order).

A number as typed (`9.99`, `100,000`, `1,299.99`, `10 000`, `2:30`) is one span: its digit groups in order, and
between two groups what French may write there (`FORMS`): a thousands comma as nothing, a space, `,` or `.`
(`100000`, `100 000`, `100,000`, `100.000`: the corpus's French writes all four, and text/number_forms.py gives
back `100 000`); a decimal point as `,` or `.` (`9,99`; number_forms writes `.` as `,`); a clock's colon as `:` or
`h` (`14:30`, `14h30`, `14 h 30`); spaced thousands (`10 000`, a 1-3 digit group then groups of 3) as a space
only; any other separator (`3:1`, `1,5`, or a number glued to a letter, `v2.5`) only as typed: the reading is
unsure, so the text is left as it was.

The automaton of a sentence with spans 1..m (each hypothesis row holds one node of it): R_k, k spans written and
none under way, where any piece may come and span k+1 may start (on its first digit, glued or starting a word);
a span's nodes, where only the span's next digit or separator may come; E_k, its last digit, after which a
word ends it, a digit starting a word starts span k+1, and a separator glued to it leads to G_k, where the next
digit must start a word (`10,20` would be read as one number). Rows that reach R_m, E_m or G_m wrote every span.
"""

from __future__ import annotations

import functools
import itertools
import re
import string
from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from attention_lab.data.tokenizer import Codec

WORD_START = "▁"  # SentencePiece's mark of a piece that begins a word
SEPARATORS = (WORD_START, ",", ".", ":", "h", "▁h")  # pieces that may stand between a number's digit groups
WORD, GLUED, STARTS, SEPARATE = 0, 1, 11, 21  # the alphabet: any other piece; digit d at GLUED + d (glued to
ALPHABET = SEPARATE + len(SEPARATORS)  # the piece before) or STARTS + d (`▁7`); each of SEPARATORS from SEPARATE
NO_DIGIT = [-1] * (SEPARATE - GLUED)  # a node's children on the digits, where none may come


def separator(piece: str) -> int:
    """The symbol of one of SEPARATORS."""
    return SEPARATE + SEPARATORS.index(piece)


# Between two digit groups: the styles French may write there, each the ways to spell it in pieces (a way: its
# separator pieces, and whether the next digit piece starts a word). A number's gaps of one kind share a style:
# `2 500 000` or `2500000`, never `2,500000` (2,5 to a French reader).
_SPACE = (((), True), ((WORD_START,), False))  # `100 000`: the digit's own word start, or a piece of its own
_GLUED = (((), False),)


def _after(piece: str) -> tuple:
    return (((piece,), False),)


FORMS = {
    "thousands": (_GLUED, _SPACE, _after(","), _after(".")),
    "spaced": (_SPACE,),
    "decimal": (_after(","), _after(".")),
    "clock": (_after(":"), tuple(((h, *more), starts) for h in ("h", "▁h") for more, starts in (*_GLUED, *_SPACE))),
    **{f"typed {sep}": (_after(sep),) for sep in ",.:"},
}

SPACED = r"[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+(?![0-9]|[.,:][0-9])"  # `10 000`, not `2020 100`
NUMBER = re.compile(rf"(?<![0-9])(?:{SPACED}|[0-9]+(?:[.,:][0-9]+)*)")  # a number as typed
THOUSANDS = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")  # `2,500,000`, `1,299.99`
CLOCK = re.compile(r"(?:[01]?[0-9]|2[0-3]):[0-5][0-9]")  # `9:05`, `14:30`; not `3:1`


class Span(NamedTuple):
    groups: tuple[str, ...]  # the digit groups, in order
    between: tuple[str, ...]  # the `FORMS` key of each gap between two groups


def number_spans(source: str) -> list[Span]:
    """The numbers of `source` as typed, in order, each a `Span`."""
    spans = []
    for match in NUMBER.finditer(source):
        text, start = match.group(), match.start()
        alone = not (start and source[start - 1].isalpha())  # `v2.5`, `A4`: as typed
        separators = re.findall(r"[^0-9]", text)
        spans.append(Span(tuple(re.findall(r"[0-9]+", text)),
                          tuple(gap_kind(sep, text, separators, alone) for sep in separators)))
    return spans


def writable(spans: Sequence[Span], symbols: frozenset[int]) -> list[Span]:
    """`spans`, each split at a gap that no way of `FORMS` can write with a vocabulary of `symbols` (one without
    `:` or `h` cannot write `7:45` whole): its groups then numbers of their own, still in order."""
    def fits(way: tuple[tuple[str, ...], bool]) -> bool:
        separators, starts = way
        digits = range(STARTS, SEPARATE) if starts else range(GLUED, STARTS)
        return all(separator(sep) in symbols for sep in separators) and not symbols.isdisjoint(digits)

    split = []
    for span in spans:
        groups, between = [span.groups[0]], []
        for group, kind in zip(span.groups[1:], span.between):
            if not any(fits(way) for style in FORMS[kind] for way in style):
                split.append(Span(tuple(groups), tuple(between)))
                groups, between = [], []
            else:
                between.append(kind)
            groups.append(group)
        split.append(Span(tuple(groups), tuple(between)))
    return split


def gap_kind(sep: str, number: str, separators: list[str], alone: bool) -> str:
    """The `FORMS` key of a gap `sep` between two digit groups of `number` (its `separators` in order), `alone`
    when no letter is glued before it."""
    if sep.isspace():
        return "spaced"
    if alone and THOUSANDS.fullmatch(number):
        return "thousands" if sep == "," else "decimal"
    if alone and separators == ["."]:
        return "decimal"
    return "clock" if alone and CLOCK.fullmatch(number) else f"typed {sep}"


class Automaton:
    """The nodes of several sentences' automata, one sentence at a time (`add`): `children` (U, ALPHABET) the
    node after each symbol (-1: it may not be written), `need` the fewest pieces to the end of the span under way,
    `bank` twice the digits of the sentence's spans written, less one inside a span (a row's progress: dynamic
    beam allocation's banks), `final` every span written."""

    def __init__(self) -> None:
        self.children: list[list[int]] = []
        self.need: list[int] = []
        self.bank: list[int] = []
        self.final: list[bool] = []

    def node(self, digits: int, inside: bool = True, to: int = -1) -> int:
        """A new node after `digits` digits of the sentence's spans, each symbol leading `to`."""
        self.children.append([to] * ALPHABET)
        self.need.append(0)
        self.bank.append(2 * digits - inside)
        self.final.append(False)
        return len(self.children) - 1

    def add(self, spans: Sequence[Span]) -> int:
        """The automaton of a sentence with `spans` (the module's docstring); its root R_0."""
        written = [0]
        for span in spans:
            written.append(written[-1] + sum(map(len, span.groups)))
        rest = [self.node(d, inside=False) for d in written]  # R_k
        ends: list[int] = []  # E_k and G_k of the span before
        for k, node in enumerate(rest):
            self.children[node] = [node] * ALPHABET  # any piece stays, but a digit
            self.children[node][GLUED:SEPARATE] = NO_DIGIT
            for end in ends:  # a word after a span's last digit, or after a separator glued to it, ends it
                for symbol in (WORD, separator(WORD_START), separator("▁h")):
                    self.children[end][symbol] = node
            if k == len(spans):
                break
            first, lasts = self._span(spans[k], written[k])
            start = int(spans[k].groups[0][0])
            self.children[node][GLUED + start] = self.children[node][STARTS + start] = first
            for end in ends:  # right after the span before: only a digit that starts a word
                self.children[end][STARTS + start] = first
            gap = self.node(written[k + 1], inside=False, to=rest[k + 1])  # G_k
            self.children[gap][GLUED:SEPARATE] = NO_DIGIT
            for last in lasts:
                for sep in ",.:h":
                    self.children[last][separator(sep)] = gap
            ends = [*lasts, gap]
        for node in ends + rest[-1:]:
            self.final[node] = True
        return rest[0]

    def _span(self, span: Span, before: int) -> tuple[int, list[int]]:
        """The nodes of `span`, after `before` digits of its sentence's spans: its first digit's and its last
        digit's, one for each style of its repeated gaps."""
        first = self.node(before + 1)
        repeated = [kind for kind in dict.fromkeys(span.between) if span.between.count(kind) > 1]
        lasts = []
        for styles in itertools.product(*(FORMS[kind] for kind in repeated)):
            chosen = dict(zip(repeated, styles))
            at, written = first, before + 1
            for index, group in enumerate(span.groups):
                if index:  # each way to write the gap ends where a digit piece writes the group's first digit
                    kind = span.between[index - 1]
                    ways = chosen.get(kind) or [way for style in FORMS[kind] for way in style]
                    ends = []
                    for separators, starts in ways:
                        node = at
                        for symbol in map(separator, separators):
                            node = self._child(node, symbol, written)
                        ends.append((node, (STARTS if starts else GLUED) + int(group[0])))
                    written += 1
                    made = {self.children[node][symbol] for node, symbol in ends} - {-1}  # by a style before
                    at = made.pop() if made else self.node(written)
                    for node, symbol in ends:
                        self.children[node][symbol] = at
                for digit in group[1:]:
                    written += 1
                    at = self._child(at, GLUED + int(digit), written)
            lasts.append(at)
        lasts = list(dict.fromkeys(lasts))

        @functools.cache
        def need(node: int) -> int:  # the fewest pieces from `node` to a last digit
            return 0 if node in lasts else 1 + min(need(c) for c in self.children[node] if c >= 0)

        for node in range(first, len(self.children)):
            self.need[node] = need(node)
        for last in lasts:
            self.bank[last] += 1  # the span is written, no longer under way
        return first, lasts

    def _child(self, node: int, symbol: int, written: int) -> int:
        """The node after `symbol` at `node`, made (after `written` digits) if there is none yet."""
        if self.children[node][symbol] < 0:
            self.children[node][symbol] = self.node(written)
        return self.children[node][symbol]


@functools.cache
def piece_symbols(codec: Codec) -> Tensor | None:
    """(V,) each piece of `codec`'s symbol in the automaton's alphabet (-1: a piece of digits and other
    characters, never written); None when a piece is several digits or none is one (numbers are not spelled
    digit by digit: a word vocabulary)."""
    pieces = [codec.piece(i) for i in range(len(codec))]
    bare = [piece.removeprefix(WORD_START) for piece in pieces]
    if any(len(text) > 1 and text.isascii() and text.isdigit() for text in bare) or \
            not any(len(text) == 1 and text in string.digits for text in bare):
        return None

    def symbol(piece: str, text: str) -> int:
        if len(text) == 1 and text in string.digits:
            return (STARTS if piece.startswith(WORD_START) else GLUED) + int(text)
        if piece in SEPARATORS:
            return separator(piece)
        return -1 if any(c in string.digits for c in text) else WORD

    return torch.tensor([symbol(p, t) for p, t in zip(pieces, bare)])
