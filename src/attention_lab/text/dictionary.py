"""English words a dictionary lists, by which the check after writing tells a word the corpus lacks from a name where
no capital says which (`tesco`, `GATWICK`; not `voltage`, `FORKLIFT`: inference/check_names.py).

The word list of symspellpy (MIT), a spelling corrector: the 82,765 words of Google Books' n-grams that SCOWL, a
spell checker's word list, also holds, in small letters. It lists the common names of places and firms (`london`,
`netflix`) and few of the rest; chat spellings (`lol`, `tbh`) are not in it either, which its caller's rules leave out.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

WORD_LIST = "frequency_dictionary_en_82_765.txt"  # `word count` per line


@cache
def _listed() -> frozenset[str]:
    with (files("symspellpy") / WORD_LIST).open(encoding="utf-8") as lines:
        return frozenset(line.split(" ", 1)[0] for line in lines)


def listed(word: str) -> bool:
    """Whether the dictionary lists `word`, in any casing (`Voltage`, `VOLTAGE`)."""
    return word.lower() in _listed()
