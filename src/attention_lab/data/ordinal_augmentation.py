"""Ordinal augmentation: training pairs whose ordinal word is written in digits on both sides, as another
(`It's the second time.` / `C'est la deuxième fois.` becomes `It's the 14th time.` / `C'est la 14e fois.`): the
corpus writes ordinals in words, and these pairs teach that `2nd` is `2e`, and `1st` `1er` or `1re` as the noun's
gender asks (design.md: Ordinals; text/number_forms.py writes the model's `4ième` so).
"""

from __future__ import annotations

import re

from attention_lab.data.calendar_facts import states_calendar_fact
from attention_lab.data.date_augmentation import ANY_MONTH, ordinal
from attention_lab.data.drawn_pairs import Rng, augmentation

_VALUES = (*range(1, 20), *range(20, 100, 10), 100)  # first to nineteenth, the tens to ninetieth, hundredth
_ENGLISH = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
            "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth fiftieth sixtieth "
            "seventieth eightieth ninetieth hundredth")
_FRENCH = ("deuxième troisième quatrième cinquième sixième septième huitième neuvième dixième onzième douzième "
           "treizième quatorzième quinzième seizième dix-septième dix-huitième dix-neuvième vingtième trentième "
           "quarantième cinquantième soixantième soixante-dixième quatre-vingtième quatre-vingt-dixième centième")
ENGLISH_VALUE = dict(zip(_ENGLISH.split(), _VALUES, strict=True))
# French's gender shows in `premier` / `première`, and `second` / `seconde` may stand for `deuxième`.
FRENCH_VALUE = {"premier": 1, "première": 1, "second": 2, "seconde": 2,
                **dict(zip(_FRENCH.split(), _VALUES[1:], strict=True))}
_ENGLISH_WORDS, _FRENCH_WORDS = ("|".join(sorted(values, key=len, reverse=True))  # `dix-septième` before `septième`
                                 for values in (ENGLISH_VALUE, FRENCH_VALUE))
ENGLISH_ANY = re.compile(rf"\b(?:{_ENGLISH_WORDS})\b", re.IGNORECASE)
_DETERMINER = r"(?:the|my|your|his|her|its|our|their) "
ENGLISH_ORDINAL = re.compile(rf"\b(?P<before>{_DETERMINER})(?P<word>{_ENGLISH_WORDS})\b", re.IGNORECASE)
# Not inside a compound (`vingt-deuxième`) nor a plural (`premiers`).
FRENCH_ORDINAL = re.compile(rf"(?<![\w-])(?P<word>{_FRENCH_WORDS})(?![\w-])", re.IGNORECASE)
# The largest ordinal the noun after it takes (`the 4th quarter`, `the 21st century`, `my 9th husband`). A noun not
# here, or none, keeps its ordinal: a record (`the first man to cross the Pacific`), a rank (`the second largest
# city`), a name (`the Second World War`) or an idiom (`in the first place`) would turn false. So does a place in
# a whole (`the first word of a sentence`, `the twentieth week of pregnancy`), whose size the noun does not say.
_LARGEST = {2: "half", 4: "quarter", 9: "husband wife marriage boyfriend girlfriend boss love child son daughter prize",
            12: "month grade year", 21: "century", 52: "week", 100: "floor birthday anniversary wedding row lesson chapter",
            199: "time day night trip train flight voyage concert kiss date encounter step round try attempt guess shot "
                 "punch stage class page street corner light traffic paycheck investigation conference piece song car "
                 "edition impression word thing game match visit question job book episode movie album"}
ORDINAL_LARGEST = {noun: largest for largest, nouns in _LARGEST.items() for noun in nouns.split()}
NOUN_AFTER = re.compile(r" ([a-z]+)\b(?! of\b)")


def largest_ordinal(after: str) -> int | None:
    """The largest ordinal the noun opening `after` (what follows the ordinal: ` quarter.`) takes
    (`ORDINAL_LARGEST`); None for a noun not listed, none, or one before `of`."""
    noun = NOUN_AFTER.match(after)
    return ORDINAL_LARGEST.get(noun[1]) if noun else None


def ordinal_words(source: str, target: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """The pair's ordinal on each side (`ENGLISH_ORDINAL`, after `the` or a possessive; `FRENCH_ORDINAL`, in
    the singular) when each side names one, the same, before a noun of `ORDINAL_LARGEST`, and no month (`the
    first of May` is a date: data/date_augmentation.py) nor fact of the calendar (`the first day of the week`);
    else None. 315 train pairs have one, 253 of them `first`."""
    english, french = list(ENGLISH_ORDINAL.finditer(source)), list(FRENCH_ORDINAL.finditer(target))
    if (len(english) != 1 or len(french) != 1 or len(ENGLISH_ANY.findall(source)) != 1
            or ANY_MONTH.search(source) or ANY_MONTH.search(target) or states_calendar_fact(source)
            or largest_ordinal(source[english[0].end():]) is None):
        return None
    same = ENGLISH_VALUE[english[0]["word"].lower()] == FRENCH_VALUE[french[0]["word"].lower()]
    return (english[0], french[0]) if same else None


def french_ordinal(number: int, feminine: bool) -> str:
    """`number` as French abbreviates an ordinal: `1er`, `1re`, `2e`, `14e`."""
    return ("1re" if feminine else "1er") if number == 1 else f"{number}e"


def renumbered_ordinal(source: str, target: str, rng: Rng) -> tuple[str, str, int]:
    """The pair with its ordinal (`ordinal_words`) written in digits on both sides as another, drawn at
    random up to the `largest_ordinal` of its noun: a first stays 1 one time in four (the French word gives its
    gender); else 2 to 31 three times in four (every English ending: `2nd`, `3rd`, `11th`, `22nd`, `31st`), or
    32 to 199. And the number."""
    english, french = ordinal_words(source, target)
    largest = largest_ordinal(source[english.end():])
    number = (1 if FRENCH_VALUE[french["word"].lower()] == 1 and rng.random() < 0.25
              else int(rng.integers(2, min(31, largest) + 1)) if rng.random() < 0.75 or largest < 32
              else int(rng.integers(32, largest + 1)))
    in_french = french_ordinal(number, french["word"].lower() == "première")
    return (source[: english.start()] + f"{english['before']}{number}{ordinal(number)}" + source[english.end():],
            target[: french.start()] + in_french + target[french.end():], number)


ordinal_pairs = augmentation(59, applies=ordinal_words, rewrite=renumbered_ordinal)
