"""The steps of a training run once `run.prepare` has built it: `fit`, then `export` (or, for a run
trained earlier whose recording failed, `restore`), then `record`.

The files come first, MLflow last: a tracking store that goes away during training or recording
never costs the trained model.
"""

from __future__ import annotations

import json
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytorch_lightning as pl
import torch
from matplotlib.figure import Figure
from pytorch_lightning.utilities import rank_zero_only
from pytorch_lightning.utilities.exceptions import SIGTERMException

from attention_lab.atomic import write_json
from attention_lab.config import ConfigError, flatten, to_dict
from attention_lab.data.tokenizer import Tokenizer
from attention_lab.errors import Terminated
from attention_lab.inference.model_file import save_model
from attention_lab.model.encoder_decoder import EncoderDecoder
from attention_lab.tracking import store as tracking
from attention_lab.tracking.record import record_training
from attention_lab.plotting import curves
from attention_lab.training.averaging import SCORES, LastWeights, best_row, keep_better, score_average
from attention_lab.training.callbacks import History
from attention_lab.training.datamodule import TranslationDataModule
from attention_lab.tracking.lightning_logger import make_logger
from attention_lab.training.module import DivergedError, Seq2SeqModule
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.paths import TrainPaths
from attention_lab.training.resume import ResumeState, Start


@dataclass(frozen=True)
class Job:
    """A training run, built: what its steps share."""

    params: Seq2SeqParams
    mlflow: tracking.MlflowParams
    client: Any | None  # the checked MlflowClient; None when tracking is off
    paths: TrainPaths
    tokenizer: Tokenizer
    datamodule: TranslationDataModule
    module: Seq2SeqModule
    trainer: pl.Trainer
    history: History
    state: ResumeState
    fingerprint: str
    start: Start


def reports(paths: TrainPaths) -> list[Path]:
    return [paths.reports / name for name in ("history.csv", "train_loss.csv", "metrics.json")]


def outputs(paths: TrainPaths) -> list[Path]:
    """The stage's files other than the run file, which comes with the recording."""
    return [paths.out / "model.pt", *reports(paths)]


def recorded_params(paths: TrainPaths, tokenizer: Tokenizer, params: Seq2SeqParams) -> dict:
    """Every param that shaped the run, as `dvc exp run -S` names them: the split settings the
    splits were made with, the train_tokenizer settings of the tokenizer, and this stage's own."""
    try:
        split = json.loads((paths.data / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        split = {}
    return flatten({"split": split, "train_tokenizer": to_dict(tokenizer.params), "train_seq2seq": to_dict(params)})


def fit(job: Job) -> tuple[bool, dict | None]:
    """Train, from the resume checkpoint if there is one, logging metrics to MLflow, then score the
    average of the last validations (`averaging.score_average`); returns whether this is the
    process that writes the outputs (rank 0), and the average's scores. A failed run leaves no
    reports; a diverged one, which would only diverge again, no resume state either."""
    logger = make_logger(job.mlflow, job.client, job.start.run_id)
    if logger is not None:
        job.trainer.logger = logger
    if rank_zero_only.rank == 0:
        if job.start.checkpoint is not None:
            print(f"Resuming the interrupted run of this code, config and data from {job.start.checkpoint}",
                  file=sys.stderr, flush=True)
        elif job.start.stale:
            print("Starting afresh: the code, config or data changed since the interrupted run, whose checkpoint "
                  "is discarded", file=sys.stderr, flush=True)
        if logger is not None:
            job.state.record(job.fingerprint, logger.run_id)
            logger.log_hyperparams(recorded_params(job.paths, job.tokenizer, job.params))
    # The resumed epoch's sampler leaves out the batches it had trained (`TranslationDataModule`):
    # Lightning's warning that the loader cannot resume does not apply.
    warnings.filterwarnings("ignore", message=r"You're resuming from a checkpoint that ended before the epoch")
    try:
        job.trainer.fit(job.module, datamodule=job.datamodule, ckpt_path=job.start.checkpoint, weights_only=True)
        average = score_average(job.trainer, job.module, job.datamodule)  # a validation: every process
    except BaseException as exc:
        if job.trainer.is_global_zero:
            for path in reports(job.paths):
                path.unlink(missing_ok=True)
            if isinstance(exc, DivergedError):
                job.state.discard()
        if isinstance(exc, SIGTERMException):  # a SystemExit without a status: the process would exit 0
            raise Terminated("terminated (SIGTERM); the run resumes from its last validation's checkpoint when "
                             "the stage runs again") from None
        if isinstance(exc, SystemExit) and isinstance(exc.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None  # Lightning's exit 1 for Ctrl-C: the CLI's "interrupted", 130
        kernels = job.params.trainer.attention_kernels
        if kernels and isinstance(exc, RuntimeError) and "No viable backend for scaled_dot" in str(exc):
            raise ConfigError(f"train_seq2seq.trainer.attention_kernels: none of {list(kernels)} computes this model's "
                              f"attention on {job.trainer.strategy.root_device.type}; add math, or set null for "
                              "PyTorch's choice") from exc
        raise
    job.state.finish()  # once the average is scored: a run stopped in that validation resumes at its end
    return job.trainer.is_global_zero, average


def training_metrics(history: list[dict], model: EncoderDecoder, monitor: str) -> dict:
    """The stage's metrics: the updates made, the last validation's training loss and NLL, the scores
    of the validation best by `monitor` (its checkpoint is the model, unless the average is: `export`)."""
    best = best_row(history, monitor)
    timed = history[1:] or history  # the first stretch includes warm-up
    seconds = sum(r["train_seconds"] for r in timed)
    tokens = sum(r["tokens_per_s"] * r["train_seconds"] for r in timed)
    last = history[-1] if history else {}
    return {"updates": last.get("step"), "validations": len(history), "best_update": best.get("step"),
            "epochs": last.get("epoch"), "minutes": last.get("minutes"),
            "train_loss": last.get("train_loss"), "train_nll": last.get("train_nll"), "final_lr": last.get("lr"),
            "val_loss": best.get("val_loss"), "val_ppl": best.get("val_ppl"), "val_bleu": best.get("val_bleu"),
            "tokens_per_s": round(tokens / seconds, 1) if seconds else None,
            "train_seconds": round(sum(r["train_seconds"] for r in history), 2),
            "parameters": sum(p.numel() for p in model.parameters())}


def export(job: Job, average: dict | None = None) -> dict:
    """Write `model.pt` and `metrics.json` beside `history.csv`, and keep copies in the resume state
    until the run is recorded; returns the metrics. The model is the best checkpoint's weights, or,
    with `average` (the scores of `averaging.score_average`), the kept validations' average when
    it scores at least as well (`averaging.keep_better`); the metrics' val_* are the model's."""
    best = job.trainer.checkpoint_callback.best_model_path
    if best:
        job.module.load_state_dict(torch.load(best, map_location="cpu", weights_only=True)["state_dict"])
    monitor = job.params.trainer.monitor
    metrics = training_metrics(job.history.rows, job.module.model, monitor)
    if average is not None:
        kept = next(c for c in job.trainer.callbacks if isinstance(c, LastWeights))
        metrics |= keep_better(job.module.model, kept, average, metrics, monitor)
    save_model(job.paths.out / "model.pt", job.module.model.cpu(), job.tokenizer)
    write_json(job.paths.reports / "metrics.json", metrics)
    job.state.keep(outputs(job.paths))
    return metrics


def restore(job: Job) -> dict:
    """Put back the outputs of the run trained earlier (DVC deleted them before this rerun);
    returns its metrics."""
    print(f"Recording the run trained before, whose recording failed (MLflow run {job.start.run_id}): "
          "its outputs are restored, not trained again", file=sys.stderr, flush=True)
    job.state.restore(outputs(job.paths))
    return json.loads((job.paths.reports / "metrics.json").read_text())


def loss_figure(folder: Path) -> Figure:
    """The learning curves of `history.csv` and `train_loss.csv` in `folder`: the negative
    log-likelihoods, training's and validation's, on one axis; the loss trained on (label-smoothed
    when smoothing is on, which validation's is not) on its own."""
    history, steps = pd.read_csv(folder / "history.csv"), pd.read_csv(folder / "train_loss.csv")
    return curves([
        ("negative log-likelihood per target token", {
            "training, each logged step": (steps["step"], steps["nll"]),
            "training, mean since the last validation": (history["step"], history["train_nll"]),
            "validation": (history["step"], history["val_loss"])}),
        ("loss trained on, per target token", {
            "training, each logged step": (steps["step"], steps["loss"]),
            "training, mean since the last validation": (history["step"], history["train_loss"])})], "updates")


def record(job: Job, metrics: dict) -> None:
    """Record the run in MLflow (config, reports, the loss curves' figure, the logged model with
    the scores of the model kept, `metrics`' val_*) and write the run file; then the resume state
    and its kept outputs go."""
    run_id = job.state.run_id() if job.mlflow.enabled else None
    figures = {"figures/loss.png": loss_figure(job.paths.reports)} if run_id else {}
    record_training(run_id, job.mlflow.experiment, job.paths.out / "model.pt", {"train_seq2seq": to_dict(job.params)},
                    reports(job.paths), job.paths.data, figures,
                    {f"model/{name}": metrics[name] for name in SCORES if metrics.get(name) is not None})
    job.state.discard()
