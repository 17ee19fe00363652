"""Amounts written with a currency sign (`$20`, `5 €`, `$5-10`, `2m euros`) read with the currency's name, as
the corpus writes them (`20 dollars`, `5-10 dollars`, `2 million euros`): it names a currency four times as
often as it signs one, and the model dropped or garbled signs (`It costs 5 €.` came back as `Ça coûte 5 à
l'estomac.`). A sign is read only against a number, not inside a word or an address; the number keeps its
digits for the number constraint.
"""

from __future__ import annotations

import re

from attention_lab.data.numbers import TYPED_NUMBER

NAMES = {"$": ("dollar", "dollars"), "€": ("euro", "euros"), "£": ("pound", "pounds"), "¥": ("yen", "yen")}
SHORT = {"m": " million", "M": " million", "bn": " billion"}
_SCALE = r"(?: (?i:hundred|thousand|million|billion|trillion)\b|m|M|bn)?"
AMOUNT = re.compile(
    rf"(?<![\w$€£¥/=?&#])(?P<sign>[$€£¥]) ?(?P<number>{TYPED_NUMBER}(?:-[$€£¥]?{TYPED_NUMBER})?)"
    rf"(?P<scale>{_SCALE})(?![\w$€£¥])"
    rf"|(?<![\w.,$€£¥/=?&#])(?P<number_first>{TYPED_NUMBER})(?:(?P<short>m|M|bn)? ?(?P<sign_after>[$€£¥])"
    rf"(?![\w$€£¥])|(?P<named>m|M|bn)(?= (?i:dollars|euros|pounds|yen)\b))")


def with_currency_names(sentence: str) -> str:
    """`sentence` with each amount's currency sign replaced by the currency's name after the amount
    (a range's after the range), and an amount's `m` or `bn` by its scale's name."""

    def named(match: re.Match) -> str:
        number = re.sub("[$€£¥]", "", match["number"] or match["number_first"])  # `$5-$10` is `5-10`
        scale = match["scale"] or match["short"] or match["named"] or ""
        scale = SHORT.get(scale, scale.lower())  # `$5 Million`, `£2m`: `5 million dollars`, `2 million pounds`
        if match["named"]:
            return f"{number}{scale}"  # `2m euros`: the name is there
        one, many = NAMES[match["sign"] or match["sign_after"]]
        return f"{number}{scale} {one if number == '1' and not scale else many}"

    return AMOUNT.sub(named, sentence)
