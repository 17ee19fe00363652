"""Name-copying augmentation: training pairs whose names are replaced, the same on both sides, by
made-up names.

The corpus's people are nearly all Tom and Mary: of the 14,836 train pairs (of 150,318) that share a
name between their sides, 13,085 name Tom and 1,336 Mary; then come Boston (549) and Tokyo (120), and
John has 67. So a model learns those few as words and garbles any other name (`Anna is my sister.`
came out as `Un docteur est ma sœur.`). Pairs with other names in their places show it that a name
it does not know is copied, piece by piece.

A name is a capitalised word (a capital, then small letters) that both sides write alike: `Tom`,
`Boston`, `Tokyo`; `I` is none, and neither is a word the French side writes otherwise (`The`).
Each is replaced everywhere in the pair by one made-up name of 2 to 3 syllables (`Ravomi`, `Kesul`),
never a word of the pair. Made from text, before encoding, as the renumbered pairs are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from attention_lab.data.drawn_pairs import TextPair, drawn_pairs

NAMES_STREAM = 41  # with the seed, this augmentation's random stream
NAME = re.compile(r"\b[A-Z][a-z]+\b")
CONSONANTS, VOWELS = "bdfgklmnprstvz", "aeiou"


def shared_names(source: str, target: str) -> list[str]:
    """The names of `source` that `target` writes alike, in source order, each once."""
    in_target = set(NAME.findall(target))
    return list(dict.fromkeys(name for name in NAME.findall(source) if name in in_target))


def made_up_name(rng: np.random.Generator) -> str:
    """A capitalised name of 2 to 3 consonant-vowel syllables, with a final consonant half the time."""
    letters = [CONSONANTS[rng.integers(len(CONSONANTS))] + VOWELS[rng.integers(len(VOWELS))]
               for _ in range(int(rng.integers(2, 4)))]
    if rng.random() < 0.5:
        letters.append(CONSONANTS[rng.integers(len(CONSONANTS))])
    return "".join(letters).capitalize()


def renamed(source: str, target: str, rng: np.random.Generator) -> tuple[str, str, dict[str, str]]:
    """The pair with each name it shares replaced by a made-up one, the same on both sides, and the
    replacements made (old name -> new name; one-to-one, so they can be undone)."""
    words = set(re.findall(r"\w+", f"{source} {target}"))
    replacements: dict[str, str] = {}
    for name in shared_names(source, target):
        new = made_up_name(rng)
        while new in words or new in replacements.values():
            new = made_up_name(rng)
        replacements[name] = new

    def replace(text: str) -> str:
        return NAME.sub(lambda match: replacements.get(match.group(), match.group()), text)

    return replace(source), replace(target), replacements


def name_pairs(pairs: Sequence[TextPair], fraction: float, seed: int) -> list[TextPair]:
    """`round(fraction × len(pairs))` new pairs, each a pair drawn at random (with replacement)
    among those sharing a name, renamed; seeded by `seed`. None when no pair shares one."""
    return drawn_pairs(pairs, fraction, seed, NAMES_STREAM, shared_names, renamed)
