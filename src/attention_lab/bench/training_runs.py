"""The bench's training phases: a model trained through the stage's own steps until its phase's share of the
budget is spent (`bench/budget.py`), its FLOPs per target token counted; and the seed model trained the
textbook's way on the same batches."""

from __future__ import annotations

import contextlib
import json
import sys
from dataclasses import replace
from typing import Any

import pytorch_lightning as pl
import torch
import yaml

from attention_lab.bench.budget import Phase
from attention_lab.bench.flops import matmul_ceiling, training_flops_per_token
from attention_lab.bench.pairs import epoch_batches
from attention_lab.bench.textbook import TextbookSeq2Seq, train_reference
from attention_lab.config import ConfigError, from_mapping
from attention_lab.model.seq2seq import build_model
from attention_lab.tracking.store import MlflowParams
from attention_lab.training.datamodule import pair_lengths
from attention_lab.training.paths import TrainPaths
from attention_lab.training.run import Seq2SeqParams, prepare, resolve_precision
from attention_lab.training.steps import export, fit, record


def with_overrides(section: dict, overrides: tuple[str, ...], epochs: int) -> Seq2SeqParams:
    """train_seq2seq params from a section plus "a.b=value" overrides, run for `epochs` (no
    budget, no early stop, no progress bar, no averaging, and two validations: they cost wall-clock
    time, not measured throughput)."""
    section = json.loads(json.dumps(section))
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE")
        *parents, leaf = key.split(".")
        node = section
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = yaml.safe_load(value)
    params = from_mapping(Seq2SeqParams, section, "train_seq2seq")
    return replace(params, trainer=replace(params.trainer, max_epochs=epochs, progress_bar=False, budget_minutes=None,
                                           early_stopping_patience=None, validations=2, average_last=None))


def significant(value: float, digits: int = 4) -> float:
    """Rounded to `digits` significant digits: a tiny model's fraction of a large peak stays non-zero."""
    return float(f"{value:.{digits}g}")


class StopAtDeadline(pl.Callback):
    """Stops training at the end of the first batch where no more of `phase`'s share is left than the last
    validation took, marking the phase cut short (`label`): Lightning then validates once more, so the last
    stretch's tokens/s is still measured, and the phase ends near its deadline."""

    def __init__(self, phase: Phase, label: str) -> None:
        self.phase, self.label = phase, label
        self.validation_s, self._validation_start = 0.0, 0.0

    def on_validation_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._validation_start = self.phase.clock()

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.validation_s = self.phase.clock() - self._validation_start

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        last = trainer.is_last_batch and trainer.current_epoch + 1 >= trainer.max_epochs  # the run's own end
        if not trainer.should_stop and not last and self.phase.clock() + self.validation_s >= self.phase.deadline:
            trainer.should_stop = True
            self.phase.cut(self.label)


def train_until(params: Seq2SeqParams, paths: TrainPaths, stop: pl.Callback) -> dict:
    """`train_seq2seq` (MLflow off) with `stop` among the Trainer's callbacks; the stage's metrics."""
    job = prepare(params, MlflowParams(enabled=False), paths)
    job.trainer.callbacks.append(stop)
    _, average = fit(job)
    metrics = export(job, average)
    record(job, metrics)
    return metrics


def train_and_count(params: Seq2SeqParams, paths: TrainPaths, device: torch.device, flop_batches: int,
                    phase: Phase) -> dict:
    """Train through the stage's steps until `phase`'s deadline at most; then, as a measurement of its own
    (`flops`, skipped past the budget), count the FLOPs per target token of its model on the first training
    batches and time its products alone (the ceiling)."""
    with contextlib.redirect_stdout(sys.stderr):  # stdout carries the JSON report alone
        metrics = train_until(params, paths, StopAtDeadline(phase, "training"))
    # Counted (and the ceiling's products timed) in the dtypes training ran in: bf16 under autocast.
    precision = resolve_precision(params.trainer.precision, params.trainer.accelerator)
    run = {"precision": precision, "epochs": metrics["epochs"], "updates": metrics["updates"],
           "tokens_per_s": metrics["tokens_per_s"], "train_seconds": metrics["train_seconds"],
           "final_train_loss": metrics["train_loss"], "parameters": metrics["parameters"]}

    def count() -> dict:
        data, [batches] = epoch_batches(paths, params, 1)
        model = build_model(params.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).to(device).train()
        with torch.autocast(device.type, torch.bfloat16, enabled=precision == "bf16-mixed"):
            flops, products = training_flops_per_token(model, batches[:flop_batches], params.optim.label_smoothing)
        return {"flops_per_token": round(flops), "gflops": significant(metrics["tokens_per_s"] * flops / 1e9),
                "matmul_ceiling_gflops": significant(matmul_ceiling(products))}

    return {**run, **(phase.once(count, "flops") or {})}


def reference_run(params: Seq2SeqParams, paths: TrainPaths, device: torch.device,
                  project_tokens_per_s: float, phase: Phase) -> dict:
    """The seed model trained the textbook's way on the batches the project's run trained on, for as many
    of its epochs as `phase` allows (`bench/budget.py`: one is a measurement)."""
    data, epochs = epoch_batches(paths, params, params.trainer.max_epochs)
    torch.manual_seed(params.seed)
    model = TextbookSeq2Seq(params.model, len(data.tokenizer.src), len(data.tokenizer.tgt))
    result = train_reference(model, epochs, params.trainer.max_epochs, params.optim.lr,
                             max(pair_lengths(data.train_pairs)), device, phase.repeat)
    if result["tokens_per_s"]:  # none where the budget ended with the warm-up epoch
        result["project_over_reference"] = round(project_tokens_per_s / result["tokens_per_s"], 2)
    return result
