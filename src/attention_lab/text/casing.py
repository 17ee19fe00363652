"""Any casing in, the corpus's casing for the model (the Truecase step): an all-capitals, Title Case or
lower-case sentence is read sentence-cased and its translation given back in capitals when it was typed so.

Sentence-casing a word lower-cases it unless the model reads its capitalised form in fewer pieces (`Tom`,
`Paris`); `I` and its contractions, the first letter, a title and the name after it (`MR. SMITH`) are
capitalised. In a lower-case sentence a word the writer capitalised is kept. A Moses truecaser trained on
the corpus read the valid split no better and the everyday set's names worse (docs/trust.md: Casing).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from attention_lab.data.cleaning import capitalized
from attention_lab.text.record import Context, Draft, Sentence
from attention_lab.text.symbols import VERBATIM

Casing = Literal["as written", "upper", "title", "lower"]
WORDS_FOR_TITLE = 3  # `Tom Jackson.` is a name, not a line in Title Case
# Titles a name follows; not `miss`, which is also a verb (`I MISS YOU.`).
TITLES = frozenset({"mr", "mrs", "ms", "dr"})
DETERMINERS = frozenset("the a an this that my your his her our their".split())
JOINING = frozenset({"and", "or", "&"})  # `MR. AND MRS. SMITH`: the word after a title, but no name
OPENERS = "\"'«“‘([{"  # written against the word after them
PHRASE_WORD = re.compile(r"([^\W\d_]+)(\W*)")  # a word of a phrase, and the marks after it


def casing(sentence: str) -> Casing:
    """`upper` when every cased letter is a capital (two at least: `I.` and `A.` are as written),
    `title` when at least WORDS_FOR_TITLE words start with a letter and each starts with a capital,
    `lower` when the sentence begins with a small letter (two cased letters at least). Addresses are
    not counted: they are carried as typed (`Visit Our Site At www.example.com.` is Title Case)."""
    sentence = VERBATIM.sub(" ", sentence)
    letters = [c for c in sentence if c.isalpha() and c.lower() != c.upper()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "upper"
    words = [word for word in sentence.split() if word[:1].isalpha()]
    if len(words) >= WORDS_FOR_TITLE and all(word[0].isupper() for word in words):
        return "title"
    if len(letters) >= 2 and next(c for c in sentence if c.isalnum()).islower():  # not `3 cats.`
        return "lower"
    return "as written"


def sentence_cased(sentence: str, pieces: Callable[[str], list], keep_capitals: bool = False,
                   phrases: frozenset[str] = frozenset()) -> str:
    """`sentence` as the corpus writes a sentence; `pieces(word)` is what the model reads for a word.
    `keep_capitals`: a word with a capital is kept as written (in a lower-case sentence, the writer's
    own capitals are names), the first letter too when it begins one (`iPhone`). A word with an
    address in it is kept as written: it is carried to the output as typed (text/symbols.py). Two
    words that are one of `phrases` (`CorpusWords.phrases`: `new york`) are capitalised."""
    words = sentence.split(" ")
    decided = [(not keep_capitals or word == word.lower()) and not VERBATIM.search(word) for word in words]
    titles = [word.lower().rstrip(".") in TITLES for word in words]
    # A title, or the name after it; a title after a determiner is a noun (`THE DR. SAID NO.`: the doctor).
    named = [title or (k > 0 and titles[k - 1] and words[k].lower() not in JOINING
                       and (k == 1 or words[k - 2].lower() not in DETERMINERS))
             for k, title in enumerate(titles)]
    cores = [PHRASE_WORD.fullmatch(word) for word in words]  # a pair is not across a comma: `YORK, NEW JERSEY`
    for k, (first, second) in enumerate(zip(cores, cores[1:])):
        if first and second and not first[2] and f"{first[1]} {second[1]}".lower() in phrases:
            named[k] = named[k + 1] = True
    cased_words = [word_cased(word, pieces) if decide else word for word, decide in zip(words, decided)]
    cased = " ".join(capitalized(word) if decide and name else word
                     for word, decide, name in zip(cased_words, decided, named))
    first = next((decide for word, decide in zip(words, decided) if any(c.isalpha() for c in word)), True)
    return capitalized(cased) if first else cased  # `« iPhone` stays


def word_cased(word: str, pieces: Callable[[str], list]) -> str:
    """`word` lower-cased, unless the model reads its capitalised form in fewer pieces, or, typed in
    capitals, that form in fewer still; `I` and its contractions capitalised, after an opening quote or
    bracket too (`«I'm`)."""
    lower = word.lower()
    core = lower.lstrip(OPENERS)
    head = lower[: len(lower) - len(core)]
    if core == "i" or core.startswith("i'"):
        return head + "I" + core[1:]
    capital = core[:1].upper() + core[1:]  # compared without the opener, which splits the word differently
    typed = word[len(head) :]
    if typed.isupper() and len(typed) > 1 and len(pieces(typed)) < min(len(pieces(capital)), len(pieces(core))):
        return head + typed  # an acronym the model knows in capitals: `OK`, `TV`, `FBI` (not `US`, `NO`)
    return head + capital if core != capital and len(pieces(capital)) < len(pieces(core)) else lower


def begins(sentence: str, start: int) -> bool:
    """Whether the word at `start` begins `sentence`: nothing but marks and symbols before it."""
    return not any(char.isalnum() for char in sentence[:start])


def replaced_word(typed: str, written: str, sentence: str, start: int) -> str:
    """`written` in place of the word `typed` at `start` in `sentence`, a reading's (`dont` -> `don't`,
    `colour` -> `color`): as written where typed in small letters, capitalised where typed so at the
    sentence's start (after marks or symbols at most: `🐱 Dont go.`); else `typed`, a name or an
    abbreviation (`Mr Grey`, `DONT`)."""
    if typed.islower():
        return written
    if typed[0].isupper() and typed[1:].islower() and begins(sentence, start):
        return written[0].upper() + written[1:]
    return typed


class Truecase:
    """Reads a sentence in the corpus's casing (`casing`, `sentence_cased`); writes an all-capitals one's
    translation in capitals, but for the spans Protect carried as typed."""

    name = "truecase"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        typed = sentence.text
        case = casing(typed)
        phrases = context.words.phrases if context.words else frozenset()
        cased = typed if case == "as written" else sentence_cased(typed, context.src.pieces, case == "lower", phrases)
        if case == "upper" and cased == typed:
            case = "as written"  # acronyms the model knows in capitals alone (`OK.`): no shouting
        return sentence.read(self, cased, case)

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        return draft.outside_kept(str.upper) if sentence.record[self.name] == "upper" else draft
