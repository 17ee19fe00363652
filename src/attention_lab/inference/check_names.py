"""The names a translation must write, for the check after writing (inference/check.py), and whether it writes them.

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

A name is written as a whole word, case and accents aside (an acronym not as a small word of the corpus's French:
`eu` is no `EU`), or, but for a code, in a French form like it: its first three letters, LIKENESS, and a word of
the corpus's French or the name with a gender ending (`Japon`, `Londres`, `nigériane`; `Keni` for `Kenji` is a
garble). An acronym is also written as a French name the source lacks, one for each: an acronym of its letters
(`UE`, `OTAN`) or a word of the corpus's French in capitals or capitalised inside a sentence (`ONU`, `TVA`,
`États-Unis`, `Royaume-Uni`; `UNB` for `UNESCO` is a garble).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher

from attention_lab.data.cleaning import clean
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.text.casing import TITLES, casing
from attention_lab.text.names import LIKENESS, made_french
from attention_lab.text.sentences import split

# A word, hyphenated or not, its possessive apart (`Nando's`); not inside an address (`x@Y`, `e.Mail`).
_WORD = re.compile(r"(?<![\w'’.@/-])(?P<word>\w+(?:-\w+)*)(?P<tail>['’]s)?(?![\w@/-]|\.\w)")
_CODE = re.compile(r"[A-Za-z]+[0-9][A-Za-z0-9]*|[0-9]+(?!AM|PM|[KM]$)[A-Z]+")  # `Q3`, `SAVE20`, `4B`; not `20K`
_INNER_CAPITAL = re.compile(r"[a-z]+[A-Z][A-Za-z]*|[A-Z][a-z]+[A-Z][A-Za-z]*")  # `iPhone`, `WhatsApp`
_ACRONYM = re.compile(r"[A-Z]{2,}")
_NUMBER_AFTER = re.compile(r" (?P<number>[0-9]+)(?![\w,:/-]|[.,][0-9])")  # `BA 2490`; not `UN 3.5`
_CURRENCY_BEFORE = re.compile(r"[$€£¥] ?$")  # `$4B` is an amount
_OUTPUT_NAME = re.compile(r"(?<![\w-])[^\W\d_]{2,}(?:-[^\W\d_]+)*")  # `ONU`, `États-Unis`, when capitalised
TITLE_LETTERS = 4  # a capitalised French form has 4 letters at least: not a title (`Mme`)
SHORT_ACRONYM = 2  # `OK`, `TV`, `ID`: the corpus writes them in capitals and translates them


def folded(text: str) -> str:
    """`text` in small letters without accents: names compared so (`ZOË` writes `Zoë`)."""
    return "".join(c for c in unicodedata.normalize("NFD", text.casefold()) if not unicodedata.combining(c))


def writes(output: str, name: str) -> bool:
    """Whether `output` writes `name` as a whole word (elided or not: `d'Emma`), case and accents aside, its parts
    apart, joined or hyphenated (`BA 2490`, `BA2490`, `BA-2490`)."""
    pattern = r"[\s-]?".join(map(re.escape, folded(name).split()))
    return re.search(rf"(?<!\w){pattern}(?!\w)", folded(output)) is not None


def like(output: str, name: str, words: CorpusWords | None = None) -> bool:
    """Whether `output` writes a word that begins with the first three letters of `name` (all of a shorter one) and is
    like it, as text/names.py tells a garbled name, case and accents aside, and is a French form: a word of the
    corpus's French (`Japon` for `Japan`, `Londres` for `London`) or `name` with a gender ending (`nigériane`), not a
    garble (`Keni` for `Kenji`); any such word without the corpus's `words`."""
    key = folded(name)
    return any(folded(word)[:3] == key[:3] and SequenceMatcher(None, folded(word), key).ratio() >= LIKENESS and (
        words is None or word.lower() in words.target or made_french(name, word))
        for word in re.findall(r"[^\W\d_]+", output))


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
    if _ACRONYM.fullmatch(word):
        return not set(word) <= set("IVX") and (unknown or (
            len(word) > SHORT_ACRONYM and both and word in words.cased))
    titled = all(part[:1].isupper() and part[1:].islower() for part in word.split("-"))
    if not (titled or _INNER_CAPITAL.fullmatch(word)) or word.lower() in TITLES:
        return False
    if unknown:
        return True
    if words.cased:
        return both and all(part in words.forms and words.forms[part] == typed
                            for part, typed in zip(parts, word.split("-")))
    return both and case == "as written" and bool(sentence[:start].strip(" \"'«“‘([{"))


def missing_names(source: str, output: str, names: Sequence[str], words: CorpusWords | None) -> tuple[str, ...]:
    """Those of `names` (of the English `source`) that `output`, its French, does not write (module doc), each once;
    none that is part of another missing (`BA` of `BA 2490`)."""
    forms = _french_names(source, output, words)
    missing = []
    for name in dict.fromkeys(names):
        acronym = _ACRONYM.fullmatch(name) is not None
        if _acronym_written(output, name, words) if acronym else writes(output, name) or (
                not re.search(r"[0-9]", name) and like(output, name, words)):
            continue
        form = next((form for form in forms if acronym and _french_form(form, name, words)), None)
        if form is None:
            missing.append(name)
        else:
            forms.remove(form)  # one French form for each
    return tuple(name for name in missing
                 if not any(other != name and name in other.split() for other in missing))


def _acronym_written(output: str, acronym: str, words: CorpusWords | None) -> bool:
    """Whether `output` writes `acronym` as a whole word in any case, but as a small word of the corpus's French."""
    target = words.target if words else frozenset()
    return any(match.group() != match.group().lower() or match.group() not in target
               for match in re.finditer(rf"(?<!\w){re.escape(acronym)}(?!\w)", output, re.IGNORECASE))


def _french_form(form: str, acronym: str, words: CorpusWords) -> bool:
    """Whether `form`, a name of the French, may stand for `acronym`: a word of the corpus's French (`ONU`,
    `États-Unis`) or an acronym of the same letters (`UE` for `EU`, `OTAN` for `NATO`), not a garble (`UNB`)."""
    return sorted(form) == sorted(acronym) or all(
        part.lower() in words.target for part in re.findall(r"[^\W\d_]+", form))


def _french_names(source: str, output: str, words: CorpusWords | None) -> list[str]:
    """The names `output` writes that `source` lacks and that may be the French form of an acronym: an acronym, or a
    word capitalised inside a sentence (`États-Unis`); none without the corpus's `words`."""
    if words is None:
        return []
    typed = {folded(word) for word in re.findall(r"\w+", source)}
    found = []
    for match in _OUTPUT_NAME.finditer(output):
        name, before = match.group(), output[: match.start()].rstrip(" \"'«“‘([{")
        if name.isupper() or name[0].isupper() and len(name) >= TITLE_LETTERS and before[-1:] not in "!.?…":
            found.append(name)
    return [name for name in dict.fromkeys(found) if not {folded(p) for p in re.findall(r"\w+", name)} <= typed]
