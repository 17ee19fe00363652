"""Word vocabularies (d2l §9.2): reserved tokens first, then tokens by count, ties by token."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from attention_lab.data.special_tokens import RESERVED, UNK_ID


@dataclass(frozen=True)
class Vocab:
    tokens: tuple[str, ...]
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if tuple(self.tokens[: len(RESERVED)]) != RESERVED:
            raise ValueError(f"a vocabulary must start with {list(RESERVED)}")
        object.__setattr__(self, "index", {t: i for i, t in enumerate(self.tokens)})
        if len(self.index) != len(self.tokens):
            raise ValueError("duplicate tokens in vocabulary")

    def __len__(self) -> int:
        return len(self.tokens)

    @classmethod
    def build(cls, sentences: Iterable[Sequence[str]], min_freq: int, max_size: int | None) -> Vocab:
        """Tokens seen at least `min_freq` times, the most frequent first, at most `max_size` in
        all (reserved tokens included)."""
        counts = Counter(token for sentence in sentences for token in sentence)
        for token in RESERVED:
            counts.pop(token, None)
        kept = sorted((t for t, c in counts.items() if c >= min_freq), key=lambda t: (-counts[t], t))
        if max_size is not None:
            kept = kept[: max_size - len(RESERVED)]
        return cls(RESERVED + tuple(kept))

    def lookup(self, tokens: Sequence[str]) -> list[int]:
        """Token strings -> ids, `<unk>` for tokens outside the vocabulary."""
        return [self.index.get(t, UNK_ID) for t in tokens]
