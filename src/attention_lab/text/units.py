"""Units written as symbols after a number (`5 km`, `2kg`, `30°C`, `6 ft.`) read with their names (`5
kilometers`), as the corpus writes them: it names units and almost never writes a symbol, and the model
dropped the unit or the words around it (`1.5 kg of apples` came back as `1,5.`). A symbol is read only
against a number, as written (`5 M` is left), never after a currency sign (`$5m`, `2m euros` are millions:
text/currency.py reads them first), and not `5g` alone (the network). A unit's abbreviation stop before a
small letter is no end mark (`6 ft. tall` is `6 feet tall`).
"""

from __future__ import annotations

import re

from attention_lab.data.numbers import TYPED_NUMBER

# symbol -> (name for 1, name otherwise). Read with their names, `mg`, `ml` and `mm` came back as garbled as
# typed, and `oz` and `°F`, which the model carried as typed, garbled (`5 oz` as `5 ou moi`; docs/trust.md).
NAMES = {
    "km/h": ("kilometer per hour", "kilometers per hour"), "kph": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"), "km": ("kilometer", "kilometers"), "kg": ("kilogram", "kilograms"),
    "cm": ("centimeter", "centimeters"), "m": ("meter", "meters"), "g": ("gram", "grams"),
    "lbs": ("pound", "pounds"), "lb": ("pound", "pounds"), "ft": ("foot", "feet"),
    "°C": ("degree Celsius", "degrees Celsius"), "°": ("degree", "degrees"),
    "hrs": ("hour", "hours"), "hr": ("hour", "hours"), "mins": ("minute", "minutes"), "min": ("minute", "minutes"),
    "secs": ("second", "seconds"), "sec": ("second", "seconds"),
}
# The ordinal indicator º is typed for a degree sign too (`100ºC`, once in the corpus).
_SYMBOLS = "|".join(re.escape(symbol).replace("°", "[°º]") for symbol in sorted(NAMES, key=len, reverse=True))
MEASURE = re.compile(rf"(?<![\w$€£¥.,/])(?![0-9]g(?! of\b))(?P<number>{TYPED_NUMBER}) ?(?P<unit>{_SYMBOLS})"
                     r"(?![\w°º/-]|\.\w)(?:\.(?= [a-z]))?")


def with_unit_names(sentence: str) -> str:
    """`sentence` with each unit symbol after a number replaced by the unit's name."""

    def named(match: re.Match) -> str:
        one, many = NAMES[match["unit"].replace("º", "°")]
        return f"{match['number']} {one if match['number'] == '1' else many}"

    return MEASURE.sub(named, sentence)
