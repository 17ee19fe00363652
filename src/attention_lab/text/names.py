"""Names kept (in the Protect step; design.md: Names): a name the corpus does not know is read as a placeholder
the model copies and written back in its place (placeholding: Crego et al. 2016, "SYSTRAN's Pure NMT", §7; Post
et al. 2019, "An Exploration of Placeholding in NMT"); a name the model garbled is written back as typed.

A run of names is read as `Tom`, then `Mary`, then `John` (those the sentence lacks), which the search must write
(inference/number_constraint.py), and written back as typed, elided before a vowel (`d'Emma`). A word is held only on
the line's evidence, since one held that is no name comes out in English inside the French: a capitalised word the
corpus lacks inside a clause, where its capital is the writer's (`I met Siobhan.`; not a nationality, `Nigerian`); a
word after a title (`Mr. Hill`); one the corpus writes small all but 1 in 20 times (`CorpusWords.capitalised`: not
`President`, `March`), capitalised inside a clause and alone among capitals (`I met Will.`, not `Will you?`, `City
Hall`); an acronym the corpus lacks (`NY`, `BBC`), which the model cannot read, but a code beside a number, carried
as typed (`SEK 120`, `1.5 GB`: `codes`). At a clause's start a capital says nothing: a word there the corpus neither
has nor makes (`Ferries`: casing.english) is a name only as the subject, an auxiliary or a possessive after it
(`Aisha is`, `Aisha's`; not `Drizzle the oil.`), or before a name (`Siobhan Okafor`, `Henry VIII`; in a line typed in
capitals or Title Case, a given name too: `MAY CHEN`); never the first word of a line typed in small letters
(`ikr, ...`: `small_first`). Nor a word right before or after a number, a label's or a unit's place (`Gate 12`), which
French translates (`porte 12`). A name the model garbles is written back as typed where its French is like it
(`names_written`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher

import numpy as np

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer import Codec
from attention_lab.text.casing import DETERMINERS, MONTH, OPENERS, ROMAN, TITLES, acronym, english
from attention_lab.text.given_names import given
from attention_lab.text.symbols import CLOSING, output_word_of

LIKENESS = 0.5
PLACEHOLDERS = ("Tom", "Mary", "John")  # the corpus's names the model copies best, each one piece
# A capitalised word (a hyphenated one too), its possessive apart: `Hannah's`, `Jean-Luc`.
_CAPITALISED = re.compile(r"(?<![\w'’./@-])(?P<core>[^\W\d_]+(?:-[^\W\d_]+)*)(?P<tail>['’]s)?(?![\w'’@/-]|\.\w)")
_NATIONALITY = re.compile(r".{4,}(?:ian|ean|ese|ish)")  # `Nigerian`, `Sudanese`; not `Julian`
_ELIDING = re.compile(r"\b(?P<word>[dDlLjJmMtTsSnN]e|[qQ]ue|[lL]a) $")  # `de Emma` -> `d'Emma`
_VOWELS = "AEIOUYÀÂÉÈÊËÎÏÔÛÙÜ"
# What begins a clause, before a word: its capital says nothing (`Note: Stir well.`, `"Stop," he said.`); a quote
# or bracket opens one only against the word (`"Yes," Will said.`: after a closing quote, Will is a name).
CLAUSE = re.compile(r"(?:^|[.!?:;…–—-]\s*|«\s*|[\"“(\[‘'])$")

ABBREVIATED = 3  # `Co.`, `St.`, `Ltd.`; a title before a name is read as one (`TITLES`)
_STOP_INSIDE = re.compile(r"\.\s+\S")
# A number, the word before a word or the word after it: a unit's or a label's place (`2 TB`, `Gate 12`, `SEK 120`),
# glued letters too (`5th`); not one a mark ends (`In 2019, Siobhan won.`).
_NUMBER_BEFORE = re.compile(r"(?:^|\s)\W*\d(?:[\d.,]*\d)?[^\W_]*\s$")
_NUMBER_AFTER = re.compile(r"\s[^\w\s]?\d")
# After a word, what only a subject is followed by: an auxiliary for one person or thing (`Aisha is`, `Aisha can't`;
# not `are`, `have`: `Ferries have`) or a possessive (`Aisha's`). An order is followed by its object (`Drizzle the
# oil`), a word of chat by anything (`Nah, ...`).
SUBJECT = re.compile(r"['’]s\b|\s+(?i:(?:is|was|has|had|does|did|can|could|will|would|shall|should|must|may|might)"
                      r"(?:n['’]t)?|cannot|can['’]t|won['’]t)\b")


def _capitalised(parts: Sequence[str]) -> bool:
    """Whether each of a word's `parts` (split at hyphens) is capitalised and no more: `Jean-Luc`, not `NY`."""
    return all(p[:1].isupper() and p[1:].islower() for p in parts)


def _is_name(core: str, sentence: str, start: int, clause: bool, after_title: bool, words: CorpusWords) -> bool:
    """Whether the word `core` at `start` in `sentence` is a name, by the evidence of the line (module doc); `clause`:
    it begins a clause, `after_title`: it follows one."""
    parts = core.split("-")
    if core in PLACEHOLDERS or len(core) <= ABBREVIATED and _STOP_INSIDE.match(sentence, start + len(core)):
        return False  # `Grace & Co. Florists`: a short word with a stop inside the sentence is an abbreviation
    if after_title and _capitalised(parts):
        return True
    small = core.lower()
    if all(map(acronym, parts)):  # held, the model cannot read it; beside a number a code, carried (`codes`)
        return small not in words.source and not beside_a_number(sentence, start, start + len(core))
    if not _capitalised(parts) or beside_a_number(sentence, start, start + len(core)):
        return False
    if clause:  # a capital its place explains: a name only as the sentence's subject
        return _new_word(core, words) and SUBJECT.match(sentence, start + len(core)) is not None
    if small in words.source:
        # A month is no name, next to a number or not (`signed in May`): the corpus's counts of `may` are the verb's.
        return bool(words.cased) and small not in words.capitalised and not MONTH.fullmatch(core) and \
            not _beside_a_word(sentence, start, start + len(core), words.source)
    return _NATIONALITY.fullmatch(core) is None


def beside_a_number(sentence: str, start: int, end: int) -> bool:
    """Whether the word at `start:end` in `sentence` is right after or before a number: a unit's or a label's place."""
    return _NUMBER_BEFORE.search(sentence, max(0, start - 40), start) is not None or \
        _NUMBER_AFTER.match(sentence, end) is not None


_CODE = re.compile(r"(?<![\w'’./@-])[A-Z]{2,}(?![\w'’@/-]|\.\w)")


def codes(words: CorpusWords) -> Callable[[str], list[tuple[int, int]]]:
    """The spans of a sentence's codes: an acronym the corpus lacks right beside a number (`1.5 GB`, `CHF 79`,
    `350 MB`), carried as typed (text/symbols.py). Held as a name, it read `1.5 Tom`, a person where a unit was;
    read by the model, it was dropped or garbled (docs/trust.md: The meaning set)."""
    return lambda text: [match.span() for match in _CODE.finditer(text) if acronym(match.group())
                         and match.group().lower() not in words.source and beside_a_number(text, *match.span())]


def _new_word(core: str, words: CorpusWords) -> bool:
    """Whether `core` is neither a word of the corpus nor made of one (`Ferries`, `Boxing`: casing.english) nor a
    nationality."""
    return not english(core.lower(), words.source) and _NATIONALITY.fullmatch(core) is None


def _opens_a_run(core: str, sentence: str, start: int, words: CorpusWords, cased_line: bool) -> bool:
    """Whether the word `core` at `start`, at a clause's start, is a name if a name follows it (`Siobhan Okafor`):
    capitalised, new to the corpus (`_new_word`) or, in a line typed in capitals or Title Case (`cased_line`), a given
    name (`MAY CHEN`), beside no number."""
    return _capitalised(core.split("-")) and core not in PLACEHOLDERS and not beside_a_number(
        sentence, start, start + len(core)) and (_new_word(core, words) or cased_line and given(core))


_BEFORE = re.compile(r"(?:^|(?<=\s))([^\W\d_]+)(?:['’]s)?\s$")  # the word before, a possessive too: `Mother's Day`
_AFTER = re.compile(r"(?:['’]s)?\s([^\W\d_]+)")


def _beside_a_word(sentence: str, start: int, end: int, known: frozenset[str]) -> bool:
    """Whether the word at `start:end` in `sentence` is next to a capitalised word of `known` (not one beginning a
    clause, capitalised by its place): with it, a name of things the model may read (`City Hall`, `Winter Olympics`,
    `Kennedy Center`), where a word alone is a person's (`Tell Bill.`); one next to a word the corpus lacks is
    too (`Will Smith`)."""
    before = _BEFORE.search(sentence, max(0, start - 40), start)
    after = _AFTER.match(sentence, end)
    return any(word[0].isupper() and word.lower() in known for word in (
        before and not CLAUSE.search(sentence, max(0, before.start() - 3), before.start()) and before[1],
        after and after[1]) if word)


def placeheld(sentence: str, words: CorpusWords, defined: frozenset[str] = frozenset(), small_first: bool = False,
              title_case: bool = False, capitals: bool = False) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`sentence` with each run of names the corpus does not know read as a placeholder, and the (placeholder, name)
    pairs in order; as it is beyond the placeholders the sentence lacks. Words in `defined` (lower case: a user's
    glossary's) are no unknown names. `small_first`: the sentence was typed beginning with a small letter
    (text/casing.py's `lower`), so its first capital is the casing's. `title_case`: typed in Title Case, where a word
    after an article has its capital from the casing, a thing's more often than a person's (`How NASA Landed A
    Rover`): the model reads it. There and in `capitals`, a given name may open a run (`MAY CHEN`: casing.given_run)."""
    free = [p for p in PLACEHOLDERS if not re.search(rf"\b{p}\b", sentence)]
    cased_line = title_case or capitals
    first = next((k for k, char in enumerate(sentence) if char.isalnum()), len(sentence))  # the first word's start
    spans: list[list[int]] = []  # [start, end] of each run
    opening = None  # a word at a clause's start that a name may follow, and so begin a run
    for match in _CAPITALISED.finditer(sentence):
        # The word before, read back to the space before it: splitting the sentence up to each name took n² steps.
        core, start = match["core"], match.start()
        end = start
        while end and sentence[end - 1].isspace():
            end -= 1
        before = sentence[sentence.rfind(" ", 0, end) + 1 : end].lower()
        title = before.rstrip(".") in TITLES
        clause = start == first or CLAUSE.search(sentence, max(0, start - 3), start) is not None
        if small_first and start == first or core.lower() in defined or \
                title_case and before.lstrip(OPENERS) in DETERMINERS or \
                not _is_name(core, sentence, start, clause, title, words):
            opening = match if clause and not (small_first and start == first) and not match["tail"] and \
                core.lower() not in defined and _opens_a_run(core, sentence, start, words, cased_line) else None
            continue
        if opening and sentence[opening.end() : start] == " " and (_capitalised(core.split("-")) or ROMAN.fullmatch(core)):
            spans.append([opening.start(), opening.end()])  # `Siobhan Okafor`, `Henry VIII`: the run below takes it
        opening = None
        if spans and sentence[spans[-1][1] : start] == " ":
            spans[-1][1] = start + len(core)  # a run: `Hannah Okafor`
        else:
            spans.append([start, start + len(core)])
    pairs, out, end = [], [], 0
    for (start, stop), placeholder in zip(spans, free):
        out += [sentence[end:start], placeholder]
        pairs.append((placeholder, sentence[start:stop]))
        end = stop
    return "".join(out) + sentence[end:], tuple(pairs)


def names_back(translation: str, pairs: tuple[tuple[str, str], ...]) -> str:
    """`translation` with each placeholder, as a whole word, written as the name it holds (every time: a model
    may write it twice), elided before a vowel (`de Emma` -> `d'Emma`)."""
    for placeholder, name in pairs:
        for match in reversed(list(re.finditer(rf"(?<![\w-]){placeholder}(?![\w-])", translation))):
            head = translation[: match.start()]
            elided = _ELIDING.search(head) if name[0] in _VOWELS else None
            if elided:
                head = head[: elided.start()] + elided["word"][:-1] + "'"
            translation = head + name + translation[match.end() :]
    return translation


# French gender endings: `nigérian`, `nigériane`, `nigérienne` for `Nigerien`. A plural is the source word's
# (`nigérians` for `Nigerians`): `Toms` for `Tom's` is a garble.
ENDINGS = ("", "e", "ne")
_OUTPUT_WORD = re.compile(r"(?P<head>(?:[^\W\d_]')?)(?P<core>[^\W\d_]+)(?P<tail>\W*)")  # `d'Dégo,`
_MARKS = OPENERS + CLOSING + "”’"  # around a source word: `"Diego,"`, `(Diego)`


def _name(word: str) -> str | None:
    core = re.sub(r"['’]s$", "", word.strip(_MARKS))
    return core if core.isalpha() and core[:1].isupper() and core[1:].islower() else None


def names_written(source: str, pieces: Sequence[str], attention: np.ndarray, src: Codec, tgt: Codec,
                  words: CorpusWords) -> dict[int, str]:
    """The words of `tgt.join(pieces)` (split at spaces) to write as a name of `source`, by index.
    attention (T, S): a row per output piece (and `<eos>` when emitted), a column per source piece and
    one for `<eos>`."""
    typed = source.split()
    output = [_OUTPUT_WORD.fullmatch(word) for word in tgt.join(pieces).split()]
    written = {match["core"] for match in output if match}
    names = {k: name for k, name in enumerate(map(_name, typed))
             if name is not None and name not in written and not (k == 0 and name.lower() in words.source)}
    word_of = output_word_of(source, pieces, attention, src, tgt.join) if names and output else None
    if word_of is None:
        return {}
    copied = {word.strip(_MARKS) for word in typed}  # an output word that is a source word was copied
    fixes: dict[int, str] = {}
    for k, name in names.items():
        j = word_of(k)
        match = output[j]
        if match is None or j in fixes or match["core"] in copied:
            continue
        garbled = match["core"]
        # A placeholder with letters glued on (`TomVIII`, `Tomok`) is no garble: `protect.unglued` sets the model's
        # letters apart and the name goes back in the placeholder's place, both kept. But for `Tom's` the `s` of
        # `Toms` is the English possessive, which French does not write.
        possessive = re.search(r"['’]s$", typed[k].strip(_MARKS)) is not None
        if name in PLACEHOLDERS and garbled.startswith(name) and not (possessive and garbled[len(name):] == "s"):
            continue
        if garbled.lower() in words.target or garbled[0].lower() != name[0].lower() or \
                SequenceMatcher(None, garbled.lower(), name.lower()).ratio() < LIKENESS or made_french(name, garbled):
            continue
        fixes[j] = match["head"] + name + match["tail"]
    return fixes


def made_french(name: str, word: str) -> bool:
    """Whether `word` is `name` with accents or a French gender ending, case aside (`nigériane` and
    `Nigérian` for `Nigerian`); not in other case alone (`jones`)."""
    return word.lower() != name.lower() and plain(word) in {plain(name) + ending for ending in ENDINGS}


def plain(word: str) -> str:  # small letters without accents
    return "".join(c for c in unicodedata.normalize("NFD", word.lower()) if not unicodedata.combining(c))


def renamed(text: str, fixes: dict[int, str]) -> str:
    """`text` with its words at the indices of `fixes` (`names_written`) replaced."""
    if not fixes:
        return text
    return " ".join(fixes.get(j, word) for j, word in enumerate(text.split()))
