"""A line of several sentences ("Close the window. It is cold in here.") as the model can take it:
one sentence at a time, as every line of the corpus it learnt from is one.

The line is split by sentencex (Wikimedia's rule-based segmenter, no data to download; pysbd was
tried and drops characters: "….». ?!" came back without its "?!"), each sentence is translated in
the same batches as every other, and the translations are joined with a space. A line's attention
is its sentences' block-diagonal: each sentence's outputs attend to its own source only. A full stop
inside an address (`www.Example.com`, text/symbols.py) ends no sentence, and neither does the
one of `Ms.` before a word: sentencex knows `Mr.`, `Mrs.` and `Dr.` but cut `I met Ms. Smith.` in two.
Guillemets (the quotes of a line, text/quotes.py) are read as spaces: sentencex cuts no sentence
inside quotes or at their end, and read whole, `"Where is it?" she asked.` lost its `she asked`; an
opening one goes with the sentence after it. A run of end marks that closes a quote (`"Really?!" she
asked.`) is read as its one mark, which sentencex ends a sentence at before a small letter.
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

