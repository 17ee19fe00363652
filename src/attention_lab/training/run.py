"""`train_seq2seq(params, ...)`: the whole training run behind the `train_seq2seq` stage, in steps.

`prepare` checks the tracking store and builds the data, model and Trainer from params; `fit`
trains, resuming an interrupted run of the same code, config and data from its last checkpoint;
`export` writes the best model and the reports; `record` records the run in MLflow. A run whose
recording failed is recorded by the next run of the same code, config and data without training
again (`restore`). The steps after `prepare` are in `steps`.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field
from typing import Literal

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint, TQDMProgressBar
from pytorch_lightning.utilities import rank_zero_only
from pytorch_lightning.utilities.exceptions import MisconfigurationException

from attention_lab.config import ConfigError, param, seed_param, to_dict
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer
from attention_lab.model.seq2seq import ModelParams, build_model, check_joint
from attention_lab.tracking import store as tracking
from attention_lab.training.allocator import keep_freed_memory
from attention_lab.training.callbacks import AtomicCheckpointIO, History, ScheduleCallback
from attention_lab.training.datamodule import DataParams, TranslationDataModule
from attention_lab.training.module import OptimParams, Seq2SeqModule
from attention_lab.training.paths import TrainPaths
from attention_lab.training.resume import ResumeState, fingerprint
from attention_lab.training.schedule import LinearSchedule
from attention_lab.training.steps import Job, export, fit, record, restore

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
    seed: int = seed_param()
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
        # A placeholder length until the batches are counted (`plan_steps`).
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


def plan_steps(trainer: pl.Trainer, schedule: ScheduleCallback | None, datamodule: TranslationDataModule,
               config: TrainerParams) -> None:
    """Size what depends on the number of steps from the training sampler's own batches: the
    fixed-length schedule, and the plain progress bar's refresh rate."""
    replicas = (trainer.world_size, trainer.global_rank)
    if schedule is not None and config.budget_minutes is None:
        schedule.schedule.total_steps = sum(datamodule.steps_per_epoch(config.max_epochs, *replicas))
    if config.progress_bar and not sys.stdout.isatty():
        # Rich's live bar prints nothing into a log file (dvc repro > log, nohup, CI): there, a
        # plain bar that writes a line about twenty times an epoch.
        steps = datamodule.steps_per_epoch(1, *replicas)[0]
        trainer.callbacks.append(TQDMProgressBar(refresh_rate=max(1, steps // 20)))


def prepare(params: Seq2SeqParams, mlflow: tracking.MlflowParams, paths: TrainPaths) -> Job:
    """Check the tracking store, build the data, model and Trainer, and read the resume state: a
    bad input, param or store fails here, before anything is trained or written."""
    client = tracking.client() if mlflow.enabled else None  # unreachable: fails here, in seconds
    keep_freed_memory()
    pl.seed_everything(params.seed, workers=True, verbose=False)
    tokenizer = Tokenizer.load(paths.tokenizer / TOKENIZER_FILE)
    datamodule = TranslationDataModule(paths.data, tokenizer, params.data, params.seed)
    datamodule.setup("fit")
    try:
        check_joint(params.model, tokenizer.joint)
        model = build_model(params.model, len(tokenizer.src), len(tokenizer.tgt))
    except ValueError as exc:
        raise ConfigError(f"train_seq2seq.model.{exc}") from None
    trainer, history, schedule = build_trainer(params, paths)
    plan_steps(trainer, schedule, datamodule, params.trainer)
    inputs = [paths.data / "train.parquet", paths.data / "valid.parquet", paths.tokenizer / TOKENIZER_FILE]
    run_fingerprint = fingerprint(to_dict(params), inputs)
    state = ResumeState(paths.checkpoints, writer=rank_zero_only.rank == 0)
    return Job(params, mlflow, client, paths, tokenizer, datamodule, Seq2SeqModule(model, params.optim, tokenizer),
               trainer, history, state, run_fingerprint, state.prepare(run_fingerprint))


def train_seq2seq(params: Seq2SeqParams, mlflow: tracking.MlflowParams, paths: TrainPaths) -> dict | None:
    """Train, export `model.pt` and write the reports, then record the run; returns the metrics
    (None on ranks > 0, where rank 0 writes and records)."""
    job = prepare(params, mlflow, paths)
    if job.start.trained:
        metrics = restore(job)
    elif fit(job):
        metrics = export(job)
    else:
        return None
    record(job)
    return metrics
