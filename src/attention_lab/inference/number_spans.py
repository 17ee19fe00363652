"""A source's numbers as the search may write them (number_constraint.py, number_automaton.py): each number one
span, whole (design.md: The search copies numbers; docs/search.md: Numbers whole and in order).

A number as typed (`9.99`, `100,000`, `1,299.99`, `10 000`, `2:30`) is one span: its digit groups in order, and
between two groups what French may write there (`FORMS`): a thousands comma as nothing, a space, `,` or `.`
(`100000`, `100 000`, `100,000`, `100.000`: the corpus's French writes all four, and text/number_forms.py gives
back `100 000`), alike in each gap of a number; a decimal point as `,` or `.` (`9,99`; number_forms writes `.` as
`,`); a clock's colon as `:` or `h` (`14:30`, `14h30`, `14 h 30`); spaced thousands (`10 000`, a 1-3 digit group
then groups of 3) as a space only; any other separator (`3:1`, `1,5`, or any in a number glued to a letter,
`v2.5`) only as typed: the reading is unsure, so the text is left as it was. A number typed apart from the words
around it is written apart from them too (`et 7,50`, never `et7,50`; `3 à 1`, never `3er à 1`); one typed glued
(`A4`, `1st`) may be glued on that side.
"""

from __future__ import annotations

import re
from typing import NamedTuple

WORD_START = "▁"  # SentencePiece's mark of a piece that begins a word

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
    joined: bool = False  # typed glued to a letter, `,`, `.` or `:` before it (`A4`)
    before_letter: bool = False  # typed glued to a letter after it (`1st`, `5km`)


def number_spans(source: str) -> list[Span]:
    """The numbers of `source` as typed, in order, each a `Span`."""
    spans = []
    for match in NUMBER.finditer(source):
        text, start = match.group(), match.start()
        alone = not (start and source[start - 1].isalpha())  # `v2.5`, `A4`: as typed
        separators = re.findall(r"[^0-9]", text)
        spans.append(Span(tuple(re.findall(r"[0-9]+", text)),
                          tuple(gap_kind(sep, text, separators, alone) for sep in separators),
                          not alone or source[start - 1 : start] in (".", ",", ":"),
                          source[match.end() : match.end() + 1].isalpha()))
    return spans


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
