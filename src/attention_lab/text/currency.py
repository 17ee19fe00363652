"""Amounts written with a currency sign (`$20`, `€5`, `5 €`) read as the corpus writes them, with the
currency's name (`20 dollars`). The English side of the corpus names the currency four times as often
as it signs it (162 lines with `dollar` or `dollars`, 41 with `$`, one with `€`, none with `£`), so the
model drops a sign or garbles it: `I paid $20 for this shirt.` came back as `J'ai payé 20 pour cette
chemise.` and `It costs 5 €.` as `Ça coûte 5 à l'estomac.`, while `20 dollars` and `5 euros` come back
right. Measured in docs/trust.md.

A sign is read only against a number, before it (`$20`, `$ 20`, `$5 million`, `$5-10`) or after it (`5€`,
`5 €`), and not inside a word or an address (`US$5`, `example.com/?p=$5` are left as written). A range
takes the name once, after it (`$5-10`, `$5-$10`: `5-10 dollars`, which `5 dollars-10` was not). An
amount's `m` or `bn` (`£2m`, `2m euros`, `$3bn`) is its scale, as the press writes it, not a unit
(text/units.py read `2m euros` as `2 meters euros`). The number keeps its digits, so the number
constraint (inference/number_constraint.py) still copies them. The sentence is cleaned first
(data/cleaning.py): a no-break space before `€` is a space.
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
