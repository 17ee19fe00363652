"""Names in a line typed all in small letters or capitals, where no capital says which words are names, for the
check after writing (inference/check_names.py): a place GeoNames knows (text/place_names.py) that the corpus uses
seldom or writes as a name (`just landed in dublin`, `LAST SEEN IN LEEDS`; not `nice`), and a word that neither the
corpus nor a dictionary has (text/dictionary.py: `milk from tesco`, `FLIGHTS FROM GATWICK`; not `VOLTAGE`, `didnt`,
`hahaha`).
"""

from __future__ import annotations

import re

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.text.dictionary import listed
from attention_lab.text.given_names import rare
from attention_lab.text.place_names import place


def uncased_name(word: str, case: str, words: CorpusWords) -> bool:
    """Whether `word`, in a line of casing `case` typed all in small letters or capitals as the word is, is a name
    (module doc)."""
    typed = case == "lower" and word.islower() or case == "upper" and word.isupper()
    return typed and (_place(word, words) or _unlisted(word, words))


def _place(word: str, words: CorpusWords) -> bool:
    """Whether `word` is a place (text/place_names.py) that the corpus uses seldom or never (`dublin`, `LEEDS`) or
    writes as a name (`paris`, `CHINA`; not `nice`, `BATH`)."""
    return place(word) and (rare(word, words) or word.lower() in words.forms)


def _unlisted(word: str, words: CorpusWords) -> bool:
    """Whether `word` is a name by being no word: of UNLISTED letters at least, one neither the corpus's English (nor a
    word of it with a contraction's ending, its apostrophe left out: `didnt`) nor a dictionary has (text/dictionary.py:
    `tesco`, `deliveroo`, `GATWICK`; not `VOLTAGE`), and no laugh or stretched word (`hahaha`, `sooooo`)."""
    small = word.lower()
    contracted = any(small.endswith(end) and small[: -len(end)] in words.source for end in _CONTRACTED)
    return len(word) >= UNLISTED and "-" not in word and small not in words.source and not contracted \
        and not listed(small) and not _STRETCHED.search(small)


UNLISTED = 5  # shorter, a word no dictionary has is as often a chat spelling as a name (`tbh`, `lmao`)
_CONTRACTED = ("t", "s", "m", "re", "ve", "ll", "d")  # `didn't`, `that's`, `you're`: the corpus's words split so
_STRETCHED = re.compile(r"(.)\1\1|^(..)\2+$")  # `sooo`, `hahaha`
