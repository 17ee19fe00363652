"""Number-copying augmentation: training pairs whose numbers are replaced, the same on both sides, by random
numbers of the same shape (`It's 8:30.` / `Il est 8 h 30.` becomes `It's 5:47.` / `Il est 5 h 47.`): the corpus
has few numbers, always the same ones, and these pairs show a model that a number is copied, digit by digit
(the tokenizer splits digits: `train_tokenizer.subword.split_digits`; design.md: Numbers). A number takes only
values its place allows (an hour, a day of its month, a year near its own, a share of 100 at most), and one that
names a thing or states a fact stays (`H2O`, `24 hours a day`, `There are 31 days in December.`).
"""

from __future__ import annotations

import re

from attention_lab.data.calendar_facts import states_calendar_fact, tells_history
from attention_lab.data.date_augmentation import dates, days_in, ordinal
from attention_lab.data.drawn_pairs import Rng, augmentation
from attention_lab.data.numbers import digit_groups
from attention_lab.data.ordinal_augmentation import largest_ordinal

# A time's hours (`8 o'clock`, `8 pm`; `8:30`, `8 h 30`, `8 heures`) and minutes, each with its largest value.
TIMES = ((re.compile(r"\b([0-9]{1,2})(?=(?::[0-9]{2})? ?(?:o'clock|[ap]\.?m\b))", re.IGNORECASE), 12),
         (re.compile(r"\b([0-9]{1,2})(?=:[0-9]{2}\b| ?h(?: ?[0-9]{2})?\b| heures?\b)"), 23),
         (re.compile(r"\b[0-9]{1,2}(?::| ?h ?)([0-9]{2})\b"), 59))
NUMBER = re.compile(r"([0-9]+)((?:st|nd|rd|th)\b)?")  # a digit group and its English ordinal ending, if any
ORDINAL = re.compile(r"\b([0-9]+)(?:st|nd|rd|th)\b")
PERCENT = re.compile(r"\b([0-9]+)(?= ?%| ?(?:percent|per cent|pour ?cent)\b)", re.IGNORECASE)
# A group right after a letter, or a letter and a hyphen, is part of a name: `H2O`, `MP3`, `PG-13`, `Plutonium-244`.
IN_NAME = re.compile(r"(?:(?<=[A-Za-z])|(?<=[A-Za-z]-))([0-9]+)")
# How many of a unit a larger one holds: `8 hours a day` stays at most 24, and `24 hours a day`, the whole, stays.
PER = {("hour", "day"): 24, ("minute", "hour"): 60, ("second", "minute"): 60, ("day", "week"): 7, ("day", "month"): 31,
       ("day", "year"): 366, ("week", "year"): 52, ("month", "year"): 12}
RATE = re.compile(r"\b([0-9]+) (second|minute|hour|day|week|month)s? (?:a|an|per|each|every) "
                  r"(minute|hour|day|week|month|year)\b")
# The corpus's present: the latest year its train pairs tell of as past (`in September of 2015`; its one later
# year is to come: `By the year 2020, the population of this city will have doubled.`). A year of someone's life
# (history's stay: `kept_groups`) moves at most YEAR_SPAN years and stays on its side of the present: a past
# event stays past, one to come stays ahead.
PRESENT, YEAR_SPAN = 2015, 25
YEAR = re.compile(r"[1-9][0-9]{3}")  # any four digits not led by 0 may be a year: moved as one, it stays near


def kept_groups(source: str, target: str) -> set[str]:
    """The digit groups of the pair that name a thing or state a fact, which another number would make false:
    part of a name (`IN_NAME`), a whole (`RATE`: `24 hours a day`), an ordinal that dates no day before a noun of
    no known range (`They finished 13th.`: data/ordinal_augmentation.py); every group of a pair telling history
    (`World War I broke out in 1914.`) or stating a fact of the calendar (`Christmas is December 25th.`: both
    data/calendar_facts.py)."""
    if tells_history(source) or states_calendar_fact(source):
        return set(digit_groups(source))
    days = {str(day) for _, day in dates(f"{source}\n{target}")}
    return (set(IN_NAME.findall(source))
            | {match[1] for match in RATE.finditer(source) if int(match[1]) == PER.get((match[2], match[3]))}
            | {match[1] for match in ORDINAL.finditer(source)
               if match[1] not in days and largest_ordinal(source[match.end():]) is None})


def shared_groups(source: str, target: str) -> list[str]:
    """The digit groups (data/numbers.py) of `source` that `target` has too, in source order, but the
    `kept_groups`: replacing only those keeps the pair a translation (`3.50` / `3,50` becomes `7.14` / `7,14`;
    `2,000` / `deux mille` stays) and its facts true."""
    target_groups = set(digit_groups(target))
    shared = [group for group in digit_groups(source) if group in target_groups]
    kept = kept_groups(source, target) if shared else set()  # most pairs have no number: their facts are not read
    return [group for group in shared if group not in kept]


def largest_values(source: str, target: str) -> dict[str, int]:
    """The largest value each digit group of the pair may take by its places: an hour, minutes, a day of a month,
    a share of 100 that was one (`99%`), a part of a whole (`RATE`), an ordinal by its noun (`the 21st century`)."""
    text = f"{source}\n{target}"
    found = [(group, largest) for pattern, largest in TIMES for group in pattern.findall(text)]
    found += [(str(day), days_in(month)) for month, day in dates(text)]
    found += [(group, 100) for group in PERCENT.findall(text) if int(group) <= 100]
    found += [(match[1], PER[match[2], match[3]]) for match in RATE.finditer(source) if (match[2], match[3]) in PER]
    found += [(match[1], largest) for match in ORDINAL.finditer(source)
              if (largest := largest_ordinal(source[match.end():])) is not None]
    return dict(sorted(found, key=lambda place: -place[1]))  # the smallest of a group's limits comes last and wins


def year_offset(years: list[int], rng: Rng) -> int:
    """One shift for all of a pair's `years`, which keeps their order and spans (`from 1939 to 1945`), drawn at
    random: at most `YEAR_SPAN` either way, none crossing `PRESENT` nor leaving four digits; 0 only if no other."""
    low = max(-YEAR_SPAN, *(PRESENT + 1 - year for year in years if year > PRESENT), *(1000 - year for year in years))
    high = min(YEAR_SPAN, *(PRESENT - year for year in years if year <= PRESENT), *(9999 - year for year in years))
    if low == high:  # both 0: each year is where it must stay
        return 0
    offset = int(rng.integers(low, high))  # low to high - 1, then 0 skipped: low to high but 0
    return offset + (offset >= 0)


def random_like(group: str, rng: Rng, largest: int | None = None) -> str:
    """A random digit group of `group`'s length, starting with 0 only if `group` does, at most `largest` when
    given (which must leave a choice of that length). `0` and `1` stay, and no other becomes one, so the noun
    after them keeps its number (`1 brother` / `1 frère`; French counts 0 in the singular too)."""
    if group in ("0", "1"):
        return group
    digits = len(group)
    low = 0 if group.startswith("0") else max(2, 10 ** (digits - 1))
    high = 10**digits - 1 if largest is None else min(10**digits - 1, largest)
    return str(int(rng.integers(low, high + 1))).zfill(digits)


def renumbered(source: str, target: str, rng: Rng) -> tuple[str, str, dict[str, str]]:
    """The pair with each of its `shared_groups` replaced alike by a `random_like` one its places allow
    (`largest_values`), its years (`YEAR`) shifted together (`year_offset`), an ordinal's ending following (`2nd`
    may become `3rd`); and the replacements, one-to-one."""
    limits, groups = largest_values(source, target), shared_groups(source, target)
    taken = set(digit_groups(f"{source} {target}"))
    years = [group for group in groups if YEAR.fullmatch(group)]
    others = taken - set(years)  # a new group differs from every other group of the pair
    offsets = (year_offset([int(year) for year in years], rng) for _ in range(100 if years else 0))
    offset = next((offset for offset in offsets if not {str(int(year) + offset) for year in years} & others), 0)
    replacements = {year: str(int(year) + offset) for year in years}
    taken |= set(replacements.values())
    for group in groups:
        if group in replacements:
            continue
        drawn = (random_like(group, rng, limits.get(group)) for _ in range(100))
        replacements[group] = next((new for new in drawn if new == group or new not in taken), group)
        taken.add(replacements[group])

    def replace(match: re.Match[str]) -> str:
        new = replacements.get(match[1], match[1])
        return new + (ordinal(int(new)) if match[2] else "")

    return NUMBER.sub(replace, source), NUMBER.sub(replace, target), replacements


number_pairs = augmentation(38, applies=shared_groups, rewrite=renumbered)
