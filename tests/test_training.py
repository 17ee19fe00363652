import dataclasses
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import pytorch_lightning as pl
import torch
from conftest import REPO, TINY_VOCAB, Interrupt, interrupt_at_step, train_tiny
from mlflow import MlflowClient
from pytorch_lightning.callbacks import EarlyStopping
from servers import Relay, free_port, tracking_server

from attention_lab.config import ConfigError, from_mapping
from attention_lab.data.batching import TokenBatchSampler
from attention_lab.data.special_tokens import BOS_ID
from attention_lab.data.splits import SplitParams
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer, TokenizerParams
from attention_lab.errors import run_main
from attention_lab.inference.model_file import load_model
from attention_lab.inference.translator import Translator
from attention_lab.tracking.run import Run
from attention_lab.tracking.run_file import read_run_file
from attention_lab.tracking.store import MlflowParams, TrackingError, redact
from attention_lab.tracking.views import mlflow_metric_name as shown
from attention_lab.training import training_pass
from attention_lab.training.averaging import SCORES, LastWeights, at_least_as_good, best_row
from attention_lab.training.corpus_bleu import CorpusBLEU
from attention_lab.training.datamodule import DataParams, TranslationDataModule
from attention_lab.training.module import DivergedError
from attention_lab.training.paths import TrainPaths, prepare_data
from attention_lab.training.resume import ResumeState, Start, fingerprint
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.run import build_trainer, prepare, resolve_precision, train_seq2seq
from attention_lab.training.steps import loss_figure, recorded_params

TINY = {"data": {"batch_size": 16, "batch_tokens": 300, "val_bleu_size": 12},
        "model": {"embed_size": 16, "hidden_size": 16, "num_layers": 1, "dropout": 0.0},
        "optim": {"lr": 0.01},
        "trainer": {"accelerator": "cpu", "max_epochs": 2, "progress_bar": False, "log_every_n_steps": 2}}
# Every randomness a run can have: dropout draws masks, concatenation joins pairs, averaging keeps weights.
RANDOMNESS = {"model": {"dropout": 0.2, "io_dropout": 0.2}, "data": {"concat_fraction": 0.1},
              "trainer": {"average_last": 4}}
HISTORY_VALUES = ("epoch", "step", "train_loss", "train_nll", "val_loss", "val_bleu", "lr")  # not timings
TIMINGS = ("minutes", "tokens_per_s", "train_seconds")  # the metrics a rerun cannot repeat


def tiny_params(**sections) -> Seq2SeqParams:
    merged = {k: {**v, **sections.get(k, {})} for k, v in TINY.items()}
    return from_mapping(Seq2SeqParams, merged, "train_seq2seq")


def runs(experiment="attention-lab"):
    client = MlflowClient()
    found = client.get_experiment_by_name(experiment)
    return client.search_runs([found.experiment_id]) if found else []


def history(paths: TrainPaths) -> list[dict]:
    lines = (paths.reports / "history.csv").read_text().splitlines()
    header = lines[0].split(",")
    return [{k: v for k, v in zip(header, line.split(",")) if k in HISTORY_VALUES} for line in lines[1:]]


class StepCounter(pl.Callback):
    def __init__(self) -> None:
        self.steps = 0

    def on_train_batch_end(self, *args) -> None:
        self.steps += 1


def train_with(paths, params, callbacks, monkeypatch, mlflow=MlflowParams()):
    """`train_seq2seq` with extra Lightning callbacks added to the Trainer it builds."""
    real = pl.Trainer.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **{**kwargs, "callbacks": [*kwargs["callbacks"], *callbacks]})

    with monkeypatch.context() as patch:
        patch.setattr(pl.Trainer, "__init__", init)
        return train_seq2seq(params, mlflow, paths)


def test_training_writes_model_reports_and_one_mlflow_run_with_every_param(paths):
    before = {r.info.run_id for r in runs()}
    metrics = train_seq2seq(tiny_params(optim={"label_smoothing": 0.1}), MlflowParams(), paths)
    assert metrics["epochs"] == 2 and metrics["tokens_per_s"] > 0 and metrics["updates"] > 16
    lines = (paths.reports / "history.csv").read_text().splitlines()
    assert lines[0] == ("step,minutes,epoch,planned_steps,train_loss,train_nll,val_loss,val_ppl,val_bleu,tokens_per_s,"
                        "lr,train_seconds")
    rows = history(paths)
    assert len(rows) == metrics["validations"] == 16 and rows[-1]["step"] == str(metrics["updates"])
    loaded = load_model(paths.out / "model.pt")
    assert loaded.tokenizer.params.kind == "subword" and loaded.model.params.hidden_size == 16
    new = [r for r in runs() if r.info.run_id not in before]
    assert len(new) == 1
    run = new[0]
    assert json.loads((paths.out / "mlflow_run.json").read_text())["run_id"] == run.info.run_id
    assert run.info.status == "FINISHED"
    # Lightning's keys under the names MLflow's chart sections show (tracking/views.py).
    assert {shown(k) for k in ("train/loss", "train/nll", "val/bleu", "val/loss", "val/ppl", "train/tokens_per_s")} \
        <= set(run.data.metrics)
    assert run.info.run_name == "translator · rnn" and "translator" in run.data.tags["mlflow.note.content"]
    # Step losses are logged every `log_every_n_steps` (2) updates, each once, as train_loss.csv has them.
    loss_steps = [m.step for m in MlflowClient().get_metric_history(run.info.run_id, shown("train/loss"))]
    assert sorted(loss_steps) == list(range(2, metrics["updates"] + 1, 2))
    losses = (paths.reports / "train_loss.csv").read_text().splitlines()
    assert losses[0] == "step,minutes,loss,nll,lr"
    assert [int(line.split(",")[0]) for line in losses[1:]] == sorted(loss_steps)
    # Every validation is a point of MLflow's curves, at the step of its history row.
    for metric, column in (("val/bleu", "val_bleu"), ("val/loss", "val_loss"), ("train/mean_loss", "train_loss"),
                           ("train/mean_nll", "train_nll")):
        points = sorted((m.step, m.value) for m in MlflowClient().get_metric_history(run.info.run_id, shown(metric)))
        assert [s for s, _ in points] == [int(r["step"]) for r in rows]
        assert [v for _, v in points] == pytest.approx([float(r[column]) for r in rows], rel=1e-6)
    params = run.data.params
    assert params["train_seq2seq.model.hidden_size"] == "16" and params["train_seq2seq.optim.lr"] == "0.01"
    assert params["split.valid_fraction"] == "0.1" and params["train_tokenizer.kind"] == "subword"
    assert params["train_tokenizer.subword.size"] == str(TINY_VOCAB["subword"]["size"])
    assert {"git_commit", "stage", "corpus_md5"} <= set(run.data.tags)
    # With label smoothing the loss trained on is not the NLL, which validation's loss is.
    assert all(row["train_loss"] != row["train_nll"] for row in rows)
    steps = pd.read_csv(paths.reports / "train_loss.csv")
    assert (steps["loss"] != steps["nll"]).all()
    # The run's loss chart: the NLLs, training's and validation's, on one axis; the loss trained on on its own.
    assert "figures/loss.png" in {a.path for a in MlflowClient().list_artifacts(run.info.run_id, "figures")}
    nlls, smoothed = loss_figure(paths.reports).axes
    frame = pd.read_csv(paths.reports / "history.csv")
    assert [list(line.get_ydata()) for line in nlls.lines] == [list(steps["nll"]), list(frame["train_nll"]),
                                                               list(frame["val_loss"])]
    assert [list(line.get_ydata()) for line in smoothed.lines] == [list(steps["loss"]), list(frame["train_loss"])]
    # The logged model carries the kept model's scores.
    model_metrics = {k: v for k, v in run.data.metrics.items() if k.startswith("model/")}
    assert model_metrics == pytest.approx({f"model/{k}": metrics[k] for k in ("val_loss", "val_ppl", "val_bleu")})
    config = MlflowClient().download_artifacts(run.info.run_id, "config/train_seq2seq.json")
    assert json.loads(Path(config).read_text())["train_seq2seq"]["model"]["hidden_size"] == 16
    assert not paths.checkpoints.exists()  # a finished run keeps no resume state


def test_the_dvc_loss_chart_compares_negative_log_likelihoods_and_the_loss_trained_on_has_its_own():
    import yaml

    charts = {title: spec["y"] for plot in yaml.safe_load((REPO / "dvc.yaml").read_text())["plots"]
              if isinstance(plot, dict) for title, spec in plot.items()}
    columns = {title: {(path, column) for path, names in y.items()
                       for column in ([names] if isinstance(names, str) else names)} for title, y in charts.items()}
    history, steps = "reports/seq2seq/history.csv", "reports/seq2seq/train_loss.csv"
    assert columns["Loss"] == {(steps, "nll"), (history, "train_nll"), (history, "val_loss")}
    smoothed = [title for title, found in columns.items() if (steps, "loss") in found]
    assert len(smoothed) == 1 and columns[smoothed[0]] == {(steps, "loss"), (history, "train_loss")}


def stage_process(paths: TrainPaths, params: dict, root: Path) -> subprocess.Popen:
    """The train_seq2seq stage in a process of its own (its own hash seed and interpreter state),
    writing under `root`."""
    root.mkdir()
    (root / "params.yaml").write_text(json.dumps({"train_seq2seq": params, "mlflow": {"enabled": False}}))
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline.train_seq2seq", "--params", str(root / "params.yaml"), "--data",
         str(paths.data), "--tokenizer", str(paths.tokenizer), "--out", str(root / "model"), "--reports",
         str(root / "reports")],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"})


def stage_outputs(root: Path) -> tuple[dict, dict, str, str]:
    """(model.pt's tensors as bytes, metrics.json without timings, history.csv, train_loss.csv)."""
    weights = torch.load(root / "model" / "model.pt", weights_only=True)["state_dict"]
    metrics = json.loads((root / "reports" / "metrics.json").read_text())
    curves = [pd.read_csv(root / "reports" / name).drop(columns=list(TIMINGS), errors="ignore").to_csv()
              for name in ("history.csv", "train_loss.csv")]
    return ({k: (v.dtype, v.shape, v.numpy().tobytes()) for k, v in weights.items()},
            {k: v for k, v in metrics.items() if k not in TIMINGS}, *curves)


def test_an_exact_update_budget_trains_the_same_model_to_the_bit_in_separate_processes_and_another_seed_does_not(
        paths, tmp_path):
    # Every randomness on (dropout, concatenation, averaging); max_epochs is not what stops it.
    budget = {name: {**section, **RANDOMNESS.get(name, {})} for name, section in TINY.items()}
    budget["trainer"] |= {"budget_updates": 37, "max_epochs": 1, "validations": 6}
    budget["optim"] |= {"schedule": "linear", "warmup_steps": 5}
    runs_ = {name: stage_process(paths, {**budget, "seed": seed}, tmp_path / name)
             for name, seed in (("first", 0), ("again", 0), ("other", 1))}
    for process in runs_.values():
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err[-3000:]
    first, again, other = (stage_outputs(tmp_path / name) for name in runs_)
    assert first[1]["updates"] == 37 and first[1]["validations"] == 6
    # The schedule planned over exactly 37: warm-up 5, then 32 equal steps down, the last at 1/32 of the peak.
    assert first[1]["final_lr"] == pytest.approx(TINY["optim"]["lr"] / 32)
    assert first == again  # every tensor byte for byte, the same metrics and curves, timings aside
    assert other[0].keys() == first[0].keys() and other[0] != first[0]
    assert other[1]["updates"] == 37 and other[2] != first[2]


def first_step(paths: TrainPaths, seed: int) -> tuple[dict, torch.Tensor]:
    """The weights a run of `seed` starts its first training step from, and the mask its first dropout
    layer draws there (where dropout draws from: the generators as `prepare` leaves them)."""
    job = prepare(dataclasses.replace(tiny_params(**RANDOMNESS), seed=seed), MlflowParams(enabled=False), paths)
    model = job.module.model.train()
    dropout = next(m for m in model.modules() if isinstance(m, torch.nn.Dropout) and m.p > 0)
    return {k: v.clone() for k, v in model.state_dict().items()}, dropout(torch.ones(16, 32)) == 0


def test_the_seed_sets_the_initial_weights_and_the_dropout_masks(paths):
    # The same data for both seeds: what differs here is the seed's alone, not the batches' order.
    (weights, mask), (again, mask_again), (other, other_mask) = (first_step(paths, seed) for seed in (0, 0, 1))
    assert weights.keys() == again.keys() == other.keys()
    assert all(torch.equal(weights[k], again[k]) for k in weights) and torch.equal(mask, mask_again)
    drawn = [k for k, v in weights.items() if v.dim() > 1]  # the matrices (biases and norms start constant)
    assert drawn and [k for k in drawn if torch.equal(weights[k], other[k])] == []
    assert mask.any() and not torch.equal(mask, other_mask)


@pytest.mark.parametrize("trainer, optim, message", [
    ({"budget_minutes": 2.0, "budget_updates": 100}, {"schedule": "linear"},
     "train_seq2seq.trainer.budget_updates: set one of trainer.budget_minutes (2.0) and trainer.budget_updates "
     "(100), not both"),
    ({"budget_updates": 100}, {"schedule": "cosine"},
     "train_seq2seq.optim.schedule: trainer.budget_updates needs the linear schedule, got 'cosine'"),
    ({"budget_updates": 0}, {}, "train_seq2seq.trainer.budget_updates: must be >= 1, got 0"),
    ({"validations": 0}, {}, "train_seq2seq.trainer.validations: must be >= 1, got 0"),
    ({"average_last": 4, "ema_decay": 0.999}, {},
     "train_seq2seq.trainer.ema_decay: set one of trainer.average_last (4) and trainer.ema_decay (0.999), not both"),
    ({"ema_decay": 1.0}, {}, "train_seq2seq.trainer.ema_decay: must be < 1, got 1.0"),
    ({"ema_decay": 0}, {}, "train_seq2seq.trainer.ema_decay: must be > 0, got 0.0"),
])
def test_budget_and_validation_keys_are_validated(trainer, optim, message):
    with pytest.raises(ConfigError) as error:
        tiny_params(trainer=trainer, optim=optim)
    assert str(error.value) == message


def test_a_finished_run_is_never_resumed_a_rerun_trains_afresh(paths, monkeypatch):
    params = tiny_params()
    train_seq2seq(params, MlflowParams(), paths)
    first, first_run = history(paths), json.loads((paths.out / "mlflow_run.json").read_text())["run_id"]
    counter = StepCounter()
    train_with(paths, params, [counter], monkeypatch)  # what `dvc repro -f` does
    assert history(paths) == first  # the same seeded run again, all of it
    assert counter.steps == int(first[-1]["step"])
    assert json.loads((paths.out / "mlflow_run.json").read_text())["run_id"] != first_run


def test_killed_run_resumes_and_continues_the_same_history(paths, monkeypatch):
    params = tiny_params(trainer={"max_epochs": 4, "validations": 7})  # validations fall within epochs
    train_seq2seq(params, MlflowParams(), paths)
    uninterrupted = history(paths)
    uninterrupted_model = torch.load(paths.out / "model.pt", weights_only=True)["state_dict"]
    # A validation that is not the end of its epoch, where the next one is in the same epoch.
    within = next(int(row["step"]) for row, after in zip(uninterrupted[1:], uninterrupted[2:])
                  if row["epoch"] == after["epoch"] and int(after["step"]) - int(row["step"]) > 2)
    with pytest.raises(Interrupt):  # two batches after that validation's checkpoint
        train_with(paths, params, [interrupt_at_step(within + 2)], monkeypatch)
    assert not (paths.reports / "history.csv").exists()  # no partial output, but the resume state stays
    state = json.loads((paths.checkpoints / "run.json").read_text())
    assert not state["finished"] and (paths.checkpoints / "last.ckpt").is_file()
    resumed_at = torch.load(paths.checkpoints / "last.ckpt", weights_only=True)["global_step"]
    assert resumed_at == within
    counter = StepCounter()
    train_with(paths, params, [counter], monkeypatch)
    # The same batches in the same order: the resumed epoch leaves out those it had trained.
    assert history(paths) == uninterrupted
    assert counter.steps == int(uninterrupted[-1]["step"]) - resumed_at  # not one batch again
    resumed_model = torch.load(paths.out / "model.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(uninterrupted_model[k], resumed_model[k]) for k in uninterrupted_model)
    assert json.loads((paths.out / "mlflow_run.json").read_text())["run_id"] == state["mlflow_run_id"]


class SigtermAfterFirstValidation(pl.Callback):
    """`kill PID`, as a scheduler preempting the job sends it, once the first validation's
    checkpoints are saved."""

    def on_validation_end(self, trainer, pl_module) -> None:
        if not trainer.sanity_checking and trainer.global_step > 0 and not hasattr(self, "step"):
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)  # else it would end pytest
            self.step = trainer.global_step
            os.kill(os.getpid(), signal.SIGTERM)


def test_sigterm_ends_the_stage_in_one_line_with_exit_143_and_the_run_resumes(paths, monkeypatch, capsys):
    """Lightning stops at the next batch with a SystemExit that has no status: the stage would exit
    0 with no outputs and no word of why."""
    params, off = tiny_params(trainer={"max_epochs": 2, "validations": 4}), MlflowParams(enabled=False)
    term = SigtermAfterFirstValidation()
    handler = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as stopped:
        run_main(lambda: train_with(paths, params, [term], monkeypatch, off))
    assert stopped.value.code == 143
    assert capsys.readouterr().err.splitlines()[-1] == (
        "error: terminated (SIGTERM); the run resumes from its last validation's checkpoint when the stage "
        "runs again")
    assert signal.getsignal(signal.SIGTERM) == handler  # Lightning put the process's handler back
    assert not (paths.reports / "history.csv").exists()
    assert torch.load(paths.checkpoints / "last.ckpt", weights_only=True)["global_step"] == term.step
    counter = StepCounter()
    metrics = train_with(paths, params, [counter], monkeypatch, off)
    assert "Resuming the interrupted run" in capsys.readouterr().err
    assert counter.steps == metrics["updates"] - term.step


def model_weights(paths: TrainPaths) -> dict:
    return torch.load(paths.out / "model.pt", weights_only=True)["state_dict"]


@pytest.mark.parametrize("randomness, validations", [({}, 4), (RANDOMNESS, 4), (RANDOMNESS, 2)],
                         ids=["plain", "dropout-concat-averaging", "at-the-first-epochs-end"])
def test_a_run_killed_at_its_first_validation_resumes_to_the_same_steps_validations_and_weights(
        paths, monkeypatch, randomness, validations):
    params = tiny_params(**{**randomness, "trainer": {"max_epochs": 2, "validations": validations,
                                                      **randomness.get("trainer", {})}})
    off = MlflowParams(enabled=False)
    metrics = train_seq2seq(params, off, paths)
    uninterrupted, weights = history(paths), model_weights(paths)
    datamodule = TranslationDataModule(paths.data, Tokenizer.load(paths.tokenizer / TOKENIZER_FILE), params.data,
                                       params.seed)
    datamodule.setup("fit")
    per_epoch = datamodule.steps_per_epoch(2)
    assert metrics["updates"] == sum(per_epoch)  # every batch of every epoch
    assert all(row["train_nll"] == row["train_loss"] for row in uninterrupted)  # no label smoothing
    first = int(uninterrupted[0]["step"])
    assert uninterrupted[0]["epoch"] == "1"
    assert first < per_epoch[0] if validations == 4 else first == per_epoch[0]  # inside the first epoch, or its end
    with pytest.raises(Interrupt):  # right after the first validation wrote its checkpoint
        train_with(paths, params, [interrupt_at_step(first)], monkeypatch, off)
    best, last = (torch.load(paths.checkpoints / f"{name}.ckpt", weights_only=True) for name in ("best", "last"))
    assert last["global_step"] == first
    # The model's checkpoint holds its weights, not the optimizer's state, which only resuming reads.
    assert "optimizer_states" not in best and len(last["optimizer_states"]) == 1
    assert best["state_dict"].keys() == last["state_dict"].keys()
    counter = StepCounter()
    resumed = train_with(paths, params, [counter], monkeypatch, off)
    assert counter.steps == metrics["updates"] - first  # the rest of the run, not one batch again
    assert history(paths) == uninterrupted  # the same validation steps, losses, scores and rates
    assert {k: v for k, v in resumed.items() if k not in TIMINGS} == {
        k: v for k, v in metrics.items() if k not in TIMINGS}
    resumed_weights = model_weights(paths)
    assert all(torch.equal(weights[k], resumed_weights[k]) for k in weights)


class CtrlC(pl.Callback):
    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if trainer.global_step == 3:
            raise KeyboardInterrupt


def test_ctrl_c_ends_the_stage_in_one_line_with_exit_130(paths, monkeypatch, capsys):
    """Lightning catches Ctrl-C and exits 1 after its own line; the stage's `interrupted` is 130."""
    handler = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(signal, "signal", lambda *args: handler)  # Lightning would ignore SIGINT from here on
    with pytest.raises(SystemExit) as stopped:
        run_main(lambda: train_with(paths, tiny_params(), [CtrlC()], monkeypatch, MlflowParams(enabled=False)))
    assert stopped.value.code == 130
    assert capsys.readouterr().err.splitlines()[-1] == "error: interrupted"
    assert not (paths.reports / "history.csv").exists() and (paths.checkpoints / "run.json").is_file()


def test_a_run_stopped_while_scoring_its_average_resumes_at_its_end(paths, monkeypatch):
    params = tiny_params(**{**RANDOMNESS, "trainer": {"max_epochs": 2, "validations": 4, **RANDOMNESS["trainer"]}})
    off = MlflowParams(enabled=False)
    metrics = train_seq2seq(params, off, paths)
    uninterrupted, weights = history(paths), model_weights(paths)

    def killed(*args, **kwargs):  # the validation after training that scores the last validations' average
        raise Interrupt

    with monkeypatch.context() as patch, pytest.raises(Interrupt):
        patch.setattr(pl.Trainer, "validate", killed)
        train_seq2seq(params, off, paths)
    assert not (paths.reports / "history.csv").exists()  # no partial output
    counter = StepCounter()
    resumed = train_with(paths, params, [counter], monkeypatch, off)
    assert counter.steps == 0  # not trained again: the average scored, the model exported
    assert history(paths) == uninterrupted
    assert {k: v for k, v in resumed.items() if k not in TIMINGS} == {
        k: v for k, v in metrics.items() if k not in TIMINGS}
    resumed_weights = model_weights(paths)
    assert all(torch.equal(weights[k], resumed_weights[k]) for k in weights)


def test_every_epoch_trains_all_its_batches_when_it_packs_into_more_than_the_first(paths, monkeypatch):
    real = TokenBatchSampler._make

    def uneven(self) -> list[list[int]]:  # what other pools can do: the second epoch has three batches more
        batches = real(self)
        if self.epoch != 1:
            return batches
        return [half for batch in batches[:3] for half in (batch[: len(batch) // 2], batch[len(batch) // 2 :])] + \
            batches[3:]

    monkeypatch.setattr(TokenBatchSampler, "_make", uneven)
    params = tiny_params(trainer={"max_epochs": 3, "validations": 3})
    datamodule = TranslationDataModule(paths.data, Tokenizer.load(paths.tokenizer / TOKENIZER_FILE), params.data,
                                       params.seed)
    datamodule.setup("fit")
    per_epoch = datamodule.steps_per_epoch(3)
    assert per_epoch[1] == per_epoch[0] + 3 == per_epoch[2] + 3
    counter = StepCounter()
    metrics = train_with(paths, params, [counter], monkeypatch, MlflowParams(enabled=False))
    assert counter.steps == metrics["updates"] == sum(per_epoch)
    assert [int(row["step"]) for row in history(paths)][-1] == sum(per_epoch)  # the planned last validation


def test_a_code_change_starts_fresh(paths, monkeypatch, tmp_path):
    package = tmp_path / "package"
    package.mkdir()
    (package / "model.py").write_text("x = 1\n")
    before = fingerprint({"a": 1}, [], package)
    (package / "model.py").write_text("x = 1\n# a comment\n")
    assert fingerprint({"a": 1}, [], package) != before
    params = tiny_params(trainer={"max_epochs": 3, "validations": 3})
    with pytest.raises(Interrupt):
        train_with(paths, params, [interrupt_at_step(20)], monkeypatch)
    assert (paths.checkpoints / "last.ckpt").is_file()  # there was something to resume
    monkeypatch.setattr("attention_lab.training.run.fingerprint", lambda *args: "other code")
    counter = StepCounter()
    train_with(paths, params, [counter], monkeypatch)
    assert len(history(paths)) == 3
    assert counter.steps == int(history(paths)[-1]["step"])  # every step trained again


@pytest.mark.parametrize("changed", [{}, {"optim": {"lr": 0.02}}, {"optim": {"schedule": "linear"}}],
                         ids=["unchanged", "lr", "schedule"])
def test_a_killed_run_rerun_with_a_changed_param_starts_afresh_and_says_so(paths, monkeypatch, capsys, changed):
    params, off = tiny_params(trainer={"max_epochs": 3, "validations": 3}), MlflowParams(enabled=False)
    with pytest.raises(Interrupt):
        train_with(paths, params, [interrupt_at_step(20)], monkeypatch, off)
    killed_at = torch.load(paths.checkpoints / "last.ckpt", weights_only=True)["global_step"]
    assert killed_at > 0  # there was something to resume
    capsys.readouterr()
    counter = StepCounter()
    train_with(paths, tiny_params(trainer={"max_epochs": 3, "validations": 3}, **changed), [counter], monkeypatch, off)
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith(("Resuming", "Starting afresh"))]
    trained = int(history(paths)[-1]["step"])
    if changed:
        assert counter.steps == trained  # every step trained again, with the new param
        assert said == ["Starting afresh: the code, config or data changed since the interrupted run, whose "
                        "checkpoint is discarded"]
    else:
        assert counter.steps == trained - killed_at and len(said) == 1 and said[0].startswith("Resuming")


def test_nonfinite_loss_stops_with_clear_error_and_leaves_nothing(paths, monkeypatch):
    real = training_pass.token_losses
    calls = []

    def poisoned(logits, targets, label_smoothing=0.0):
        calls.append(1)
        loss, nll = real(logits, targets, label_smoothing)
        return (loss * float("nan"), nll) if len(calls) == 4 else (loss, nll)

    monkeypatch.setattr(training_pass, "token_losses", poisoned)
    before = {r.info.run_id for r in runs()}
    with pytest.raises(DivergedError, match="non-finite training loss at epoch 0, step 3"):
        train_seq2seq(tiny_params(), MlflowParams(), paths)
    failed = [r for r in runs() if r.info.run_id not in before]
    assert [r.info.status for r in failed] == ["FAILED"]
    assert not (paths.out / "model.pt").exists() and not paths.checkpoints.exists()
    assert not paths.reports.exists() or not list(paths.reports.iterdir())


def test_unreachable_tracking_server_fails_the_stage_in_seconds_in_one_line(paths, tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text(json.dumps({"train_seq2seq": TINY, "mlflow": {}}))
    port = free_port()  # nothing listens there
    start = time.perf_counter()
    result = run_stage(paths, params, env={"MLFLOW_TRACKING_URI": f"http://user:s3cret@127.0.0.1:{port}"})
    assert time.perf_counter() - start < 30
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr[-3000:]
    assert f"error: MLflow tracking URI 'http://***@127.0.0.1:{port}' is unreachable" in result.stderr
    assert "s3cret" not in result.stderr
    assert not paths.out.exists()  # nothing was trained or written


class StopServerAfterFirstValidation(pl.Callback):
    def __init__(self, stop) -> None:
        self.stop, self.stopped = stop, False

    def on_validation_end(self, trainer, module) -> None:
        if not trainer.sanity_checking and not self.stopped:
            self.stopped = True
            self.stop()


def test_a_server_lost_mid_training_costs_no_model_and_a_rerun_records_the_run_without_training(
        paths, tmp_path, monkeypatch, capsys):
    """Training talks to the server through a relay, which goes away after the first validation;
    the rerun reaches the same server at its own address, as a server restarted elsewhere."""
    store = tmp_path / "server"
    store.mkdir()
    params = tiny_params()
    with tracking_server(store) as base:
        relay = Relay(base)
        monkeypatch.setenv("MLFLOW_TRACKING_URI", relay.url)
        with pytest.raises(TrackingError) as error:
            train_with(paths, params, [StopServerAfterFirstValidation(relay.close)], monkeypatch)
        warnings = [line for line in capsys.readouterr().err.splitlines() if "stopped answering" in line]
        assert len(warnings) == 1 and warnings[0].startswith(f"warning: MLflow tracking server {relay.url} ")
        assert warnings[0].endswith("training goes on, metrics from here on are not recorded")
        message = str(error.value)
        assert "\n" not in message and "unreachable while recording run" in message
        assert message.endswith("model.pt and reports were written; the run's config, reports and logged model "
                                "were not recorded; rerun `dvc repro` to record them")
        run_id = re.search(r"recording run (\w+)", message)[1]
        outputs = [paths.out / "model.pt", paths.reports / "history.csv", paths.reports / "metrics.json"]
        trained = {path: path.read_bytes() for path in outputs}  # all written
        assert not (paths.out / "mlflow_run.json").exists()
        for path in outputs:
            path.unlink()  # what `dvc repro` does before it runs the stage again

        monkeypatch.setattr(pl.Trainer, "fit", lambda *args, **kwargs: pytest.fail("trained again"))
        monkeypatch.setenv("MLFLOW_TRACKING_URI", base)
        metrics = train_seq2seq(params, MlflowParams(), paths)
        client = MlflowClient(base)
        run = client.get_run(run_id)
        recorded = read_run_file(paths.out)
        assert recorded.run_id == run_id and recorded.model_id == Run(client, run_id).logged_model_id() is not None
        assert run.info.status == "FINISHED" and shown("val/bleu") in run.data.metrics  # logged before the server went
        assert {a.path for a in client.list_artifacts(run_id, "reports")} == {
            "reports/history.csv", "reports/train_loss.csv", "reports/metrics.json"}
        assert client.list_artifacts(run_id, "config")[0].path == "config/train_seq2seq.json"
    assert {path: path.read_bytes() for path in outputs} == trained
    assert metrics == json.loads(trained[paths.reports / "metrics.json"])
    assert not paths.checkpoints.exists()


def test_kept_outputs_are_restored_only_while_intact(tmp_path):
    outputs = [tmp_path / "model.pt", tmp_path / "metrics.json"]
    state = ResumeState(tmp_path / "state")

    def trained_not_recorded() -> None:
        for path in outputs:
            path.write_text(path.name)
        assert state.prepare("config") == Start()
        state.record("config", "run-1")
        state.finish()
        state.keep(outputs)
        for path in outputs:
            path.unlink()  # what `dvc repro` does before it runs the stage again

    trained_not_recorded()
    assert state.prepare("other config") == Start() and not state.kept.exists()  # a change trains afresh
    trained_not_recorded()
    assert state.prepare("config") == Start(run_id="run-1", trained=True)
    state.restore(outputs)
    assert [path.read_text() for path in outputs] == ["model.pt", "metrics.json"]
    (state.kept / "model.pt").write_text("changed")
    assert state.prepare("config") == Start() and not state.kept.exists()


def test_steps_per_epoch_are_the_train_loaders_batches_on_every_rank(paths):
    data = DataParams(batch_size=8, batch_tokens=200, bucket=True, val_bleu_size=12)
    datamodule = TranslationDataModule(paths.data, Tokenizer.load(paths.tokenizer / TOKENIZER_FILE), data, seed=3)
    datamodule.setup("fit")
    for world_size in (1, 2):
        for rank in range(world_size):
            datamodule.trainer = SimpleNamespace(world_size=world_size, global_rank=rank, current_epoch=0,
                                                 fit_loop=SimpleNamespace(restarting=False),
                                                 strategy=SimpleNamespace(root_device=torch.device("cpu")))
            loader = datamodule.train_dataloader()
            batches = []
            for epoch in range(3):
                loader.batch_sampler.set_epoch(epoch)
                batches.append(sum(1 for _ in loader))
            assert datamodule.steps_per_epoch(3, world_size, rank) == batches


@pytest.mark.parametrize("trainer, message", [
    ({"accelerator": "gpu"}, "train_seq2seq.trainer:"),
    ({"accelerator": "mps"}, "train_seq2seq.trainer:"),
])
def test_trainer_settings_lightning_rejects_are_params_errors(paths, trainer, message):
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    before = len(runs())
    with pytest.raises(ConfigError, match=message):
        train_seq2seq(tiny_params(trainer=trainer), MlflowParams(), paths)
    assert len(runs()) == before and not paths.out.exists()


def test_file_store_uri_is_refused(paths, monkeypatch, tmp_path):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", str(tmp_path / "mlruns"))
    with pytest.raises(TrackingError, match="file store"):
        train_seq2seq(tiny_params(), MlflowParams(), paths)


def test_tracking_disabled_logs_nothing(paths):
    before = len(runs())
    train_seq2seq(tiny_params(trainer={"max_epochs": 1}), MlflowParams(enabled=False), paths)
    assert len(runs()) == before
    assert json.loads((paths.out / "mlflow_run.json").read_text())["run_id"] is None


def test_no_secret_reaches_params_or_tags(paths, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_USERNAME", "alice")
    monkeypatch.setenv("MLFLOW_TRACKING_PASSWORD", "hunter2-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
    train_seq2seq(tiny_params(trainer={"max_epochs": 1}), MlflowParams(), paths)
    run = MlflowClient().get_run(json.loads((paths.out / "mlflow_run.json").read_text())["run_id"])
    logged = " ".join([*run.data.params.values(), *run.data.tags.values()])
    assert "hunter2-secret" not in logged and "aws-secret-value" not in logged
    assert redact("https://bob:pw@host/path") == "https://***@host/path"


def run_stage(paths: TrainPaths, params: Path, timeout=300, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipeline.train_seq2seq", "--params", str(params), "--data", str(paths.data),
         "--tokenizer", str(paths.tokenizer), "--out", str(paths.out), "--reports", str(paths.reports)],
        cwd=REPO, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", **(env or {})})


@pytest.mark.parametrize("section, message", [
    ({"model": {"attention": "cosine"}}, "train_seq2seq.model.attention: expected one of"),
    ({"model": {"rnn": "transformer"}}, "train_seq2seq.model.rnn: expected one of ['gru', 'lstm']"),
    ({"data": {"batch_size": -64}}, "train_seq2seq.data.batch_size: must be >= 1, got -64"),
    ({"optim": {"lr": "fast"}}, "train_seq2seq.optim.lr: expected float, got str 'fast'"),
    ({"trainer": {"max_epoch": 3}}, "train_seq2seq.trainer.max_epoch: unknown key"),
    ({"model": {"attention": "dot", "bidirectional": True}}, "train_seq2seq.model.attention: dot attention"),
    ({"trainer": {"budget_minutes": 5}}, "train_seq2seq.optim.schedule: trainer.budget_minutes needs the linear"),
])
def test_stage_rejects_bad_params_in_one_line_without_outputs(paths, tmp_path, section, message, monkeypatch,
                                                              capsys):
    # In this process (its imports are already loaded): the stage's own entry point as a process of its
    # own fails in one line in test_unreachable_tracking_server_fails_the_stage_in_seconds_in_one_line.
    from attention_lab.errors import run_main
    from pipeline import train_seq2seq as stage

    params = tmp_path / "params.yaml"
    params.write_text(json.dumps({"train_seq2seq": section, "mlflow": {"enabled": False}}))
    monkeypatch.setattr(sys, "argv", ["train_seq2seq", "--params", str(params), "--data", str(paths.data),
                                      "--tokenizer", str(paths.tokenizer), "--out", str(paths.out), "--reports",
                                      str(paths.reports)])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        run_main(stage.main)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err, err
    assert not paths.out.exists() and not paths.reports.exists()


# Separate subword vocabularies of one size (450 pieces each) are the case a size check let through.
SEPARATE_VOCAB = {**TINY_VOCAB, "subword": {**TINY_VOCAB["subword"], "joint": False}}


@pytest.mark.parametrize("vocab", [{"kind": "word"}, SEPARATE_VOCAB], ids=["word", "separate-subword"])
def test_tying_all_embeddings_needs_a_joint_tokenizer(tmp_path, corpus_zip, vocab):
    paths = prepare_data(corpus_zip, SplitParams(valid_fraction=0.1, test_fraction=0.1), tmp_path,
                         from_mapping(TokenizerParams, vocab, "train_tokenizer"))
    with pytest.raises(ConfigError, match=r"^train_seq2seq.model.tie_embeddings: 'all' needs a joint tokenizer "
                                          r"\(train_tokenizer.subword.joint: true\)"):
        train_seq2seq(tiny_params(model={"tie_embeddings": "all"}), MlflowParams(enabled=False), paths)
    assert not paths.out.exists()


# The tokenizer's tables, by the model's names: untied, each its own tensor. Rows: one a piece.
VOCABULARY_TABLES = ("encoder.embedding.weight", "decoder.embedding.weight", "decoder.output.linear.weight",
                     "decoder.output.linear.bias")


def test_a_subword_size_flows_into_the_tokenizer_the_model_file_and_the_translator(tmp_path):
    # 360 and 450 pieces: both sizes this corpus fills (a size is an upper bound).
    for size in (360, 450):
        vocab = {**TINY_VOCAB, "subword": {**TINY_VOCAB["subword"], "size": size}}
        out = train_tiny(tmp_path / str(size), vocab, {"model": {"tie_embeddings": "none"},
                                                       "trainer": {"budget_updates": 3, "validations": 1}})
        tokenizer = Tokenizer.load(tmp_path / str(size) / "tokenizer" / TOKENIZER_FILE)
        assert len(tokenizer.src) == len(tokenizer.tgt) == size
        weights = torch.load(out / "model.pt", weights_only=True)["state_dict"]
        assert {name: weights[name].shape[0] for name in VOCABULARY_TABLES} == dict.fromkeys(VOCABULARY_TABLES, size)
        translator = Translator.load(out, "cpu")
        assert len(translator.tokenizer.src) == len(translator.tokenizer.tgt) == size
        translations = translator.translate(["Tom is here.", "We saw a cat."])
        assert len(translations) == 2 and all(isinstance(t.text, str) for t in translations)


def test_bf16_mixed_precision_trains_with_gradient_clipping(paths):
    # precision: auto is bf16-mixed on CUDA; Lightning refuses to clip gradients for an optimizer
    # that unscales them itself (a fused Adam), so this failed on the first step on an H100.
    params = tiny_params(trainer={"precision": "bf16-mixed", "max_epochs": 1}, optim={"grad_clip": 0.5})
    metrics = train_seq2seq(params, MlflowParams(enabled=False), paths)
    assert metrics["updates"] > 0 and metrics["train_loss"] > 0 and load_model(paths.out / "model.pt")


class WeightsAtValidations(pl.Callback):
    def __init__(self) -> None:
        self.weights: list[dict] = []

    def on_validation_end(self, trainer, pl_module) -> None:
        if not trainer.sanity_checking:
            self.weights.append({k: v.detach().clone() for k, v in pl_module.model.state_dict().items()})


def test_last_weights_keeps_the_last_validations_and_averages_them():
    kept, seen = LastWeights(3), []
    model = torch.nn.Linear(3, 2)
    for k in range(5):
        with torch.no_grad():
            model.weight.normal_()
        seen.append({name: tensor.clone() for name, tensor in model.state_dict().items()})
        kept.on_validation_end(SimpleNamespace(sanity_checking=False), SimpleNamespace(model=model))
    assert len(kept.kept) == 3
    for name, tensor in kept.average().items():
        torch.testing.assert_close(tensor, torch.stack([w[name] for w in seen[-3:]]).mean(dim=0))


def doubled_output(weights: dict) -> dict:
    """The same greedy outputs (logits exactly doubled), a different loss: other weights that score
    the same BLEU."""
    return {k: v * 2 if k.startswith("decoder.output.linear.") else v for k, v in weights.items()}


def unread_row_moved(weights: dict) -> dict:
    """Other weights that score exactly the same loss and BLEU: a source never holds `<bos>`, so
    its row of the source embedding is never read."""
    moved = {k: v.clone() for k, v in weights.items()}
    moved["encoder.embedding.weight"][BOS_ID] += 1.0
    return moved


def worse(score: float, other: float, monitor: str) -> bool:
    return score > other if monitor == "val_loss" else score < other


def validation_scores(paths: TrainPaths, params: Seq2SeqParams, weights: dict) -> dict:
    """`weights` scored by a validation of their own (a fresh module, Trainer and DataModule), by
    metrics.json's names."""
    job = prepare(params, MlflowParams(enabled=False), paths)
    job.module.model.load_state_dict(weights)
    trainer = pl.Trainer(accelerator="cpu", logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, precision=resolve_precision(params.trainer.precision, "cpu"))
    logged = trainer.validate(job.module, datamodule=job.datamodule, verbose=False)[0]
    return {name: float(logged[key]) for name, key in SCORES.items()}


@pytest.mark.parametrize("monitor, average, bleu_peak", [
    ("val_loss", "first validation", None), ("val_bleu", "first validation", None),
    ("val_loss", "best validation, an unread row moved", None),
    ("val_bleu", "best validation, an unread row moved", None),
    ("val_bleu", "best validation, output doubled", None),
    # The second validation's BLEU lifted: the lowest-loss and the highest-BLEU validations differ.
    ("val_loss", "first validation", 1), ("val_bleu", "first validation", 1)])
def test_averaged_weights_are_scored_as_validation_and_kept_only_when_they_score_at_least_the_best(
        paths, monkeypatch, monitor, average, bleu_peak):
    # The "average" is set to weights of known scores; the scoring and the decision are the run's own.
    seen = WeightsAtValidations()
    best_index = {"val_loss": "idxmin", "val_bleu": "idxmax"}[monitor]
    if bleu_peak is not None:
        real_bleu = CorpusBLEU.compute  # called before `seen` takes the validation's weights: its index
        monkeypatch.setattr(CorpusBLEU, "compute",
                            lambda self: real_bleu(self) + 100.0 * (len(seen.weights) == bleu_peak))

    def chosen(self) -> dict:
        rows = pd.DataFrame(history(paths)).astype(float)
        best = seen.weights[int(getattr(rows[monitor], best_index)())]
        return {"first validation": lambda: seen.weights[0], "best validation, output doubled": lambda: doubled_output(
            best), "best validation, an unread row moved": lambda: unread_row_moved(best)}[average]()

    monkeypatch.setattr(LastWeights, "average", chosen)
    params = tiny_params(trainer={"average_last": 3, "validations": 5, "monitor": monitor})
    metrics = train_with(paths, params, [seen], monkeypatch, MlflowParams(enabled=False))
    assert metrics == {k: v for k, v in json.loads((paths.reports / "metrics.json").read_text()).items()}
    rows = pd.read_csv(paths.reports / "history.csv")
    best = rows.loc[getattr(rows[monitor], best_index)()]
    assert metrics["best_update"] == best["step"]
    if bleu_peak is not None:
        assert rows["val_loss"].idxmin() != rows["val_bleu"].idxmax() == bleu_peak
    model = model_weights(paths)
    assert metrics["averaged_validations"] == 3
    if average == "first validation":  # a young model: it scores as its validation did, worse than the best
        first = rows.iloc[0]
        for name in ("val_loss", "val_bleu"):
            assert metrics[f"average_{name}"] == pytest.approx(first[name], abs=1e-6)
        assert worse(first[monitor], best[monitor], monitor)
        assert not metrics["averaged"]
        expected, scores = seen.weights[best.name], best
    else:  # as good by the monitor: kept, with its own scores
        assert metrics[f"average_{monitor}"] == pytest.approx(best[monitor], rel=1e-7) and metrics["averaged"]
        expected = chosen(None)
        scores = validation_scores(paths, params, expected)
        if average == "best validation, output doubled":
            assert metrics["val_loss"] != pytest.approx(best["val_loss"], rel=1e-3)
    for name in ("val_loss", "val_ppl", "val_bleu"):
        assert metrics[name] == pytest.approx(scores[name], rel=1e-6), name
    assert metrics["val_ppl"] == pytest.approx(math.exp(metrics["val_loss"]), rel=1e-6)
    for name, tensor in model.items():
        assert torch.equal(tensor, expected[name]), name


def test_best_row_is_the_first_of_the_best_by_the_monitors_direction():
    rows = [{"step": 1, "val_loss": 2.0, "val_bleu": 10.0}, {"step": 2, "val_loss": 1.5, "val_bleu": 12.0},
            {"step": 3, "val_loss": 1.5, "val_bleu": 11.0}, {"step": 4, "val_loss": 1.7, "val_bleu": 12.0}]
    assert best_row(rows, "val_loss")["step"] == 2 and best_row(rows, "val_bleu")["step"] == 2
    assert best_row(rows[2:], "val_bleu")["step"] == 4 and best_row([], "val_loss") == {}
    assert at_least_as_good(1.5, 1.5, "val_loss") and not at_least_as_good(1.6, 1.5, "val_loss")
    assert at_least_as_good(12.0, 11.0, "val_bleu") and not at_least_as_good(1.5, 1.6, "val_bleu")


@pytest.mark.parametrize("monitor, key, mode", [("val_loss", "val/loss", "min"), ("val_bleu", "val/bleu", "max")])
def test_the_best_checkpoint_and_early_stopping_watch_the_monitor(tmp_path, monitor, key, mode):
    params = tiny_params(trainer={"monitor": monitor, "early_stopping_patience": 2})
    trainer, *_ = build_trainer(params, TrainPaths(tmp_path, tmp_path, tmp_path / "out", tmp_path / "reports"))
    [stopping] = [c for c in trainer.callbacks if isinstance(c, EarlyStopping)]
    assert (trainer.checkpoint_callback.monitor, trainer.checkpoint_callback.mode) == (key, mode)
    assert (stopping.monitor, stopping.mode, stopping.patience) == (key, mode, 2)


# An EMA run: 30 updates, a warm-up of 5, validations at three of them; a decay the 30 updates feel.
EMA = {"optim": {"schedule": "linear", "warmup_steps": 5},
       "trainer": {"budget_updates": 30, "validations": 3, "ema_decay": 0.9}}


class WeightsSeen(pl.Callback):
    """The model's weights after every update, and those every validation scores, by update count."""

    def __init__(self) -> None:
        self.updated: dict[int, dict] = {}
        self.scored: dict[int, dict] = {}

    def on_train_batch_end(self, trainer, pl_module, *args) -> None:
        self.updated[trainer.global_step] = {k: v.detach().clone() for k, v in pl_module.model.state_dict().items()}

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0) -> None:
        if not trainer.sanity_checking and batch_idx == dataloader_idx == 0:
            self.scored[trainer.global_step] = {k: v.detach().clone() for k, v in pl_module.model.state_dict().items()}


def hand_ema(updated: dict[int, dict], decay: float, start: int) -> dict[int, dict]:
    """The average after each update: the weights themselves until update `start`, then the EMA."""
    ema, averages = None, {}
    for step in sorted(updated):
        weights = updated[step]
        ema = weights if ema is None or step <= start else {
            k: decay * ema[k] + (1 - decay) * v for k, v in weights.items()}
        averages[step] = ema
    return averages


def test_validations_score_and_the_model_keeps_the_ema_of_the_weights_after_each_update(paths, monkeypatch):
    seen, params = WeightsSeen(), tiny_params(**EMA)
    train_with(paths, params, [seen], monkeypatch, MlflowParams(enabled=False))
    assert sorted(seen.updated) == list(range(1, 31)) and len(seen.scored) == 3 and 30 in seen.scored
    ema = hand_ema(seen.updated, 0.9, 5)
    for step, scored in seen.scored.items():
        torch.testing.assert_close(scored, ema[step], rtol=1e-6, atol=1e-7)
    rows = pd.read_csv(paths.reports / "history.csv")
    best = int(rows.loc[rows["val_loss"].idxmin(), "step"])  # the default monitor
    model = model_weights(paths)
    torch.testing.assert_close(model, ema[best], rtol=1e-6, atol=1e-7)
    assert any(not torch.equal(model[k], seen.updated[best][k]) for k in model)  # not the weights trained
    tokenizer = Tokenizer.load(paths.tokenizer / TOKENIZER_FILE)
    assert recorded_params(paths, tokenizer, params)["train_seq2seq.trainer.ema_decay"] == 0.9  # MLflow's params


def test_a_killed_ema_run_resumes_to_the_same_average_and_weights(paths, monkeypatch):
    params, off = tiny_params(**EMA), MlflowParams(enabled=False)
    metrics = train_seq2seq(params, off, paths)
    uninterrupted, weights = history(paths), model_weights(paths)
    first = int(uninterrupted[0]["step"])
    assert 5 < first < 28  # the average has begun, and the run goes on after the kill
    with pytest.raises(Interrupt):  # two updates after the first validation's checkpoint
        train_with(paths, params, [interrupt_at_step(first + 2)], monkeypatch, off)
    checkpoint = torch.load(paths.checkpoints / "last.ckpt", weights_only=True)
    assert checkpoint["global_step"] == first
    trained, average = checkpoint["current_model_state"], checkpoint["state_dict"]
    assert trained.keys() == average.keys() and any(not torch.equal(trained[k], average[k]) for k in trained)
    resumed = train_seq2seq(params, off, paths)
    assert history(paths) == uninterrupted
    assert {k: v for k, v in resumed.items() if k not in TIMINGS} == {
        k: v for k, v in metrics.items() if k not in TIMINGS}
    resumed_weights = model_weights(paths)
    assert all(torch.equal(weights[k], resumed_weights[k]) for k in weights)


def test_the_plain_progress_bar_writes_no_cursor_escapes_into_a_log(capfd):
    # Output that is no terminal gets the training bar alone: validation's bar moved the cursor up (ESC [A).
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from attention_lab.training.progress import PlainProgressBar

    class Tiny(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(3, 1)

        def training_step(self, batch, _):
            return self.layer(batch[0]).pow(2).mean()

        def validation_step(self, batch, _):
            self.log("val", self.layer(batch[0]).mean())

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(12, 3)), batch_size=4)
    trainer = pl.Trainer(max_epochs=2, callbacks=[PlainProgressBar(refresh_rate=1)], logger=False,
                         enable_checkpointing=False, enable_model_summary=False, accelerator="cpu")
    trainer.fit(Tiny(), data, data)
    out, err = capfd.readouterr()
    assert "Epoch 1" in out + err and "\x1b[" not in out + err
    # A line a frame: no carriage return leaves the frames of an epoch on one line of the log.
    frames = [line for line in (out + err).splitlines() if line.startswith("Epoch")]
    assert "\r" not in out + err and len(frames) >= 2 * 3 and all(len(line) <= 100 for line in frames)


@pytest.mark.parametrize("capabilities, cpu", [({"avx512_bf16": True}, "bf16-mixed"), ({"amx_bf16": True}, "bf16-mixed"),
                                               ({"avx512_bf16": False, "avx512_f": True}, "32-true"), ({}, "32-true")])
def test_auto_precision_is_bf16_on_cpus_with_native_bf16_only(monkeypatch, capabilities, cpu):
    """docs/speed.md: bf16 trains faster to the same validation BLEU where the processor multiplies bf16 natively;
    elsewhere (AVX-512 without it, AVX2) bf16 products are emulated and float32 stays."""
    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: capabilities)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert resolve_precision("auto", "auto") == resolve_precision("auto", "cpu") == cpu
    assert resolve_precision("32-true", "cpu") == "32-true" and resolve_precision("bf16-mixed", "cpu") == "bf16-mixed"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_precision("auto", "auto") == resolve_precision("auto", "cuda") == "bf16-mixed"
    assert resolve_precision("auto", "cpu") == cpu  # a CPU run asked for on a CUDA machine
