"""The words of the training text, each side's, in small letters: what the model read and wrote in
training. The translator tells by them a word the model garbled from one it learnt (text/names.py):
`Dégo` for `Diego` is no word of the French it trained on, `Russie` for `Russia` is. And the pairs of
English words the corpus writes capitalised more often than not inside a sentence (`new york`, `world war`),
by which a line typed in capitals is read in the corpus's casing (text/casing.py); and the words it writes
inside a sentence with capitals more often than in small letters, in the form it writes most (`March`, `TV`),
by which a line's casing is read word by word; and those it writes so at times (`President`, `Earth`), by which
a name that is also a word is told (`I met Will.`: `will` never is; text/names.py); and the French words the
pairs write with each English word (`germany`: `allemagne`, `dawn`: `aube`), by which the check after writing knows
a name's French and whether a word that may be a name was written in any form; and the words it seldom uses
(`frank`, `grace`), which typed as a given name are likelier the name (text/given_names.py).

Kept with the tokenizer (data/tokenizer.py), so a model file carries them; a tokenizer built before
them has none, and the translator then does without.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

WORD = re.compile(r"[^\W\d_]+")  # a run of letters: `aujourd'hui` is two, `Jean-Luc` two
# An English word as typed, a hyphenated one whole (`Wi-Fi`, capitalised), and its parts (`shaven` of `clean-shaven`)
# but an English beginning never typed alone (`un` of `un-shrink` is no word: `THE UN` is an acronym).
ENGLISH = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
BEGINNINGS = ("un", "re", "dis", "over", "under", "pre", "mis", "out", "non", "fore")
# A word inside a sentence: after a word or a comma, and a space.
INSIDE = re.compile(rf"(?<=[\w,] ){ENGLISH.pattern}\b")
SELDOM = 3  # a word the English uses fewer times than this, a name's reading is the likelier (text/given_names.py)
SOMETIMES = 20  # a word capitalised in 1 of 20 of its uses inside a sentence: a capital says no name (`President`)
# A French word renders an English one when written with it in 2 pairs at least, and Dice's coefficient (twice the
# pairs with both over the pairs with either) is RENDERED at least (`mary`: `mary` 0.8, `marie` 0.49; `tv`: `télé`
# 0.63, `télévision` 0.49 on the corpus), or it is written in MOSTLY of the English word's pairs and Dice's is OFTEN
# (`summer`: `été`, in 93 % of them, 0.15: `été` is also `been`); not `de`, in most pairs of nearly any word.
RENDERED, MOSTLY, OFTEN = 0.4, 0.5, 0.1
PAIR = re.compile(r"(?=\b([^\W\d_]+) ([^\W\d_]+)\b)")  # two words with a space between: each pair, overlapping


@dataclass(frozen=True)
class CorpusWords:
    source: frozenset[str]
    target: frozenset[str]
    phrases: frozenset[str] = frozenset()  # `new york`: capitalised inside a sentence more often than not
    cased: frozenset[str] = frozenset()  # `March`, `TV`: written with capitals inside a sentence more often than not
    # `president`, `earth`: written with a capital in 1 of SOMETIMES of its uses inside a sentence at least
    capitalised: frozenset[str] = frozenset()
    # (`germany`, `allemagne`), (`dawn`, `aube`): an English word in small letters, and a French word rendering it
    french: tuple[tuple[str, str], ...] = ()
    seldom: frozenset[str] = frozenset()  # `frank`, `grace`: used fewer than SELDOM times

    @cached_property
    def rendered(self) -> dict[str, frozenset[str]]:
        """The French words of each of `french`'s English ones: `germany` -> {`allemagne`}, `boston` -> {`boston`}."""
        return _grouped(self.french)

    @cached_property
    def renders(self) -> dict[str, frozenset[str]]:
        """The English words each French word of `french` renders: `allemagne` -> {`germany`, `german`}."""
        return _grouped((form, word) for word, form in self.french)

    @cached_property
    def forms(self) -> dict[str, str]:
        """Each of `cased`'s words by its form in small letters: `march` -> `March`."""
        return {form.lower(): form for form in self.cased}

    @classmethod
    def of(cls, sources: Iterable[str], targets: Iterable[str]) -> CorpusWords:
        sources, targets = list(sources), list(targets)
        capitalised, seen = Counter(), Counter()
        for text in dict.fromkeys(sources):
            for match in PAIR.finditer(text, 1):  # not at the sentence's start, which is capitalised anyway
                pair = match[1].lower() + " " + match[2].lower()
                seen[pair] += 1
                capitalised[pair] += all(w[1:] and w.istitle() for w in match.groups())  # `I` says nothing
        forms = Counter(match.group() for text in dict.fromkeys(sources) for match in INSIDE.finditer(text))
        capitals, small, most = Counter(), Counter(), {}  # a word in small letters: uses with capitals, without; form
        for form, n in forms.most_common():
            word = form.lower()
            if form == word:
                small[word] += n
            else:
                capitals[word] += n
                most.setdefault(word, form)
        cased = frozenset(most[word] for word, n in capitals.items() if n > small[word])
        uses = Counter(word.lower() for text in dict.fromkeys(sources) for word in ENGLISH.findall(text))
        parts = {part for word in uses if "-" in word for part in word.split("-")}
        return cls(frozenset(uses) | {part for part in parts if part in uses or part not in BEGINNINGS},
                   frozenset(word.lower() for text in targets for word in WORD.findall(text)),
                   frozenset(pair for pair, n in capitalised.items() if 2 * n > seen[pair]), cased,
                   frozenset(word for word, n in capitals.items() if n * SOMETIMES >= n + small[word]),
                   renderings(zip(sources, targets)),
                   frozenset(word for word, n in uses.items() if n < SELDOM))

    def payload(self) -> dict:
        return {"source": sorted(self.source), "target": sorted(self.target), "phrases": sorted(self.phrases),
                "cased": sorted(self.cased), "capitalised": sorted(self.capitalised),
                "french": [list(pair) for pair in self.french], "seldom": sorted(self.seldom)}

    @classmethod
    def from_payload(cls, payload: dict) -> CorpusWords:
        # A model file written before phrases or cased words were kept has none: its lines are cased by the model's
        # pieces (text/casing.py).
        return cls(frozenset(payload["source"]), frozenset(payload["target"]), frozenset(payload.get("phrases", ())),
                   frozenset(payload.get("cased", ())), frozenset(payload.get("capitalised", ())),
                   tuple((word, form) for word, form in payload.get("french", ())),
                   frozenset(payload.get("seldom", ())))


def _grouped(pairs: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Each first word of `pairs` and the second words it is paired with."""
    found: dict[str, set[str]] = {}
    for first, second in pairs:
        found.setdefault(first, set()).add(second)
    return {first: frozenset(seconds) for first, seconds in found.items()}


def renderings(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Each English word (in small letters) of `pairs` with each French word (in small letters) that renders it
    (RENDERED), a hyphenated one whole and its parts: `germany`: `allemagne`, `french`: `français`, `boston`: `boston`,
    `netherlands`: `pays-bas`, `dawn`: `aube`, `summer`: `été`. By them the check after writing asks a name the corpus
    writes otherwise in French, and tells a word that may be a name written in no form (inference/check_names.py)."""
    english, french, both = Counter(), Counter(), Counter()
    for source, target in dict.fromkeys(pairs):
        written = {word.lower() for pattern in (WORD, ENGLISH) for word in pattern.findall(target)}  # `pays-bas` too
        french.update(written)
        for word in {word.lower() for word in WORD.findall(source)}:
            english[word] += 1
            both.update((word, form) for form in written)
    return tuple(sorted((word, form) for (word, form), n in both.items() if n >= 2 and (
        2 * n >= RENDERED * (english[word] + french[form])
        or n >= MOSTLY * english[word] and 2 * n >= OFTEN * (english[word] + french[form]))))
