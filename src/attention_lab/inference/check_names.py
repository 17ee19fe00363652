"""The names a translation must write, for the check after writing (inference/check.py); whether it writes them:
inference/check_forms.py.

Beyond the names the reading held as placeholders (text/names.py), each sentence of the source asks for:
- a code of letters and digits (`Q3`, `A4`, `B12`, `4B`, `SAVE20`, `COVID-19`; in small letters too, `the m25`,
  `admin123`), whatever the corpus knows, or a capital letter alone that labels a thing (`panel C`, `Plan B`;
  `_letter`): a translation has no other form for it;
- a given name that is also a word, or one the corpus lacks, where the line marks it as a person's
  (text/given_names.py; `_given_marked`): `Frank Ocean`, `Rose's Bakery`, `jake's going`, `will is
  coming`, `Summer Walker`, `"FRANK"`;
- a word with a capital inside (`iPhone`, `WhatsApp`) or a capitalised word (`Seville`, `Nando's`, `Jean-Luc`)
  that the corpus's English lacks (not one made of a corpus word where a capital says nothing: `Tipping` first or in
  Title Case), or that the corpus writes capitalised inside a sentence more often than not (`CorpusWords.cased`:
  `Boston`, `Germany`, `Wales`; not in one of its phrases, `Christmas Eve`), wherever it stands; not a title (`Dr`). A
  model file without those counts asks for a capitalised word both sides write only inside a sentence, not in Title
  Case;
- a capitalised word the corpus knows but writes in small letters nearly always (`CorpusWords.capitalised`) where
  the line, typed as written, marks it as a name (`_marked`): alone inside a clause (`Tell Bill`, `Hi May`); the
  words but the last of a run of capitals with such a word or one the corpus lacks, the last naming what it is,
  which French translates (`Golden Dragon`, `Central Station`, `Frank's Garage`, `Baker Street`); never at a clause's
  start, a possessive after it or not (`Grace's tip` as `Life's too short`, `Today's menu`). Not a title, a word of
  grammar or a number (`in The Guardian`, `Lesson Two`), a month beside a number or a word beside one
  (`3 May`, `Gate 12`), a run the corpus writes as a name (`White House`: its French is the model's to know), nor
  after an article but in a run with a word the corpus lacks (`the Mayor`, `the Winter Olympics`: titles and
  institutions French translates; `the Golden Dragon`);
- a word in capitals (`NASA`, `IKEA`, `VAT`) that the corpus's English lacks, or of 3 letters at least that the
  corpus writes in capitals on both sides (`FBI`, `USA`; `OK` and `TV` are as often words), or that it writes in
  small letters, of 3 letters at most or a pronoun, after an article or a possessive (`the UN`, `the WHO`, `our IT
  team`: `_acronym_placed`);
- an acronym, code or word with a capital inside with the number typed after it, whole (`BA 2490`, `iPhone 15`).
- in a line typed all in small letters or capitals, a place GeoNames knows or a word no dictionary has
  (`just landed in dublin`, `LAST SEEN IN LEEDS`, `milk from tesco`: inference/check_uncased.py).
In a sentence typed in capitals only codes, given names, places and words no dictionary has are asked for: its
capitals say nothing of other names.

Words asked loosely, in some form: inference/check_loose.py.
"""

from __future__ import annotations

import re

from attention_lab.data.cleaning import clean
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.inference.check_uncased import uncased_name
from attention_lab.inference.number_values import ENGLISH_WORDS
from attention_lab.text.casing import ACRONYM_LETTERS, DETERMINERS, JOINING, PRONOUNS, TITLES, casing, english
from attention_lab.text.given_names import common, given, surname
from attention_lab.text.names import CLAUSE, SUBJECT, beside_a_number
from attention_lab.text.sentences import split

# A word, hyphenated or not, its possessive apart (`Nando's`); not inside an address (`x@Y`, `e.Mail`).
WORD = re.compile(r"(?<![\w'’.@/-])(?P<word>\w+(?:-\w+)*)(?P<tail>['’][sS])?(?![\w@/-]|\.\w)")
_CODE = re.compile(r"[A-Za-z]+[0-9][A-Za-z0-9]*|[0-9]+(?!AM|PM|[KM]$)[A-Z]+")  # `Q3`, `SAVE20`, `4B`; not `20K`
_INNER_CAPITAL = re.compile(r"[a-z]+[A-Z][A-Za-z]*|[A-Z][a-z]+[A-Z][A-Za-z]*")  # `iPhone`, `WhatsApp`
ACRONYM = re.compile(r"[A-Z]{2,}")
_NUMBER_AFTER = re.compile(r" (?P<number>[0-9]+)(?![\w,:/-]|[.,][0-9])")  # `BA 2490`; not `UN 3.5`
_CURRENCY_BEFORE = re.compile(r"[$€£¥] ?$")  # `$4B` is an amount
SHORT_ACRONYM = 2  # `OK`, `TV`, `ID`: the corpus writes them in capitals and translates them
# The capitalised words typed against a word, one space apart, a possessive between (`Rose's Bakery`): its run.
_BEFORE = re.compile(r"(?<![\w'’.@/-])(?P<word>[A-Z][a-z]+(?:-[A-Z][a-z]+)*)(?P<tail>['’]s)? $")
_AFTER = re.compile(r"(?:['’]s)? (?P<word>[A-Z][a-z]+(?:-[A-Z][a-z]+)*)(?![\w@/-]|\.\w)")
_DETERMINER = re.compile(rf"\b(?i:{'|'.join(DETERMINERS)}) $")
RUN_WORDS = 8  # the words of a run of capitals looked at on each side of one (`capitalised_run`)
# How far back a pattern ending at a word is looked for (a word or two and a space; a currency sign): searched from
# the line's start, each word's look took n² steps on a long line.
REACH = 60


def asked_names(source: str, words: CorpusWords | None) -> list[str]:
    """The names of `source` a translation must write, as typed, in order (module doc); none but codes without the
    corpus's `words`."""
    found = []
    for sentence in split(clean(source)):  # cleaned first, as read: the segmenter panics on a no-break space
        case = casing(sentence)
        for match in WORD.finditer(sentence):
            word, start = match["word"], match.start()
            if _CURRENCY_BEFORE.search(sentence, max(0, start - REACH), start):
                continue
            code = _CODE.fullmatch(word.replace("-", "")) is not None or _letter(word, sentence, start, case)
            name = code or words is not None and (case != "upper" and _is_name(word, sentence, start, case, words)
                                                  or _given_marked(word, match["tail"], sentence, start, case, words)
                                                  or uncased_name(word, case, words))
            if not name:
                continue
            after = not match["tail"] and (code or not word.istitle()) and _NUMBER_AFTER.match(sentence, match.end())
            found.append(f"{word}{after.group()}" if after else word)
    return found


def _is_name(word: str, sentence: str, start: int, case: str, words: CorpusWords) -> bool:
    """Whether `word`, at `start` in `sentence` of casing `case`, is a name by the corpus's `words` (module doc)."""
    parts = word.lower().split("-")
    unknown = _unknown(word, words)
    both = all(part in words.target for part in parts)
    if ACRONYM.fullmatch(word):
        return not set(word) <= set("IVX") and (unknown or len(word) > SHORT_ACRONYM and both and word in words.cased
                                               or _acronym_placed(word, sentence, start, words))
    titled = all(part[:1].isupper() and part[1:].islower() for part in word.split("-"))
    if not (titled or _INNER_CAPITAL.fullmatch(word)) or word.lower() in TITLES:
        return False
    if unknown:  # but one made of a corpus word where a capital says nothing, as the reading reads it (`Tipping`)
        return not (case == "title" or opens(sentence, start)) or not all(english(p, words.source) for p in parts)
    if words.cased:
        return (both or not in_phrase(sentence, start, word, words)) and all(
            part in words.forms and words.forms[part] == typed for part, typed in zip(parts, word.split("-"))) or (
            titled and case in ("as written", "lower") and _marked(word, sentence, start, words))
    return both and case == "as written" and bool(sentence[:start].strip(" \"'«“‘([{"))


def _given_marked(word: str, possessive: str | None, sentence: str, start: int, case: str, words: CorpusWords) -> bool:
    """Whether `word` at `start` in `sentence` of casing `case`, a given name that is also a word or none the corpus
    knows (text/given_names.py), is a person's by the line's marks: a common one the corpus seldom uses, capitalised
    anywhere (`Frank Ocean`); one with a `possessive` (`Rose's Bakery`, `jake's going`; not one the corpus writes
    capitalised, `Valentine's Day`); an auxiliary before one, whose subject it is (`will is coming`: no auxiliary
    follows another); typed as written, one before a surname the corpus lacks or another given name (`Summer
    Walker`); not after an article or a possessive (`my Sister's`). Typed capitalised, or in small letters or
    capitals in a line typed so (`FRANK`, `WILL'S`)."""
    small = case == "lower" and word.islower()  # no capital to go by: `the holly`, `a robin` are words
    typed = small or word.istitle() or case == "upper" and word.isupper()
    if not typed or "-" in word or not words.seldom or word.lower() in words.forms or not given(word) or \
            determined(sentence, start):  # `my sister's`, `the Rose Garden`: a common noun
        return False
    end = start + len(word)
    if not small and common(word, words) or possessive or SUBJECT.match(" " + word) and SUBJECT.match(sentence, end):
        return True
    after = _AFTER.match(sentence, end)
    return case == "as written" and after is not None and (
        _unknown(after["word"], words) and surname(after["word"]) or given(after["word"]))


def _letter(word: str, sentence: str, start: int, case: str) -> bool:
    """Whether `word`, at `start` in `sentence` of casing `case`, is a capital letter alone that labels a thing
    (`panel C`, `Plan B`, `site A`), a space after a word before it (not `38°C`), no possessive (`Z's`): not `I`, not
    first in a clause, and not `A` in a line typed in capitals or Title Case, where it is as likely the article (`WIN
    A TRIP`)."""
    after_a_word = start >= 2 and sentence[start - 2].isalpha() and sentence[start - 1] == " " and \
        sentence[start + 1:start + 2] not in ("'", "’")  # not `Z's`
    return len(word) == 1 and word.isupper() and word != "I" and after_a_word and not opens(sentence, start) and (
        word != "A" or case not in ("upper", "title"))


def determined(sentence: str, start: int) -> bool:
    """Whether the word at `start` in `sentence` follows an article or a possessive (`the`, `my`)."""
    return _DETERMINER.search(sentence, max(0, start - REACH), start) is not None


def in_phrase(sentence: str, start: int, word: str, words: CorpusWords) -> bool:
    """Whether `word` at `start` in `sentence` and the word before or after it are one of the corpus's phrases
    (`Christmas Eve`: `la veille de Noël`), which French renders whole, not word by word."""
    before, after = _BEFORE.search(sentence, max(0, start - REACH), start), _AFTER.match(sentence, start + len(word))
    return any(f"{a} {b}".lower() in words.phrases for a, b in (
        (before and before["word"], word), (word, after and after["word"])) if a and b)


def _acronym_placed(word: str, sentence: str, start: int, words: CorpusWords) -> bool:
    """Whether `word`, typed in capitals at `start` in `sentence` (not typed all in capitals), a word the corpus writes
    in small letters, is an acronym by its place: of ACRONYM_LETTERS at most or a pronoun after an article or a
    possessive (`the UN`, `the WHO`, `our IT team`: a pronoun takes none); not one the corpus writes in capitals and
    translates as a word (`the TV`, `your ID`: `CorpusWords.cased`)."""
    return word not in words.cased and determined(sentence, start) and (
        len(word) <= ACRONYM_LETTERS or word.lower() in PRONOUNS)


def _unknown(word: str, words: CorpusWords) -> bool:
    """Whether the corpus's English lacks `word` or a part of it (`Jean-Luc`)."""
    return any(part not in words.source for part in word.lower().split("-"))


def _small(word: str, words: CorpusWords) -> bool:
    """Whether the corpus writes `word` (capitalised, perhaps hyphenated) in small letters nearly always: known, and
    capitalised in fewer than 1 of 20 of its uses inside a sentence (`CorpusWords.capitalised`)."""
    parts = word.lower().split("-")
    return all(part in words.source and part not in words.capitalised for part in parts)


def _marked(word: str, sentence: str, start: int, words: CorpusWords) -> bool:
    """Whether `word`, capitalised at `start` in `sentence` (typed as written, not in Title Case) and known to the
    corpus's `words`, is a name by the line's marks (module doc)."""
    end, small = start + len(word), word.lower()
    if small in TITLES | DETERMINERS | JOINING or small in ENGLISH_WORDS or beside_a_number(sentence, start, end):
        return False  # a title, a word of grammar or a number (`in The Guardian`, `Lesson Two`), a label (`Gate 12`)
    if opens(sentence, start):  # its capital is the place's; with a possessive too (`Grace's`, but `Life's too short`)
        return False
    run = capitalised_run(sentence, start, words)
    if determined(sentence, run[0][0]):  # `the Mayor`, `the Winter Olympics`: a title or an institution's
        return any(_unknown(part, words) for _, part in run) and run[-1][0] != start and word not in words.cased
    if len(run) == 1:
        return _small(word, words)
    if run[-1][0] == start or phrased(run, words):
        return False  # a run's last word names what it is (`Station`, `Bakery`), which French translates
    return word not in words.cased and any(_unknown(part, words) or _small(part, words) for _, part in run)


def opens(sentence: str, start: int) -> bool:
    """Whether the word at `start` in `sentence` begins a clause: its capital is the place's."""
    return _LEAD.match(sentence).end() >= start or CLAUSE.search(sentence, max(0, start - 3), start) is not None


_LEAD = re.compile(r"[ \"'«“‘(\[{]*")  # what may stand before a sentence's first word; matched, not sliced: linear


def capitalised_run(sentence: str, start: int, words: CorpusWords) -> list[tuple[int, str]]:
    """The capitalised words typed one space apart around the word at `start` in `sentence` (a possessive between:
    `Rose's Bakery`), each by its start; not a word the corpus writes small that begins a clause without a possessive,
    whose capital is the place's (`Ask Summer`, `Dear Grace`; not `Valentine's Day`, `Christmas Day`). RUN_WORDS at
    most each side: a name is no longer, and each word of a line of capitals took the whole line's run, n² steps."""
    run, at = [], start
    while len(run) < RUN_WORDS and (before := _BEFORE.search(sentence, max(0, at - REACH), at)):
        if opens(sentence, before.start()) and _small(before["word"], words) and not before["tail"]:
            break
        at = before.start()
        run.insert(0, (at, before["word"]))
    run.append((start, WORD.match(sentence, start)["word"]))
    last = len(run) + RUN_WORDS
    while len(run) < last and (after := _AFTER.match(sentence, run[-1][0] + len(run[-1][1]))):
        run.append((after.start("word"), after["word"]))
    return run


def phrased(run: list[tuple[int, str]], words: CorpusWords) -> bool:
    """Whether two words of `run` (`capitalised_run`) are one of the corpus's phrases (`Happy New Year`, `Christmas
    Eve`), which French renders whole, not word by word."""
    return any(f"{a} {b}".lower() in words.phrases for (_, a), (_, b) in zip(run, run[1:]))
