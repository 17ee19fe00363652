"""Any casing in, the corpus's casing for the model: an all-capitals or Title Case sentence is
translated as its sentence-cased form and given back in the input's casing.

The corpus is sentence-cased, so `I LOVE YOU.` is pieces the model rarely saw (`J'y Y a-t-VNI.`) and
Title Case reads as a line of names. Sentence-casing a word is lowercasing it, unless the model knows
its capitalised form better (fewer pieces: `Tom`, `Paris`; in a lowercasing word vocabulary the two
tie, and the word is lowercased); `I` and its contractions stay capitalised; the first letter is
capitalised. It is done before characters are carried (inference/symbols.py): a capital the
vocabulary lacks (`L` of `LIKE` on a small corpus) is then no character to carry.
An all-capitals sentence's translation is upper-cased; a Title Case one's is left as the model wrote
it, sentence-cased. Any other sentence is translated as written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from attention_lab.data.cleaning import capitalized

Casing = Literal["as written", "upper", "title"]
WORDS_FOR_TITLE = 3  # `Tom Jackson.` is a name, not a line in Title Case


def casing(sentence: str) -> Casing:
    """`upper` when every cased letter is a capital (two at least: `I.` and `A.` are as written),
    `title` when at least WORDS_FOR_TITLE words start with a letter and each starts with a capital."""
    letters = [c for c in sentence if c.isalpha() and c.lower() != c.upper()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "upper"
    words = [word for word in sentence.split() if word[:1].isalpha()]
    if len(words) >= WORDS_FOR_TITLE and all(word[0].isupper() for word in words):
        return "title"
    return "as written"


def sentence_cased(sentence: str, pieces: Callable[[str], list]) -> str:
    """`sentence` as the corpus writes a sentence; `pieces(word)` is what the model reads for a word."""
    words = []
    for word in sentence.split(" "):
        lower = word.lower()
        if lower == "i" or lower.startswith("i'"):
            words.append("I" + lower[1:])
            continue
        capital = lower[:1].upper() + lower[1:]
        words.append(capital if lower != capital and len(pieces(capital)) < len(pieces(lower)) else lower)
    return capitalized(" ".join(words))


def recased(translation: str, source_casing: Casing) -> str:
    """A translation of a sentence-cased source in the casing `source_casing` of its source."""
    return translation.upper() if source_casing == "upper" else translation
