"""Units and currencies typed beside a number, for the check after writing (inference/check.py): the amounts of a
source whose unit the French does not name (`2.4 kg` written `2,4`, `£12` written `12 dollars`, `250 ml` written
`250 m'ampli`).

The signs and symbols are the reading's (text/amounts.py: `CURRENCIES`, `UNITS`) and those it leaves as typed (`ml`,
`mm`, `mg`, `min`, `h`, `%`), and units typed as words (`2 litres`, `3 tbsp`: `WORDS`); `m` alone (metres, minutes or
millions) is named by a word for any of them, and hours and minutes (`1h 30m`: `DURATION`) as French writes them
(`1 h 30`). A unit is named by its sign (`1,2 M$`) or by the symbol as typed or a word for it apart from
other letters (`FRENCH`: `kg`, `kilo`, `kilogramme`; `£`, `livre`), anywhere in the line: French may name it once
for two amounts (`12 ou 6 livres`).
"""

from __future__ import annotations

import re

from attention_lab.data.numbers import TYPED_NUMBER
from attention_lab.text.amounts import CURRENCIES, UNITS

_HOUR, _MINUTE, _SECOND = r"h|hrs?|heures?", r"min|minutes?", r"s|sec|secondes?"
_PER_HOUR = r"(?:\s?/\s?|\s(?:à l'|par\s))h(?:eure)?"
# symbol -> its French forms, a regular expression
FRENCH = {
    "$": r"\$|dollars?|USD", "€": r"€|euros?|EUR", "£": r"£|livres?|GBP|sterling", "¥": r"¥|yens?|yuans?|JPY",
    "km/h": rf"km{_PER_HOUR}|kilomètres?{_PER_HOUR}", "kph": rf"km{_PER_HOUR}|kilomètres?{_PER_HOUR}",
    "mph": rf"mph|miles?{_PER_HOUR}", "km": r"km|kilomètres?", "kg": r"kg|kilos?|kilogrammes?",
    "cm": r"cm|centimètres?", "g": r"g|gr|grammes?", "lbs": r"lbs?|livres?", "lb": r"lbs?|livres?",
    "ft": r"ft|pieds?", "°C": r"°C?|degrés?|Celsius", "°F": r"°F|Fahrenheit", "°": r"°|degrés?",
    "hrs": _HOUR, "hr": _HOUR, "h": _HOUR, "mins": _MINUTE, "min": _MINUTE, "secs": _SECOND, "sec": _SECOND,
    "ml": r"ml|millilitres?", "mm": r"mm|millimètres?", "mg": r"mg|milligrammes?", "%": r"%|pour\s?cent|pourcent",
    # `m` alone is metres, minutes or millions (the reading leaves it as typed): named by a word for any of them
    "m": r"m|mètres?|min|minutes?|millions?|M",
}
# Hours and minutes (`1h 30m`), which French writes `1 h 30`: a number of hours followed by the minutes', not hours.
DURATION = re.compile(r"(?<![\w.,])[0-9]+ ?h ?[0-9]{1,2} ?m(?:ins?)?(?![^\W\d_])")
_DURATION_FRENCH = re.compile(rf"[0-9]+\s?(?:{_HOUR})\s?(?:et\s)?[0-9]{{1,2}}(?![0-9]|\s?(?:{_HOUR})\b)", re.IGNORECASE)
# Units typed as words or their short forms after a number (`2 litres`, `3 tbsp`, `1-2 hours`), which the reading
# leaves to the model: English, as a regular expression -> its French forms. Not `m` or `t` alone, nor `pounds`
# (a weight or money: `£` above), nor `minutes` in `minutes away` (spelt in French as `à 5 minutes`, it is named).
WORDS = {
    r"lit(?:re|er)s?": r"litres?|l", r"cups?": r"tasses?", r"tbsp|tablespoons?": r"cuill[eè]res? à soupe|c\. à s",
    r"tsp|teaspoons?": r"cuill[eè]res? à café|c\. à c", r"oz|ounces?": r"oz|onces?", r"psi": r"psi|bars?",
    r"hours?": _HOUR, r"minutes?": _MINUTE, r"seconds?": _SECOND, r"days?": r"jours?|journées?",
    r"weeks?": r"semaines?", r"months?": r"mois", r"years?": r"ans?|années?", r"met(?:re|er)s": r"m|mètres?",
    r"kilomet(?:re|er)s?": r"km|kilomètres?", r"miles?": r"miles?", r"inch(?:es)?": r"pouces?|po",
    r"feet|foot": r"pieds?|ft", r"tonnes?|tons?": r"tonnes?|t", r"grams?|grammes?": r"g|grammes?",
    r"kilo(?:gram)?s?": r"kg|kilos?|kilogrammes?", r"percent|per cent": r"%|pour\s?cent|pourcent",
}
_WORD_AMOUNTS = [(re.compile(rf"(?<![\w.,-])(?:{TYPED_NUMBER}[-–])?{TYPED_NUMBER} (?i:{english})\b"), french)
                 for english, french in WORDS.items()]  # a range too: `8-10 minutes`
_AFTER = "|".join(re.escape(unit) for unit in sorted(set(FRENCH) - set(CURRENCIES), key=len, reverse=True))
_SIGNS = re.escape("".join(CURRENCIES))
AMOUNTS = re.compile(rf"(?<![\w{_SIGNS}])(?P<sign>[{_SIGNS}]) ?{TYPED_NUMBER}"
                     rf"|(?<![\w.,]){TYPED_NUMBER}(?: ?(?P<sign_after>[{_SIGNS}])|"
                     rf" ?(?P<unit>{_AFTER.replace('°', '[°º]')}))(?![^\W\d_]|[°º/]|\.[^\W\d_])")
# A form stands apart from letters, elided or not (`d'euros`), and is no elided word itself (the `s` of `s'il`).
_APART = r"(?<![^\W\d_])(?:{})(?![^\W\d_]|['’])"

assert set(CURRENCIES) | set(UNITS) <= set(FRENCH), "a sign or symbol the reading names has no French form"


def missing_units(source: str, output: str) -> tuple[str, ...]:
    """The amounts of the English `source` (as typed: `2.4 kg`, `£12`) whose unit `output`, its French, does not
    name, each once."""
    found = []  # (start, amount) in the source's order
    durations = [match.span() for match in DURATION.finditer(source)]
    if durations and not _DURATION_FRENCH.search(output):
        found += [(start, source[start:end]) for start, end in durations]
    for match in AMOUNTS.finditer(source):
        if any(start <= match.start() < end for start, end in durations):
            continue
        unit = (match["sign"] or match["sign_after"] or match["unit"]).replace("º", "°")
        signed = not unit[0].isalpha() and unit in output  # a sign, wherever it stands (`1,2 M$`)
        if not signed and not re.search(_APART.format(f"{re.escape(unit)}|{FRENCH[unit]}"), output, re.IGNORECASE):
            found.append((match.start(), match.group()))
    for words, french in _WORD_AMOUNTS:
        typed = [(match.start(), match.group()) for match in words.finditer(source)]
        if typed and not re.search(_APART.format(french), output, re.IGNORECASE):  # the French read only if asked
            found += typed
    return tuple(dict.fromkeys(amount for _, amount in sorted(found)))
