"""A sentence's numbers (number_spans.py), whole and in the source's order, as one automaton over the target
pieces; each hypothesis row of the search holds one node of it (number_constraint.py).

Its nodes, for a sentence with spans 1..m: R_k, k spans written and none under way, where any piece may come and
span k+1 may start on its first digit; L_k and G_k, the same after a piece that ends in a letter and after `,`, `.`
or `:`, where the span may start only on a digit piece that starts a word or follows a `▁` piece (never glued
on: `et7,50`, `ans.4,1`, and after a number `10,20`, which reads as one), unless it was typed so (`A4`); a span's
nodes, where only its next digit or separator may come (one branch for each style of its repeated gaps); E_k,
its last digit, after which a word ends it (letters glued to it only if it was typed so: `1st` may be `1er`,
`3 to 1` never `3er`) and a digit starting a word starts span k+1. Rows that reach R_m, L_m, G_m or E_m wrote
every span.
"""

from __future__ import annotations

import functools
import itertools
import string
from collections.abc import Sequence

import torch
from torch import Tensor

from attention_lab.data.tokenizer import Codec
from attention_lab.inference.number_spans import FORMS, WORD_START, Span

SEPARATORS = (WORD_START, ",", ".", ":", "h", "▁h")  # pieces that may stand between a number's digit groups
# The alphabet: any other piece; one that ends in a letter; one that goes on with the word before it on a letter
# (`er`); digit d glued to the piece before at GLUED + d or starting a word (`▁7`) at STARTS + d; and each of
# SEPARATORS from SEPARATE on.
WORD, LETTER, JOINS, GLUED, STARTS, SEPARATE = 0, 1, 2, 3, 13, 23
ALPHABET = SEPARATE + len(SEPARATORS)
NO_DIGIT = [-1] * (SEPARATE - GLUED)  # a node's children on the digits, where none may come


def separator(piece: str) -> int:
    """The symbol of one of SEPARATORS."""
    return SEPARATE + SEPARATORS.index(piece)


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
        if any(c in string.digits for c in text):
            return -1
        if not piece.startswith(WORD_START) and text[:1].isalpha():
            return JOINS
        return LETTER if text[-1:].isalpha() else WORD

    return torch.tensor([symbol(p, t) for p, t in zip(pieces, bare)])


def writable(spans: Sequence[Span], symbols: frozenset[int]) -> list[Span]:
    """`spans`, each split at a gap that no way of `FORMS` can write with a vocabulary of `symbols` (one without
    `:` or `h` cannot write `7:45` whole): its groups then numbers of their own, still in order."""
    def fits(way: tuple[tuple[str, ...], bool]) -> bool:
        separators, starts = way
        digits = range(STARTS, SEPARATE) if starts else range(GLUED, STARTS)
        return all(separator(sep) in symbols for sep in separators) and not symbols.isdisjoint(digits)

    split = []
    for span in spans:
        groups, between, joined = [span.groups[0]], [], span.joined
        for group, kind in zip(span.groups[1:], span.between):
            if not any(fits(way) for style in FORMS[kind] for way in style):
                split.append(Span(tuple(groups), tuple(between), joined))
                groups, between, joined = [], [], False
            else:
                between.append(kind)
            groups.append(group)
        split.append(Span(tuple(groups), tuple(between), joined, span.before_letter))
    return split


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

    def node(self, digits: int, inside: bool = True) -> int:
        """A new node after `digits` digits of the sentence's spans, with no child yet."""
        self.children.append([-1] * ALPHABET)
        self.need.append(0)
        self.bank.append(2 * digits - inside)
        self.final.append(False)
        return len(self.children) - 1

    def add(self, spans: Sequence[Span]) -> int:
        """The automaton of a sentence with `spans` (the module's docstring); its root R_0."""
        written = [0]
        for span in spans:
            written.append(written[-1] + sum(map(len, span.groups)))
        rest, letter, mark = ([self.node(d, inside=False) for d in written] for _ in range(3))  # R_k, L_k, G_k
        lasts: list[int] = []  # E_k of the span before (one a style of its repeated gaps)
        for k, (node, after_letter, after_mark) in enumerate(zip(rest, letter, mark)):
            for at in (node, after_letter, after_mark):  # any piece, but a digit; what it ends in is kept
                self.children[at] = [node] * ALPHABET
                self.children[at][GLUED:SEPARATE] = NO_DIGIT
                self.children[at][JOINS] = self.children[at][separator("h")] = after_letter
                for sep in ",.:":
                    self.children[at][separator(sep)] = after_mark
            for at in (node, after_letter, after_mark, *lasts):  # a word ends a span; it may end in a letter
                self.children[at][LETTER] = self.children[at][separator("▁h")] = after_letter
                self.children[at][WORD] = self.children[at][separator(WORD_START)] = node
            for last in lasts:
                for sep in ",.:h":
                    self.children[last][separator(sep)] = after_mark
                if spans[k - 1].before_letter:
                    self.children[last][JOINS] = after_letter
            if k == len(spans):
                break
            before, (first, lasts) = lasts, self._span(spans[k], written[k])
            start = int(spans[k].groups[0][0])
            glued = (node, after_letter, after_mark) if spans[k].joined else (node,)  # `▁` `5`, `$5`; `A4`
            for at in glued:
                self.children[at][GLUED + start] = first
            for at in (node, after_letter, after_mark, *before):
                self.children[at][STARTS + start] = first
        for node in (*lasts, rest[-1], letter[-1], mark[-1]):
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
