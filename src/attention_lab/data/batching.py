"""Batches of token-id sentences, shared by training and translation (no Lightning here).

Batches are formed by a token budget: a batch holds at most `max_tokens` padded tokens (rows ×
its longest sentence) and at most `max_rows` sentences, so long sentences come in small batches
(no memory blow-up) and short ones in large batches (no wasted steps). Nothing is ever truncated:
a sentence longer than the budget gets a batch of its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Sampler

from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID


def pad(sequences: Sequence[list[int]]) -> tuple[Tensor, Tensor]:
    """Id lists -> padded ids (B, S) and lengths (B,)."""
    # One array filled in one pass: a tensor per sentence cost more than a small model's step.
    lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))  # (B,)
    padded = np.full((len(sequences), lengths.max(initial=0)), PAD_ID, dtype=np.int64)  # (B, S)
    padded[np.arange(padded.shape[1]) < lengths[:, None]] = np.fromiter(
        itertools.chain.from_iterable(sequences), dtype=np.int64, count=int(lengths.sum()))
    return torch.from_numpy(padded), torch.from_numpy(lengths)  # (B, S), (B,)


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


def budget_batches(order: Sequence[int], lengths: Sequence[int], max_rows: int,
                   max_tokens: int | None) -> list[list[int]]:
    """Cut `order` into consecutive batches of at most `max_rows` indices whose rows × longest
    length stays within `max_tokens` (None: no budget). Sort `order` by length first to waste
    little padding."""
    batches: list[list[int]] = []
    batch: list[int] = []
    longest = 0
    for index in order:
        length = int(lengths[index])
        grown = max(longest, length)
        if batch and (len(batch) == max_rows or (max_tokens is not None and grown * (len(batch) + 1) > max_tokens)):
            batches.append(batch)
            batch, grown = [], length
        batch.append(int(index))
        longest = grown
    if batch:
        batches.append(batch)
    return batches


def split_evenly(batches: list[list[int]], parts: int) -> list[list[int]]:
    """Halve the batches with the most rows until their number is a multiple of `parts`, so that
    every process of a data-parallel run gets as many batches (DDP needs its gradient all-reduces
    in step) without repeating or dropping a sentence."""
    batches = list(batches)
    while len(batches) % parts:
        widest = max(range(len(batches)), key=lambda i: len(batches[i]))
        if len(batches[widest]) < 2:
            raise ValueError(f"{sum(map(len, batches))} sentences cannot be split into a multiple of "
                             f"{parts} batches")
        half = len(batches[widest]) // 2
        batches[widest : widest + 1] = [batches[widest][:half], batches[widest][half:]]
    return batches


class TokenBatchSampler(Sampler[list[int]]):
    """Batches of indices by token budget, seeded per epoch, each process taking its own share.

    Training (`shuffle`): indices are shuffled, cut into pools of about 100 batches, each pool
    sorted by length (with `bucket`) and cut by the budget, and the batches shuffled: similar lengths share a
    batch while the order stays random. Across processes the batches are split evenly (see
    `split_evenly`), and each process takes every `num_replicas`-th: disjoint shards that cover
    the data. Evaluation (no `shuffle`): all indices sorted by length (with `bucket`), batches dealt round-robin,
    no sentence repeated, so metrics summed over processes equal those of one process; fewer batches
    than processes are split until each process has one.
    """

    def __init__(self, lengths: Sequence[int], max_rows: int, max_tokens: int | None, shuffle: bool,
                 bucket: bool = True, seed: int = 0, num_replicas: int = 1, rank: int = 0) -> None:
        self.lengths = np.asarray(lengths)
        self.max_rows, self.max_tokens, self.shuffle, self.seed = max_rows, max_tokens, shuffle, seed
        self.bucket = bucket
        self.num_replicas, self.rank = num_replicas, rank
        self.epoch = 0
        self._cache: tuple[int, list[list[int]]] | None = None
        self._resume: tuple[int, int] = (-1, 0)  # (epoch, its batches already trained)

    @property
    def sampler(self) -> TokenBatchSampler:
        # Lightning calls `set_epoch` on `batch_sampler.sampler` at every epoch start; being our own
        # sampler lets it reseed the shuffle without wrapping or replacing this class.
        return self

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def resume(self, epoch: int, done: int) -> None:
        """Leave out the first `done` batches of `epoch` when iterating (its length stays the
        epoch's full count, as Lightning counts the resumed epoch's batches from `done`): a run
        resumed from a checkpoint taken within it goes on with the batches it had not trained, as
        the uninterrupted run did."""
        self._resume = (epoch, done)

    def batches(self) -> list[list[int]]:
        """This process's batches for the current epoch (computed once per epoch)."""
        if self._cache is None or self._cache[0] != self.epoch:
            self._cache = (self.epoch, self._make())
        return self._cache[1]

    def _make(self) -> list[list[int]]:
        n = len(self.lengths)
        if not self.shuffle:
            order = np.argsort(self.lengths, kind="stable") if self.bucket else np.arange(n)
            batches = budget_batches(order, self.lengths, self.max_rows, self.max_tokens)
            if len(batches) < self.num_replicas:  # Lightning fails a process with no validation batch
                batches = split_evenly(batches, self.num_replicas)
            return batches[self.rank :: self.num_replicas]
        rng = np.random.default_rng((self.seed, self.epoch))
        order = rng.permutation(n)
        pool = self.max_rows * 100
        batches = []
        for start in range(0, n, pool):
            chunk = order[start : start + pool]
            if self.bucket:
                chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            batches += budget_batches(chunk, self.lengths, self.max_rows, self.max_tokens)
        batches = [batches[i] for i in rng.permutation(len(batches))]
        return split_evenly(batches, self.num_replicas)[self.rank :: self.num_replicas]

    def __iter__(self) -> Iterator[list[int]]:
        epoch, done = self._resume
        yield from self.batches()[done:] if epoch == self.epoch else self.batches()

    def __len__(self) -> int:
        return len(self.batches())
