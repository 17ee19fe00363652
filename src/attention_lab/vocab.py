"""Token vocabularies (d2l §9.2): reserved tokens first, then tokens by count, ties by token."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from attention_lab.atomic import write_json
from attention_lab.config import param
from attention_lab.errors import UserError

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
RESERVED = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = range(4)


@dataclass(frozen=True)
class VocabParams:
    min_freq: int = param(2, ge=1)
    max_size: int | None = param(None, ge=len(RESERVED) + 1)  # including the 4 reserved tokens


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
    def build(cls, sentences: Iterable[Sequence[str]], params: VocabParams) -> Vocab:
        counts = Counter(token for sentence in sentences for token in sentence)
        for token in RESERVED:
            counts.pop(token, None)
        kept = sorted((t for t, c in counts.items() if c >= params.min_freq), key=lambda t: (-counts[t], t))
        if params.max_size is not None:
            kept = kept[: params.max_size - len(RESERVED)]
        return cls(RESERVED + tuple(kept))

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.index.get(t, UNK_ID) for t in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Ids to tokens up to the first `<eos>`, without `<pad>`/`<bos>`."""
        tokens = []
        for i in ids:
            if i == EOS_ID:
                break
            if i not in (PAD_ID, BOS_ID):
                tokens.append(self.tokens[i])
        return tokens

    def oov_rate(self, sentences: Iterable[Sequence[str]]) -> float:
        total = unknown = 0
        for sentence in sentences:
            total += len(sentence)
            unknown += sum(t not in self.index for t in sentence)
        return unknown / total if total else 0.0

    def save(self, path: str | Path) -> None:
        write_json(path, {"tokens": list(self.tokens)})

    @classmethod
    def load(cls, path: str | Path) -> Vocab:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls(tuple(data["tokens"]))
        except FileNotFoundError:
            raise UserError(f"{path}: no such vocabulary file") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(f"{path}: not a vocabulary file ({exc})") from None


def build_vocabularies(splits: dict, params: VocabParams) -> tuple[Vocab, Vocab, dict]:
    """Source and target vocabularies from the train split only, with the OOV rates of the others.

    `splits` maps split names to frames with space-tokenized `src` and `tgt` columns.
    """
    vocabs, report = {}, {}
    for side in ("src", "tgt"):
        tokenized = {name: [s.split() for s in frame[side]] for name, frame in splits.items()}
        vocab = Vocab.build(tokenized["train"], params)
        vocabs[side] = vocab
        report[side] = {"size": len(vocab),
                        **{f"oov_{name}": round(vocab.oov_rate(tokenized[name]), 5)
                           for name in splits if name != "train"}}
    return vocabs["src"], vocabs["tgt"], report
