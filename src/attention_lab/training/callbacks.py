"""Lightning extensions: the learning-rate schedule over steps or a time budget, the per-epoch
history file, and crash-safe checkpoint writes."""

from __future__ import annotations

import csv
import io
import math
import time
from pathlib import Path
from typing import Any

import pytorch_lightning as pl
from pytorch_lightning.plugins.io import TorchCheckpointIO

from attention_lab.atomic import atomic_path, write_text
from attention_lab.training.schedule import LinearSchedule

HISTORY_COLUMNS = ("epoch", "step", "planned_steps", "train_loss", "val_loss", "val_ppl", "val_bleu",
                   "tokens_per_s", "lr", "train_seconds")


class ScheduleCallback(pl.Callback):
    """Sets every parameter group's learning rate before each optimizer step from a
    `LinearSchedule`, records the rate the step used (`last_lr`), and stops training when the
    schedule is spent. Its state travels in checkpoints, so a resumed run keeps its plan and the
    time it already used."""

    def __init__(self, schedule: LinearSchedule, clock: Any = time.perf_counter) -> None:
        self.schedule, self.clock = schedule, clock
        self.last_lr = math.nan
        self.peak_lrs: list[float] = []
        self._validation_s = 0.0
        self._validation_start = 0.0

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.peak_lrs = [group.get("initial_lr", group["lr"]) for group in trainer.optimizers[0].param_groups]
        for group, peak in zip(trainer.optimizers[0].param_groups, self.peak_lrs):
            group["initial_lr"] = peak
        self.schedule.start(self.clock())

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: Any,
                             batch_idx: int) -> None:
        factor = self.schedule.factor(self.clock(), reserve_s=self._validation_s)
        for group, peak in zip(trainer.optimizers[0].param_groups, self.peak_lrs):
            group["lr"] = peak * factor
        self.last_lr = self.peak_lrs[0] * factor

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        if self.schedule.done():
            trainer.should_stop = True

    def on_validation_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._validation_start = self.clock()

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.sanity_checking:
            self._validation_s = self.clock() - self._validation_start

    def state_dict(self) -> dict[str, Any]:
        return {"schedule": self.schedule.state_dict(), "peak_lrs": self.peak_lrs, "last_lr": self.last_lr}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.schedule.load_state_dict(state_dict["schedule"])
        self.peak_lrs, self.last_lr = list(state_dict["peak_lrs"]), float(state_dict["last_lr"])


class History(pl.Callback):
    """Writes one CSV row per validation (a DVC plot) from the metrics the module logged.

    `lr` is the rate the epoch's last optimizer step used (read before any scheduler steps).
    Its rows travel in checkpoints, so a resumed run continues the same history.
    """

    def __init__(self, path: str | Path, schedule: ScheduleCallback | None = None) -> None:
        self.path, self.schedule = Path(path), schedule
        self.rows: list[dict[str, float]] = []
        self._lr = math.nan

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        if self.schedule is None:
            self._lr = trainer.optimizers[0].param_groups[0]["lr"]

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.sanity_checking or not trainer.is_global_zero:
            return
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
        plan = self.schedule.schedule if self.schedule else None
        self.rows.append({
            "epoch": trainer.current_epoch + 1, "step": trainer.global_step,
            "planned_steps": plan.planned_steps if plan else math.nan,
            "train_loss": metrics.get("train/epoch_loss", math.nan),
            "val_loss": metrics["val/loss"], "val_ppl": metrics["val/ppl"], "val_bleu": metrics["val/bleu"],
            "tokens_per_s": metrics.get("train/tokens_per_s", math.nan),
            "lr": self.schedule.last_lr if self.schedule else self._lr,
            "train_seconds": metrics.get("train/seconds", math.nan)})
        self.write()

    def write(self) -> None:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=HISTORY_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in self.rows:
            writer.writerow({k: (round(v, 8) if isinstance(v, float) else v) for k, v in row.items()})
        write_text(self.path, buffer.getvalue())

    def state_dict(self) -> dict[str, Any]:
        return {"rows": self.rows}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.rows = list(state_dict["rows"])


class AtomicCheckpointIO(TorchCheckpointIO):
    """Checkpoints go to a temporary file renamed into place: a kill mid-save keeps the old one."""

    def save_checkpoint(self, checkpoint: dict[str, Any], path: Any, storage_options: Any | None = None) -> None:
        with atomic_path(path) as tmp:
            super().save_checkpoint(checkpoint, tmp, storage_options)
