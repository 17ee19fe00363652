"""Number-copying augmentation: training pairs whose numbers are replaced, the same on both sides, by
random numbers of the same shape.

The corpus has few numbers (about 1,100 of its 167,000 lines have a digit), always the same ones
(`2:30`, `30 years`, `1980`), so a model learns them as words and writes `122` for `12` or `cent` for
`2011`. Pairs with other numbers in the same places show it that a number is copied, digit by digit
(the tokenizer splits digits: `train_tokenizer.subword.split_digits`).

A digit group (data/numbers.py) is replaced when it appears on both sides, so the pair stays a
translation: `It's 8:30.` / `Il est 8 h 30.` can become `It's 5:47.` / `Il est 5 h 47.`, and `3.50` /
`3,50` becomes `7.14` / `7,14`; a group one side writes in words (`2,000` / `deux mille`) stays.
The new group has the same number of digits and no leading zero unless it had one (`000` of `1,000`
may become `407`); the hours and minutes of a time (`8:30`) stay a time (hours to 23, minutes to 59).

Made from text, before encoding: the same tokenizer then reads them as it reads every other pair.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from attention_lab.data.drawn_pairs import TextPair, drawn_pairs
from attention_lab.data.numbers import DIGIT_GROUP, digit_groups
NUMBERS_STREAM = 38  # with the seed, this augmentation's random stream
TIME = re.compile(r"(?<![0-9])([0-9]{1,2}):([0-9]{2})(?![0-9])")  # 8:30, 10:45 in English


def shared_groups(source: str, target: str) -> list[str]:
    """The digit groups of `source` that `target` has too, in source order."""
    target_groups = set(digit_groups(target))
    return [group for group in digit_groups(source) if group in target_groups]


def random_like(group: str, rng: np.random.Generator, largest: int | None = None) -> str:
    """A random digit group of `group`'s length, starting with 0 only if `group` does, at most
    `largest` when given (which must leave a choice of that length)."""
    digits = len(group)
    low = 0 if group.startswith("0") else 10 ** (digits - 1)
    high = 10**digits - 1 if largest is None else min(10**digits - 1, largest)
    return str(int(rng.integers(low, high + 1))).zfill(digits)


def time_limits(source: str) -> dict[str, int]:
    """The largest value each group of a time in `source` may take: 23 for its hours, 59 for its minutes."""
    limits: dict[str, int] = {}
    for hours, minutes in TIME.findall(source):
        limits[hours], limits[minutes] = min(limits.get(hours, 23), 23), 59
    return limits


def renumbered(source: str, target: str, rng: np.random.Generator) -> tuple[str, str, dict[str, str]]:
    """The pair with each digit group it shares replaced by a new one, the same on both sides, and
    the replacements made (old group -> new group; one-to-one, so they can be undone)."""
    limits = time_limits(source)
    replacements: dict[str, str] = {}
    for group in shared_groups(source, target):
        for _ in range(100):  # a new group differs from every other group of the pair: no two merge
            new = random_like(group, rng, limits.get(group))
            if new not in replacements.values() and (new == group or new not in digit_groups(source + " " + target)):
                replacements[group] = new
                break
        else:
            replacements[group] = group

    def replace(text: str) -> str:
        return DIGIT_GROUP.sub(lambda match: replacements.get(match.group(), match.group()), text)

    return replace(source), replace(target), replacements


def number_pairs(pairs: Sequence[TextPair], fraction: float, seed: int) -> list[TextPair]:
    """`round(fraction × len(pairs))` new pairs, each a pair drawn at random (with replacement)
    among those sharing a digit group, renumbered; seeded by `seed`. None when no pair shares one."""
    return drawn_pairs(pairs, fraction, seed, NUMBERS_STREAM, shared_groups, renumbered)
