"""Amounts written with a sign or symbol read with its name after the number, as the corpus writes them
(design.md; measured in docs/trust.md), singular after 1: a currency's sign before or after it (`$20`, `5 €`,
`$5-10`, `2m euros` as `20 dollars`, `5 euros`, `5-10 dollars`, `2 million euros`: the corpus names a currency
four times as often as it signs one) and a unit's symbol after it (`5 km`, `30°C`, `6 ft.` as `5 kilometers`,
`30 degrees Celsius`, `6 feet`: it names units and almost never writes a symbol). Only a symbol with one reading is
read: `10m` is metres, minutes or millions and `5 min` minutes or a minimum, so both are left as typed, for the
model to read in context, but for metres the sentence says (`50m deep`); an area or a volume is written as people
type it without raised digits (`20 m²` as `20 m2`, which the model copies). A sign or symbol is read only
against a number, not inside a word or an address, and the number keeps its digits for the number constraint.
A symbol is read as written (`5 M` is left), never after a currency sign (`$5m`, `2m euros` are millions: read
first), and not `5g` alone (the network); its abbreviation stop before a small letter is no end mark (`6 ft. tall`).
"""

from __future__ import annotations

import re
import unicodedata

from attention_lab.data.numbers import TYPED_NUMBER

# sign or symbol -> (name for 1, name otherwise). Read with their names, `mg`, `ml` and `mm` came back as garbled
# as typed, and `oz`, which the model carried as typed, garbled (`5 oz` as `5 ou moi`; docs/trust.md). `°F` read
# as `F` alone lost its scale (`350°F` as `350.°`), by name it comes back (`350 degrés Fahrenheit`).
CURRENCIES = {"$": ("dollar", "dollars"), "€": ("euro", "euros"), "£": ("pound", "pounds"), "¥": ("yen", "yen")}
UNITS = {
    "km/h": ("kilometer per hour", "kilometers per hour"), "kph": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"), "km": ("kilometer", "kilometers"), "kg": ("kilogram", "kilograms"),
    "cm": ("centimeter", "centimeters"), "g": ("gram", "grams"),
    "lbs": ("pound", "pounds"), "lb": ("pound", "pounds"), "ft": ("foot", "feet"),
    "°C": ("degree Celsius", "degrees Celsius"), "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"), "hrs": ("hour", "hours"), "hr": ("hour", "hours"), "mins": ("minute", "minutes"),
    "secs": ("second", "seconds"), "sec": ("second", "seconds"),
}
SHORT = {"m": " million", "M": " million", "bn": " billion"}
_SCALE = r"(?: (?i:hundred|thousand|million|billion|trillion)\b|m|M|bn)?"
AMOUNT = re.compile(
    rf"(?<![\w$€£¥/=?&#])(?P<sign>[$€£¥]) ?(?P<number>{TYPED_NUMBER}(?:-[$€£¥]?{TYPED_NUMBER})?)"
    rf"(?P<scale>{_SCALE})(?![\w$€£¥])"
    rf"|(?<![\w.,$€£¥/=?&#])(?P<number_first>{TYPED_NUMBER})(?:(?P<short>m|M|bn)? ?(?P<sign_after>[$€£¥])"
    rf"(?![\w$€£¥])|(?P<named>m|M|bn)(?= (?i:dollars|euros|pounds|yen)\b))")
# The ordinal indicator º is typed for a degree sign too (`100ºC`, once in the corpus).
_SYMBOLS = "|".join(re.escape(symbol).replace("°", "[°º]") for symbol in sorted(UNITS, key=len, reverse=True))
# Read by name (`square meters`), the model wrote `carrier` or `mars`; `m2` it copies, as the corpus's `H2O`.
RAISED = re.compile(r"(?<=[0-9])( ?(?:km|cm|m))([²³])(?![\w²³])")
# `m` alone is metres where a length is said after it: not `long`, which a film is too (`90m long`).
METRES = re.compile(rf"(?<![\w$€£¥.,/])(?P<number>{TYPED_NUMBER}) ?m(?= (?:high|wide|deep|tall|away)\b)")
MEASURE = re.compile(rf"(?<![\w$€£¥.,/])(?![0-9]g(?! of\b))(?P<number>{TYPED_NUMBER}) ?(?P<unit>{_SYMBOLS})"
                     r"(?![\w°º/-]|\.\w)(?:\.(?= [a-z]))?")


def named(number: str, names: tuple[str, str], scale: str = "") -> str:
    """`number` and its `scale` (` million`) followed by `names`' name for 1 or for any other amount."""
    one, many = names
    return f"{number}{scale} {one if number == '1' and not scale else many}"


def with_currency_names(sentence: str) -> str:
    """`sentence` with each amount's currency sign replaced by the currency's name after the amount
    (a range's after the range), and an amount's `m` or `bn` by its scale's name."""

    def read(match: re.Match) -> str:
        number = re.sub("[$€£¥]", "", match["number"] or match["number_first"])  # `$5-$10` is `5-10`
        scale = match["scale"] or match["short"] or match["named"] or ""
        scale = SHORT.get(scale, scale.lower())  # `$5 Million`, `£2m`: `5 million dollars`, `2 million pounds`
        if match["named"]:
            return f"{number}{scale}"  # `2m euros`: the name is there
        return named(number, CURRENCIES[match["sign"] or match["sign_after"]], scale)

    return AMOUNT.sub(read, sentence)


def with_unit_names(sentence: str) -> str:
    """`sentence` with each unit symbol after a number replaced by the unit's name."""
    sentence = RAISED.sub(lambda match: match[1] + unicodedata.normalize("NFKC", match[2]), sentence)
    sentence = MEASURE.sub(lambda match: named(match["number"], UNITS[match["unit"].replace("º", "°")]), sentence)
    return METRES.sub(lambda match: named(match["number"], ("meter", "meters")), sentence)
