"""Lightning extensions: the learning-rate schedule over steps or a time budget, validation at
planned steps, the learning-curve files, and a progress bar for a log file."""

from __future__ import annotations

import csv
import io
import math
import time
from pathlib import Path
from typing import Any

import pytorch_lightning as pl

from attention_lab.atomic import write_text
from attention_lab.training.schedule import LinearSchedule
from attention_lab.training.validation_schedule import ValidationSchedule

# One row per validation, and one per logging step of the training loss (`trainer.log_every_n_steps`).
# `train_loss` is the loss trained on (label-smoothed or not), `train_nll` the negative log-likelihood,
# the quantity `val_loss` measures.
HISTORY_COLUMNS = ("step", "minutes", "epoch", "planned_steps", "train_loss", "train_nll", "val_loss", "val_ppl",
                   "val_bleu", "tokens_per_s", "lr", "train_seconds")
TRAIN_LOSS_COLUMNS = ("step", "minutes", "loss", "nll", "lr")
NEVER = 2**62  # a validation step no run reaches


class ScheduleCallback(pl.Callback):
    """Sets every parameter group's learning rate before each optimizer step from a
    `LinearSchedule`, records the rate the step used (`last_lr`), and stops training when the
    schedule is spent. Its state travels in checkpoints, so a resumed run keeps its plan and the
    time it already used."""

    def __init__(self, schedule: LinearSchedule, clock: Any = time.perf_counter) -> None:
        self.schedule, self.clock = schedule, clock
        self.last_lr = math.nan
        self.peak_lrs: list[float] = []
        self.reserve_s = 0.0  # budget seconds kept for the validations to come (`PlannedValidation`)

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.peak_lrs = [group.get("initial_lr", group["lr"]) for group in trainer.optimizers[0].param_groups]
        for group, peak in zip(trainer.optimizers[0].param_groups, self.peak_lrs):
            group["initial_lr"] = peak
        self.schedule.start(self.clock())

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: Any,
                             batch_idx: int) -> None:
        factor = self.schedule.factor(self.clock(), reserve_s=self.reserve_s)
        for group, peak in zip(trainer.optimizers[0].param_groups, self.peak_lrs):
            group["lr"] = peak * factor
        self.last_lr = self.peak_lrs[0] * factor

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        if self.schedule.done():
            trainer.should_stop = True

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.schedule.restart_rate()  # the pause is validation, not a slower machine

    def state_dict(self) -> dict[str, Any]:
        return {"schedule": self.schedule.state_dict(), "peak_lrs": self.peak_lrs, "last_lr": self.last_lr}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.schedule.load_state_dict(state_dict["schedule"])
        self.peak_lrs, self.last_lr = list(state_dict["peak_lrs"]), float(state_dict["last_lr"])


class PlannedValidation(pl.Callback):
    """Validates after the steps a `ValidationSchedule` plans, across epochs (the Trainer runs with
    `check_val_every_n_epoch=None`), and keeps the budget's reserve for the validations to come.

    Lightning validates after the run's batch i when (i + 1) % `trainer.val_check_batch` == 0; the
    plan's next step itself, always beyond the current one, is the first multiple there. Every rank
    takes rank 0's plan, so that all run each validation together.

    A validation's cost is the whole pause in training: the checkpoint written after it (over half a
    gigabyte for a GPU-sized model and its Adam state, longer than the validation itself on a card)
    and the loader's restart, measured at the next batch, count as much as the decoding. A budget
    run plans with the last pause's until then, and re-plans with this one's."""

    PLAN_AFTER = 50  # updates a budget run trains (from its start, or a resume) before planning from their speed

    def __init__(self, plan: ValidationSchedule, schedule: ScheduleCallback | None = None,
                 clock: Any = time.perf_counter) -> None:
        self.plan, self.schedule, self.clock = plan, schedule, clock
        self._mark = (0, 0.0)  # (step, time) where the current stretch of training began
        self._validation_start = self._validation_end = 0.0
        self._paused = False  # between a validation and the next training batch
        self._stretch_rate: float | None = None  # updates per second of the last stretch (budget runs)

    def _aim(self, trainer: pl.Trainer, step: int | None) -> None:
        step = trainer.strategy.broadcast(step, src=0)
        trainer.val_check_batch = NEVER if step is None else step
        if self.schedule is not None:
            self.schedule.reserve_s = self.plan.reserve_s()

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._mark = (trainer.global_step, self.clock())
        self._aim(trainer, self.plan.first(trainer.global_step))

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        waiting = self.plan.total_steps is None and trainer.val_check_batch == NEVER
        if waiting and trainer.global_step == self._mark[0] + self.PLAN_AFTER:
            now = self.clock()
            self._aim(trainer, self.plan.plan(trainer.global_step, *self._budget_speed(trainer, now, now)))

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: Any,
                             batch_idx: int) -> None:
        if not self._paused:
            return
        self._paused, now = False, self.clock()
        self.plan.pause_s = now - self._validation_end
        self._mark = (trainer.global_step, now)
        if self.plan.total_steps is None:  # re-planned with the pause's whole cost
            left = self._budget_speed(trainer, now, now)[1]
            self._aim(trainer, self.plan.plan(trainer.global_step, self._stretch_rate, left))

    def on_validation_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._validation_start = self.clock()

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.sanity_checking:
            return
        now = self.clock()
        self.plan.validation_s, self._validation_end = now - self._validation_start, now
        self._stretch_rate, left = self._budget_speed(trainer, self._validation_start, now)
        self._paused = True  # the next stretch starts (`_mark`) when training goes on
        self._aim(trainer, self.plan.after_validation(trainer.global_step, self._stretch_rate, left))

    def _budget_speed(self, trainer: pl.Trainer, training_end: float,
                      now: float) -> tuple[float | None, float | None]:
        """(updates per second of training since the last validation, until `training_end`; budget
        seconds left at `now`), or Nones for a run of known length."""
        if self.schedule is None or self.schedule.schedule.budget_s is None:
            return None, None
        step, since = self._mark
        rate = (trainer.global_step - step) / (training_end - since) if training_end > since else None
        return rate, self.schedule.schedule.budget_s - self.schedule.schedule.seconds(now)

    def state_dict(self) -> dict[str, Any]:
        return self.plan.state_dict()

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.plan.load_state_dict(state_dict)


class History(pl.Callback):
    """The learning curves, as DVC plots: `history.csv`, one row per validation (from the metrics
    the module logged), and `train_loss.csv`, the training loss and NLL at every logging step. Both are
    rewritten at each validation and at the end, and their rows travel in checkpoints, so a
    resumed run continues the same curves. `minutes` is wall-clock time since training began
    (validation and earlier sessions of a resumed run included), as the budget counts it.

    `lr` is the rate the last optimizer step used (read before any scheduler steps). On several
    processes the training loss is rank 0's batches'.
    """

    def __init__(self, folder: str | Path, schedule: ScheduleCallback | None = None,
                 clock: Any = time.perf_counter) -> None:
        self.folder, self.schedule, self.clock = Path(folder), schedule, clock
        self.rows: list[dict[str, float]] = []
        self.losses: list[dict[str, float]] = []
        self._lr = math.nan
        self._started = 0.0

    def _minutes(self) -> float:
        return round((self.clock() - self._started) / 60, 4)

    def _last_lr(self) -> float:
        return self.schedule.last_lr if self.schedule else self._lr

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        earlier = max([row["minutes"] for row in self.rows + self.losses] or [0.0])
        self._started = self.clock() - earlier * 60

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        if self.schedule is None:
            self._lr = trainer.optimizers[0].param_groups[0]["lr"]
        if trainer.is_global_zero and trainer.global_step % trainer.log_every_n_steps == 0:
            self.losses.append({"step": trainer.global_step, "minutes": self._minutes(),
                                "loss": float(outputs["loss"]), "nll": float(outputs["nll"]), "lr": self._last_lr()})

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.sanity_checking or not trainer.is_global_zero:
            return
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
        plan = self.schedule.schedule if self.schedule else None
        self.rows.append({
            "step": trainer.global_step, "minutes": self._minutes(), "epoch": trainer.current_epoch + 1,
            "planned_steps": plan.planned_steps if plan else math.nan,
            "train_loss": metrics.get("train/mean_loss", math.nan), "train_nll": metrics.get("train/mean_nll", math.nan),
            "val_loss": metrics["val/loss"], "val_ppl": metrics["val/ppl"], "val_bleu": metrics["val/bleu"],
            "tokens_per_s": metrics.get("train/tokens_per_s", math.nan), "lr": self._last_lr(),
            "train_seconds": metrics.get("train/seconds", math.nan)})
        self.write()

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.is_global_zero:
            self.write()

    def write(self) -> None:
        write_csv(self.folder / "history.csv", HISTORY_COLUMNS, self.rows)
        write_csv(self.folder / "train_loss.csv", TRAIN_LOSS_COLUMNS, self.losses)

    def state_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "losses": self.losses}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.rows, self.losses = list(state_dict["rows"]), list(state_dict["losses"])


class EpochLength(pl.Callback):
    """Lightning counts the train loader's batches once, when it builds the loader, and ends every
    epoch at that count; the token budget packs each epoch's shuffled pools into batches of their
    own, so an epoch may have more or fewer than the first. The count is taken again at each
    epoch's start, once the sampler knows its epoch: every epoch trains all its batches."""

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        loop = trainer.fit_loop
        loader = loop._combined_loader  # no public way to recount: Lightning's own `setup_data` sets both
        loader.limits = [len(dl) for dl in loader.flattened]
        loop.max_batches = max(loader.limits)  # the "max_size_cycle" loader's count, which the fit loop uses


def write_csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, float]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (round(v, 8) if isinstance(v, float) else v) for k, v in row.items()})
    write_text(path, buffer.getvalue())
