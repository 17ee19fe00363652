"""Names kept (in the Protect step; design.md: Names): a name the corpus does not know is read as a placeholder
the model copies and written back in its place (placeholding: Crego et al. 2016, "SYSTRAN's Pure NMT", §7; Post
et al. 2019, "An Exploration of Placeholding in NMT"); a name the model garbled is written back as typed.

A run of names is read as `Tom`, then `Mary`, then `John` (those the sentence lacks), which the search must write
(inference/number_constraint.py), and written back as the run typed, elided before a vowel (`d'Emma`). A name, by
the evidence of the line: a capitalised word the corpus does not know, not a nationality (`Nigerian`): copied, it
keeps its meaning, where the model's guess changes it (`Whisk the eggs.` read as `Quels sont les œufs`); a word
after a title (`Mr. Hill`); a word the corpus writes in small letters (all but 1 in 20 times inside a sentence,
`CorpusWords.capitalised`: not `President`, `Earth`, `March`), capitalised inside a clause and alone among capitals
(`I met Will.`, not `Will you?` or `City Hall`); an acronym the corpus lacks (`NY`, `BBC`: text/casing.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer import Codec
from attention_lab.text.casing import MONTH, OPENERS, TITLES, acronym
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
_CLAUSE = re.compile(r"(?:^|[.!?:;…–—-]\s*|«\s*|[\"“(\[‘'])$")

def _is_name(core: str, sentence: str, start: int, after_title: bool, words: CorpusWords) -> bool:
    """Whether the word `core` at `start` in `sentence` is a name, by the evidence of the line (module doc)."""
    parts = core.split("-")
    if core in PLACEHOLDERS:
        return False
    small = core.lower()
    if all(map(acronym, parts)):
        return small not in words.source
    if not all(p[:1].isupper() and p[1:].islower() for p in parts):
        return False
    if after_title:
        return True
    clause = _CLAUSE.search(sentence, max(0, start - 3), start) is not None
    if small in words.source:
        # A month is no name, next to a number or not (`signed in May`): the corpus's counts of `may` are the verb's.
        return bool(words.cased) and not clause and small not in words.capitalised and not MONTH.fullmatch(core) and \
            not _beside_a_word(sentence, start, start + len(core), words.source)
    return _NATIONALITY.fullmatch(core) is None


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
        before and not _CLAUSE.search(sentence, max(0, before.start() - 3), before.start()) and before[1],
        after and after[1]) if word)


def placeheld(sentence: str, words: CorpusWords, defined: frozenset[str] = frozenset()
              ) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`sentence` with each run of names the corpus does not know read as a placeholder, and the
    (placeholder, name) pairs in order; as it is beyond the placeholders the sentence lacks. Words in
    `defined` (lower case: a user's glossary's) are no unknown names."""
    free = [p for p in PLACEHOLDERS if not re.search(rf"\b{p}\b", sentence)]
    spans: list[list[int]] = []  # [start, end] of each run
    for match in _CAPITALISED.finditer(sentence):
        # The word before, read back to the space before it: splitting the sentence up to each name took n² steps.
        end = match.start()
        while end and sentence[end - 1].isspace():
            end -= 1
        title = sentence[sentence.rfind(" ", 0, end) + 1 : end].lower().rstrip(".") in TITLES
        if match["core"].lower() in defined or not _is_name(match["core"], sentence, match.start(), title, words):
            continue
        if spans and sentence[spans[-1][1] : match.start()] == " ":
            spans[-1][1] = match.start() + len(match["core"])  # a run: `Hannah Okafor`
        else:
            spans.append([match.start(), match.start() + len(match["core"])])
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
        if garbled.lower() in words.target or garbled[0].lower() != name[0].lower() or \
                SequenceMatcher(None, garbled.lower(), name.lower()).ratio() < LIKENESS or made_french(name, garbled):
            continue
        fixes[j] = match["head"] + name + match["tail"]
    return fixes


def made_french(name: str, word: str) -> bool:
    """Whether `word` is `name` with accents or a French gender ending, case aside (`nigériane` and
    `Nigérian` for `Nigerian`); not in other case alone (`jones`)."""
    return word.lower() != name.lower() and _plain(word) in {_plain(name) + ending for ending in ENDINGS}


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word.lower()) if not unicodedata.combining(c))


def renamed(text: str, fixes: dict[int, str]) -> str:
    """`text` with its words at the indices of `fixes` (`names_written`) replaced."""
    if not fixes:
        return text
    return " ".join(fixes.get(j, word) for j, word in enumerate(text.split()))
