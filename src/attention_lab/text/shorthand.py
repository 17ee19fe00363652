"""Shorthand read as the words it stands for, as the corpus writes them: `Tom & Mary` as `Tom and
Mary`, `e.g.` as `for example`, `i.e.` as `that is`, `3x faster` as `3 times faster`.

The corpus spells these out (no line has ` & `, `e.g.` or `i.e.`, nor a number with `x` after it), and
the model read them as noise: `Tom & Mary are here.` came back as `Tom a apporté Mary ici.`, `It's 3x
faster.` as `C'est 3 heures plus vite.` and `e.g. apples` as `Emplir les pommes.` `etc.`, which French
writes alike, is carried as written (text/symbols.py). Measured in docs/trust.md.
"""

from __future__ import annotations

import re

WORDS = {"&": "and", "e.g.": "for example", "i.e.": "that is"}
SHORTHAND = re.compile(r"(?<=\s)&(?=\s)|(?<![\w.])(?i:e\.g\.|i\.e\.)(?!\w)")
TIMES = re.compile(r"(?<![\w.,])([0-9]+(?:\.[0-9]+)?)x(?=,?\s[a-z]|[.!?,;]?$)")  # `3x faster`, not `2x2` or `0x1F`


def spelt_out(sentence: str) -> str:
    """`sentence` with its shorthand (`SHORTHAND`, `TIMES`) written in words."""
    def words(match: re.Match) -> str:
        spelt = WORDS[match.group().lower()]
        return spelt[0].upper() + spelt[1:] if match.group()[0].isupper() else spelt

    sentence = SHORTHAND.sub(words, sentence)
    return TIMES.sub(r"\1 times", sentence)
