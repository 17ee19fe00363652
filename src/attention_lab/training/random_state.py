"""The random-number state of a training run (torch, CUDA where present, numpy, Python's `random`),
saved in every checkpoint and restored on resume: a resumed run draws the dropout masks the
uninterrupted run drew, where seeding again would replay those of the first steps.

The data draws nothing from these generators: the batches are seeded per epoch (`TokenBatchSampler`),
the joined pairs by `seed` once (`concatenated_pairs`), and the loaders' own seeds come from their own
generator (`TranslationDataModule`). So the state taken when a checkpoint is written (at the end of a
validation) is the state the next training step starts from, wherever in an epoch that falls.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytorch_lightning as pl
import torch


def collect() -> dict[str, Any]:
    """This process's generators' states, as types a `weights_only` load reads back."""
    name, keys, position, has_gauss, gauss = np.random.get_state()
    return {"torch": torch.get_rng_state(),
            # A process that never used CUDA has drawn nothing there (and reading would start CUDA on every GPU).
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else [],
            "numpy": (name, torch.from_numpy(keys.astype(np.int64)), position, has_gauss, gauss),
            "python": random.getstate()}


def restore(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    if state["cuda"]:
        torch.cuda.set_rng_state_all(state["cuda"])
    name, keys, position, has_gauss, gauss = state["numpy"]
    np.random.set_state((name, keys.numpy().astype(np.uint32), position, has_gauss, gauss))
    random.setstate(state["python"])


class RandomState(pl.Callback):
    """Carries every process's random-number state in the checkpoints (each process draws its own
    masks for its own batches) and puts it back just before the resumed run's first training step,
    after everything Lightning sets up on a restart."""

    def __init__(self) -> None:
        self._pending: list[dict[str, Any]] | None = None

    def state_dict(self) -> dict[str, Any]:
        # Lightning builds the checkpoint on every process (rank 0 writes it): a collective is safe here.
        mine = collect()
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            ranks: list[Any] = [None] * torch.distributed.get_world_size()
            torch.distributed.all_gather_object(ranks, mine)
            return {"ranks": ranks}
        return {"ranks": [mine]}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self._pending = list(state_dict["ranks"])

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: Any,
                             batch_idx: int) -> None:
        if self._pending is not None:
            restore(self._pending[trainer.global_rank])
            self._pending = None
