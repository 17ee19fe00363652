"""Numbers in the form French writes them (`2.5` as `2,5`, `1,299.99` as `1 299,99`, `4ième` as `4e`, `le 1
mai` as `le 1er mai`), and a time written with a dot read as the time it is where the sentence says it is one
(design.md: Number forms; docs/trust.md); one that may be a time or a decimal is left as typed, in both
languages. The search copies a number's digits (inference/number_constraint.py), not how French separates them:
a run of a source number's digit groups in the translation is written in its French form.
"""

from __future__ import annotations

import re

from attention_lab.data.calendar_names import FRENCH_MONTH_NAMES
from attention_lab.data.numbers import DIGIT_GROUP, number_groups

_ALONE = r"(?<![\w.,/])"  # a number starts a word: not `v2.5`, not the `5.5` of `1.5.5`
_ENDS = r"(?![\w@]|[.,][0-9])"  # ... and ends one (a range's `-` may follow: `2.5-3.5`)
ENGLISH = re.compile(rf"{_ALONE}(?:[0-9]{{1,3}}(?:,[0-9]{{3}})+(?:\.[0-9]+)?|[0-9]+\.[0-9]+){_ENDS}")
# In a translation, digit groups with separators between them: `.` with or without a space after it,
# `,` without (`1, 2` is a list) or before a thousands group (`2,500, 000`), a space (no-break ones included).
WRITTEN = re.compile(r"(?<![\w.,])[0-9]+(?:(?:\. ?|,(?: (?=[0-9]{3}(?![0-9])))?|[ \u00a0\u202f])[0-9]+)*")
_CLOCK = r"(?:[01]?[0-9]|2[0-3])\.[0-5][0-9](?![0-9]|[.,][0-9])"  # `10.30`, not `10.305` or `10.30.5`
CLOCK = re.compile(rf"(?<![\w.,]){_CLOCK}")
SAID = re.compile(r" ?(?i:a\.m\.|p\.m\.|am|pm|o'clock)(?!\w)")  # after it: a time, whatever the sentence
MONEY = re.compile(r"\b(?i:dollars?|euros?|pounds?|yen|cents?|pence|prices?|priced|costs?|rates?|shares?|stocks?"
                   r"|sold|sells?|paid|pays?|bought|buys?|worth)\b")
RANGE = re.compile(rf"\b(?i:from|between) (?P<start>{_CLOCK}) (?i:to|and|till|until) (?P<end>{_CLOCK})")
# Before it, words that say a time: what opens, closes or leaves at it does so at a time; `until` and `after` are of
# time alone. Not `at` or `around` alone, nor a past `closed at` or `opened at`: a level is at a decimal too
# (`The pH is at 7.40.`, `The index closed at 10.20.`).
SCHEDULE = re.compile(r"\b(?i:opens?|closes?|starts?|begins?|ends?|leaves?|left|arrives?|arrived|departs?|departed)"
                      r" at $")
UNTIL = re.compile(r"\b(?i:until|till|before|after) $")
AT = re.compile(r"\b(?i:at|around|until|till|before|after) $")
LOOK_BACK = 24  # the longest of SCHEDULE and AT (`departed at `) with room to spare: `\b` sees before it
ENDS = re.compile(r"[.!?,;:]?$|[,;:!?]|\. ")  # the sentence's or a clause's end
# After the time, a word of the time of day or of a day (`at 7.40 tonight`, `at 9.15 tomorrow`): not `and`, `in` or
# `on May`, which a price may take too (`at 0.50 and rising`, `at 1.25 in May`).
OF_TIME = re.compile(r" (?i:sharp|tomorrow|today|tonight|in the (?:morning|afternoon|evening)"
                     r"|every (?:day|morning|evening|night)|on \w*days?)(?!\w)")

ORDINAL = re.compile(r"(?<![\w.,/])(?:(?P<first>1)(?P<first_ending>i?[eè]re|ier)|(?P<number>[0-9]+)i?[eè]me)"
                     r"(?P<plural>s?)\b")
FIRST_OF_MONTH = re.compile(rf"(?<![\w.,/])1(?= (?i:{FRENCH_MONTH_NAMES})\b)")


def read_times(sentence: str) -> str:
    """`sentence` with each time written with a dot written with a colon, as the corpus does, where the sentence
    says it is a time (`at 10.30 pm`, `opens at 9.30`, `at 7.15 in the morning`, `until 10.30.`); else, a decimal
    as likely (`The pH is at 7.40.`), it is left as typed. The two ends of a range (`from 9.30 to 5.30 pm`) alike."""
    money = MONEY.search(sentence)

    def timed(match: re.Match) -> bool:
        # The words before a clock are looked for in the few characters before it, and what follows is matched in
        # place: a slice or a search of the whole prefix at each clock made a line of clocks quadratic.
        start, end = match.start(), match.end()
        before = max(0, start - LOOK_BACK)
        return bool(SAID.match(sentence, end) or not money and (
            SCHEDULE.search(sentence, before, start) or OF_TIME.match(sentence, end) and AT.search(sentence, before, start)
            or UNTIL.search(sentence, before, start) and ENDS.match(sentence, end)))

    times = {match.start(): timed(match) for match in CLOCK.finditer(sentence)}
    for match in RANGE.finditer(sentence):
        either = times.get(match.start("start"), False) or times.get(match.start("end"), False)
        times[match.start("start")] = times[match.start("end")] = either
    return CLOCK.sub(lambda match: match.group().replace(".", ":") if times[match.start()] else match.group(), sentence)


def french_form(number: str) -> str:
    """An English number (`ENGLISH`) as French writes it: `1,299.99` -> `1 299,99`, `2.5` -> `2,5`."""
    whole, _, fraction = number.partition(".")
    return whole.replace(",", " ") + (f",{fraction}" if fraction else "")


def french_ordinals(translation: str) -> str:
    """`translation` with its ordinals in digits abbreviated as French does (`ORDINAL`), and the first of
    a month written `1er`."""
    def abbreviated(match: re.Match) -> str:
        ending = ("re" if match["first_ending"] != "ier" else "er") if match["first"] else "e"
        return (match["first"] or match["number"]) + ending + match["plural"]

    return FIRST_OF_MONTH.sub("1er", ORDINAL.sub(abbreviated, translation))


def french_numbers(translation: str, source: str) -> str:
    """`translation` with each run of digit groups that is one of `source`'s English numbers, group for
    group (a whole number with thousands commas: its digits in one group too), in that number's French
    form; in a run of several (`2.5 3.5`), the longest from the left. A number that may be a time as well as a
    decimal (`10.30` that `read_times` left, with no price said) is written as typed: `10,30` would say a decimal.
    Numbers with the same groups (`1.500` and `1,500`) are taken in the source's order."""
    forms: dict[tuple[str, ...], list[str]] = {}
    money = MONEY.search(source)
    for number in ENGLISH.findall(source):
        form = number if not money and re.fullmatch(_CLOCK, number) else french_form(number)
        # `2,500,000` as the search writes it too: `2500000` (data.numbers.number_groups)
        for groups in {tuple(DIGIT_GROUP.findall(number)), tuple(number_groups(number))}:
            forms.setdefault(groups, []).append(form)
    longest, used = max(map(len, forms), default=0), dict.fromkeys(forms, 0)

    def form(groups: tuple[str, ...]) -> str:
        used[groups] += 1
        return forms[groups][min(used[groups], len(forms[groups])) - 1]

    def rewritten(match: re.Match) -> str:
        parts = re.findall(r"[0-9]+|[^0-9]+", match.group())  # group, separator, group, ...
        groups, out, i = parts[::2], [], 0
        while i < len(groups):
            k = next((k for k in range(min(longest, len(groups) - i), 0, -1) if tuple(groups[i : i + k]) in forms), 0)
            out.append(form(tuple(groups[i : i + k])) if k else groups[i])
            i += max(k, 1)
            if i < len(groups):
                out.append(parts[2 * i - 1])  # the separator before the next group, as written
        return "".join(out)

    return WRITTEN.sub(rewritten, translation) if forms else translation
