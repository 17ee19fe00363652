"""Text in, text out: normalisation, batched search and detokenization around a trained model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from attention_lab.checkpoint import LoadedModel, load_model
from attention_lab.config import param
from attention_lab.corpus import detokenize, normalize
from attention_lab.datamodule import encode, pad
from attention_lab.search import decode, output_limits
from attention_lab.vocab import EOS


@dataclass(frozen=True)
class SearchParams:
    beam_size: int = param(4, ge=1)  # 1 = greedy
    length_penalty: float = param(0.6, ge=0)  # GNMT alpha; 0 = raw log-probability
    max_len_ratio: float = param(2.0, gt=0)  # output tokens <= ceil(ratio * source tokens)
    batch_size: int = param(128, ge=1)


@dataclass(frozen=True)
class Translation:
    source: str
    src_tokens: list[str]  # what the model read: `<unk>` for unknown words, `<eos>` last
    tokens: list[str]  # output tokens, `<eos>` excluded
    text: str  # detokenized output
    score: float
    attention: np.ndarray  # (T_out, S): a row per output token (and `<eos>` when emitted)
    truncated: bool  # the source was longer than the model's max_len

    @property
    def output_labels(self) -> list[str]:
        return self.tokens + [EOS] * (len(self.attention) - len(self.tokens))


class Translator:
    def __init__(self, loaded: LoadedModel, device: str | torch.device = "cpu") -> None:
        self.loaded = loaded
        self.device = torch.device(device)
        loaded.model.to(self.device).eval()

    @classmethod
    def load(cls, path: str | Path, device: str | torch.device | None = None) -> Translator:
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        return cls(load_model(path, device), device)

    def tokenize(self, sentence: str) -> list[str]:
        return normalize(sentence, self.loaded.lowercase).split()

    def translate(self, sentences: Sequence[str], search: SearchParams) -> list[Translation]:
        """Translate in batches of similar length; results come back in input order."""
        loaded = self.loaded
        tokens = [self.tokenize(s) for s in sentences]
        ids = [encode(loaded.src_vocab, t, loaded.max_len) for t in tokens]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        results: list[Translation | None] = [None] * len(ids)
        for start in range(0, len(order), search.batch_size):
            batch = order[start : start + search.batch_size]
            src, src_len = pad([ids[i] for i in batch])
            src, src_len = src.to(self.device), src_len.to(self.device)
            decoded = decode(loaded.model, src, src_len, output_limits(src_len, search.max_len_ratio),
                             search.beam_size, search.length_penalty)
            outputs, lengths = decoded.tokens.tolist(), decoded.lengths.tolist()
            attention, scores = decoded.attention.cpu().numpy(), decoded.scores.tolist()
            for row, i in enumerate(batch):
                out = loaded.tgt_vocab.decode(outputs[row][: lengths[row]])
                src_tokens = [loaded.src_vocab.tokens[j] for j in ids[i]]
                results[i] = Translation(
                    source=sentences[i], src_tokens=src_tokens, tokens=out, text=detokenize(out),
                    score=scores[row], attention=attention[row, : lengths[row], : len(ids[i])],
                    truncated=len(tokens[i]) > loaded.max_len - 1)
        return results  # type: ignore[return-value]

