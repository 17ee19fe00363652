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
import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint
from pytorch_lightning.utilities import rank_zero_only
from pytorch_lightning.utilities.exceptions import MisconfigurationException

from attention_lab.config import ConfigError, to_dict
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer
from attention_lab.model.precision import native_bf16_cpu
from attention_lab.model.seq2seq import build_model, check_joint
from attention_lab.tracking import store as tracking
from attention_lab.training.allocator import keep_freed_memory
from attention_lab.training.averaging import MODES, SCORES, LastWeights
from attention_lab.training.callbacks import (
    NEVER,
    EpochLength,
    History,
    PlannedValidation,
    ScheduleCallback,
)
from attention_lab.training.checkpoint_io import BackgroundCheckpointIO
from attention_lab.training.datamodule import TranslationDataModule
from attention_lab.training.ema import WarmupEMA
from attention_lab.training.module import Seq2SeqModule
from attention_lab.training.params import Seq2SeqParams, TrainerParams
from attention_lab.training.progress import PlainProgressBar
from attention_lab.training.random_state import RandomState
from attention_lab.training.paths import TrainPaths
from attention_lab.training.resume import ResumeState, fingerprint
from attention_lab.training.schedule import LinearSchedule
from attention_lab.training.steps import Job, export, fit, record, restore
from attention_lab.training.validation_schedule import ValidationSchedule


def resolve_precision(precision: str, accelerator: str) -> str:
    """`auto` is bf16 autocast on CUDA and on a CPU with native bf16 (`native_bf16_cpu`), where it trains faster
    to the same validation BLEU (docs/speed.md: bf16 on the CPU); full precision elsewhere (MPS too)."""
    if precision != "auto":
        return precision
    if accelerator in ("auto", "gpu", "cuda") and torch.cuda.is_available():
        return "bf16-mixed"
    on_cpu = accelerator == "cpu" or accelerator == "auto" and not torch.backends.mps.is_available()
    return "bf16-mixed" if on_cpu and native_bf16_cpu() else "32-true"


def build_trainer(params: Seq2SeqParams, paths: TrainPaths) -> tuple[pl.Trainer, History, ScheduleCallback | None]:
    """The Trainer the params describe (without a logger yet); a setting Lightning rejects is a
    params error, raised before any run is recorded. Validation runs at the steps
    `PlannedValidation` sets, not at epoch ends."""
    # The best validation's checkpoint becomes the model; the last, rewritten at every validation, is
    # where a killed run resumes (`save_last` would write it only when the best one changes). The best
    # holds the weights alone: Adam's moments, twice their size, serve only to resume. Under EMA it is
    # whole, as the callback puts its average in the weights' place only in a whole checkpoint.
    config = params.trainer
    monitor, mode = SCORES[config.monitor], MODES[config.monitor]
    best = ModelCheckpoint(dirpath=paths.checkpoints, filename="best", monitor=monitor, mode=mode, save_top_k=1,
                           auto_insert_metric_name=False, enable_version_counter=False,
                           save_weights_only=not params.trainer.ema_decay)
    last = ModelCheckpoint(dirpath=paths.checkpoints, filename="last", enable_version_counter=False)
    # The folder holds run.json, and finding checkpoints there is the point of resuming.
    warnings.filterwarnings("ignore", message=r"Checkpoint directory .* exists and is not empty")
    # Under mixed precision the weights stay float32, which is what the summary's size counts.
    warnings.filterwarnings("ignore", message=r"Precision .*-mixed is not supported by the model summary")
    schedule = None
    if params.optim.schedule == "linear":
        budget = config.budget_minutes * 60 if config.budget_minutes else None
        # A placeholder length until the batches are counted (`plan_steps`).
        schedule = ScheduleCallback(LinearSchedule(params.optim.warmup_steps, None if budget else 1, budget))
    history = History(paths.reports, schedule)
    validation = PlannedValidation(ValidationSchedule(config.validations), schedule)
    callbacks: list[pl.Callback] = [best, last, history, validation, EpochLength(), RandomState()]
    callbacks += [schedule] if schedule else []
    if config.average_last:
        callbacks.append(LastWeights(config.average_last))
    if config.ema_decay:
        warmup = params.optim.warmup_steps if params.optim.schedule == "linear" else 0
        callbacks.append(WarmupEMA(config.ema_decay, warmup))
    if config.early_stopping_patience:
        callbacks.append(EarlyStopping(monitor, mode=mode, patience=config.early_stopping_patience))
    try:
        trainer = pl.Trainer(
            accelerator=config.accelerator, devices=config.devices, strategy=config.strategy,
            num_nodes=config.num_nodes, precision=resolve_precision(config.precision, config.accelerator),
            max_epochs=config.max_epochs if fixed_epochs(config) else -1, max_steps=config.budget_updates or -1,
            check_val_every_n_epoch=None, val_check_interval=NEVER, logger=False, callbacks=callbacks,
            gradient_clip_val=params.optim.grad_clip, log_every_n_steps=config.log_every_n_steps,
            enable_progress_bar=config.progress_bar, use_distributed_sampler=False,
            enable_model_summary=False,  # its FLOPs column reads 0 here; the parameters are in metrics.json
            plugins=[BackgroundCheckpointIO()], default_root_dir=paths.checkpoints)
    except (MisconfigurationException, ValueError, RuntimeError) as exc:
        raise ConfigError(f"train_seq2seq.trainer: {str(exc).splitlines()[0]}") from None
    return trainer, history, schedule


def fixed_epochs(config: TrainerParams) -> bool:
    return config.budget_minutes is None and config.budget_updates is None


def plan_steps(trainer: pl.Trainer, schedule: ScheduleCallback | None, datamodule: TranslationDataModule,
               config: TrainerParams) -> None:
    """Size what depends on the number of steps from the training sampler's own batches: the
    fixed-length schedule, the validations' steps, and the plain progress bar's refresh rate."""
    replicas = (trainer.world_size, trainer.global_rank)
    total = config.budget_updates
    if fixed_epochs(config):
        total = sum(datamodule.steps_per_epoch(config.max_epochs, *replicas))
    if schedule is not None and total is not None:
        schedule.schedule.total_steps = total
    next(c for c in trainer.callbacks if isinstance(c, PlannedValidation)).plan.total_steps = total
    if config.progress_bar and not sys.stdout.isatty():
        # Rich's live bar prints nothing into a log file (dvc repro > log, nohup, CI): there, a
        # plain bar that writes a line about twenty times an epoch.
        steps = datamodule.steps_per_epoch(1, *replicas)[0]
        trainer.callbacks.append(PlainProgressBar(refresh_rate=max(1, steps // 20)))


def prepare(params: Seq2SeqParams, mlflow: tracking.MlflowParams, paths: TrainPaths) -> Job:
    """Check the tracking store, build the data, model and Trainer, and read the resume state: a
    bad input, param or store fails here, before anything is trained or written."""
    client = tracking.client() if mlflow.enabled else None  # unreachable: fails here, in seconds
    keep_freed_memory()
    if torch.cuda.is_available():  # float32 products (a 32-true run, the loss) on the tensor cores, as TF32
        torch.set_float32_matmul_precision("high")
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
    graph_batches = (params.data.batch_size, params.data.batch_tokens) if params.trainer.cuda_graphs else None
    module = Seq2SeqModule(model, params.optim, tokenizer, graph_batches, params.trainer.attention_kernels,
                           params.trainer.attention_packing, params.trainer.compile)
    return Job(params, mlflow, client, paths, tokenizer, datamodule, module,
               trainer, history, state, run_fingerprint, state.prepare(run_fingerprint))


def train_seq2seq(params: Seq2SeqParams, mlflow: tracking.MlflowParams, paths: TrainPaths) -> dict | None:
    """Train, export `model.pt` and write the reports, then record the run; returns the metrics
    (None on ranks > 0, where rank 0 writes and records)."""
    job = prepare(params, mlflow, paths)
    if job.start.trained:
        metrics = restore(job)
    else:
        writer, average = fit(job)
        if not writer:
            return None
        metrics = export(job, average)
    record(job, metrics)
    return metrics
