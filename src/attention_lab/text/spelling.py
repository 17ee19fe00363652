"""British spellings (`colour`, `favourite`, `travelled`) read the American way, as the corpus writes them
(breame's list: the corpus writes 2,209 American forms of its pairs against 74 British, and the model
garbled British ones: `What's your favourite colour?` came back as `Quelle est votre favrifier ?`). A form
the corpus writes at least as often as the American one (`KEPT`) stays; casing as for contractions.
"""

from __future__ import annotations

import re

from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

from attention_lab.text.casing import replaced_word
from attention_lab.text.symbols import VERBATIM

# British forms the corpus's English writes at least as often as their American ones (times British, American).
KEPT = frozenset({
    "archaeologist",  # 5, 2
    "archaeology", "buses", "discs", "gases", "gauge", "louvre", "woollen",  # 2, 14, 1, 4, 2, 1, 1 against none
    "catalogue",  # 3, 1
    "judgement",  # 9, 8
    "capitalised", "encyclopaedia", "likeable", "omelette", "remodelling", "symbolises",  # once each, as the American
})
AMERICAN = {british: american for british, american in BRITISH_ENGLISH_SPELLINGS.items() if british not in KEPT}
WORD = re.compile(r"(?<![\w@])[A-Za-z]+(?![\w@])")  # a whole word, hyphenated or before `'s` too


def respelt(sentence: str, forms: dict[str, str]) -> str:
    """`sentence` with each word that is a key of `forms` (in small letters) written as its value, in its
    casing (`casing.replaced_word`); text carried as typed (an address: `colour.com`, `example.com/colour`,
    text/symbols.py) is left."""
    kept = [match.span() for match in VERBATIM.finditer(sentence)]

    def read(match: re.Match) -> str:
        written = forms.get(match.group().lower())
        if written is None or any(start < match.end() and match.start() < end for start, end in kept):
            return match.group()
        return replaced_word(match.group(), written, sentence, match.start())

    return WORD.sub(read, sentence)


def american(sentence: str) -> str:
    """`sentence` with each British spelling (`AMERICAN`) written the American way, in its casing."""
    return respelt(sentence, AMERICAN)
