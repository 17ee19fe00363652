"""Calendar augmentation: training pairs whose weekdays and months are replaced, the same on both sides, by
others (`See you on Monday.` / `À lundi.` becomes `See you on Tuesday.` / `À mardi.`): the corpus names some
hundreds of times and others a handful, and a model garbled the rare ones (design.md: Weekdays and months).
"""

from __future__ import annotations

import re
from collections import Counter

from attention_lab.data.calendar_facts import states_calendar_fact
from attention_lab.data.calendar_names import DAYS, ENGLISH_MONTH_NAMES, FRENCH_MONTH_NAMES, MONTHS
from attention_lab.data.date_augmentation import MONTH_NUMBER, dates, days_in
from attention_lab.data.drawn_pairs import Rng, augmentation, pick

# A word swaps only with one of its kind: a day with a day, a month with a month of the same first sound, so
# that `d'avril`, `l'an` and `an April` read right (April, August and October open with a vowel in both languages).
KINDS = (DAYS, tuple(month for month in MONTHS if month[0][0] not in "AO"),
         tuple(month for month in MONTHS if month[0][0] in "AO"))
FRENCH = {english: french for kind in KINDS for english, french in kind}
KIND = {english: kind for kind in KINDS for english, _ in kind}
_ENGLISH_DAYS, _FRENCH_DAYS = ("|".join(names) for names in zip(*DAYS))
# A word and its plural `s`: a day may be plural (`tous les lundis`), a month may not (`mai` + s is `mais`).
ENGLISH_WORD = re.compile(rf"\b({_ENGLISH_DAYS}|(?:{ENGLISH_MONTH_NAMES})(?!s))(s?)\b")
FRENCH_WORD = re.compile(rf"\b({_FRENCH_DAYS}|(?:{FRENCH_MONTH_NAMES})(?!s))(s?)\b", re.IGNORECASE)


def calendar_words(source: str, target: str) -> list[str]:
    """The weekdays and months of `source` (singular) in order, each once, when `target` names each of them as
    often (either number, any case) and no other, and `source` states no fact of the calendar that another day
    or month would make false (data/calendar_facts.py); else none. So `May` counts only where the French says
    `mai`, which leaves out the verb (all 16 such pairs of the corpus)."""
    english = [match[1] for match in ENGLISH_WORD.finditer(source)]
    french = Counter(match[1].lower() for match in FRENCH_WORD.finditer(target))
    if not english or Counter(FRENCH[word] for word in english) != french or states_calendar_fact(source):
        return []
    return list(dict.fromkeys(english))


def swapped(source: str, target: str, rng: Rng) -> tuple[str, str, dict[str, str]]:
    """The pair with each of its `calendar_words` replaced alike by another of its kind not in the pair, keeping
    its number and capitals; and the replacements made (old English word -> new; one-to-one)."""
    words = calendar_words(source, target)
    # The latest day the pair gives each month (sorted: the largest wins), which a new month must have (`March 31`).
    latest = {MONTHS[month - 1][0]: day for month, day in sorted(dates(f"{source}\n{target}"))}
    replacements: dict[str, str] = {}
    for word in words:
        free = [english for english, _ in KIND[word] if english not in words and english not in replacements.values()
                and (word not in latest or latest[word] <= days_in(MONTH_NUMBER[english.lower()]))]
        if free:  # a pair naming every day of a kind but one or two (or all three vowel months) keeps some
            replacements[word] = pick(rng, free)
    # Both languages' words in small letters, old -> new (no English one is a French one).
    small = {old.lower(): new.lower() for old, new in replacements.items()}
    small |= {FRENCH[old]: FRENCH[new] for old, new in replacements.items()}

    def replace(match: re.Match[str]) -> str:
        old, new = match[1], small.get(match[1].lower())
        if new is None:
            return match[0]
        cased = new.upper() if old.isupper() and len(old) > 1 else new.capitalize() if old[0].isupper() else new
        return cased + match[2]

    return ENGLISH_WORD.sub(replace, source), FRENCH_WORD.sub(replace, target), replacements


calendar_pairs = augmentation(43, applies=calendar_words, rewrite=swapped)
