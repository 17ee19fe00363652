"""The Lightning DataModule: train/valid splits encoded by the tokenizer, batched by tokens."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader

from attention_lab.config import param
from attention_lab.data.archive import CorpusError
from attention_lab.data.batching import TokenBatchSampler, collate_pairs
from attention_lab.data.calendar_augmentation import calendar_pairs
from attention_lab.data.concatenation import concatenated_pairs
from attention_lab.data.date_augmentation import date_pairs
from attention_lab.data.name_augmentation import name_pairs
from attention_lab.data.number_augmentation import number_pairs
from attention_lab.data.ordinal_augmentation import ordinal_pairs
from attention_lab.data.splits import load_split, references
from attention_lab.data.title_augmentation import title_pairs
from attention_lab.data.tokenizer import Tokenizer


@dataclass(frozen=True)
class DataParams:
    batch_size: int = param(64, ge=1)  # sentences per batch at most (d2l: 64)
    # Padded tokens per batch at most (rows × longest side); null = batches of batch_size sentences.
    batch_tokens: int | None = param(None, ge=1)
    # Processes collating batches beside the training step; auto: 4 on CUDA, none on the CPU, where
    # a worker would take a core from the step itself.
    num_workers: int | Literal["auto"] = param("auto", ge=0)
    bucket: bool = True  # batch sentences of similar length together (less padding)
    val_bleu_size: int = param(500, ge=1)  # seeded random sample of valid sources decoded for val/bleu
    # Seeded random sample of valid pairs for val/loss (null = all): validation runs many times a run.
    val_loss_size: int | None = param(2000, ge=1)
    # Sentence-concatenation augmentation (data/concatenation.py): this fraction of the train pairs
    # again, each joining 2 to concat_max random train pairs; 0 = off. Valid and test are never joined.
    concat_fraction: float = param(0.0, ge=0, le=4)
    concat_max: int = param(2, ge=2, le=8)
    # Number-copying augmentation (data/number_augmentation.py): this fraction of the train pairs
    # again, each a train pair sharing a number between its sides, renumbered; 0 = off. Train only.
    number_fraction: float = param(0.0, ge=0, le=1)
    # Name-copying augmentation (data/name_augmentation.py): this fraction of the train pairs again,
    # each a train pair sharing a name between its sides, renamed with made-up names; 0 = off. Train only.
    name_fraction: float = param(0.0, ge=0, le=1)
    # Calendar augmentation (data/calendar_augmentation.py): this fraction of the train pairs again, each
    # a train pair naming a weekday or month on both sides, with others in their places; 0 = off. Train only.
    calendar_fraction: float = param(0.0, ge=0, le=1)
    # Date augmentation (data/date_augmentation.py): this fraction of the train pairs again, each a train
    # pair dating a day, or naming a month, on both sides, given another date in any form; 0 = off. Train only.
    date_fraction: float = param(0.0, ge=0, le=1)
    # Ordinal augmentation (data/ordinal_augmentation.py): this fraction of the train pairs again, each a train
    # pair naming an ordinal on both sides, written in digits as another (`the 14th` / `la 14e`); 0 = off. Train only.
    ordinal_fraction: float = param(0.0, ge=0, le=1)
    # Title augmentation (data/title_augmentation.py): this fraction of the train pairs again, each a train
    # pair naming Tom, John or Mary on both sides, given a title and a made-up surname; 0 = off. Train only.
    title_fraction: float = param(0.0, ge=0, le=1)


def pair_lengths(pairs: list[tuple[list[int], list[int]]]) -> list[int]:
    # Sorting by the longer side keeps both the source and the target padding low.
    return [max(len(s), len(t)) for s, t in pairs]


def collate_sources(batch: list[tuple[str, list[str]]]) -> dict:
    """Validation BLEU batch: source texts and each one's references (the translator encodes)."""
    return {"sources": [s for s, _ in batch], "refs": [r for _, r in batch]}


def seeded_sample(count: int, size: int | None, seed: int) -> list[int]:
    """Indices of a seeded random sample of `size` of `count` valid items (all when None), across
    all lengths (the valid split is in corpus order, which is sorted by length: its first sources
    are all short)."""
    if size is None or size >= count:
        return list(range(count))
    return sorted(np.random.default_rng(seed).choice(count, size=size, replace=False).tolist())


class TranslationDataModule(pl.LightningDataModule):
    """Encoded train/valid splits from the split and train_tokenizer stages; the train pairs are
    followed by the joined pairs of `concat_fraction`, the renumbered pairs of `number_fraction` and
    the renamed pairs of `name_fraction`, the pairs with other weekdays and months of
    `calendar_fraction`, the redated pairs of `date_fraction`, the titled pairs of `title_fraction` and
    the pairs with ordinals in digits of `ordinal_fraction` (all seeded by `seed`).

    Validation has two loaders: (0) a seeded sample of `val_loss_size` valid pairs, for loss and
    perplexity; (1) a seeded sample of `val_bleu_size` distinct valid sources with all their
    references, decoded for BLEU.
    """

    def __init__(self, data_dir: str | Path, tokenizer: Tokenizer, params: DataParams, seed: int = 0) -> None:
        super().__init__()
        self.data_dir, self.params, self.seed, self.tokenizer = Path(data_dir), params, seed, tokenizer
        self.train_pairs: list[tuple[list[int], list[int]]] = []

    def setup(self, stage: str | None = None) -> None:
        if self.train_pairs:
            return
        frames = {name: load_split(self.data_dir, name) for name in ("train", "valid")}
        for name, frame in frames.items():
            if frame.empty:
                raise CorpusError(f"{self.data_dir / name}.parquet is empty: training needs both a train "
                                  "and a valid split (split.valid_fraction > 0)")
        src, tgt = self.tokenizer.src, self.tokenizer.tgt
        # Augmentations are made here, not in the split stage: the splits and the tokenizer stay the
        # corpus's own sentences, and trying other settings retrains without re-splitting. Numbers, names,
        # weekdays, months, dates, people and ordinals are replaced in the text, before encoding; pairs are
        # joined as ids, from the corpus's pairs.
        text_pairs = list(zip(frames["train"]["src"], frames["train"]["tgt"]))
        replaced = (number_pairs(text_pairs, self.params.number_fraction, self.seed)
                    + name_pairs(text_pairs, self.params.name_fraction, self.seed)
                    + calendar_pairs(text_pairs, self.params.calendar_fraction, self.seed)
                    + date_pairs(text_pairs, self.params.date_fraction, self.seed)
                    + title_pairs(text_pairs, self.params.title_fraction, self.seed)
                    + ordinal_pairs(text_pairs, self.params.ordinal_fraction, self.seed))
        self.train_pairs, self.valid_pairs = (
            list(zip(src.encode_all(list(f["src"])), tgt.encode_all(list(f["tgt"])))) for f in frames.values())
        self.train_pairs += concatenated_pairs(self.train_pairs, self.params.concat_fraction,
                                               self.params.concat_max, self.seed)
        self.train_pairs += list(zip(src.encode_all([s for s, _ in replaced]),
                                     tgt.encode_all([t for _, t in replaced])))
        self.valid_loss_pairs = [self.valid_pairs[i] for i in
                                 seeded_sample(len(self.valid_pairs), self.params.val_loss_size, self.seed)]
        refs = references(frames["valid"])
        sample = refs.iloc[seeded_sample(len(refs), self.params.val_bleu_size, self.seed)]
        self.valid_sources = list(zip(sample.index, [list(r) for r in sample]))
        self.valid_source_lengths = [len(ids) for ids in src.encode_all(list(sample.index))]

    def _sampler(self, lengths: list[int], shuffle: bool, world_size: int, rank: int) -> TokenBatchSampler:
        return TokenBatchSampler(lengths, self.params.batch_size, self.params.batch_tokens, shuffle=shuffle,
                                 bucket=self.params.bucket, seed=self.seed, num_replicas=world_size, rank=rank)

    def train_sampler(self, world_size: int = 1, rank: int = 0) -> TokenBatchSampler:
        """The training batches of process `rank` of `world_size`."""
        return self._sampler(pair_lengths(self.train_pairs), True, world_size, rank)

    def steps_per_epoch(self, epochs: int, world_size: int = 1, rank: int = 0) -> list[int]:
        """Optimizer steps in each of the first `epochs` epochs of process `rank` (token budgets
        make them vary a little): the batches of `train_dataloader`'s own sampler."""
        sampler = self.train_sampler(world_size, rank)
        steps = []
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            steps.append(len(sampler))
        return steps

    def _replicas(self) -> tuple[int, int]:
        """(world size, rank) of the Trainer this module is attached to, (1, 0) without one."""
        return (self.trainer.world_size, self.trainer.global_rank) if self.trainer else (1, 0)

    def _on_cuda(self) -> bool:
        return self.trainer is not None and self.trainer.strategy.root_device.type == "cuda"

    def _workers(self) -> int:
        if self.params.num_workers != "auto":
            return self.params.num_workers
        return min(4, (os.cpu_count() or 1) - 1) if self._on_cuda() else 0

    def _loader(self, items: list, sampler: TokenBatchSampler, collate) -> DataLoader:
        # Each iterator a loader starts draws a seed from the loader's generator: given one of its
        # own, loading never moves the global generators that dropout draws from (random_state.py).
        # Pinned batches copy to the GPU without blocking the step that queues them.
        workers = self._workers()
        return DataLoader(items, batch_sampler=sampler, collate_fn=collate, num_workers=workers,
                          persistent_workers=workers > 0, pin_memory=self._on_cuda(),
                          generator=torch.Generator().manual_seed(self.seed))

    def train_dataloader(self) -> DataLoader:
        sampler = self.train_sampler(*self._replicas())
        if self.trainer is not None:
            # Lightning reads the loader's length when it builds it, before it sets the epoch.
            sampler.set_epoch(self.trainer.current_epoch)
            if self.trainer.fit_loop.restarting:
                # Validation (and so the checkpoint a run resumes from) falls within epochs; Lightning
                # restarts the loader of the interrupted epoch, whose trained batches are left out here.
                trained = self.trainer.fit_loop.epoch_loop.batch_progress.current.completed
                sampler.resume(self.trainer.current_epoch, trained)
        return self._loader(self.train_pairs, sampler, collate_pairs)

    def val_dataloader(self) -> list[DataLoader]:
        valid = self._sampler(pair_lengths(self.valid_loss_pairs), False, *self._replicas())
        sources = self._sampler(self.valid_source_lengths, False, *self._replicas())
        return [self._loader(self.valid_loss_pairs, valid, collate_pairs),
                self._loader(self.valid_sources, sources, collate_sources)]
