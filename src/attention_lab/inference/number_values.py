"""The numbers of a text as values, for telling whether a translation kept its source's (inference/check.py).

A number in digits is read by the separators its language writes: English `100,000` and `9.99`, French `100 000`
and `9,99`; a translation may keep the English form, so French text is read either way, and where a form is
ambiguous (`1,500`: 1500 or 1,5) it has both readings. A scale after it is a reading too (`1.2M`, `3 millions`),
as is the 24-hour time of an afternoon's hour, which is
the only reading of an English one (`3:45pm` is 15 h 45; French may write `3 h 45 de l'après-midi`). Number words are read as values, English (`twenty-one`, `both`) and
French (`vingt et un`, `quatre-vingt-dix`, `onze heures`), except where French writes the word for something else:
`un`/`une` but in `vingt et un` or `un million` (an article), `neuf` alone before no plural (`new`), `cent` after
`pour` (percent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from attention_lab.text.number_forms import read_times

Reading = tuple[Decimal, ...]  # the values a written number stands for: one, or each of its digit groups

_SPACES = " \u00a0\u202f"
# Digits with marks between them: `.` or `,` before a digit, a space before a group of exactly three (`100 000`).
DIGITS = re.compile(rf"(?<![0-9])(?<![0-9][.,])[0-9]+(?:(?:[.,]|[{_SPACES}](?=[0-9]{{3}}(?![0-9])))[0-9]+)*")
SCALE = re.compile(rf"[{_SPACES}]?(?P<scale>(?i:thousands?|mille|millions?|billions?|milliards?|bn|[kmb]))"
                   r"(?![^\W\d_])")
SCALES = {"k": 3, "thousand": 3, "mille": 3, "m": 6, "million": 6, "b": 9, "bn": 9, "billion": 9, "milliard": 9}
# An afternoon's hour on a 12-hour clock: `3:45pm` is 15 h 45 (`3 h 45` is the night's); French may say so in words.
_PM = r"(?i:p\.?m\b\.?)"
AFTERNOON = {"en": re.compile(rf"(?<![0-9.,:])(?P<hour>[0-9]{{1,2}})(?::[0-5][0-9])? ?{_PM}"),
             "fr": re.compile(rf"(?<![0-9.,:])(?P<hour>[0-9]{{1,2}})(?:(?: ?h ?|:)(?:[0-5][0-9])?)? ?"
                              rf"(?:{_PM}|de l'après-midi|du soir)")}
# (thousands mark, decimal mark) of each language's numbers; English text with none of its own read as French.
MARKS = {"en": ((",", "."), (" ", ".")), "fr": ((" ", ","), (".", ","), (",", "."), (" ", "."))}

ENGLISH_WORDS = {
    **{word: n for n, word in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                        "fourteen fifteen sixteen seventeen eighteen nineteen".split())},
    **{word: 10 * n for n, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)},
    "hundred": 100, "hundreds": 100, "thousand": 1000, "thousands": 1000, "million": 10**6, "millions": 10**6,
    "billion": 10**9, "billions": 10**9, "dozen": 12, "twice": 2, "both": 2, "couple": 2}
FRENCH_WORDS = {
    **{word: n for n, word in enumerate("zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize "
                                        "quatorze quinze seize".split())},
    "une": 1, "vingt": 20, "vingts": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60, "cent": 100,
    "cents": 100, "mille": 1000, "million": 10**6, "millions": 10**6, "milliard": 10**9, "milliards": 10**9}


def _words(values: dict[str, int], but: tuple[str, ...] = ()) -> str:
    """An alternation of the words of `values`, less `but`, longest first."""
    return "|".join(sorted((re.escape(word) for word in values if word not in but), key=len, reverse=True))


# A run of number words. French `un` and `une` are an article but after `et` (`vingt et un`) or before a scale.
_ENGLISH, _FRENCH = _words(ENGLISH_WORDS), _words(FRENCH_WORDS, ("un", "une"))
RUNS = {"en": re.compile(rf"\b(?:{_ENGLISH})(?:(?:[\s-]+|\s+and\s+)(?:{_ENGLISH}))*\b"),
        "fr": re.compile(rf"\b(?:une?[\s-]+(?=mille|milliard|million))?(?:{_FRENCH})"
                         rf"(?:[\s-]+(?:{_FRENCH})|[\s-]+et[\s-]+(?:une?|{_FRENCH}))*\b")}


@dataclass(frozen=True)
class Number:
    typed: str  # as written: `1,299.99`, `vingt et un`
    readings: tuple[Reading, ...]  # what it may stand for; kept when one reading's values all are


def digit_readings(typed: str, language: str) -> list[Reading]:
    """What the digits `typed` (`DIGITS`) stand for in `language` ("en", "fr"): a value by each reading of its
    marks (`1,500` in French: 1500 and 1.5), else its digit groups apart (`1.2.3`, `12 1000`)."""
    groups = re.findall(r"[0-9]+", typed)
    marks = [" " if mark in _SPACES else mark for mark in re.findall(r"[^0-9]+", typed)]
    found: list[Reading] = [(Decimal(typed),)] if not marks else []
    for conventions in (MARKS[language], MARKS["fr"]):
        for thousands, point in conventions if marks else ():
            fraction = groups[-1] if marks[-1] == point else None
            whole, between = (groups[:-1], marks[:-1]) if fraction is not None else (groups, marks)
            if any(mark != thousands for mark in between) or len(whole) > 1 and (
                    len(whole[0]) > 3 or any(len(group) != 3 for group in whole[1:])):
                continue
            found.append((Decimal("".join(whole) + (f".{fraction}" if fraction is not None else "")),))
        if found:
            break
    if not found:
        found.append(tuple(Decimal(group) for group in groups))
    return list(dict.fromkeys(found))


def digit_numbers(text: str, language: str) -> list[Number]:
    """The numbers `text` writes in digits, in order, each with its readings, scaled ones among them (`1.2M`); an
    afternoon's hour read on the 24-hour clock (`2pm`: 14; `2 h de l'après-midi`: 2 and 14)."""
    if language == "en":
        text = read_times(text)  # `at 10.30` is a time, 10 and 30, as the translator reads it (text/number_forms.py)
    afternoon = {match.start("hour") for match in AFTERNOON[language].finditer(text)}
    numbers = []
    for match in DIGITS.finditer(text):
        readings = digit_readings(match.group(), language)
        scale = SCALE.match(text, match.end())
        if scale:
            power = SCALES[scale["scale"].lower().removesuffix("s")]
            readings += [(reading[0].scaleb(power),) for reading in readings if len(reading) == 1]
        if match.start() in afternoon and int(match.group()) < 12:
            readings = [(Decimal(match.group()) + 12,)] + (readings if language == "fr" else [])
        numbers.append(Number(match.group(), tuple(readings)))
    return numbers


def _value(words: list[str]) -> int:
    """The value of a run of number words: `quatre vingt dix neuf` 99, `two hundred five` 205."""
    total = current = 0
    for word in words:
        value = ENGLISH_WORDS.get(word, FRENCH_WORDS.get(word, 0))
        if value == 100:
            current = (current or 1) * 100
        elif value >= 1000:
            total, current = total + (current or 1) * value, 0
        elif value == 20 and current % 100 == 4:  # `quatre-vingts`: four twenties
            current += 76
        else:
            current += value
    return total + current


def word_numbers(text: str, language: str) -> list[Number]:
    """The numbers `text` writes in words (in `language`, "en" or "fr"), in order: each run of number words, its
    value, and each word's own (`deux trois` may be two numbers)."""
    values = ENGLISH_WORDS if language == "en" else FRENCH_WORDS
    lower, numbers = text.lower(), []
    for match in RUNS[language].finditer(lower):
        words = re.findall(r"[^\W\d_]+", match.group())
        if language == "fr" and not french_number(words, lower[: match.start()], lower[match.end() :]):
            continue
        words = [w for w in words if w in values]
        readings = ((Decimal(_value(words)),), tuple(Decimal(_value([w])) for w in words))
        numbers.append(Number(text[match.start() : match.end()], tuple(dict.fromkeys(readings))))
    return numbers


def french_number(words: list[str], before: str, after: str) -> bool:
    """Whether the French run of number `words` between `before` and `after` is a number: not `neuf` meaning new
    (before no plural: `neuf ans` is nine years), percent's `cent`, or a scale after digits (`3 millions`: read
    with them)."""
    following = re.match(r"\s*([^\W\d_]+)", after)
    if words == ["neuf"] and not (following and following[1][-1] in "sx"):
        return False
    if words in (["cent"], ["cents"]) and re.search(r"\bpour\s*$", before):
        return False
    return not (all(w in ("mille", "million", "millions", "milliard", "milliards") for w in words)
                and re.search(r"[0-9][\s\u00a0\u202f]*$", before))


def numbers(text: str, language: str) -> list[Number]:
    """Every number of `text` in `language` ("en", "fr"): in digits, then in words."""
    return digit_numbers(text, language) + word_numbers(text, language)


def values(found: list[Number]) -> set[Decimal]:
    """Every value some reading of `found` stands for."""
    return {value for number in found for reading in number.readings for value in reading}


def kept(number: Number, among: set[Decimal]) -> bool:
    """Whether some reading of `number` has all its values `among` those of a text."""
    return any(set(reading) <= among for reading in number.readings)
