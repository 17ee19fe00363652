"""The numbers of a text as values, for telling whether a translation kept its source's (inference/check.py).

A number in digits is read by the separators its language writes: English `100,000` and `9.99`, French `100 000`
and `9,99`; a translation may keep the English form, so French text is read either way, and where a form is
ambiguous (`1,500`: 1500 or 1,5) it has both readings. A scale after it is a reading too (`3 millions`, `10m`), the
only one of an English number whose scale is sure: a word, a capital or after a currency sign (`2.3 million`,
`1.2M`, `£45k`: `1,2 dollars` lost the million). A fraction typed as one character is read with the number before
it (`9¾` is 9.75). Digit groups typed apart that make no one number (`020 7946 0958`) are one number: a translation
keeps it only in one run of digits (`020 7946 à 0958` broke it). The 24-hour time of an afternoon's hour is the
only reading of an English one (`3:45pm` is 15 h 45; French may write `3 h 45 de l'après-midi`). Number words are
read as values, English (`twenty-one`, `both`) and French (`vingt et un`, `quatre-vingt-dix`, `onze heures`), except
where French writes the word for something else: `un`/`une` but in `vingt et un` or `un million` (an article),
`neuf` alone before no plural (`new`), `cent` after `pour` (percent).
"""

from __future__ import annotations

import re
import unicodedata
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
# `10m` may be metres or minutes, `5k` a race's kilometres: a scale is sure when it is not a small letter alone, or
# after a currency sign (`$5m`, `£45k`), and then the number's only reading.
_CURRENCY = re.compile(rf"[$€£¥][{_SPACES}]?$")
FRACTIONS = "¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
FRACTION = re.compile(rf"(?<![0-9])(?:(?P<whole>[0-9]+)[{_SPACES}]?)?(?P<fraction>[{FRACTIONS}])")
# Digit groups typed apart, six digits at least (`020 7946 0958`, `+44 20 7946 0958`), and a run of digits in a
# translation, with what may stand between its groups (`020.7946.0958`).
RUN = re.compile(rf"(?<![\w.,])[0-9]+(?:[{_SPACES}][0-9]+)+(?![\w]|[.,][0-9])")
WRITTEN_RUN = re.compile(rf"[0-9]+(?:[{_SPACES}./-][0-9]+)*")
RUN_DIGITS = 6
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
# English words that may stand for no exact number in a good translation: `les deux`, `quelques`, `des milliers`.
VAGUE = frozenset({"both", "couple", "dozen", "hundreds", "thousands", "millions", "billions"})
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
    whole: str = ""  # the digits of groups typed apart (`RUN`), which a translation must write in one run


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
    afternoon's hour read on the 24-hour clock (`2pm`: 14; `2 h de l'après-midi`: 2 and 14); a fraction with the
    number before it (`9¾`); in English, digit groups typed apart as one number (`RUN`)."""
    if language == "en":
        text = read_times(text)  # `at 10.30` is a time, 10 and 30, as the translator reads it (text/number_forms.py)
    afternoon = {match.start("hour") for match in AFTERNOON[language].finditer(text)}
    fractions = {match.start(): match for match in FRACTION.finditer(text)}
    runs = [match for match in RUN.finditer(text) if language == "en" and len(re.sub(r"\D", "", match.group())) >=
            RUN_DIGITS and all(len(reading) > 1 for reading in digit_readings(match.group(), language))]
    found = [(match.start(), Number(match.group(), (tuple(Decimal(g) for g in match.group().split()),),
                                    re.sub(r"\D", "", match.group()))) for match in runs]
    for match in DIGITS.finditer(text):
        if any(run.start() <= match.start() < run.end() for run in runs):
            continue
        readings, typed = digit_readings(match.group(), language), match.group()
        scale = SCALE.match(text, match.end())
        if scale:
            typed += scale.group()  # `1.2M`: the scale is the number's
            power = SCALES[scale["scale"].lower().removesuffix("s")]
            sure = language == "en" and (scale["scale"] not in "kmb" or _CURRENCY.search(text, 0, match.start()))
            readings = [(reading[0].scaleb(power),) for reading in readings if len(reading) == 1] + (
                [] if sure else readings)
        if match.start() in afternoon and int(match.group()) < 12:
            readings = [(Decimal(match.group()) + 12,)] + (readings if language == "fr" else [])
        if match.start() in fractions and fractions[match.start()]["whole"] == match.group():
            fraction = fractions.pop(match.start())
            part, typed = Decimal(str(unicodedata.numeric(fraction["fraction"]))), fraction.group()
            readings = [(reading[0] + part,) for reading in readings if len(reading) == 1]
        found.append((match.start(), Number(typed, tuple(readings))))
    found += [(start, Number(match["fraction"], ((Decimal(str(unicodedata.numeric(match["fraction"]))),),)))
              for start, match in fractions.items() if match["whole"] is None]
    return [number for _, number in sorted(found, key=lambda pair: pair[0])]


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
        before = lower[: match.start()]
        if language == "fr" and not french_number(words, before, lower[match.end() :]) or (
                all(w.removesuffix("s") in SCALES for w in words) and re.search(rf"[0-9][{_SPACES}]*$", before)):
            continue  # a scale after digits is read with them (`2.3 million`, `3 millions`)
        words = [w for w in words if w in values]
        readings = ((Decimal(_value(words)),), tuple(Decimal(_value([w])) for w in words))
        numbers.append(Number(text[match.start() : match.end()], tuple(dict.fromkeys(readings))))
    return numbers


def french_number(words: list[str], before: str, after: str) -> bool:
    """Whether the French run of number `words` between `before` and `after` is a number: not `neuf` meaning new
    (before no plural: `neuf ans` is nine years), nor percent's `cent`."""
    following = re.match(r"\s*([^\W\d_]+)", after)
    if words == ["neuf"] and not (following and following[1][-1] in "sx"):
        return False
    return not (words in (["cent"], ["cents"]) and re.search(r"\bpour\s*$", before))


def numbers(text: str, language: str) -> list[Number]:
    """Every number of `text` in `language` ("en", "fr"): in digits, then in words."""
    return digit_numbers(text, language) + word_numbers(text, language)


def values(found: list[Number]) -> set[Decimal]:
    """Every value some reading of `found` stands for."""
    return {value for number in found for reading in number.readings for value in reading}


def runs(text: str) -> set[str]:
    """The digits of each run of digits `text` writes (`WRITTEN_RUN`): where a number typed apart may be kept."""
    return {re.sub(r"\D", "", match.group()) for match in WRITTEN_RUN.finditer(text)}


def kept(number: Number, among: set[Decimal], written: set[str] = frozenset()) -> bool:
    """Whether some reading of `number` has all its values `among` those of a text; for digit groups typed apart,
    whether the text writes their digits in one of its runs (`written`, `runs`)."""
    if number.whole:
        return number.whole in written
    return any(set(reading) <= among for reading in number.readings)


def asked(number: Number) -> bool:
    """Whether a translation must write the value of `number`, an English one: in digits or a fraction, or in words
    for 2 at least, none of them `VAGUE` (`one` is as often an article or a pronoun: `one of them`)."""
    if not number.typed[0].isalpha():
        return True
    return number.readings[0][0] >= 2 and not VAGUE & set(re.findall(r"[a-z]+", number.typed.lower()))
