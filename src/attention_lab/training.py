"""`train_seq2seq(params, ...)`: the whole training run behind the `train_seq2seq` stage.

Builds the data, model and Trainer from params, resumes an interrupted run of the same config
from its last checkpoint, records the run in MLflow, and exports the best model.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint, TQDMProgressBar
from pytorch_lightning.utilities import rank_zero_only
from pytorch_lightning.utilities.exceptions import MisconfigurationException

from attention_lab import tracking
from attention_lab.atomic import write_json
from attention_lab.callbacks import AtomicCheckpointIO, History
from attention_lab.checkpoint import save_model
from attention_lab.config import ConfigError, flatten, param, to_dict
from attention_lab.corpus import load_settings
from attention_lab.datamodule import DataParams, TranslationDataModule
from attention_lab.model import ModelParams, Seq2Seq
from attention_lab.seq2seq import OptimParams, Seq2SeqModule
from attention_lab.vocab import Vocab

MONITOR = "val/bleu"


@dataclass(frozen=True)
class TrainerParams:
    accelerator: Literal["auto", "cpu", "gpu", "cuda", "mps"] = "auto"
    devices: int | Literal["auto"] = param("auto", ge=1)
    strategy: Literal["auto", "ddp", "ddp_spawn"] = "auto"
    num_nodes: int = param(1, ge=1)
    precision: Literal["auto", "32-true", "bf16-mixed", "16-mixed", "64-true"] = "auto"  # auto: bf16 on CUDA
    max_epochs: int = param(250, ge=1)
    max_time: str | None = None  # "DD:HH:MM:SS" wall-clock cap; null = none
    early_stopping_patience: int | None = param(None, ge=1)  # validations without a better val/bleu
    log_every_n_steps: int = param(50, ge=1)
    progress_bar: bool = True

    def validate(self) -> None:
        if self.max_time is not None and not re.fullmatch(r"\d+:\d\d:\d\d:\d\d", self.max_time):
            raise ValueError(f"max_time: expected DD:HH:MM:SS, got {self.max_time!r}")


@dataclass(frozen=True)
class Seq2SeqParams:
    seed: int = 0
    data: DataParams = field(default_factory=DataParams)
    model: ModelParams = field(default_factory=ModelParams)
    optim: OptimParams = field(default_factory=OptimParams)
    trainer: TrainerParams = field(default_factory=TrainerParams)


@dataclass(frozen=True)
class TrainPaths:
    data: Path  # tokenized splits
    vocab: Path  # src.json, tgt.json
    out: Path  # model.pt, mlflow_run.json, checkpoints/
    reports: Path  # history.csv, metrics.json

    @property
    def checkpoints(self) -> Path:
        return self.out / "checkpoints"


def resolve_precision(precision: str, accelerator: str) -> str:
    """`auto` is full precision on the CPU and bf16 autocast on CUDA."""
    if precision != "auto":
        return precision
    on_cuda = accelerator in ("auto", "gpu", "cuda") and torch.cuda.is_available()
    return "bf16-mixed" if on_cuda else "32-true"


def fingerprint(params: Seq2SeqParams, inputs: list[Path]) -> str:
    """What a checkpoint must match to be resumed: the whole config and the input files' bytes."""
    digest = hashlib.sha256(json.dumps(to_dict(params), sort_keys=True).encode())
    for path in inputs:
        digest.update(path.name.encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def prepare_checkpoints(directory: Path, run_fingerprint: str) -> tuple[Path | None, str | None]:
    """(checkpoint to resume, its MLflow run id), or (None, None) for a fresh start.

    Only rank 0 wipes a stale folder; other ranks just read the same decision.
    """
    state_file, last = directory / "run.json", directory / "last.ckpt"
    try:
        state = json.loads(state_file.read_text())
    except (OSError, ValueError):
        state = {}
    if state.get("fingerprint") == run_fingerprint and last.is_file():
        if rank_zero_only.rank == 0:
            for stale in directory.glob(".*.tmp"):  # checkpoints a killed run was writing
                stale.unlink()
        return last, state.get("mlflow_run_id")
    if rank_zero_only.rank == 0:
        shutil.rmtree(directory, ignore_errors=True)
        write_json(state_file, {"fingerprint": run_fingerprint, "mlflow_run_id": None})
    return None, None


def make_logger(mlflow: tracking.MlflowParams, client: object, run_id: str | None) -> pl.loggers.MLFlowLogger | None:
    """Lightning's MLflow logger on the checked `client`, or None when tracking is off."""
    if client is None:
        return None
    if rank_zero_only.rank == 0:
        tracking.ensure_experiment(client, mlflow.experiment)
    return pl.loggers.MLFlowLogger(experiment_name=mlflow.experiment, tracking_uri=tracking.tracking_uri(),
                                   run_id=run_id, run_name="train_seq2seq", tags=tracking.run_tags("train_seq2seq"))


def build_trainer(params: Seq2SeqParams, paths: TrainPaths, steps_per_epoch: int) -> tuple[pl.Trainer, History]:
    """The Trainer the params describe (without a logger yet); a setting Lightning rejects is a
    params error, raised before any run is recorded."""
    checkpoint = ModelCheckpoint(dirpath=paths.checkpoints, filename="best", monitor=MONITOR, mode="max",
                                 save_last=True, save_top_k=1, auto_insert_metric_name=False,
                                 enable_version_counter=False)
    # The folder holds run.json, and finding checkpoints there is the point of resuming.
    warnings.filterwarnings("ignore", message=r"Checkpoint directory .* exists and is not empty")
    history = History(paths.reports / "history.csv")
    callbacks: list[pl.Callback] = [checkpoint, history]
    config = params.trainer
    if config.progress_bar and not sys.stdout.isatty():
        # Rich's live bar prints nothing into a log file (dvc repro > log, nohup, CI): there, a
        # plain bar that writes a line about twenty times an epoch.
        callbacks.append(TQDMProgressBar(refresh_rate=max(1, steps_per_epoch // 20)))
    if config.early_stopping_patience:
        callbacks.append(EarlyStopping(MONITOR, mode="max", patience=config.early_stopping_patience))
    try:
        trainer = pl.Trainer(
            accelerator=config.accelerator, devices=config.devices, strategy=config.strategy,
            num_nodes=config.num_nodes, precision=resolve_precision(config.precision, config.accelerator),
            max_epochs=config.max_epochs, max_time=config.max_time, logger=False, callbacks=callbacks,
            gradient_clip_val=params.optim.grad_clip, log_every_n_steps=min(config.log_every_n_steps, steps_per_epoch),
            enable_progress_bar=config.progress_bar, use_distributed_sampler=False, plugins=[AtomicCheckpointIO()],
            default_root_dir=paths.checkpoints)
    except (MisconfigurationException, ValueError, RuntimeError) as exc:
        raise ConfigError(f"train_seq2seq.trainer: {str(exc).splitlines()[0]}") from None
    return trainer, history


def summarize(history: list[dict], model: Seq2Seq) -> dict:
    """The stage's metrics: the last epoch's training loss, the best epoch's validation scores."""
    best = max(history, key=lambda r: r["val_bleu"]) if history else {}
    timed = history[1:] or history  # the first epoch includes warm-up
    seconds = sum(r["train_seconds"] for r in timed)
    tokens = sum(r["tokens_per_s"] * r["train_seconds"] for r in timed)
    return {"epochs": len(history), "best_epoch": best.get("epoch"),
            "train_loss": history[-1]["train_loss"] if history else None,
            "val_loss": best.get("val_loss"), "val_ppl": best.get("val_ppl"), "val_bleu": best.get("val_bleu"),
            "tokens_per_s": round(tokens / seconds, 1) if seconds else None,
            "train_seconds": round(sum(r["train_seconds"] for r in history), 2),
            "parameters": sum(p.numel() for p in model.parameters())}


def train_seq2seq(params: Seq2SeqParams, mlflow: tracking.MlflowParams, paths: TrainPaths) -> dict | None:
    """Train, export `model.pt` and write the reports; returns the metrics (None on ranks > 0)."""
    client = tracking.client() if mlflow.enabled else None  # unreachable: fails here, before any work
    pl.seed_everything(params.seed, workers=True, verbose=False)
    src_vocab, tgt_vocab = Vocab.load(paths.vocab / "src.json"), Vocab.load(paths.vocab / "tgt.json")
    lowercase = load_settings(paths.data).lowercase
    datamodule = TranslationDataModule(paths.data, src_vocab, tgt_vocab, params.data, params.seed)
    datamodule.setup("fit")  # early, so that bad data fails before anything is written
    model = Seq2Seq(params.model, len(src_vocab), len(tgt_vocab), params.data.max_len)
    module = Seq2SeqModule(model, params.optim, tgt_vocab, lowercase, params.data.max_len)
    trainer, history = build_trainer(params, paths, -(-len(datamodule.train_pairs) // params.data.batch_size))

    inputs = [paths.data / "train.parquet", paths.data / "valid.parquet", paths.vocab / "src.json",
              paths.vocab / "tgt.json"]
    run_fingerprint = fingerprint(params, inputs)
    resume, run_id = prepare_checkpoints(paths.checkpoints, run_fingerprint)
    logger = make_logger(mlflow, client, run_id)
    if logger is not None:
        trainer.logger = logger
    if rank_zero_only.rank == 0:
        if resume is not None:
            print(f"Resuming the interrupted run of this config from {resume}", file=sys.stderr, flush=True)
        if logger is not None:
            write_json(paths.checkpoints / "run.json", {"fingerprint": run_fingerprint, "mlflow_run_id": logger.run_id})
            logger.log_hyperparams(flatten({"train_seq2seq": to_dict(params)}))  # the names `dvc exp run -S` takes
    trainer.fit(module, datamodule=datamodule, ckpt_path=resume, weights_only=True)
    if not trainer.is_global_zero:
        return None

    if trainer.checkpoint_callback.best_model_path:
        best = torch.load(trainer.checkpoint_callback.best_model_path, map_location="cpu", weights_only=True)
        module.load_state_dict(best["state_dict"])
    save_model(paths.out / "model.pt", module.model.cpu(), src_vocab, tgt_vocab, lowercase, params.data.max_len)
    metrics = summarize(history.rows, module.model)
    write_json(paths.reports / "metrics.json", metrics)
    run = tracking.Run(logger.experiment if logger else None, logger.run_id if logger else None)
    write_json(paths.out / "mlflow_run.json", {"run_id": run.run_id, "experiment": mlflow.experiment})
    run.log_dict({"train_seq2seq": to_dict(params)}, "config/train_seq2seq.json")
    for path, folder in ((paths.reports / "history.csv", "reports"), (paths.reports / "metrics.json", "reports"),
                         (paths.out / "model.pt", "model")):
        run.log_artifact(path, folder)
    return metrics
