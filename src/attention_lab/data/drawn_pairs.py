"""The draw the text augmentations share: train pairs chosen at random among those a rewrite applies to, each
rewritten, on a random stream of the augmentation's own (turning one on leaves the others' pairs as they were).
Rewrites work on text, before encoding: the tokenizer reads their pairs as it reads every other pair."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

TextPair = tuple[str, str]  # (English, French)
Rng = np.random.Generator


def drawn_pairs(pairs: Sequence[TextPair], fraction: float, seed: int, stream: int,
                applies: Callable[[str, str], Any], rewrite: Callable[[str, str, Rng], tuple],
                weight: Callable[[str, str], float] | None = None,
                learn: Callable[[Sequence[TextPair]], dict] | None = None) -> list[TextPair]:
    """`round(fraction × len(pairs))` new pairs, each a pair drawn at random (with replacement) among those
    `applies` is true for, in proportion to its `weight` if given, as `rewrite(source, target, rng)` returns it
    first; seeded by `seed` and `stream`. None when no pair qualifies. `learn(pairs)`, if given, is what the
    whole corpus tells a pair cannot (the words it writes as names), keyword arguments of `applies` and `rewrite`."""
    count = round(fraction * len(pairs))
    if count and learn is not None:
        known = learn(pairs)
        applies, rewrite = partial(applies, **known), partial(rewrite, **known)
    chosen = [pair for pair in pairs if applies(*pair)] if count else []
    if not chosen:
        return []
    rng = np.random.default_rng((seed, stream))  # not the draws of the other augmentations
    if weight is None:
        drawn = rng.integers(0, len(chosen), size=count)  # (count,)
    else:
        weights = np.array([weight(*pair) for pair in chosen], dtype=float)  # (len(chosen),)
        drawn = rng.choice(len(chosen), size=count, p=weights / weights.sum())  # (count,)
    return [rewrite(*chosen[int(i)], rng)[:2] for i in drawn]


def augmentation(stream: int, applies: Callable, rewrite: Callable, weight: Callable | None = None,
                 learn: Callable | None = None) -> Callable:
    """An augmentation's pairs, `(pairs, fraction, seed)`: its `drawn_pairs`, on a `stream` no other uses."""
    return partial(drawn_pairs, stream=stream, applies=applies, rewrite=rewrite, weight=weight, learn=learn)


def pick(rng: Rng, options: Sequence) -> Any:
    """One of `options`, drawn at random."""
    return options[int(rng.integers(len(options)))]
