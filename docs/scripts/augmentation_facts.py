"""False facts the text augmentations write (docs/trust.md: Pairs added in training): 3,000 pairs drawn from
each on a train split, seed 0, by each `src` folder's code in a process of its own, the same counts for all:

    git worktree add /tmp/before ea60d87   # the code before the change
    python docs/scripts/augmentation_facts.py artifacts/splits/train.parquet /tmp/before/src src

A drawn pair counts in a class when it is false there and its train pair was not:
- years: a four-digit group of the English (a year, or read as one) moved past the corpus's present (2015, the
  latest year the split tells of as past) or back over it, or more than 25 years; `of` the pairs with one;
- history: a year (1000 to 2099) moved in a sentence that speaks of none of `I`, `me`, `my`, `we`, `us`, `our`,
  `you`, `your`, `Tom`, `Mary` (`World War I broke out in 1935.`);
- percent: a share above 100 (`671% sure`) where the train pair's were at most 100;
- calendar: a holiday, the order of days or months (`followed by`, `after`, `before`, `comes`, `the first day
  of the week`) or a month's length (`days in`, `has ... days`), its days, months or numbers changed;
- season: a month's weather or season (`snow in January`, `summer`) with another month;
- period: a month used as a period (`PERIODS`, read by hand among the train pairs the date augmentation takes
  a month alone from) turned into a date;
- ordinal: an ordinal in digits past its noun's largest (`ORDINAL_LARGEST`: the 150th quarter);
- rank: an ordinal in a record, rank, name or idiom rewritten (`the second largest`, `the Second World War`);
- common word: a capitalised word replaced (by the name or title augmentation) that the split's English also
  writes in small letters (`Excuse me.` became `Pigeba me.`).
Prints one Markdown table per folder, and an example of each class found.
"""

import json
import os
import re
import subprocess
import sys

import pandas as pd

DRAW = """
import json, sys
from importlib import import_module
import pandas as pd
frame = pd.read_parquet(sys.argv[1])
pairs = list(zip(frame["src"], frame["tgt"]))
out = {}
for name in ("number", "name", "calendar", "date", "ordinal", "title"):
    made = getattr(import_module(f"attention_lab.data.{name}_augmentation"), f"{name}_pairs")
    taken = []

    def recording(source, target, rng, rewrite=made.keywords["rewrite"], **known):
        taken.append((source, target))  # the train pair each drawn pair is made from, in order
        return rewrite(source, target, rng, **known)

    drawn = made.func(pairs, 3000 / len(pairs), 0, **{**made.keywords, "rewrite": recording})
    out[name] = [[*old, *new] for old, new in zip(taken, drawn, strict=True)]
print(json.dumps(out))
"""
PRESENT, SPAN = 2015, 25
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
CALENDAR_WORD = re.compile(rf"\b(?:{_DAYS}|{_MONTHS})\b")
HOLIDAY = re.compile(r"Christmas|Easter|Halloween|Thanksgiving|Valentine|Patrick|Labor Day|Mother's Day|"
                     r"Fourth of July|New Year")
ORDER = re.compile(r"\b(?:followed by|follows|precedes|comes|after|before)\b")
ORDER_PLACE = re.compile(r"\b(?:first|last|second|third|seventh) (?:day|month)\b")
LENGTH = re.compile(rf"\bdays in (?:{_MONTHS})\b|\b(?:{_MONTHS}) (?:has|had) .*\bdays\b")
SEASON = re.compile(r"\b(?:snow|rain|cold|hot|warm|humid|summer|winter|spring|autumn|season|blossoms|harvested)",
                    re.IGNORECASE)
PERIODS = {"\"When do you swim?\" \"I swim in July.\"", "In England, Labor Day is in May.",
           "In Japan a new school year starts in April.", "In Japan, the new school year begins in April.",
           "In June, it rains day after day.", "In November, olives are harvested from the trees to make oil.",
           "It can be very cold here even in May.", "It is extremely hot and humid in Bali in December.",
           "Rainy season begins in June.", "School begins in April.", "School reopens in September.",
           "The beaches are less crowded in September.", "The cherry blossoms are at their best in April.",
           "The summer vacation begins in July.", "There are only 28 days in February.",
           "We have a lot of rain in June.", "We have snow in January.", "Where I live, we have snow in January."}
DATE = re.compile(rf"\b(?:{_MONTHS}) [0-9]|\b[0-9]+(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS})\b")
ORDINAL_LARGEST = {"half": 2, "quarter": 4, "millennium": 3, "century": 21, "month": 12, "grade": 12, "week": 53,
                   "floor": 163, "story": 163, "birthday": 122, "anniversary": 100}
DIGIT_ORDINAL = re.compile(r"\b([0-9]+)(?:st|nd|rd|th) ([a-z]+)")
RANK = re.compile(r"\b(?:first|second|third|fourth|fifth|tenth) (?:\w+est\b|World War|(?:man|woman|person|one) "
                  r"to\b)|\bin the first place\b|\bfirst letter\b", re.IGNORECASE)
PERSONAL = re.compile(r"\b(?:I|me|my|we|us|our|you|your|Tom|Mary)\b", re.IGNORECASE)
CLASSES = ("years", "history", "percent", "calendar", "season", "period", "ordinal", "rank", "common word")


def years_moved(old: str, new: str) -> bool:
    before, after = (re.findall(r"\b[1-9][0-9]{3}\b", text) for text in (old, new))
    return len(before) == len(after) and any(
        (int(a) > PRESENT) != (int(b) > PRESENT) or abs(int(a) - int(b)) > SPAN for b, a in zip(before, after))


def history_moved(old: str, new: str) -> bool:
    before, after = (re.findall(r"\b(?:1[0-9]{3}|20[0-9]{2})\b", text) for text in (old, new))
    return bool(before) and before != after and not PERSONAL.search(old)


def largest_percent(text: str) -> int:
    return max((int(n) for n in re.findall(r"\b([0-9]+) ?(?:%|percent\b)", text)), default=0)


def out_of_range(text: str) -> bool:
    return any(int(number) > ORDINAL_LARGEST.get(noun, 10**9) for number, noun in DIGIT_ORDINAL.findall(text))


def changed(old: str, new: str) -> bool:
    """Whether a day, a month or a number of `old` differs in `new`."""
    return (CALENDAR_WORD.findall(old), re.findall("[0-9]+", old)) != (CALENDAR_WORD.findall(new),
                                                                       re.findall("[0-9]+", new))


def calendar_fact(text: str) -> bool:
    named = CALENDAR_WORD.findall(text)
    return bool(HOLIDAY.search(text) or LENGTH.search(text) or (named and ORDER_PLACE.search(text))
                or (len(named) > 1 and ORDER.search(text)))


def classes(name: str, old: str, new: str, small: set[str]) -> list[str]:
    """The `CLASSES` the English `new`, drawn by augmentation `name` from the train pair's `old`, is false in."""
    found = {"years": years_moved(old, new),
             "history": history_moved(old, new),
             "percent": largest_percent(new) > 100 >= largest_percent(old),
             "calendar": calendar_fact(old) and changed(old, new),
             "season": bool(re.search(_MONTHS, old) and SEASON.search(old)) and changed(old, new),
             "period": old in PERIODS and bool(DATE.search(new)) and not DATE.search(old),
             "ordinal": out_of_range(new) and not out_of_range(old),
             "rank": bool(RANK.search(old)) and not RANK.search(new),
             "common word": name in ("name", "title") and bool({word for word in re.findall(r"\b[A-Z][a-z]+\b", old)
                                                               if word not in new and word.lower() in small})}
    return [name for name in CLASSES if found[name]]


def report(split: str, src: str, small: set[str]) -> None:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    done = subprocess.run([sys.executable, "-c", DRAW, split], env=env, capture_output=True, text=True, check=True)
    print(f"\n{src}\n\n| augmentation | drawn | {' | '.join(CLASSES)} |\n| --- |{' ---: |' * (len(CLASSES) + 1)}")
    examples = {}
    for name, drawn in json.loads(done.stdout).items():
        counts = dict.fromkeys(CLASSES, 0)
        for old, _, new, new_target in drawn:
            for found in classes(name, old, new, small):
                counts[found] += 1
                examples.setdefault(found, f"`{old}` → `{new}` / `{new_target}` ({name})")
        with_years = sum(bool(re.search(r"\b[1-9][0-9]{3}\b", old)) for old, *_ in drawn)
        cells = [f"{counts['years']} of {with_years}", *(str(counts[c]) for c in CLASSES[1:])]
        print(f"| {name} | {len(drawn)} | {' | '.join(cells)} |")
    print("", *(f"- {found}: {example}" for found, example in examples.items()), sep="\n")


def main() -> None:
    split, *folders = sys.argv[1:]
    small = {word for text in pd.read_parquet(split)["src"] for word in re.findall(r"\b[a-z]+\b", text)}
    for src in folders:
        report(split, src, small)


if __name__ == "__main__":
    main()
