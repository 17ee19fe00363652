"""Given names, by which a word that is also one (`Will`, `May`, `Frank`, `Grace`) is read as a person's where the
line says so (text/casing.py, text/names.py, inference/check_names.py). The corpus cannot tell: nearly every person
in its English is Tom or Mary, and it writes `frank` and `grace` as words, if at all.

Faker's lists (MIT; data from public registers of births). `given`: its English list, 6,824 names from US records,
words among them (`Will`, `May`, `Hope`, `Job`): a name only where a mark in the line says so, a possessive after it
(`WILL'S`), a surname after it (`MAY CHEN`), an auxiliary after it (`will is coming`); never after an article or a
possessive, where it is a common noun (`my sister's`, `that guy's`, `a French penpal`). `common`: its lists of the
names most given in the US, Britain, Ireland and New Zealand (1,363: `Frank`, `Grace`, `Jake`, `Siobhan`), a name
wherever the corpus uses the word seldom or never (`CorpusWords.seldom`): there the name is the likelier reading.
`surname`: its lists of family names of the same countries (`Chen`, `Walker`).
"""

from __future__ import annotations

import importlib
from functools import cache

from attention_lab.data.corpus_words import CorpusWords

COMMON = ("en_US", "en_GB", "en_IE", "en_NZ")


@cache
def _names(locales: tuple[str, ...], kind: str = "first_names") -> frozenset[str]:
    """The first names (or another `kind`: `last_names`) of Faker's `locales`, in small letters."""
    return frozenset(name.lower() for locale in locales
                     for name in getattr(importlib.import_module(f"faker.providers.person.{locale}").Provider, kind))


def given(word: str) -> bool:
    """Whether `word` (any casing) is a given name of Faker's English list or its common ones (module doc)."""
    return word.lower() in _names(("en", *COMMON))


def usual(word: str) -> bool:
    """Whether `word` (any casing) is one of the given names most given (`Frank`, `Rose`, `Summer`; not `Wash`)."""
    return word.lower() in _names(COMMON)


def common(word: str, words: CorpusWords) -> bool:
    """Whether `word` (any casing) is a common given name that the corpus's English uses seldom or never (`Frank`,
    `Grace`, `Jake`; not `Rose`, `Summer`); never without the corpus's counts of use (an older model file)."""
    return bool(words.seldom) and usual(word) and rare(word, words)


def rare(word: str, words: CorpusWords) -> bool:
    """Whether the corpus's English uses `word` (any casing) seldom or never (`CorpusWords.seldom`)."""
    small = word.lower()
    return small in words.seldom or small not in words.source


def surname(word: str) -> bool:
    """Whether `word` (any casing) is a family name of Faker's English lists (`Chen`, `Walker`)."""
    return word.lower() in _names(("en", *COMMON), "last_names")
