"""What MLflow's UI shows first: run names and descriptions, metric names whose chart sections put
the learning curves first, the runs-table view with BLEU columns, and a copied repository's store
reading its own artifacts (`python -m attention_lab.tracking.relocate`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from mlflow import MlflowClient

from attention_lab.tracking import run as mlflow_run
from attention_lab.tracking import store as tracking
from attention_lab.tracking import views
from attention_lab.tracking.lightning_logger import TolerantMLFlowLogger
from attention_lab.tracking.relocate import relocate


def ui_layout(keys: list[str]) -> list[tuple[str, list[str]]]:
    """Sections and their charts as MLflow 3.17.2's UI orders them (main.js: `extractChartSectionName`,
    named sections sorted, then "Model metrics" for keys without '/', then "System metrics")."""
    sections: dict[str, list[str]] = {}
    for key in sorted(keys):
        name = "/".join(key.split("/")[:-1])
        sections.setdefault("system" if name == "system" else name, []).append(key)
    named = sorted(k for k in sections if k not in ("", "system"))
    return [(name, sections[name]) for name in [*named, *[k for k in ("", "system") if k in sections]]]


def test_learning_curves_are_the_first_section_and_the_losses_are_neighbours():
    keys = [views.mlflow_metric_name(k) for k in ("train/loss", "train/nll", "train/mean_loss", "train/mean_nll",
                                                   "val/loss", "val/ppl", "val/bleu", "train/tokens_per_s", "epoch")]
    keys += ["model/val_bleu", "model/val_loss", "test.beam.bleu", "test.greedy.chrf"]
    layout = ui_layout(keys)
    assert [name for name, _ in layout] == ["learning curves", "model", "training", ""]
    curves = [key.split("/")[-1] for key in layout[0][1]]
    assert curves == ["BLEU valid", "NLL train", "NLL train mean", "NLL valid", "perplexity valid"]
    assert all(key.startswith("test.") for key in layout[-1][1])
    assert all(set(key) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/. -")
               for key in keys)  # what Lightning's logger keeps of a key


def test_run_names_say_what_each_run_is(monkeypatch):
    monkeypatch.setenv("DVC_EXP_NAME", "wight-hajj")
    assert views.run_name("train_seq2seq", "rnn") == "translator · rnn · wight-hajj"
    assert views.run_name("train_nw") == "nadaraya-watson · wight-hajj"
    assert views.run_name("evaluate") == "evaluate · wight-hajj"
    monkeypatch.delenv("DVC_EXP_NAME")
    assert views.run_name("train_seq2seq", "transformer") == "translator · transformer"
    assert views.run_name("train_nw") == "nadaraya-watson"


def test_runs_are_named_and_described_and_the_experiment_saves_the_bleu_view(own_store, monkeypatch):
    monkeypatch.setenv("DVC_EXP_NAME", "wight-hajj")
    client = tracking.client()
    nw = mlflow_run.Run.create(tracking.MlflowParams(experiment="views"), "train_nw")
    training = mlflow_run.Run.create(tracking.MlflowParams(experiment="views"), "train_seq2seq")
    child = training.child("evaluate")
    runs = {r.info.run_id: r for r in (client.get_run(x.run_id) for x in (nw, training, child))}
    nw_run, child_run = runs[nw.run_id], runs[child.run_id]
    assert nw_run.info.run_name == "nadaraya-watson · wight-hajj"
    assert child_run.info.run_name == "evaluate · wight-hajj"
    assert "Nadaraya-Watson" in nw_run.data.tags[views.NOTE_TAG]
    assert "evaluate/translations.json" in child_run.data.tags[views.NOTE_TAG]
    assert "heatmaps/explorer.html" in views.note("train_seq2seq", "rnn")
    assert "`wight-hajj`" in views.note("train_seq2seq", "rnn")
    experiment = client.get_experiment_by_name("views")
    saved = json.loads(experiment.tags[views.SHARED_VIEW_TAG])
    assert saved["orderByKey"] == "attributes.start_time" and saved["orderByAsc"] is False
    assert {"metrics.`test.beam.bleu`", "metrics.`test.beam.chrf`"} <= set(saved["selectedColumns"])
    assert saved["columnWidths"]["attributes.`Run Name`"] >= 300  # room for `translator · transformer · NAME`
    assert set(saved["selectedColumns"]) <= set(saved["columnOrder"])  # widths apply to listed columns only


def test_the_lightning_logger_logs_under_the_ui_names(own_store):
    client = tracking.client()
    tracking.ensure_experiment(client, "logger")
    logger = TolerantMLFlowLogger(experiment_name="logger", tracking_uri=tracking.tracking_uri())
    logger.log_metrics({"val/bleu": 12.5, "train/loss": 3.0, "other": 1.0}, step=4)
    logged = client.get_run(logger.run_id).data.metrics
    assert logged == {"learning curves/BLEU valid": 12.5, "training/loss trained on": 3.0, "other": 1.0}


def test_a_copied_repository_reads_its_own_artifacts_after_one_command(own_store, tmp_path, monkeypatch):
    """MLflow keeps absolute artifact URIs: the copy stops with the command to run, which rewrites
    them; then the copy's run reads the copy's file, and new runs write under the copy."""
    run = mlflow_run.Run.create(tracking.MlflowParams(experiment="copied"), "train_nw")
    (tmp_path / "note.txt").write_text("original")
    run.log_artifact(tmp_path / "note.txt")
    run.finish()
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy2(own_store / "mlflow.db", copy / "mlflow.db")
    shutil.copytree(own_store / "mlruns", copy / "mlruns")
    (copy / "mlruns").joinpath(*MlflowClient(tracking.tracking_uri()).get_run(run.run_id).info.artifact_uri
                               .split("/mlruns/")[1].split("/"), "note.txt").write_text("copy")
    monkeypatch.setenv("DVC_ROOT", str(copy))
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{copy / 'mlflow.db'}")
    command = r"copied or moved; run `python -m attention_lab\.tracking\.relocate`"
    with pytest.raises(tracking.TrackingError, match=command):
        mlflow_run.Run.create(tracking.MlflowParams(experiment="copied"), "train_nw")
    done = subprocess.run([sys.executable, "-m", "attention_lab.tracking.relocate"], cwd=copy, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and f"now read from {(copy / 'mlruns').as_uri()}" in done.stdout, done.stderr
    client = MlflowClient(f"sqlite:///{copy / 'mlflow.db'}")
    assert client.get_run(run.run_id).info.artifact_uri.startswith((copy / "mlruns").as_uri() + "/")
    (tmp_path / "got").mkdir()
    got = client.download_artifacts(run.run_id, "note.txt", str(tmp_path / "got"))
    assert open(got).read() == "copy"
    new = mlflow_run.Run.create(tracking.MlflowParams(experiment="copied"), "train_nw")
    assert client.get_run(new.run_id).info.artifact_uri.startswith((copy / "mlruns").as_uri() + "/")
    assert relocate(copy / "mlflow.db", copy) == {}  # a second run finds nothing to rewrite


def test_relocate_names_a_missing_or_foreign_database(tmp_path):
    with pytest.raises(Exception, match=r"mlflow.db: no such MLflow database"):
        relocate(tmp_path / "mlflow.db", tmp_path)
    (tmp_path / "mlflow.db").write_text("not a database")
    with pytest.raises(Exception, match=r"mlflow.db: not an MLflow database"):
        relocate(tmp_path / "mlflow.db", tmp_path)
