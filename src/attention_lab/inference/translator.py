"""Text in, text out: tokenizer, batched search and `<unk>` replacement around a trained model.

Imports nothing from Lightning, MLflow or DVC: translating needs only the model file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from attention_lab.config import param
from attention_lab.data.batching import budget_batches, pad
from attention_lab.data.special_tokens import EOS, UNK, UNK_ID
from attention_lab.errors import UserError
from attention_lab.inference.model_file import LoadedModel, load_model
from attention_lab.inference.search import output_limits, run_search


@dataclass(frozen=True)
class SearchParams:
    # Beam 8 with alpha 1.0 scored best on a sample of the valid split (docs/model-choice.md).
    beam_size: int = param(8, ge=1, le=64)  # 1 = greedy; a sentence's work grows with it (README: Limits)
    length_penalty: float = param(1.0, ge=0)  # GNMT alpha; 0 = raw log-probability
    # Options that make long outputs finish the sentence (docs/search.md); beam only, except min_len_ratio.
    coverage_penalty: float = param(0.0, ge=0)  # GNMT beta; 0 = off (and not computed)
    min_len_ratio: float = param(0.0, ge=0)  # <eos> forbidden before floor(ratio * source tokens) output tokens
    keep_live: bool = False  # W open hypotheses per sentence, finished ones pooled (fairseq); false = d2l's beam
    max_len_ratio: float = param(2.0, gt=0)  # output tokens <= ceil(ratio * source tokens)
    batch_size: int = param(128, ge=1, le=4096)  # sentences decoded together (similar lengths batched)
    # The work one sentence may cause (README: Limits). The longest training source is 74 pieces:
    # a longer source is refused, never cut, and no output runs past the absolute cap.
    max_source_pieces: int = param(256, ge=1)  # `<eos>` included
    max_output_pieces: int = param(512, ge=1)


class SourceTooLong(UserError):
    """A sentence over `max_source_pieces`; `index` is its position in the translated list."""

    def __init__(self, index: int, pieces: int, limit: int) -> None:
        super().__init__(f"sentence {index + 1}: {pieces} pieces, over max_source_pieces {limit}: "
                         "split it into shorter sentences")
        self.index, self.pieces, self.limit = index, pieces, limit


@dataclass(frozen=True)
class Translation:
    source: str
    src_pieces: list[str]  # what the model read: pieces (or words, `<unk>` for unknown ones), `<eos>` last
    pieces: list[str]  # output pieces, `<eos>` excluded, any `<unk>` already replaced
    text: str  # the translation as a person reads it
    score: float
    attention: np.ndarray  # (T, S): a row per output piece (and `<eos>` when emitted), the maps' average
    unknown: list[str]  # source words the vocabulary lacks (word mode; subwords have none)
    # (R, T, S): each attention map, layer-major (R = L·M; one for a recurrent decoder), when asked for
    maps: np.ndarray | None = None
    layout: tuple[int, int] = (1, 1)  # (L, M): the model's layers and heads of attention

    @property
    def output_labels(self) -> list[str]:
        return self.pieces + [EOS] * (len(self.attention) - len(self.pieces))


def replace_unknown(pieces: list[str], attention: np.ndarray, surface: list[str]) -> list[str]:
    """Each output `<unk>` becomes the source word it attends to most (Luong et al. 2015,
    "Addressing the Rare Word Problem in NMT", §3, with attention as the alignment; Jean et al.
    2015 do the same): names and numbers are copied instead of lost. attention (T, S) has a
    column per source piece, the last for `<eos>`, which is never copied."""
    out = []
    for t, piece in enumerate(pieces):
        if piece == UNK and surface:
            piece = surface[int(np.argmax(attention[t, : len(surface)]))]
        out.append(piece)
    return out


class Translator:
    def __init__(self, loaded: LoadedModel, device: str | torch.device = "cpu") -> None:
        self.model, self.tokenizer = loaded.model, loaded.tokenizer
        self.device = torch.device(device)
        self.model.to(self.device).eval()

    @classmethod
    def load(cls, path: str | Path, device: str | torch.device | None = None) -> Translator:
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        return cls(load_model(path, device), device)

    def encode(self, sentences: Sequence[str], search: SearchParams) -> list[list[int]]:
        """Each sentence's source ids; raises `SourceTooLong` for the first over the limit, before
        any decoding, so a refused request costs no search."""
        ids = self.tokenizer.src.encode_all(list(sentences))
        for i, sentence_ids in enumerate(ids):
            if len(sentence_ids) > search.max_source_pieces:
                raise SourceTooLong(i, len(sentence_ids), search.max_source_pieces)
        return ids

    def translate(self, sentences: Sequence[str], search: SearchParams | None = None,
                  deadline: float | None = None, maps: bool = False,
                  progress: Callable[[int], object] | None = None) -> list[Translation]:
        """Translate in batches of similar length; results come back in input order. Past
        `deadline` (a `time.monotonic()`), the search raises `SearchTimeout`. `maps`: keep each
        layer's and head's attention (`Translation.maps`), not only their average. `progress(n)`
        is told after each batch how many sentences it translated."""
        search = search or SearchParams()
        src_codec, tgt_codec = self.tokenizer.src, self.tokenizer.tgt
        ids = self.encode(sentences, search)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        forbid = () if tgt_codec.emits_unk else (UNK_ID,)
        results: list[Translation | None] = [None] * len(ids)
        for batch in budget_batches(order, [len(i) for i in ids], search.batch_size, None):
            src, src_len = pad([ids[i] for i in batch])
            src, src_len = src.to(self.device), src_len.to(self.device)
            limits = output_limits(src_len, search.max_len_ratio, search.max_output_pieces)
            decoded = run_search(self.model, src, src_len, limits, search.beam_size, search.length_penalty,
                                 coverage=search.coverage_penalty, min_len_ratio=search.min_len_ratio,
                                 keep_live=search.keep_live, forbid=forbid, deadline=deadline, maps=maps)
            outputs, lengths = decoded.tokens.tolist(), decoded.lengths.tolist()
            attention, scores = decoded.attention.float().cpu().numpy(), decoded.scores.tolist()
            for row, i in enumerate(batch):
                kept = attention[row, : lengths[row], :, : len(ids[i])].transpose(1, 0, 2)  # (R, T, S)
                weights = kept.mean(axis=0)  # (T, S)
                pieces = tgt_codec.id_pieces(outputs[row][: lengths[row]])
                read = src_codec.pieces(sentences[i])
                unknown = [w for w, j in zip(src_codec.surface(sentences[i]), ids[i]) if j == UNK_ID]
                if tgt_codec.emits_unk:
                    pieces = replace_unknown(pieces, weights, src_codec.surface(sentences[i]))
                results[i] = Translation(
                    source=sentences[i], src_pieces=[UNK if j == UNK_ID else p for p, j in zip(read, ids[i])] + [EOS],
                    pieces=pieces, text=tgt_codec.join(pieces), score=scores[row], attention=weights,
                    unknown=unknown, maps=kept if maps else None, layout=self.model.decoder.attention_layout)
            if progress is not None:
                progress(len(batch))
        return results  # type: ignore[return-value]
