"""Calendar augmentation: training pairs whose weekdays and months are replaced, the same on both
sides, by others.

The corpus names some days and months hundreds of times and others a handful: of its 167,130 English
lines, 166 say Monday and 11 Tuesday, 73 October and 1 November. A model learns the common ones and
garbles the rest (`I'll see you on Tuesday.` came out as `Je te verrai à m'excuser.`, `My birthday is
in February.` as `Mon anniversaire est à Febru.`). Pairs with the other days and months in their
places teach each one's French name.

A pair qualifies when every weekday and month its English side names (`Tuesday`; `May` only where the
French side says `mai`, which leaves out the verb in all 16 such pairs of the corpus) is named as many
times on the French side (`mardi`, in any case), and the French side names no other. Each is replaced everywhere in the
pair by another of its kind: a day by a day, a month by a month of the same first sound, so that
`d'avril`, `l'an` and `an April` read right (`avril`, `août` and `octobre` open with a vowel in both
languages). Made from text, before encoding, as the renamed pairs are.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from attention_lab.data.calendar_names import DAYS, MONTHS
from attention_lab.data.date_augmentation import MONTH_NUMBER, dates, days_in
from attention_lab.data.drawn_pairs import Rng, augmentation, pick

# Each kind's words swap only among themselves: days, and months by their first sound (a vowel in both
# languages for April, August and October).
KINDS = (DAYS, tuple(month for month in MONTHS if month[0][0] not in "AO"),
         tuple(month for month in MONTHS if month[0][0] in "AO"))
FRENCH = {english: french for kind in KINDS for english, french in kind}
KIND = {english: kind for kind in KINDS for english, _ in kind}
WEEKDAYS = {word.lower() for pair in KINDS[0] for word in pair}
# A day may be plural (`every Monday` is `tous les lundis`); a month may not (`mai` + s is `mais`).
ENGLISH_WORD = re.compile(r"\b(" + "|".join(FRENCH) + r")(s?)\b")
FRENCH_WORD = re.compile(r"\b(" + "|".join(FRENCH.values()) + r")(s?)\b", re.IGNORECASE)


def found(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The matches of `pattern` in `text` that are a day, a plural day or a month."""
    return [match for match in pattern.finditer(text)
            if not match.group(2) or match.group(1).lower() in WEEKDAYS]


def calendar_words(source: str, target: str) -> list[str]:
    """The weekdays and months of `source` (singular) in order, each once, when `target` names each
    of them as often (either number) and no other; else none."""
    english = [match.group(1) for match in found(ENGLISH_WORD, source)]
    french = Counter(match.group(1).lower() for match in found(FRENCH_WORD, target))
    if not english or Counter(FRENCH[word] for word in english) != french:
        return []
    return list(dict.fromkeys(english))


def swapped(source: str, target: str, rng: Rng) -> tuple[str, str, dict[str, str]]:
    """The pair with each of its `calendar_words` replaced by another of its kind (one not in the
    pair), alike on both sides, keeping each one's number and the French its capitals; and the
    replacements made (old English word -> new; one-to-one, so they can be undone)."""
    words = calendar_words(source, target)
    # The latest day the pair gives each month (a day after a smaller one of the same month wins): a month
    # becomes one that has it, never `September 31`.
    latest = {MONTHS[month - 1][0]: day for month, day in sorted(dates(f"{source}\n{target}"))}
    replacements: dict[str, str] = {}
    for word in words:
        free = [english for english, _ in KIND[word] if english not in words and english not in replacements.values()
                and (word not in latest or latest[word] <= days_in(MONTH_NUMBER[english.lower()]))]
        if free:  # a pair naming every day of a kind but one or two (or all three vowel months) keeps some
            replacements[word] = pick(rng, free)
    in_french = {FRENCH[old]: FRENCH[new] for old, new in replacements.items()}

    def replace(text: str, pattern: re.Pattern[str], new_words: dict[str, str], key: Callable[[str], str]) -> str:
        pieces, start = [], 0
        for match in found(pattern, text):
            new = new_words.get(key(match.group(1)))
            if new is not None:
                old = match.group(1)
                new = new.upper() if old.isupper() and len(old) > 1 else new.capitalize() if old[0].isupper() else new
                pieces += [text[start:match.start()], new, match.group(2)]
                start = match.end()
        return "".join(pieces) + text[start:]

    return (replace(source, ENGLISH_WORD, replacements, str),
            replace(target, FRENCH_WORD, in_french, str.lower), replacements)


calendar_pairs = augmentation(43, applies=calendar_words, rewrite=swapped)
