"""Date augmentation: training pairs whose date is replaced by another, the same on both sides, written each
of the ways English writes one (`on May 23rd` / `le 23 mai` becomes `on the 5th of November` / `le 5 novembre`):
the corpus dates a day in 30 train pairs, and a model dropped the dates it had not seen (design.md: Dates).
"""

from __future__ import annotations

import calendar
import re

from attention_lab.data.calendar_facts import states_calendar_fact
from attention_lab.data.calendar_names import ENGLISH_MONTH_NAMES, FRENCH_MONTH_NAMES, MONTHS
from attention_lab.data.drawn_pairs import Rng, augmentation, pick

_DAY = r"(?:[1-9]|[12][0-9]|3[01])"
_ORDINAL = r"(?:st|nd|rd|th)"
# A day of a month in any of the `FORMS`, not `May 5.5`, `May 50` or `May 5:30`.
ENGLISH_DATE = re.compile(rf"""\b(?:
    (?P<month>{ENGLISH_MONTH_NAMES})\ (?P<day>{_DAY}){_ORDINAL}?
  | the\ (?P<day_of>{_DAY}){_ORDINAL}\ of\ (?P<month_of>{ENGLISH_MONTH_NAMES})
  | (?P<day_first>{_DAY}){_ORDINAL}?\ (?P<month_after>{ENGLISH_MONTH_NAMES})
)\b(?![.:,][0-9])""", re.VERBOSE)
FRENCH_DATE = re.compile(rf"\b(?P<day>1er|{_DAY}) (?P<month>{FRENCH_MONTH_NAMES})\b(?![.:,][0-9])", re.IGNORECASE)
ANY_MONTH = re.compile(rf"\b(?:{ENGLISH_MONTH_NAMES}|{FRENCH_MONTH_NAMES})\b", re.IGNORECASE)
MONTH_NUMBER = {name.lower(): number for number, pair in enumerate(MONTHS, 1) for name in pair}
# A month alone, which a date may stand in for: `in May` / `en mai` becomes `on May 5` / `le 5 mai`.
ENGLISH_IN_MONTH = re.compile(rf"\b(?P<preposition>[Ii]n) (?P<month>{ENGLISH_MONTH_NAMES})\b(?! [0-9])")
FRENCH_IN_MONTH = re.compile(rf"\b(?P<preposition>[Ee]n) (?P<month>{FRENCH_MONTH_NAMES})\b(?! [0-9])")
FORMS = ("{month} {day}", "{month} {day}{ordinal}", "the {day}{ordinal} of {month}", "{day} {month}",
         "{day}{ordinal} {month}")
# A verb of one event, past or to come (`I met Tom in October.`, `I'll see you in October.`): a month alone
# becomes a date only there, never where it is a period (`We have snow in January.`, `School begins in April.`).
_NOT_VERBS = r"(?:no|some|any|every)?thing|morning|evening|during|spring|ceiling|building|wedding|meeting|feeling"
EVENT = re.compile(r"\b(?:was|were|did|had|will|would|shall|wo|got|met|went|came|left|told|said|saw|took|gave|"
                   r"made|began|born)(?:n't)?\b|'ll\b|\bgoing to\b"
                   rf"|\b(?:am|is|are|'m|'re|'s)(?: \w+ly)? (?!(?:{_NOT_VERBS})\b)\w+ing\b"
                   r"|\b(?:(?i:i|you|he|she|it|we|they|that|this)|Tom|Mary|John|have|has|'ve) \w+ed\b")
YEAR_AFTER = re.compile(r"^, (?=[0-9]{4}\b)")  # `May 5, 1990`; British writes `5 May 1990`


def ordinal(day: int) -> str:
    """English's ordinal ending for `day`: 1st, 2nd, 3rd, 4th, 11th, 21st."""
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def days_in(month: int) -> int:
    """The days of `month` (1 to 12) in a leap year: February 29th is a day."""
    return calendar.monthrange(2024, month)[1]


def month_and_day(match: re.Match[str]) -> tuple[int, int]:
    """The (month, day) a match of `ENGLISH_DATE` or `FRENCH_DATE` names; day 0 for a month alone (`*_IN_MONTH`)."""
    found = [value for value in match.groupdict().values() if value]
    month = next(value for value in found if value.lower() in MONTH_NUMBER)
    day = next((value for value in found if value[0].isdigit()), "0")
    return MONTH_NUMBER[month.lower()], int(day.removesuffix("er"))


def dates(text: str) -> list[tuple[int, int]]:
    """The (month, day) of each date `text` writes, in English or in French."""
    return [month_and_day(match) for pattern in (ENGLISH_DATE, FRENCH_DATE) for match in pattern.finditer(text)]


def dated(source: str, target: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """The pair's one date on each side (`ENGLISH_DATE`, `FRENCH_DATE`: the same day) or else its month alone
    (`*_IN_MONTH`: the same month) where the English tells of one `EVENT`, when neither side names another month
    and the English states no fact of the calendar (data/calendar_facts.py); else None."""
    if len(ANY_MONTH.findall(source)) != 1 or len(ANY_MONTH.findall(target)) != 1 or states_calendar_fact(source):
        return None  # `in May and July`, `Christmas is December 25th.`
    for english_pattern, french_pattern in ((ENGLISH_DATE, FRENCH_DATE), (ENGLISH_IN_MONTH, FRENCH_IN_MONTH)):
        english, french = list(english_pattern.finditer(source)), list(french_pattern.finditer(target))
        if english or french:
            same = len(english) == len(french) == 1 and month_and_day(english[0]) == month_and_day(french[0])
            alone = english_pattern is ENGLISH_IN_MONTH
            return (english[0], french[0]) if same and (not alone or EVENT.search(source)) else None
    return None


def redated(source: str, target: str, rng: Rng) -> tuple[str, str, tuple[int, int]]:
    """The pair with its date or month (`dated`) replaced by a random day of a random month, in one of
    the `FORMS` drawn at random on the English side; and the new (month, day)."""
    english, french = dated(source, target)
    month = int(rng.integers(1, 13))
    day = int(rng.integers(1, days_in(month) + 1))
    form = pick(rng, FORMS)
    written = form.format(month=MONTHS[month - 1][0], day=day, ordinal=ordinal(day))
    french_date = f"{'1er' if day == 1 else day} {MONTHS[month - 1][1]}"  # French writes the first `1er`
    if "preposition" in english.groupdict():  # a month alone: `on` and `le` before the new date
        written = ("On " if english["preposition"][0] == "I" else "on ") + written
        french_date = ("Le " if french["preposition"][0] == "E" else "le ") + french_date
    after = source[english.end():] if form.startswith("{month}") else YEAR_AFTER.sub(" ", source[english.end():])
    return (source[: english.start()] + written + after,
            target[: french.start()] + french_date + target[french.end():], (month, day))


date_pairs = augmentation(53, applies=dated, rewrite=redated)
