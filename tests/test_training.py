import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from conftest import REPO
from mlflow import MlflowClient

from attention_lab import seq2seq
from attention_lab.bench import prepare_data
from attention_lab.checkpoint import load_model
from attention_lab.config import ConfigError, from_mapping
from attention_lab.corpus import TokenizeParams
from attention_lab.seq2seq import DivergedError
from attention_lab.tracking import MlflowParams, TrackingError, redact
from attention_lab.training import Seq2SeqParams, TrainPaths, train_seq2seq

TINY = {"data": {"batch_size": 16, "max_len": 8, "val_bleu_size": 12},
        "model": {"embed_size": 16, "hidden_size": 16, "num_layers": 1, "dropout": 0.0},
        "optim": {"lr": 0.01},
        "trainer": {"accelerator": "cpu", "max_epochs": 2, "progress_bar": False, "log_every_n_steps": 2}}


def tiny_params(**sections) -> Seq2SeqParams:
    merged = {k: {**v, **sections.get(k, {})} for k, v in TINY.items()}
    return from_mapping(Seq2SeqParams, merged, "train_seq2seq")


@pytest.fixture
def paths(tmp_path, corpus_zip) -> TrainPaths:
    return prepare_data(corpus_zip, TokenizeParams(valid_fraction=0.1, test_fraction=0.1), tmp_path)


def runs(experiment="attention-lab"):
    client = MlflowClient()
    found = client.get_experiment_by_name(experiment)
    return client.search_runs([found.experiment_id]) if found else []


def test_training_writes_model_reports_and_one_mlflow_run(paths):
    before = {r.info.run_id for r in runs()}
    metrics = train_seq2seq(tiny_params(), MlflowParams(), paths)
    assert metrics["epochs"] == 2 and metrics["tokens_per_s"] > 0 and metrics["train_loss"] < 5
    history = (paths.reports / "history.csv").read_text().splitlines()
    assert history[0].startswith("epoch,train_loss,val_loss,val_ppl,val_bleu,tokens_per_s")
    assert [line.split(",")[0] for line in history[1:]] == ["1", "2"]
    loaded = load_model(paths.out / "model.pt")
    assert loaded.max_len == 8 and loaded.lowercase
    new = [r for r in runs() if r.info.run_id not in before]
    assert len(new) == 1
    run = new[0]
    assert json.loads((paths.out / "mlflow_run.json").read_text())["run_id"] == run.info.run_id
    assert run.info.status == "FINISHED"
    assert {"train/loss", "val/bleu", "val/loss", "val/ppl", "train/tokens_per_s"} <= set(run.data.metrics)
    assert run.data.params["train_seq2seq.model.hidden_size"] == "16"
    assert run.data.params["train_seq2seq.optim.lr"] == "0.01"
    assert {"git_commit", "stage", "corpus_md5"} <= set(run.data.tags)
    artifacts = {a.path for a in MlflowClient().list_artifacts(run.info.run_id, "model")}
    assert artifacts == {"model/model.pt"}
    config = MlflowClient().download_artifacts(run.info.run_id, "config/train_seq2seq.json")
    assert json.loads(Path(config).read_text())["train_seq2seq"]["model"]["hidden_size"] == 16
    assert sorted(p.name for p in (paths.out / "checkpoints").iterdir()) == ["best.ckpt", "last.ckpt", "run.json"]


def test_changed_config_starts_fresh(paths):
    train_seq2seq(tiny_params(trainer={"max_epochs": 1}), MlflowParams(), paths)
    first = json.loads((paths.out / "checkpoints" / "run.json").read_text())
    train_seq2seq(tiny_params(trainer={"max_epochs": 1}, optim={"lr": 0.02}), MlflowParams(), paths)
    second = json.loads((paths.out / "checkpoints" / "run.json").read_text())
    assert first["fingerprint"] != second["fingerprint"] and first["mlflow_run_id"] != second["mlflow_run_id"]
    assert len((paths.reports / "history.csv").read_text().splitlines()) == 2  # header + 1 fresh epoch


def test_same_config_resumes_from_last_checkpoint(paths):
    params = tiny_params(trainer={"max_epochs": 2})
    train_seq2seq(params, MlflowParams(), paths)
    run_id = json.loads((paths.out / "mlflow_run.json").read_text())["run_id"]
    (paths.out / "model.pt").unlink()
    metrics = train_seq2seq(params, MlflowParams(), paths)  # nothing left to train: only re-exports
    assert metrics["epochs"] == 2 and (paths.out / "model.pt").is_file()
    assert json.loads((paths.out / "mlflow_run.json").read_text())["run_id"] == run_id


def test_nonfinite_loss_stops_with_clear_error_and_failed_run(paths, monkeypatch):
    real = seq2seq.token_loss
    calls = []

    def poisoned(logits, targets, label_smoothing=0.0):
        calls.extend([1] if torch.is_grad_enabled() else [])  # count training steps only
        loss = real(logits, targets, label_smoothing)
        return loss * float("nan") if len(calls) == 4 else loss

    monkeypatch.setattr(seq2seq, "token_loss", poisoned)
    before = {r.info.run_id for r in runs()}
    with pytest.raises(DivergedError, match="non-finite training loss at epoch 0, step 3"):
        train_seq2seq(tiny_params(), MlflowParams(), paths)
    failed = [r for r in runs() if r.info.run_id not in before]
    assert [r.info.status for r in failed] == ["FAILED"]
    assert not (paths.out / "model.pt").exists()


def test_unreachable_tracking_server_fails_fast(paths, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://user:s3cret@127.0.0.1:9")
    start = time.perf_counter()
    with pytest.raises(TrackingError, match=r"'http://\*\*\*@127.0.0.1:9' is unreachable") as error:
        train_seq2seq(tiny_params(), MlflowParams(), paths)
    assert time.perf_counter() - start < 30
    assert "s3cret" not in str(error.value)
    assert not paths.out.exists()  # nothing was trained or written


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


def test_ddp_on_two_cpu_processes_writes_everything_once(paths, tmp_path):
    params = tmp_path / "params.yaml"
    trainer = {**TINY["trainer"], "max_epochs": 1, "devices": 2, "strategy": "ddp"}
    params.write_text(json.dumps({"train_seq2seq": {**TINY, "trainer": trainer},
                                  "mlflow": {"experiment": "ddp-test"}}))
    result = subprocess.run(
        [sys.executable, "-m", "pipeline.train_seq2seq", "--params", str(params), "--data", str(paths.data),
         "--vocab", str(paths.vocab), "--out", str(paths.out), "--reports", str(paths.reports)],
        cwd=REPO, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "world_size: 2" in result.stderr or "distributed_backend=gloo" in result.stderr
    assert sorted(p.name for p in paths.out.iterdir()) == ["checkpoints", "mlflow_run.json", "model.pt"]
    assert sorted(p.name for p in (paths.out / "checkpoints").iterdir()) == ["best.ckpt", "last.ckpt", "run.json"]
    assert len(runs("ddp-test")) == 1
    metrics = json.loads((paths.reports / "metrics.json").read_text())
    assert metrics["epochs"] == 1 and torch.isfinite(torch.tensor(metrics["train_loss"]))


@pytest.mark.parametrize("section, message", [
    ({"model": {"attention": "cosine"}}, "train_seq2seq.model.attention: expected one of"),
    ({"model": {"rnn": "transformer"}}, "train_seq2seq.model.rnn: expected one of ['gru', 'lstm']"),
    ({"data": {"batch_size": -64}}, "train_seq2seq.data.batch_size: must be >= 1, got -64"),
    ({"optim": {"lr": "fast"}}, "train_seq2seq.optim.lr: expected float, got str 'fast'"),
    ({"trainer": {"max_epoch": 3}}, "train_seq2seq.trainer.max_epoch: unknown key"),
    ({"model": {"attention": "dot", "bidirectional": True}}, "train_seq2seq.model.attention: dot attention"),
])
def test_stage_rejects_bad_params_in_one_line_without_outputs(paths, tmp_path, section, message):
    params = tmp_path / "params.yaml"
    params.write_text(json.dumps({"train_seq2seq": section, "mlflow": {"enabled": False}}))
    result = subprocess.run(
        [sys.executable, "-m", "pipeline.train_seq2seq", "--params", str(params), "--data", str(paths.data),
         "--vocab", str(paths.vocab), "--out", str(paths.out), "--reports", str(paths.reports)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not paths.out.exists() and not paths.reports.exists()
