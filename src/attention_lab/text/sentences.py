"""A line of several sentences split into sentences, one at a time as every corpus line is one, by sentencex
(Wikimedia's rule-based segmenter; pysbd dropped characters; design.md). A stop inside an address ends no
sentence, nor does `Ms.` before a word; guillemets are read as spaces, and a run of marks closing a quote as its
one mark.
"""

from __future__ import annotations

import re
import sentencex

from attention_lab.text.end_mark import RUN_OF_MARKS, run_mark
from attention_lab.text.symbols import VERBATIM

STOPS = str.maketrans(".!?", "___")
QUOTES = str.maketrans("«»", "  ")
OPENING = re.compile(r"«[\s«]*$")  # a segment's trailing opening guillemet: the next sentence's
QUOTED_RUN = re.compile(rf"(?:{RUN_OF_MARKS})(?=»)")
TITLE = re.compile(r"\bMs\.(?= )")  # the title sentencex lacks (a cleaned line's spaces are plain)


def split(line: str) -> list[str]:
    """The sentences of the cleaned `line` (data/cleaning.py: its only spaces are plain ones), spaces
    around them dropped; the line itself when it has no text."""
    # The segmenter reads the line with its addresses' and titles' stops masked; it gives back every
    # character of a cleaned line, so its sentences' lengths cut the line as written.
    masked = TITLE.sub("Ms_", VERBATIM.sub(lambda match: match.group().translate(STOPS), line))
    masked = QUOTED_RUN.sub(lambda match: run_mark(match.group()).ljust(len(match.group())), masked).translate(QUOTES)
    sentences, start, opening = [], 0, ""
    for segment in sentencex.segment("en", masked):
        sentence = opening + line[start : start + len(segment)]
        start += len(segment)
        cut = OPENING.search(sentence)
        opening = cut.group() if cut else ""
        sentences.append(sentence[: len(sentence) - len(opening)])
    sentences.append(opening)
    return [s.strip() for s in sentences if s.strip()] or [line]

