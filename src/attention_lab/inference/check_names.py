"""The names a translation must write, for the check after writing (inference/check.py); whether it writes them:
inference/check_forms.py.

Beyond the names the reading held as placeholders (text/names.py), each sentence of the source asks for:
- a code of letters and digits (`Q3`, `A4`, `B12`, `4B`, `SAVE20`, `COVID-19`), whatever the corpus knows: a
  translation has no other form for it;
- a word with a capital inside (`iPhone`, `WhatsApp`) or a capitalised word (`Seville`, `Nando's`, `Jean-Luc`)
  that the corpus's English lacks, or that the corpus writes on both sides, capitalised inside a sentence more often
  than not (`Boston`, `Louvre`: `CorpusWords.cased`), wherever it stands; not a title (`Dr`). A model file without
  those counts asks for a capitalised word both sides write only inside a sentence, not in Title Case;
- a word in capitals (`NASA`, `IKEA`, `VAT`) that the corpus's English lacks, or of 3 letters at least that the
  corpus writes in capitals on both sides (`FBI`, `USA`; `OK` and `TV` are as often words);
- an acronym, code or word with a capital inside with the number typed after it, whole (`BA 2490`, `iPhone 15`).
In a sentence typed in capitals only codes are asked for: its capitals say nothing of names.
"""

from __future__ import annotations

import re

from attention_lab.data.cleaning import clean
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.text.casing import TITLES, casing
from attention_lab.text.sentences import split

# A word, hyphenated or not, its possessive apart (`Nando's`); not inside an address (`x@Y`, `e.Mail`).
_WORD = re.compile(r"(?<![\w'’.@/-])(?P<word>\w+(?:-\w+)*)(?P<tail>['’]s)?(?![\w@/-]|\.\w)")
_CODE = re.compile(r"[A-Za-z]+[0-9][A-Za-z0-9]*|[0-9]+(?!AM|PM|[KM]$)[A-Z]+")  # `Q3`, `SAVE20`, `4B`; not `20K`
_INNER_CAPITAL = re.compile(r"[a-z]+[A-Z][A-Za-z]*|[A-Z][a-z]+[A-Z][A-Za-z]*")  # `iPhone`, `WhatsApp`
ACRONYM = re.compile(r"[A-Z]{2,}")
_NUMBER_AFTER = re.compile(r" (?P<number>[0-9]+)(?![\w,:/-]|[.,][0-9])")  # `BA 2490`; not `UN 3.5`
_CURRENCY_BEFORE = re.compile(r"[$€£¥] ?$")  # `$4B` is an amount
SHORTACRONYM = 2  # `OK`, `TV`, `ID`: the corpus writes them in capitals and translates them


def asked_names(source: str, words: CorpusWords | None) -> list[str]:
    """The names of `source` a translation must write, as typed, in order (module doc); none but codes without the
    corpus's `words`."""
    found = []
    for sentence in split(clean(source)):  # cleaned first, as read: the segmenter panics on a no-break space
        case = casing(sentence)
        for match in _WORD.finditer(sentence):
            word, start = match["word"], match.start()
            if _CURRENCY_BEFORE.search(sentence, 0, start):
                continue
            code = _CODE.fullmatch(word.replace("-", "")) is not None and not word.islower()
            name = code or case != "upper" and words is not None and _is_name(word, sentence, start, case, words)
            if not name:
                continue
            after = not match["tail"] and (code or not word.istitle()) and _NUMBER_AFTER.match(sentence, match.end())
            found.append(f"{word}{after.group()}" if after else word)
    return found


def _is_name(word: str, sentence: str, start: int, case: str, words: CorpusWords) -> bool:
    """Whether `word`, at `start` in `sentence` of casing `case`, is a name by the corpus's `words` (module doc)."""
    parts = word.lower().split("-")
    unknown = any(part not in words.source for part in parts)
    both = all(part in words.target for part in parts)
    if ACRONYM.fullmatch(word):
        return not set(word) <= set("IVX") and (unknown or (
            len(word) > SHORTACRONYM and both and word in words.cased))
    titled = all(part[:1].isupper() and part[1:].islower() for part in word.split("-"))
    if not (titled or _INNER_CAPITAL.fullmatch(word)) or word.lower() in TITLES:
        return False
    if unknown:
        return True
    if words.cased:
        return both and all(part in words.forms and words.forms[part] == typed
                            for part, typed in zip(parts, word.split("-")))
    return both and case == "as written" and bool(sentence[:start].strip(" \"'«“‘([{"))

