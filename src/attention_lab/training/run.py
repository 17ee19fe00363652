"""`train_seq2seq(params, ...)`: the whole training run behind the `train_seq2seq` stage.

Builds the data, model and Trainer from params, resumes an interrupted run of the same code,
config and data from its last checkpoint, records the run in MLflow, and exports the best model.
"""

from __future__ import annotations

import json
import sys
import warnings
from dataclasses import dataclass, field
from typing import Literal

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint, TQDMProgressBar
from pytorch_lightning.utilities import rank_zero_only
from pytorch_lightning.utilities.exceptions import MisconfigurationException

from attention_lab.atomic import write_json
from attention_lab.config import ConfigError, flatten, param, to_dict
from attention_lab.data.batching import TokenBatchSampler
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer
from attention_lab.inference.model_file import save_model
from attention_lab.model.seq2seq import ModelParams, Seq2Seq
from attention_lab.tracking import run as mlflow_run
from attention_lab.tracking import store as tracking
from attention_lab.training.allocator import keep_freed_memory
from attention_lab.training.callbacks import AtomicCheckpointIO, History, ScheduleCallback
from attention_lab.training.datamodule import DataParams, TranslationDataModule, pair_lengths
from attention_lab.training.module import DivergedError, OptimParams, Seq2SeqModule
from attention_lab.training.paths import TrainPaths
from attention_lab.training.resume import ResumeState, fingerprint
from attention_lab.training.schedule import LinearSchedule

MONITOR = "val/bleu"


@dataclass(frozen=True)
class TrainerParams:
    accelerator: Literal["auto", "cpu", "gpu", "cuda", "mps"] = "auto"
    devices: int | Literal["auto"] = param("auto", ge=1)
    strategy: Literal["auto", "ddp", "ddp_spawn"] = "auto"
    num_nodes: int = param(1, ge=1)
    precision: Literal["auto", "32-true", "bf16-mixed", "16-mixed", "64-true"] = "auto"  # auto: bf16 on CUDA
    max_epochs: int = param(250, ge=1)  # ignored when budget_minutes is set
    # Wall-clock minutes of training (validation included); the linear schedule decays to 0 over them.
    budget_minutes: float | None = param(None, gt=0)
    early_stopping_patience: int | None = param(None, ge=1)  # validations without a better val/bleu
    log_every_n_steps: int = param(50, ge=1)
    progress_bar: bool = True


@dataclass(frozen=True)
class Seq2SeqParams:
    seed: int = 0
    data: DataParams = field(default_factory=DataParams)
    model: ModelParams = field(default_factory=ModelParams)
    optim: OptimParams = field(default_factory=OptimParams)
    trainer: TrainerParams = field(default_factory=TrainerParams)

    def validate(self) -> None:
        if self.trainer.budget_minutes is not None and self.optim.schedule != "linear":
            raise ValueError(f"optim.schedule: trainer.budget_minutes needs the linear schedule, got "
                             f"{self.optim.schedule!r}")


def resolve_precision(precision: str, accelerator: str) -> str:
    """`auto` is full precision on the CPU and bf16 autocast on CUDA."""
    if precision != "auto":
        return precision
    on_cuda = accelerator in ("auto", "gpu", "cuda") and torch.cuda.is_available()
    return "bf16-mixed" if on_cuda else "32-true"


def make_logger(mlflow: tracking.MlflowParams, client: object, run_id: str | None) -> pl.loggers.MLFlowLogger | None:
    """Lightning's MLflow logger on the checked `client`, or None when tracking is off."""
    if client is None:
        return None
    if rank_zero_only.rank == 0:
        tracking.ensure_experiment(client, mlflow.experiment)
    return pl.loggers.MLFlowLogger(experiment_name=mlflow.experiment, tracking_uri=tracking.tracking_uri(),
                                   run_id=run_id, run_name=tracking.run_name("train_seq2seq"),
                                   tags=tracking.run_tags("train_seq2seq"))


def build_trainer(params: Seq2SeqParams, paths: TrainPaths) -> tuple[pl.Trainer, History, ScheduleCallback | None]:
    """The Trainer the params describe (without a logger yet); a setting Lightning rejects is a
    params error, raised before any run is recorded."""
    checkpoint = ModelCheckpoint(dirpath=paths.checkpoints, filename="best", monitor=MONITOR, mode="max",
                                 save_last=True, save_top_k=1, auto_insert_metric_name=False,
                                 enable_version_counter=False)
    # The folder holds run.json, and finding checkpoints there is the point of resuming.
    warnings.filterwarnings("ignore", message=r"Checkpoint directory .* exists and is not empty")
    config = params.trainer
    schedule = None
    if params.optim.schedule == "linear":
        budget = config.budget_minutes * 60 if config.budget_minutes else None
        # A placeholder length until the batches are counted (`count_steps`).
        schedule = ScheduleCallback(LinearSchedule(params.optim.warmup_steps, None if budget else 1, budget))
    history = History(paths.reports / "history.csv", schedule)
    callbacks: list[pl.Callback] = [checkpoint, history] + ([schedule] if schedule else [])
    if config.early_stopping_patience:
        callbacks.append(EarlyStopping(MONITOR, mode="max", patience=config.early_stopping_patience))
    try:
        trainer = pl.Trainer(
            accelerator=config.accelerator, devices=config.devices, strategy=config.strategy,
            num_nodes=config.num_nodes, precision=resolve_precision(config.precision, config.accelerator),
            max_epochs=-1 if config.budget_minutes else config.max_epochs, logger=False, callbacks=callbacks,
            gradient_clip_val=params.optim.grad_clip, log_every_n_steps=config.log_every_n_steps,
            enable_progress_bar=config.progress_bar, use_distributed_sampler=False, plugins=[AtomicCheckpointIO()],
            default_root_dir=paths.checkpoints)
    except (MisconfigurationException, ValueError, RuntimeError) as exc:
        raise ConfigError(f"train_seq2seq.trainer: {str(exc).splitlines()[0]}") from None
    return trainer, history, schedule


def count_steps(datamodule: TranslationDataModule, trainer: pl.Trainer, epochs: int) -> list[int]:
    """Optimizer steps in each epoch of this process (token budgets make them vary a little)."""
    data = datamodule.params
    sampler = TokenBatchSampler(pair_lengths(datamodule.train_pairs), data.batch_size, data.batch_tokens,
                                shuffle=True, bucket=data.bucket, seed=datamodule.seed,
                                num_replicas=trainer.world_size, rank=trainer.global_rank)
    steps = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        steps.append(len(sampler))
    return steps


def training_metrics(history: list[dict], model: Seq2Seq) -> dict:
    """The stage's metrics: the last epoch's training loss, the best epoch's validation scores."""
    best = max(history, key=lambda r: r["val_bleu"]) if history else {}
    timed = history[1:] or history  # the first epoch includes warm-up
    seconds = sum(r["train_seconds"] for r in timed)
    tokens = sum(r["tokens_per_s"] * r["train_seconds"] for r in timed)
    last = history[-1] if history else {}
    return {"epochs": len(history), "best_epoch": best.get("epoch"), "steps": last.get("step"),
            "train_loss": last.get("train_loss"), "final_lr": last.get("lr"),
            "val_loss": best.get("val_loss"), "val_ppl": best.get("val_ppl"), "val_bleu": best.get("val_bleu"),
            "tokens_per_s": round(tokens / seconds, 1) if seconds else None,
            "train_seconds": round(sum(r["train_seconds"] for r in history), 2),
            "parameters": sum(p.numel() for p in model.parameters())}


def recorded_params(paths: TrainPaths, tokenizer: Tokenizer, params: Seq2SeqParams) -> dict:
    """Every param that shaped the run, as `dvc exp run -S` names them: the tokenize settings the
    splits were made with, the vocab settings of the tokenizer, and this stage's own."""
    try:
        tokenize = json.loads((paths.data / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        tokenize = {}
    return flatten({"tokenize": tokenize, "vocab": to_dict(tokenizer.params), "train_seq2seq": to_dict(params)})


def train_seq2seq(params: Seq2SeqParams, mlflow: tracking.MlflowParams, paths: TrainPaths) -> dict | None:
    """Train, export `model.pt` and write the reports; returns the metrics (None on ranks > 0)."""
    client = tracking.client() if mlflow.enabled else None  # unreachable: fails here, before any work
    keep_freed_memory()
    pl.seed_everything(params.seed, workers=True, verbose=False)
    tokenizer = Tokenizer.load(paths.vocab / TOKENIZER_FILE)
    datamodule = TranslationDataModule(paths.data, tokenizer, params.data, params.seed)
    datamodule.setup("fit")  # early, so that bad data fails before anything is written
    try:
        model = Seq2Seq(params.model, len(tokenizer.src), len(tokenizer.tgt))
    except ValueError as exc:
        raise ConfigError(f"train_seq2seq.model.{exc}") from None
    module = Seq2SeqModule(model, params.optim, tokenizer)
    trainer, history, schedule = build_trainer(params, paths)
    if schedule is not None and params.trainer.budget_minutes is None:
        schedule.schedule.total_steps = sum(count_steps(datamodule, trainer, params.trainer.max_epochs))
    if params.trainer.progress_bar and not sys.stdout.isatty():
        # Rich's live bar prints nothing into a log file (dvc repro > log, nohup, CI): there, a
        # plain bar that writes a line about twenty times an epoch.
        steps = count_steps(datamodule, trainer, 1)[0]
        trainer.callbacks.append(TQDMProgressBar(refresh_rate=max(1, steps // 20)))

    inputs = [paths.data / "train.parquet", paths.data / "valid.parquet", paths.vocab / TOKENIZER_FILE]
    run_fingerprint = fingerprint(to_dict(params), inputs)
    state = ResumeState(paths.checkpoints, writer=rank_zero_only.rank == 0)
    resume, run_id = state.prepare(run_fingerprint)
    logger = make_logger(mlflow, client, run_id)
    if logger is not None:
        trainer.logger = logger
    if rank_zero_only.rank == 0:
        if resume is not None:
            print(f"Resuming the interrupted run of this code, config and data from {resume}", file=sys.stderr,
                  flush=True)
        if logger is not None:
            state.record(run_fingerprint, logger.run_id)
            logger.log_hyperparams(recorded_params(paths, tokenizer, params))
    outputs = (paths.reports / "history.csv", paths.reports / "metrics.json")
    try:
        trainer.fit(module, datamodule=datamodule, ckpt_path=resume, weights_only=True)
    except BaseException as exc:
        # No partial reports; a diverged run would only diverge again, so its checkpoints go too.
        if trainer.is_global_zero:
            for path in outputs:
                path.unlink(missing_ok=True)
            if isinstance(exc, DivergedError):
                state.discard()
        raise
    state.finish()
    if not trainer.is_global_zero:
        return None

    if trainer.checkpoint_callback.best_model_path:
        best = torch.load(trainer.checkpoint_callback.best_model_path, map_location="cpu", weights_only=True)
        module.load_state_dict(best["state_dict"])
    save_model(paths.out / "model.pt", module.model.cpu(), tokenizer)
    metrics = training_metrics(history.rows, module.model)
    write_json(paths.reports / "metrics.json", metrics)
    run = mlflow_run.Run(logger.experiment if logger else None, logger.run_id if logger else None)
    run.log_dict({"train_seq2seq": to_dict(params)}, "config/train_seq2seq.json")
    for path in (paths.reports / "history.csv", paths.reports / "metrics.json"):
        run.log_artifact(path, "reports")
    model_id = None
    if run.run_id:
        from attention_lab.tracking import registry  # imports mlflow: only when tracking

        model_id = registry.log_translator(run.run_id, paths.out / "model.pt", paths.data)
    write_json(paths.out / "mlflow_run.json", {"run_id": run.run_id, "experiment": mlflow.experiment,
                                                "model_id": model_id})
    state.discard()
    return metrics
