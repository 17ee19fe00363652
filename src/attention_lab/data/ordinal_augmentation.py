"""Ordinal augmentation: training pairs whose ordinal word is written in digits on both sides, as another
ordinal (`It's the second time.` / `C'est la deuxième fois.` becomes `It's the 14th time.` / `C'est la 14e
fois.`).

The corpus writes ordinals in words: 46 of its 150,318 English train lines have one in digits, nearly
all of them a date's day, and its French abbreviates one 13 times. A model learns `1st` and `4th` as the
day of a month and drops the others: `It's my 2nd time here.` came out as `C'est mon 2 temps, ici.`, and
`She finished 3rd in the race.` as `Elle a fini de 3 heures dans la course.` Pairs with other ordinals
in digits teach that English's `2nd` is French's `2e`, and `1st` `1er` or `1re` as the noun's gender
asks, the way French abbreviates them (text/number_forms.py writes the model's `4ième` so).

A pair qualifies when its English side names one ordinal (`first` to `twentieth`, the tens to
`ninetieth`, `hundredth`), after `the` or a possessive, and its French side the same one, in the
singular; neither side names a month (`the first of May` is a date: data/date_augmentation.py). There
are 315 in the train split, 253 of them `first`. A `premier` or `première` stays the first, in digits,
one time in four, or becomes another; any other stays at 2 or more, whose French form has no gender.
Made from text, before encoding, as the renamed pairs are.
"""

from __future__ import annotations

import re

from attention_lab.data.date_augmentation import ANY_MONTH, ordinal
from attention_lab.data.drawn_pairs import Rng, augmentation

_UNITS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
          "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
          "nineteenth")
_FRENCH_UNITS = ("deuxième", "troisième", "quatrième", "cinquième", "sixième", "septième", "huitième", "neuvième",
                 "dixième", "onzième", "douzième", "treizième", "quatorzième", "quinzième", "seizième", "dix-septième",
                 "dix-huitième", "dix-neuvième")
_TENS = (("twentieth", "vingtième"), ("thirtieth", "trentième"), ("fortieth", "quarantième"),
         ("fiftieth", "cinquantième"), ("sixtieth", "soixantième"), ("seventieth", "soixante-dixième"),
         ("eightieth", "quatre-vingtième"), ("ninetieth", "quatre-vingt-dixième"))
ENGLISH_VALUE = {**{word: value for value, word in enumerate(_UNITS, 1)},
                 **{english: 10 * tens for tens, (english, _) in enumerate(_TENS, 2)}, "hundredth": 100}
# French's gender shows in `premier` / `première`, and `second` / `seconde` may stand for `deuxième`.
FRENCH_VALUE = {"premier": 1, "première": 1, "second": 2, "seconde": 2,
                **{word: value for value, word in enumerate(_FRENCH_UNITS, 2)},
                **{french: 10 * tens for tens, (_, french) in enumerate(_TENS, 2)}, "centième": 100}
FEMININE_FIRST = "première"


def _words(words: dict[str, int]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))  # `dix-septième` before `septième`


ENGLISH_ANY = re.compile(rf"\b(?:{_words(ENGLISH_VALUE)})\b", re.IGNORECASE)
_DETERMINER = r"(?:the|my|your|his|her|its|our|their) "
ENGLISH_ORDINAL = re.compile(rf"\b(?P<before>{_DETERMINER})(?P<word>{_words(ENGLISH_VALUE)})\b", re.IGNORECASE)
# Not inside a compound (`vingt-deuxième`) nor a plural (`premiers`).
FRENCH_ORDINAL = re.compile(rf"(?<![\w-])(?P<word>{_words(FRENCH_VALUE)})(?![\w-])", re.IGNORECASE)


def ordinal_words(source: str, target: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """The pair's ordinal on each side (`ENGLISH_ORDINAL`, `FRENCH_ORDINAL`) when each side names one, the
    same, and no month; else None."""
    if ANY_MONTH.search(source) or ANY_MONTH.search(target) or len(ENGLISH_ANY.findall(source)) != 1:
        return None
    english, french = list(ENGLISH_ORDINAL.finditer(source)), list(FRENCH_ORDINAL.finditer(target))
    if len(english) != 1 or len(french) != 1:
        return None
    same = ENGLISH_VALUE[english[0]["word"].lower()] == FRENCH_VALUE[french[0]["word"].lower()]
    return (english[0], french[0]) if same else None


def french_ordinal(number: int, feminine: bool) -> str:
    """`number` as French abbreviates an ordinal: `1er`, `1re`, `2e`, `14e`."""
    return ("1re" if feminine else "1er") if number == 1 else f"{number}e"


def renumbered_ordinal(source: str, target: str, rng: Rng) -> tuple[str, str, int]:
    """The pair with its ordinal (`ordinal_words`) written in digits on both sides as another, drawn at
    random: a first stays 1 one time in four (the French word gives its gender); else 2 to 31 three times
    in four (every English ending: `2nd`, `3rd`, `11th`, `22nd`, `31st`), or 32 to 199. And the number."""
    english, french = ordinal_words(source, target)
    if FRENCH_VALUE[french["word"].lower()] == 1 and rng.random() < 0.25:
        number = 1
    else:
        number = int(rng.integers(2, 32)) if rng.random() < 0.75 else int(rng.integers(32, 200))
    written = f"{english['before']}{number}{ordinal(number)}"
    french_written = french_ordinal(number, french["word"].lower() == FEMININE_FIRST)
    return (source[: english.start()] + written + source[english.end():],
            target[: french.start()] + french_written + target[french.end():], number)


ordinal_pairs = augmentation(59, applies=ordinal_words, rewrite=renumbered_ordinal)
