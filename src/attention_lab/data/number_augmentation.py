"""Number-copying augmentation: training pairs whose numbers are replaced, the same on both sides, by random
numbers of the same shape (`It's 8:30.` / `Il est 8 h 30.` becomes `It's 5:47.` / `Il est 5 h 47.`): the corpus
has few numbers, always the same ones, and these pairs show a model that a number is copied, digit by digit
(the tokenizer splits digits: `train_tokenizer.subword.split_digits`; design.md: Numbers).
"""

from __future__ import annotations

import re

from attention_lab.data.date_augmentation import dates, days_in, ordinal
from attention_lab.data.drawn_pairs import Rng, augmentation
from attention_lab.data.numbers import digit_groups

# A time's hours (`8 o'clock`, `8 pm`; `8:30`, `8 h 30`, `8 heures`) and minutes, each with its largest value.
TIMES = ((re.compile(r"\b([0-9]{1,2})(?=(?::[0-9]{2})? ?(?:o'clock|[ap]\.?m\b))", re.IGNORECASE), 12),
         (re.compile(r"\b([0-9]{1,2})(?=:[0-9]{2}\b| ?h(?: ?[0-9]{2})?\b| heures?\b)"), 23),
         (re.compile(r"\b[0-9]{1,2}(?::| ?h ?)([0-9]{2})\b"), 59))
NUMBER = re.compile(r"([0-9]+)((?:st|nd|rd|th)\b)?")  # a digit group and its English ordinal ending, if any


def shared_groups(source: str, target: str) -> list[str]:
    """The digit groups (data/numbers.py) of `source` that `target` has too, in source order: replacing only
    those keeps the pair a translation (`3.50` / `3,50` becomes `7.14` / `7,14`; `2,000` / `deux mille` stays)."""
    target_groups = set(digit_groups(target))
    return [group for group in digit_groups(source) if group in target_groups]


def largest_values(source: str, target: str) -> dict[str, int]:
    """The largest value each digit group of the pair may take by its places: an hour, minutes, a day of a month."""
    text = f"{source}\n{target}"
    found = [(group, largest) for pattern, largest in TIMES for group in pattern.findall(text)]
    found += [(str(day), days_in(month)) for month, day in dates(text)]
    return dict(sorted(found, key=lambda place: -place[1]))  # the smallest of a group's limits comes last and wins


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
    (`largest_values`), an ordinal's ending following (`2nd` may become `3rd`); and the replacements, one-to-one."""
    limits = largest_values(source, target)
    taken, replacements = set(digit_groups(f"{source} {target}")), {}
    for group in shared_groups(source, target):  # a new group differs from every other group of the pair
        drawn = (random_like(group, rng, limits.get(group)) for _ in range(100))
        replacements[group] = next((new for new in drawn if new == group or new not in taken), group)
        taken.add(replacements[group])

    def replace(match: re.Match[str]) -> str:
        new = replacements.get(match[1], match[1])
        return new + (ordinal(int(new)) if match[2] else "")

    return NUMBER.sub(replace, source), NUMBER.sub(replace, target), replacements


number_pairs = augmentation(38, applies=shared_groups, rewrite=renumbered)
