"""Checkpoint averaging (Vaswani et al. 2017, §6.1; Popel and Bojar 2018, "Training Tips for the
Transformer Model", §4.10): the weights at the last validations, and their average scored exactly
as those validations were, so that the model kept is the better one by a like-for-like comparison.
"""

from __future__ import annotations

from typing import Any

import pytorch_lightning as pl
import torch

# metrics.json's names for the validation's scores, which the Lightning module logs.
SCORES = {"val_loss": "val/loss", "val_ppl": "val/ppl", "val_bleu": "val/bleu"}
# Lightning's mode for each score `trainer.monitor` may name: which way is better.
MODES = {"val_loss": "min", "val_bleu": "max"}


def at_least_as_good(score: float, other: float, monitor: str) -> bool:
    """Whether `score` is `other` or better by `monitor` (a key of MODES)."""
    return score <= other if MODES[monitor] == "min" else score >= other


def best_row(rows: list[dict], monitor: str) -> dict:
    """The validation (a history row) best by `monitor`, the first of equals as ModelCheckpoint keeps
    it; {} without one."""
    pick = min if MODES[monitor] == "min" else max
    return pick(rows, key=lambda row: row[monitor]) if rows else {}


class LastWeights(pl.Callback):
    """The model's weights at the last `count` validations, on the CPU, and their average.
    Validations are spread over the run, so the last ones are the end
    of the learning-rate decay. They travel in checkpoints: a resumed run averages the same weights."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.kept: list[dict[str, Any]] = []

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.sanity_checking:
            return
        weights = {k: v.detach().to("cpu", copy=True) for k, v in pl_module.model.state_dict().items()}
        self.kept = (self.kept + [weights])[-self.count :]

    def average(self) -> dict[str, Any]:
        """The kept weights' mean (integer buffers, if any, from the last)."""
        return {k: (torch.stack([w[k] for w in self.kept]).mean(dim=0) if last.is_floating_point() else last)
                for k, last in self.kept[-1].items()}

    def state_dict(self) -> dict[str, Any]:
        return {"kept": self.kept}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.kept = list(state_dict["kept"])


def score_average(trainer: pl.Trainer, module: pl.LightningModule, datamodule: pl.LightningDataModule) -> dict | None:
    """The kept weights' average, loaded into `module`, scored by the Trainer's own validation loop:
    the valid samples, greedy search, precision (bf16 autocast on CUDA) and devices of the
    validations it is compared with. Returns its scores by metrics.json's names (None without
    averaging). Every process runs it, as every process validates."""
    kept = next((c for c in trainer.callbacks if isinstance(c, LastWeights)), None)
    if kept is None or not kept.kept:
        return None
    module.model.load_state_dict(kept.average())
    # A validation of the finished run for its scores only: no checkpoint, curve, kept weights,
    # validation plan or logged point comes of it.
    callbacks, loggers = trainer.callbacks, trainer.loggers
    trainer.callbacks, trainer.loggers = [], []
    try:
        logged = trainer.validate(module, datamodule=datamodule, verbose=False)[0]
    finally:
        trainer.callbacks, trainer.loggers = callbacks, loggers
    return {name: float(logged[key]) for name, key in SCORES.items()}


def keep_better(model: torch.nn.Module, kept: LastWeights, average: dict, best: dict, monitor: str) -> dict:
    """Make `model`, which holds the best validation's weights, the average when the average scores
    at least as well by `monitor`; returns the metrics of the model kept: `best`'s scores or the
    average's, and which it is."""
    averaged = at_least_as_good(average[monitor], best[monitor], monitor)
    if averaged:
        model.load_state_dict(kept.average())
    chosen = average if averaged else {name: best[name] for name in SCORES}
    return {**chosen, "average_val_loss": average["val_loss"], "average_val_bleu": average["val_bleu"],
            "averaged": averaged, "averaged_validations": len(kept.kept)}
