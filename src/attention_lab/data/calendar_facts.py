"""Sentences that state a fact of the calendar itself, which an augmentation must not rewrite: a holiday's date
(`Christmas is December 25th.` became `Christmas is June 25th.`), the order of days or months (`Sunday is
followed by Monday.` became `Friday is followed by Tuesday.`), a day's or month's place (`the first month of the
year`), a month's length (`There are 31 days in December.`) or weather (`We have snow in January.`), a dated
event of history (`Sputnik was launched on October 4, 1957.`). The calendar, date and number augmentations
leave such pairs as they are: a pair kept is a pair lost, a pair rewritten a false fact taught.
"""

from __future__ import annotations

import re

from attention_lab.data.calendar_names import DAYS, ENGLISH_MONTH_NAMES

_ENGLISH_DAYS = "|".join(english for english, _ in DAYS)
DAY = re.compile(rf"\b(?:{_ENGLISH_DAYS})s?\b")
MONTH = re.compile(rf"\b(?:{ENGLISH_MONTH_NAMES})\b")
HOLIDAY = re.compile(r"\b(?:Christmas|Xmas|Easter|Halloween|Thanksgiving|New Year|Valentine's|Saint Patrick|"
                     r"St\.? Patrick|Independence Day|Fourth of July|Labou?r Day|Mother's Day|Father's Day|"
                     r"Memorial Day|Boxing Day|April Fool|Hanukkah|Ramadan|Bastille)", re.IGNORECASE)
# Words that relate two days or two months (`Sunday follows Saturday.`, `May comes after April.`).
ORDER = re.compile(r"\b(?:follow\w*|preced\w*|after|before|tomorrow|yesterday|today)\b", re.IGNORECASE)
_PLACE = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|last|middle"
# A named day's or month's place (`Sunday is the first day.`, `December is the last month.`, `the weekend`), and
# any day's, week's or month's (`the seventh day of the week`, named or not).
PLACE = re.compile(rf"\b(?:(?:{_PLACE}) (?:day|month|weekday)|of the (?:week|year|calendar)|week-?ends?)\b",
                   re.IGNORECASE)
CALENDAR_PLACE = re.compile(r"\b(?:day|week|month)s? of the (?:week|month|year|calendar)\b", re.IGNORECASE)
# What a month's name says of its days or its weather (`February has only 28 days`, `the coldest month`).
MONTH_NATURE = re.compile(r"\b(?:days|leap|cold|cool|warm|hot|heat|humid|snow|rain|freez|spring|summer|autumn|"
                          r"winter|season|blossom|bloom|harvest|weather|temperature|typhoon|monsoon|school year|"
                          r"academic year|fiscal year)(?:s|y|e|ed|er|est|es|ing|ier|iest)?\b", re.IGNORECASE)
YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
# The speaker, the listener or the corpus's made-up people (Tom, Mary, John, without a surname): their dates and
# years are no history (`I was born on April 3, 1950.`, `Tom graduated in 2013.`). `I` after a name inside a
# sentence is a numeral (`World War I`).
PERSONAL = re.compile(r"(?:^|^\w+\s+|[^\w\s]\s*|\b[a-z0-9]\w*\s+)I\b|\b(?i:me|my|we|us|our|you|your)\b"
                      r"|\b(?:Tom|Mary|John)\b(?! [A-Z])")


def tells_history(source: str) -> bool:
    """Whether the English `source` names a year (1000 to 2099) and none of the `PERSONAL` people: a dated event of
    history (`Columbus discovered America in 1492.`), each of whose numbers and calendar words is a fact."""
    return YEAR.search(source) is not None and PERSONAL.search(source) is None


def states_calendar_fact(source: str) -> bool:
    """Whether the English `source` states a fact of the calendar (see the module's doc) that a new day,
    month or number would make false."""
    days, months = DAY.findall(source), MONTH.findall(source)
    named = bool(days or months)
    return (HOLIDAY.search(source) is not None or CALENDAR_PLACE.search(source) is not None
            or (named and PLACE.search(source) is not None)
            or ((len(days) > 1 or len(months) > 1) and ORDER.search(source) is not None)
            or (bool(months) and MONTH_NATURE.search(source) is not None)
            or (named and tells_history(source)))
