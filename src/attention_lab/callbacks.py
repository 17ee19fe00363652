"""Lightning extensions: the per-epoch history file and crash-safe checkpoint writes."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pytorch_lightning as pl
from pytorch_lightning.plugins.io import TorchCheckpointIO

from attention_lab.atomic import atomic_path, write_text

HISTORY_COLUMNS = ("epoch", "train_loss", "val_loss", "val_ppl", "val_bleu", "tokens_per_s", "lr", "train_seconds")


class History(pl.Callback):
    """Writes one CSV row per validated epoch (a DVC plot) from the metrics the module logged.

    Its rows travel in checkpoints, so a resumed run continues the same history.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.rows: list[dict[str, float]] = []

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.sanity_checking or not trainer.is_global_zero:
            return
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
        self.rows.append({
            "epoch": trainer.current_epoch + 1, "train_loss": metrics.get("train/epoch_loss", math.nan),
            "val_loss": metrics["val/loss"], "val_ppl": metrics["val/ppl"], "val_bleu": metrics["val/bleu"],
            "tokens_per_s": metrics.get("train/tokens_per_s", math.nan),
            "lr": trainer.optimizers[0].param_groups[0]["lr"],
            "train_seconds": metrics.get("train/seconds", math.nan)})
        self.write()

    def write(self) -> None:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=HISTORY_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in self.rows:
            writer.writerow({k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()})
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
