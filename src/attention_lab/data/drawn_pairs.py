"""The draw the text augmentations share (renumbered, renamed, calendar and titled pairs): train pairs
chosen at random among those a rewrite applies to, each rewritten, from a random stream of the
augmentation's own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

TextPair = tuple[str, str]  # (English, French)


def drawn_pairs(pairs: Sequence[TextPair], fraction: float, seed: int, stream: int,
                applies: Callable[[str, str], Any], rewrite: Callable[[str, str, np.random.Generator], tuple],
                weight: Callable[[str, str], float] | None = None) -> list[TextPair]:
    """`round(fraction × len(pairs))` new pairs, each a pair drawn at random (with replacement) among
    those `applies` is true for, as `rewrite(source, target, rng)` returns it first; seeded by `seed`
    and `stream`. A pair is drawn in proportion to its `weight` if given, else all alike. None when no
    pair qualifies."""
    count = round(fraction * len(pairs))
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
