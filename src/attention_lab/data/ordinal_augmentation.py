"""Ordinal augmentation: training pairs whose ordinal word is written in digits on both sides, as another
(`It's the second time.` / `C'est la deuxième fois.` becomes `It's the 14th time.` / `C'est la 14e fois.`): the
corpus writes ordinals in words, and these pairs teach that `2nd` is `2e`, and `1st` `1er` or `1re` as the noun's
gender asks (design.md: Ordinals; text/number_forms.py writes the model's `4ième` so).
"""

from __future__ import annotations

import re

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


def ordinal_words(source: str, target: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """The pair's ordinal on each side (`ENGLISH_ORDINAL`, after `the` or a possessive; `FRENCH_ORDINAL`, in
    the singular) when each side names one, the same, and no month (`the first of May` is a date:
    data/date_augmentation.py); else None. 315 train pairs have one, 253 of them `first`."""
    english, french = list(ENGLISH_ORDINAL.finditer(source)), list(FRENCH_ORDINAL.finditer(target))
    if (len(english) != 1 or len(french) != 1 or len(ENGLISH_ANY.findall(source)) != 1
            or ANY_MONTH.search(source) or ANY_MONTH.search(target)):
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
    number = (1 if FRENCH_VALUE[french["word"].lower()] == 1 and rng.random() < 0.25
              else int(rng.integers(2, 32)) if rng.random() < 0.75 else int(rng.integers(32, 200)))
    in_french = french_ordinal(number, french["word"].lower() == "première")
    return (source[: english.start()] + f"{english['before']}{number}{ordinal(number)}" + source[english.end():],
            target[: french.start()] + in_french + target[french.end():], number)


ordinal_pairs = augmentation(59, applies=ordinal_words, rewrite=renumbered_ordinal)
