"""Name-copying augmentation: training pairs whose names are replaced, the same on both sides, by made-up
names (`Tom met Mary.` / `Tom a vu Mary.` becomes `Ravomi met Kesul.` / `Ravomi a vu Kesul.`): the corpus's
people are nearly all Tom and Mary, and these pairs show a model that a name it does not know is copied
(design.md: Names).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from attention_lab.data.drawn_pairs import Rng, TextPair, augmentation, pick

NAME = re.compile(r"\b[A-Z][a-z]+\b")  # a capital, then small letters: `Tom`, `Boston`; `I` is none
# A capitalised word after a word or a comma: not a sentence's first word, which any word may be (`Excuse me.`).
INSIDE = re.compile(r"(?<=[\w,;] )[A-Z][a-z]+\b")
SMALL_WORD = re.compile(r"\b[a-z]+\b")
CONSONANTS, VOWELS = "bdfgklmnprstvz", "aeiou"
# 64 of the 424 names the corpus's pairs share (never in small letters) start with a vowel: `Alice`, `Osaka`.
VOWEL_FIRST = 0.15
ELIDING = r"\b(?i:de|que|lorsque|puisque|jusque|le|la) "  # French's words that elide before a vowel: `d'Anna`


def corpus_names(pairs: Sequence[TextPair]) -> dict[str, frozenset[str]]:
    """`{"names": words}`: the words `pairs` write as names, capitalised inside a sentence on either side and never
    in small letters in English (`Tom`, `Boston`; not `Excuse`, which only opens sentences, nor `Will`, also
    `will`). French's small words are no sign: `mars` is March, `paris` bets."""
    small = {word for source, _ in pairs for word in SMALL_WORD.findall(source)}
    return {"names": frozenset(name for pair in pairs for text in pair for name in INSIDE.findall(text)
                               if name.lower() not in small)}


def shared_names(source: str, target: str, names: Collection[str] | None = None) -> list[str]:
    """The names of `source` that `target` writes alike (not `The`), in source order, each once; only those of
    `names` when given (`corpus_names`: a word that opens a sentence may be no name)."""
    in_target = set(NAME.findall(target))
    return list(dict.fromkeys(name for name in NAME.findall(source)
                              if name in in_target and (names is None or name in names)))


def made_up_name(rng: Rng, vowel_first: bool | None = None) -> str:
    """A capitalised name of 2 to 3 consonant-vowel syllables, with a final consonant half the time, the
    first consonant left out (`Avomi`) if `vowel_first`, or `VOWEL_FIRST` of the time when it is None."""
    letters = [pick(rng, CONSONANTS) + pick(rng, VOWELS) for _ in range(int(rng.integers(2, 4)))]
    if rng.random() < 0.5:
        letters.append(pick(rng, CONSONANTS))
    if rng.random() < VOWEL_FIRST if vowel_first is None else vowel_first:
        letters[0] = letters[0][1:]
    return "".join(letters).capitalize()


def new_name(rng: Rng, taken: set[str], vowel_first: bool | None = None) -> str:
    """A `made_up_name` not in `taken`, added to it."""
    name = made_up_name(rng, vowel_first)
    while name in taken:
        name = made_up_name(rng, vowel_first)
    taken.add(name)
    return name


def renamed(source: str, target: str, rng: Rng, names: Collection[str] | None = None
            ) -> tuple[str, str, dict[str, str]]:
    """The pair with each of its `shared_names` (of `names`) replaced alike by a `new_name`, never a word of the
    pair, French eliding before a vowel (`d'Avomi`); and the replacements made (old -> new; one-to-one, elision
    aside)."""
    taken = set(re.findall(r"\w+", f"{source} {target}"))
    # A name French writes after an elision (`d'Alice`, `l'Europe`) keeps a vowel first: `l'` does not say
    # whether a consonant would take `le` or `la`.
    elided = set(re.findall(r"'([A-Z][a-z]+)", target))
    replacements = {name: new_name(rng, taken, name in elided or None) for name in shared_names(source, target, names)}
    source, target = (NAME.sub(lambda match: replacements.get(match[0], match[0]), side) for side in (source, target))
    vowel_first = "|".join(new for new in replacements.values() if new[0] in "AEIOU")
    if vowel_first:
        target = re.sub(rf"{ELIDING}(?=(?:{vowel_first})\b)", lambda match: match[0][:-2] + "'", target)
    return source, target, replacements


name_pairs = augmentation(41, applies=shared_names, rewrite=renamed, learn=corpus_names)
