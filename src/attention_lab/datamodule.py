"""Batches of encoded sentence pairs: length bucketing, padding, and distributed sharding."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch
from torch import Tensor
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Sampler

from attention_lab.config import param
from attention_lab.corpus import CorpusError, load_split
from attention_lab.vocab import BOS_ID, EOS_ID, PAD_ID, Vocab


@dataclass(frozen=True)
class DataParams:
    batch_size: int = param(64, ge=1)
    max_len: int = param(10, ge=2)  # d2l's num_steps: tokens per sentence, <eos> included
    num_workers: int = param(0, ge=0)
    bucket: bool = True  # batch sentences of similar length together (less padding)
    val_bleu_size: int = param(500, ge=1)  # validation sources greedily decoded for val/bleu


def encode(vocab: Vocab, tokens: Sequence[str], max_len: int) -> list[int]:
    """Token ids truncated to `max_len` - 1 tokens, plus `<eos>`."""
    return vocab.encode(tokens[: max_len - 1]) + [EOS_ID]


def pad(sequences: Sequence[list[int]]) -> tuple[Tensor, Tensor]:
    """Id lists -> padded ids (B, L) and lengths (B,)."""
    lengths = torch.tensor([len(s) for s in sequences])
    padded = pad_sequence([torch.tensor(s) for s in sequences], batch_first=True, padding_value=PAD_ID)
    return padded, lengths  # (B, L), (B,)


def collate_pairs(batch: list[tuple[list[int], list[int]]]) -> dict:
    """Training batch: src (B, S), src_len (B,), tgt_in = `<bos>` + target (B, T), tgt_out =
    target + `<eos>` (B, T), and n_tokens, the non-padding target tokens (an int, so counting
    them never waits on the device)."""
    src, src_len = pad([s for s, _ in batch])
    tgt_out, tgt_len = pad([t for _, t in batch])
    tgt_in = torch.cat([torch.full((len(batch), 1), BOS_ID), tgt_out[:, :-1]], dim=1)  # (B, T)
    tgt_in = tgt_in.masked_fill(tgt_in == EOS_ID, PAD_ID)  # <eos> is never an input
    return {"src": src, "src_len": src_len, "tgt_in": tgt_in, "tgt_out": tgt_out,
            "n_tokens": int(tgt_len.sum())}


def collate_sources(batch: list[tuple[list[int], list[str]]]) -> dict:
    """Decoding batch: src (B, S), src_len (B,) and each source's reference translations."""
    src, src_len = pad([s for s, _ in batch])
    return {"src": src, "src_len": src_len, "refs": [r for _, r in batch]}


class BucketBatchSampler(Sampler[list[int]]):
    """Batches of indices, seeded per epoch, each rank taking its share.

    With `bucket`, indices are shuffled, cut into pools of 100 batches, each pool sorted by
    length and cut into batches, and the batches shuffled: similar lengths share a batch (less
    padding) while the order stays random. Every rank gets the same number of batches (the list is
    padded by repetition), which DDP needs to keep its gradient all-reduces in step.
    """

    def __init__(self, lengths: Sequence[int], batch_size: int, shuffle: bool, bucket: bool, seed: int = 0,
                 num_replicas: int = 1, rank: int = 0) -> None:
        self.lengths = np.asarray(lengths)
        self.batch_size, self.shuffle, self.bucket, self.seed = batch_size, shuffle, bucket, seed
        self.num_replicas, self.rank = num_replicas, rank
        self.epoch = 0

    @property
    def sampler(self) -> BucketBatchSampler:
        # Lightning calls `set_epoch` on `batch_sampler.sampler` at every epoch start; being our own
        # sampler lets it reseed the shuffle without wrapping or replacing this class.
        return self

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def _batches(self) -> list[np.ndarray]:
        rng = np.random.default_rng((self.seed, self.epoch))
        order = rng.permutation(len(self.lengths)) if self.shuffle else np.arange(len(self.lengths))
        pool = self.batch_size * 100 if self.shuffle else len(order)
        if self.bucket:
            order = np.concatenate([chunk[np.argsort(self.lengths[chunk], kind="stable")]
                                    for chunk in np.split(order, range(pool, len(order), pool))])
        batches = np.split(order, range(self.batch_size, len(order), self.batch_size))
        if self.shuffle:
            batches = [batches[i] for i in rng.permutation(len(batches))]
        return batches

    def __iter__(self) -> Iterator[list[int]]:
        batches = self._batches()
        total = len(self) * self.num_replicas
        batches = (batches * math.ceil(total / max(len(batches), 1)))[:total]
        for batch in batches[self.rank :: self.num_replicas]:
            yield batch.tolist()

    def __len__(self) -> int:
        return math.ceil(math.ceil(len(self.lengths) / self.batch_size) / self.num_replicas)


class TranslationDataModule(pl.LightningDataModule):
    """Encoded train/valid splits from the tokenize and vocab stages.

    Validation has two loaders: (0) every valid pair, for loss and perplexity; (1) up to
    `val_bleu_size` distinct valid sources with all their references, for greedy BLEU.
    """

    def __init__(self, data_dir: str | Path, src_vocab: Vocab, tgt_vocab: Vocab, params: DataParams,
                 seed: int = 0) -> None:
        super().__init__()
        self.data_dir, self.params, self.seed = Path(data_dir), params, seed
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        self.train_pairs: list[tuple[list[int], list[int]]] = []

    def setup(self, stage: str | None = None) -> None:
        if self.train_pairs:
            return
        max_len = self.params.max_len
        frames = {name: load_split(self.data_dir, name) for name in ("train", "valid")}
        for name, frame in frames.items():
            if frame.empty:
                raise CorpusError(f"{self.data_dir / name}.parquet is empty: training needs both a train "
                                  "and a valid split (tokenize.valid_fraction > 0)")
        self.train_pairs, self.valid_pairs = (
            [(encode(self.src_vocab, s.split(), max_len), encode(self.tgt_vocab, t.split(), max_len))
             for s, t in zip(frame["src"], frame["tgt"])] for frame in frames.values())
        refs = frames["valid"].groupby("src", sort=False)["tgt"].agg(list)
        refs = refs.iloc[: self.params.val_bleu_size]
        self.valid_sources = [(encode(self.src_vocab, s.split(), max_len), r) for s, r in zip(refs.index, refs)]

    def _loader(self, items: list, lengths: list[int], collate, shuffle: bool) -> DataLoader:
        trainer = self.trainer
        sampler = BucketBatchSampler(
            lengths, self.params.batch_size, shuffle=shuffle,
            bucket=self.params.bucket, seed=self.seed,
            num_replicas=trainer.world_size if trainer else 1, rank=trainer.global_rank if trainer else 0)
        return DataLoader(items, batch_sampler=sampler, collate_fn=collate, num_workers=self.params.num_workers,
                          persistent_workers=self.params.num_workers > 0)

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.train_pairs, pair_lengths(self.train_pairs), collate_pairs, shuffle=True)

    def val_dataloader(self) -> list[DataLoader]:
        return [self._loader(self.valid_pairs, pair_lengths(self.valid_pairs), collate_pairs, shuffle=False),
                self._loader(self.valid_sources, [len(s) for s, _ in self.valid_sources], collate_sources,
                             shuffle=False)]


def pair_lengths(pairs: list[tuple[list[int], list[int]]]) -> list[int]:
    # Sorting by the longer side keeps both the source and the target padding low.
    return [max(len(s), len(t)) for s, t in pairs]
