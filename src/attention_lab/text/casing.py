"""Any casing in, the corpus's casing for the model (the Truecase step): an all-capitals, Title Case or lower-case
sentence is read sentence-cased and its translation given back in capitals when it was typed so.

Each word is cased by the corpus's evidence (`counted`): as the corpus writes it inside a sentence (`March`, `TV`,
`Tom`; `CorpusWords.cased`), in small letters where it writes it so; a word it does not know is left as typed where its
capitals may be a name's or an acronym's (`Ritz` in Title Case, `NY`), else read in small letters (`RENOVATION`);
capitals the line shows to be an acronym's are kept (`UN` in Title Case, `THE US`), and a unit after a number is
read as the reading names it (`500 KG`). `I` and its contractions, the first letter, a title and the name after it
(`MR. SMITH`), two words the corpus capitalises together (`NEW YORK`), a month next to a number (`MAY 3`) and a
given name the line marks as one (`FRANK`, `WILL'S`, `MAY CHEN`: `given_run`) are capitalised. In a lower-case
sentence a word the writer capitalised is kept. A model file without the corpus's counts cases a word by the
model's pieces: capitalised where it reads that form in fewer. A Moses truecaser trained on the corpus read the
valid split no better and the everyday set's names worse (docs/trust.md: Casing).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from attention_lab.data.calendar_names import ENGLISH_MONTH_NAMES
from attention_lab.data.cleaning import capitalized
from attention_lab.data.corpus_words import BEGINNINGS, ENGLISH, CorpusWords
from attention_lab.text.amounts import UNITS
from attention_lab.text.given_names import common, given, surname
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
LETTERS = re.compile(r"[^\W\d_]+")  # a word's letters, before an apostrophe, a hyphen or a digit: `TOM` of `TOM'S`
MONTH = re.compile(rf"\W*(?i:{ENGLISH_MONTH_NAMES})\W*")
NUMBER_BEFORE = re.compile(r"(?:^|\s)\W*[0-9]\S*\s$")  # the word before, a number: `3 MAY`, `(12th) May`
NUMBER_AFTER = re.compile(r"\s\W*[0-9]")
VOWELS = frozenset("aeiouyàâäéèêëîïôöûùüÿæœ")
ROMAN = re.compile("[IVXLCDM]+")
ACRONYM_LETTERS = 3  # `NY`, `EST`, `BBC`; longer words in capitals the corpus lacks are words as often as names
# No pronoun follows these: in capitals, one after them is an acronym (`THE US`). Not `this`, `that`, `her`, which
# may end a clause or be an object (`SO THAT IT WORKS`, `TELL HER WE CAME`).
BEFORE_A_NOUN = frozenset("the a an my your his our their".split())
PRONOUNS = frozenset("me we us he him she it they them who whom".split())
# A unit the reading names after a number (text/amounts.py), of letters: `km`, `mph`, `km/h`; not a letter alone.
_LETTER_UNITS = sorted((unit for unit in UNITS if len(unit) > 1 and unit[0].isalpha()), key=len, reverse=True)
UNIT = re.compile(rf"(?P<number>[0-9]+(?:[.,][0-9]+)*)?(?P<unit>(?i:{'|'.join(map(re.escape, _LETTER_UNITS))}))"
                  r"(?P<marks>[.,;:!?)]*)")


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
                   words: CorpusWords | None = None, title: bool = False) -> str:
    """`sentence` as the corpus writes a sentence; `pieces(word)` is what the model reads for a word, `words`
    the corpus's (its counts of casing, `CorpusWords.cased`, decide a word where it has them: `word_cased`).
    `keep_capitals`: a word with a capital is kept as written (in a lower-case sentence, the writer's
    own capitals are names), the first letter too when it begins one (`iPhone`). A word with an
    address in it is kept as written: it is carried to the output as typed (text/symbols.py), as is, in a line
    typed in capitals or Title Case (`title`), a word its capitals and place say is an acronym (`acronym_typed`). Two
    words that are one of `CorpusWords.phrases` (`new york`), and a month next to a number, are capitalised; a
    unit after a number is read in small letters where the reading names it (`measured`)."""
    parts = sentence.split(" ")
    decided = [not VERBATIM.search(part) and (part == part.lower() if keep_capitals
                                              else not acronym_typed(part, parts[k - 1] if k else "", title))
               for k, part in enumerate(parts)]
    titles = [part.lower().rstrip(".") in TITLES for part in parts]
    # A title, or the name after it; a title after a determiner is a noun (`THE DR. SAID NO.`: the doctor).
    named = [title or (k > 0 and titles[k - 1] and parts[k].lower() not in JOINING
                       and (k == 1 or parts[k - 2].lower() not in DETERMINERS))
             for k, title in enumerate(titles)]
    phrases = words.phrases if words else frozenset()
    cores = [PHRASE_WORD.fullmatch(part) for part in parts]  # a pair is not across a comma: `YORK, NEW JERSEY`
    for k, (first, second) in enumerate(zip(cores, cores[1:])):
        if first and second and not first[2] and f"{first[1]} {second[1]}".lower() in phrases:
            named[k] = named[k + 1] = True
    for k, part in enumerate(parts):
        named[k] |= dated(part, parts[k - 1] + " " if k else "", " " + parts[k + 1] if k + 1 < len(parts) else "")
        run = 0 if keep_capitals or words is None else given_run(part, parts[k - 1 : k], parts[k + 1 : k + 2], words)
        named[k : k + run] = [True] * run
    cased_words = [(measured(part, parts[k - 1] if k else "") or word_cased(part, pieces, words)) if decide else part
                   for k, (part, decide) in enumerate(zip(parts, decided))]
    cased = " ".join(capitalized(part) if decide and name else part
                     for part, decide, name in zip(cased_words, decided, named))
    first = next((decide for part, decide in zip(parts, decided) if any(c.isalpha() for c in part)), True)
    return capitalized(cased) if first else cased  # `« iPhone` stays


def acronym_typed(typed: str, before: str, title: bool) -> bool:
    """Whether `typed`, a word of a line typed in capitals or in Title Case (`title`) after the word `before`, is
    an acronym by its capitals and place, kept as typed. In Title Case, a word typed all in capitals is one (`UN`,
    `NASA`, `U.S.`; not `I'M`); in either, a pronoun after an article or a possessive, which no pronoun follows
    (`THE US`, `OUR IT TEAM`). A word the corpus writes both ways (`Apple`, `New`, `War`) is read in small letters:
    kept capitalised, the model read `the War`, `a New car` as names or other words (docs/trust.md: Casing)."""
    letters = "".join(LETTERS.findall(typed))
    if letters.lower() in PRONOUNS and letters.isupper() and before.lower().lstrip(OPENERS) in BEFORE_A_NOUN:
        return True
    core = typed.lower().lstrip(OPENERS)
    return title and len(letters) > 1 and letters.isupper() and core != "i" and not core.startswith("i'")


def measured(typed: str, before: str) -> str | None:
    """`typed` (a unit and the marks after it, or a number and its unit: `KG`, `Mph.`, `5KM`) in small letters
    where it follows a number and the reading names it (text/amounts.py: `500 KG` is read `500 kilograms`);
    else None. A letter alone is not read so: `25 C`, `12 V` keep the form the corpus gives them."""
    unit = UNIT.fullmatch(typed)
    if unit is None or unit["unit"].islower() or not (unit["number"] or NUMBER_BEFORE.search(before + " ")):
        return None
    return typed.lower()


def dated(word: str, before: str, after: str) -> bool:
    """Whether `word` is a month next to a number (`MAY 3`, `3 MAY`: the month, not the verb), `before` the text
    before it (its space too), `after` the text after it."""
    return MONTH.fullmatch(word) is not None and (NUMBER_BEFORE.search(before) or NUMBER_AFTER.match(after)) is not None


def given_run(typed: str, before: list[str], after: list[str], words: CorpusWords) -> int:
    """How many words from `typed` (of a line in capitals or Title Case, between the words `before` and `after`) are
    a name (text/given_names.py): 1, a common given name the corpus seldom uses (`FRANK`) or one with a possessive
    (`WILL'S`); 2, one and a surname the corpus lacks after it (`MAY CHEN`); 0 after an article (`MY SISTER'S`)."""
    letters = LETTERS.search(typed)
    if letters is None or not words.cased or letters.start() > len(typed) - len(typed.lstrip(OPENERS)) or \
            before and before[0].lower().lstrip(OPENERS) in DETERMINERS:
        return 0  # no counts (an older model file) tell a word it lacks; after an article, a common noun
    name, tail = letters.group(), typed[letters.end() :]
    next_letters = LETTERS.match(after[0]) if after and not tail else None
    if next_letters and next_letters.group()[0].isupper() and given(name) and surname(next_letters.group()) and \
            not english(next_letters.group().lower(), words.source):
        return 2
    return int(common(name, words) or given(name) and re.fullmatch(r"['’][sS]\W*", tail) is not None)


def acronym(letters: str) -> bool:
    """Whether `letters`, typed in capitals, read as an acronym where the corpus lacks the word: at most
    `ACRONYM_LETTERS` letters, no vowel or a Roman numeral (`NY`, `EST`, `BBC`, `HTML`, `VIII`)."""
    return len(letters) > 1 and letters.isupper() and (
        len(letters) <= ACRONYM_LETTERS or not VOWELS & set(letters.lower()) or ROMAN.fullmatch(letters) is not None)


def counted(typed: str, words: CorpusWords) -> str:
    """`typed` (a word, marks after it) cased by the corpus's counts: as the corpus writes it inside a sentence
    (`MARCH` -> `March`, `TV`), in small letters where it writes it so; a word it lacks as typed where its
    capitals may be an acronym's or a name's (`NY`, `Ritz`), else in small letters (`RENOVATION`)."""
    whole, letters = ENGLISH.search(typed), LETTERS.search(typed)
    if letters is None:
        return typed.lower()
    for found in (whole, letters):  # `T-SHIRT` -> `T-shirt`, `TOM'S` -> `Tom's`
        if found.group().lower() in words.forms:
            return typed[: found.start()].lower() + words.forms[found.group().lower()] + typed[found.end() :].lower()
    word = letters.group()
    if not english(word.lower(), words.source) and (acronym(word) or word[1:].islower()):
        return typed
    return typed.lower()


# English endings and beginnings: a word the corpus lacks made of one it has is a word (`PEELED`, `Deputies`,
# `Unpeeled`), not a name. Each ending, with what its stem may end in (`lac|ed` is `lace`, `deput|ies` `deputy`).
ENDINGS = {ending: ("", "e") for ending in ("s", "es", "ed", "ing", "ly", "er", "ers", "est", "ness", "ment", "ments",
                                             "able", "ful", "less", "ous", "ity", "ize", "ized", "ion", "ions")}
ENDINGS.update({ending: ("y",) for ending in ("ies", "ied", "ier", "iest", "ily")})
STEM = 3  # letters a stem has at least


def english(small: str, known: frozenset[str]) -> bool:
    """Whether `small` (in small letters) is a word of `known`, or one of them with an English ending or beginning
    (`peeled`, `deputies`, `ratted`, `unpeeled`)."""
    if small in known:
        return True
    for ending, tails in ENDINGS.items():
        stem = small[: -len(ending)]
        if not small.endswith(ending) or len(stem) < STEM:
            continue
        if any(stem + tail in known for tail in tails) or stem[-1] == stem[-2] and stem[:-1] in known:  # `ratt|ed`
            return True
    return any(small.startswith(start) and len(small) - len(start) >= STEM and english(small[len(start) :], known)
               for start in BEGINNINGS)


def word_cased(word: str, pieces: Callable[[str], list], words: CorpusWords | None = None) -> str:
    """`word` cased by the corpus's counts in `words` (`counted`); without them, lower-cased unless the model
    reads its capitalised form in fewer pieces, or, typed in capitals, that form in fewer still. `I` and its
    contractions capitalised, after an opening quote or bracket too (`«I'm`)."""
    lower = word.lower()
    core = lower.lstrip(OPENERS)
    head = lower[: len(lower) - len(core)]
    if core == "i" or core.startswith("i'"):
        return head + "I" + core[1:]
    typed = word[len(head) :]
    if words and words.cased:
        return head + counted(typed, words)
    capital = core[:1].upper() + core[1:]  # compared without the opener, which splits the word differently
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
        cased = typed if case == "as written" else sentence_cased(typed, context.src.pieces, case == "lower",
                                                                  context.words, case == "title")
        if case == "upper" and cased == typed:
            case = "as written"  # acronyms the model knows in capitals alone (`OK.`): no shouting
        return sentence.read(self, cased, case)

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        return draft.outside_kept(str.upper) if sentence.record[self.name] == "upper" else draft
