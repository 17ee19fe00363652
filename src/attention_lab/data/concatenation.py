"""Sentence-concatenation augmentation: training pairs made by joining random training pairs,
source to source and target to target (Kondo et al. 2021, "Sentence Concatenation Approach to
Data Augmentation for Neural Machine Translation", NAACL SRW §3; Nguyen et al. 2021, "Data
Augmentation by Concatenation for Low-Resource Translation").

Tatoeba's sentences are short (the longest training source is 74 pieces, most are under 12), so
a model trained on them alone never learns to carry a long source to its end: it drops clauses
or repeats itself there. Joined pairs are long, multi-clause and multi-sentence examples whose
alignment is known.

Pairs are joined as ids, one `<eos>` at the end: `Go.` + `Hi.` is the ids of `Go. Hi.`. With
SentencePiece the second sentence's first piece carries the word boundary (`▁Hi`), with words
the sentences are word sequences, so the join is what the model reads for the two sentences
written on one line with a space between them: no separator token the user's input never has.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_lab.data.special_tokens import EOS_ID

Pair = tuple[list[int], list[int]]  # (source ids, target ids), each ending with `<eos>`


def join(ids: Sequence[list[int]]) -> list[int]:
    """Sentences' ids, each ending with `<eos>`, as one sentence's: every `<eos>` but the last dropped."""
    return [i for sentence in ids for i in sentence[:-1]] + [EOS_ID]


def concatenated_pairs(pairs: Sequence[Pair], fraction: float, max_joined: int, seed: int) -> list[Pair]:
    """`round(fraction × len(pairs))` new pairs, each joining 2 to `max_joined` (uniformly) pairs
    drawn at random with replacement, seeded by `seed`: the same pairs for the same inputs."""
    count = round(fraction * len(pairs))
    if count == 0 or len(pairs) == 0:
        return []
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, max_joined + 1, size=count)  # (count,)
    drawn = rng.integers(0, len(pairs), size=int(sizes.sum()))  # every joined pair's members, in a row
    ends = np.cumsum(sizes)  # (count,)
    made = []
    for start, end in zip(ends - sizes, ends):
        members = [pairs[int(i)] for i in drawn[start:end]]
        made.append((join([s for s, _ in members]), join([t for _, t in members])))
    return made
