"""Whether a translation writes the names its source asks for (inference/check_names.py), for the check after writing
(inference/check.py).

A name is written as a whole word, case and accents aside (an acronym as below), or, but for a code, in a French
form like it: its first three letters, LIKENESS, and a word of the corpus's French or the name with a gender ending
(`Japon`, `Londres`, `nigériane`; `Keni` for `Kenji` is a garble); a month or a weekday also as its French name
(`May`: `mai`, `Mondays`: `lundi`), a name the corpus renders in French as that form or like it (`Germany`:
`Allemagne`, `French`: `française`; `CorpusWords.rendered`), and one it writes capitalised with no French form it
knows as any French name the source lacks (`Wales`: `pays de Galles`), one for each. An acronym is written in capitals, or in another case where it is no word of
the corpus's French (`Nasa`; `eu` and `Un` are no `EU`, `UN`); or spelt out, its letters in any order
(`ressources humaines` for `HR`, `Nations unies` for `UN`); or as a French name the source lacks, one for each: a
word of the corpus's French in capitals or capitalised inside a sentence (`ONU`, `TVA`, `États-Unis`, `Royaume-Uni`)
or an acronym, its stops too (`UE`, `OTAN`, `OMS` for `WHO`, `É.-U.`), but one begun with its first two letters, a
garble (`UNB` for `UNESCO`); in a French all in capitals, where every word is so, one with the acronym's letters
(`ONU`, `OTAN`; not `EAU`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher

from attention_lab.data.calendar_names import DAYS, MONTHS
from attention_lab.data.corpus_words import WORD, CorpusWords
from attention_lab.inference.check_names import ACRONYM
from attention_lab.text.casing import ACRONYM_LETTERS
from attention_lab.text.given_names import given
from attention_lab.text.names import LIKENESS, made_french
from attention_lab.text.place_names import place

# `ONU`, `États-Unis`, when capitalised; an acronym with its stops (`É.-U.`, `F.B.I.`)
_OUTPUT_NAME = re.compile(r"(?<![\w-])(?:(?:[^\W\d_]\.-?){2,}|[^\W\d_]{2,}(?:-[^\W\d_]+)*)")
TITLE_LETTERS = 4  # a capitalised French form has 4 letters at least: not a title (`Mme`)
SPELT = 4  # letters of a word that spells an acronym out: not an article (`des`), whose first letter is chance
CALENDAR = {english.lower(): french for english, french in DAYS + MONTHS}  # `may` -> `mai`


def folded(text: str) -> str:
    """`text` in small letters without accents: names compared so (`ZOË` writes `Zoë`)."""
    return "".join(c for c in unicodedata.normalize("NFD", text.casefold()) if not unicodedata.combining(c))


def writes(output: str, name: str) -> bool:
    """Whether `output` writes `name` as a whole word (elided or not: `d'Emma`), case and accents aside, its parts
    apart, joined or hyphenated (`BA 2490`, `BA2490`, `BA-2490`); a letter alone in its case, not elided (`C` is not
    written by `c'est`)."""
    if len(name) == 1:
        return re.search(rf"(?<!\w){re.escape(name)}(?![\w'’])", output) is not None
    pattern = r"[\s-]?".join(map(re.escape, folded(name).split()))
    return re.search(rf"(?<!\w){pattern}(?!\w)", folded(output)) is not None


def like(output: str, name: str, words: CorpusWords | None = None, of: str | None = None) -> bool:
    """Whether `output` writes a word that begins with the first three letters of `name` (all of a shorter one) and is
    like it, as text/names.py tells a garbled name, case and accents aside, and is a French form: a word of the
    corpus's French (`Japon` for `Japan`, `Londres` for `London`) but one it renders another English word by
    (`pendant` is no `Penrith`: `_of_another`), or `name` with a gender ending (`nigériane`); not a garble (`Keni` for
    `Kenji`); any such word without the corpus's `words`. `of`: the English name `name` is a French form of."""
    return any(_garbled(word, name) and (
        words is None or word.lower() in words.target and not _of_another(word, of or name, words)
        or made_french(name, word)) for word in re.findall(r"[^\W\d_]+", output))


def _of_another(form: str, name: str, words: CorpusWords) -> bool:
    """Whether the corpus renders English words by the French `form`, none of them `name` or like it (`États-Unis` is
    the US's, no form of `Leeds`; `arabes` renders `arab`, a form of `Arabs`; `CorpusWords.renders`)."""
    english = words.renders.get(form.lower())
    return english is not None and not any(_garbled(word, name) for word in english)


def missing_names(source: str, output: str, names: Sequence[str], words: CorpusWords | None,
                  loose: Sequence[str] = ()) -> tuple[str, ...]:
    """Those of `names` (of the English `source`) that `output`, its French, does not write (module doc), and of
    `loose` those it writes neither so nor as a word rendering them (`Dawn`: `aube`), each once; none that is part of
    another missing (`BA` of `BA 2490`)."""
    forms = _french_names(source, output, words)
    capitals = not any(char.islower() for char in output)
    missing = []
    typed_in_capitals = not any(char.islower() for char in source)
    for name in dict.fromkeys([*names, *loose]):
        only_loose = name in loose and name not in names
        # in a line typed in capitals, a given name or a place longer than an acronym is a word (`OSLO`, `ROSS`; `UN`)
        acronym = ACRONYM.fullmatch(name) is not None and not only_loose and not (
            typed_in_capitals and len(name) > ACRONYM_LETTERS and (given(name) or place(name)))
        # A name's French form, if the corpus writes it as a name (`Germany`: `Allemagne`); a loose one's, any word
        rendered = words.rendered.get(name.lower(), ()) if words and (name.lower() in words.forms or only_loose) else ()
        if _acronym_written(output, name, words) if acronym else writes(output, name) or (
                not re.search(r"[0-9]", name) and len(name) > 1 and like(output, name, words)) or (
                _calendar(name) is not None and writes(output, _calendar(name))) or (
                any(writes(output, form) or like(output, form, words, name) for form in rendered)):
            continue
        if acronym and _spelt(output, name):
            continue
        # A name the corpus writes capitalised but in no French form it knows (`Wales`: `pays de Galles`): any French
        # name the source lacks may be its form, but a garble of one of the source's names (`Bostan`, `Keni`).
        named = not acronym and words is not None and not rendered and name.lower() in words.forms and not capitals
        form = next((form for form in forms if named and set(WORD.findall(form.lower())) <= words.target
                     and not _of_another(form, name, words) and not any(_garbled(form, other) for other in names)
                     or acronym and _french_form(form, name, words, capitals)), None)
        if form is None:
            missing.append(name)
        else:
            forms.remove(form)  # one French form for each
    return tuple(name for name in missing
                 if not any(other != name and name in other.split() for other in missing))


def _garbled(word: str, name: str) -> bool:
    """Whether `word` is like `name` (its first three letters, LIKENESS), case and accents aside: a French form or a
    garble of it."""
    key, folded_word = folded(name), folded(word)
    return folded_word[:3] == key[:3] and SequenceMatcher(None, folded_word, key).ratio() >= LIKENESS


def _calendar(name: str) -> str | None:
    """The French name of `name`, a month or a weekday, one or many (`Mondays`: `lundi`, as French writes `le lundi`)."""
    return CALENDAR.get(name.lower()) or CALENDAR.get(name.lower().removesuffix("s"))


def _acronym_written(output: str, acronym: str, words: CorpusWords | None) -> bool:
    """Whether `output` writes `acronym` as a whole word, in capitals or in any case but as a word of the corpus's
    French (`eu` and `Un` are no `EU`, `UN`; `Nasa` is `NASA`)."""
    target = words.target if words else frozenset()
    return any(match.group().isupper() or match.group().lower() not in target
               for match in re.finditer(rf"(?<!\w){re.escape(acronym)}(?!\w)", output, re.IGNORECASE))


def _spelt(output: str, acronym: str) -> bool:
    """Whether `output` spells `acronym` out: words of SPELT letters at least, but for short ones between, whose first
    letters are its letters in any order (`ressources humaines` for `HR`, `Nations unies` for `UN`)."""
    initials = "".join(folded(word)[0] for word in re.findall(r"[^\W\d_]+", output) if len(word) >= SPELT)
    letters = sorted(acronym.lower())
    return any(sorted(initials[k : k + len(letters)]) == letters for k in range(len(initials) - len(letters) + 1))


def _french_form(form: str, acronym: str, words: CorpusWords, capitals: bool) -> bool:
    """Whether `form`, a name of the French, may stand for `acronym`: a word of the corpus's French (`ONU`,
    `États-Unis`) or an acronym (`UE` for `EU`, `OMS` for `WHO`, `É.-U.` for `US`), not a garble of it, another
    begun with its first two letters (`UNB` for `UNESCO`); in a French typed in `capitals`, only a word with the
    acronym's letters (`ONU`, `OTAN`)."""
    parts = re.findall(r"[^\W\d_]+", form)
    letters = "".join(parts)
    if sorted(letters) == sorted(acronym):
        return True
    if capitals:  # every word is in capitals: one stands for the acronym only with its letters (`ONU`, not `EAU`)
        return set(folded(acronym)) <= set(folded(letters))
    if all(part.lower() in words.target for part in parts):
        return True
    return letters.isupper() and not folded(letters).startswith(folded(acronym[:2]))


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
