"""Tests for the stage's parameters and data (attention_lab.nw.data) and the stage end to end."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from conftest import REPO
from nw_factory import KERNELS

from attention_lab.config import ConfigError, from_mapping
from attention_lab.nw.data import NWParams, make_data

# ---------------------------------------------------------------------------------------------
# Params


@pytest.mark.parametrize("section, key", [
    ({"kernels": ["gaussian", "banana"]}, "train_nw.kernels[1]"),
    ({"kernels": ["boxcar", "boxcar"]}, "train_nw.kernels"),
    ({"bandwidth": -0.5}, "train_nw.bandwidth"),
    ({"bandwidth": 0}, "train_nw.bandwidth"),
    ({"bandwidth": "wide"}, "train_nw.bandwidth"),
    ({"n_train": 0}, "train_nw.n_train"),
    ({"repeats": 1}, "train_nw.repeats"),
    ({"bandwidth_min": 2.0, "bandwidth_max": 1.0}, "train_nw.bandwidth_max"),
    ({"chunk_size": 0}, "train_nw.chunk_size"),
    ({"accelerator": "abacus"}, "train_nw.accelerator"),
    ({"epoch": 5}, "train_nw.epoch"),
])
def test_bad_params_name_the_key(section, key):
    with pytest.raises(ConfigError, match=f"^{re.escape(key)}: "):
        from_mapping(NWParams, section, "train_nw")


def test_defaults_are_d2ls_setup():
    params = from_mapping(NWParams, {}, "train_nw")
    assert (params.n_train, params.x_max, params.test_step, params.noise_std) == (50, 5.0, 0.1, 0.5)
    assert (params.lr, params.epochs, params.repeats, params.bandwidth) == (0.5, 5, 10, "auto")
    data = make_data(params, seed=0)
    assert data.x_train.shape == (50,) and (data.x_train.diff() >= 0).all()
    assert data.x_test.shape == (50,)
    torch.testing.assert_close(data.y_truth, 2 * torch.sin(data.x_test) + data.x_test ** 0.8)
    assert 0.1 < float((data.y_noisy - data.y_truth).std()) < 1.0


# ---------------------------------------------------------------------------------------------
# The stage, end to end in a temporary folder


def run_stage(tmp_path: Path, section: dict) -> subprocess.CompletedProcess:
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(
        {"train_nw": section, "mlflow": {"enabled": True, "experiment": "nw-test"}}))
    env = dict(os.environ, MLFLOW_TRACKING_URI=f"sqlite:///{tmp_path / 'mlflow.db'}",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    env.pop("DVC_ROOT", None)
    return subprocess.run([sys.executable, "-m", "pipeline.train_nw", "--out-reports", "reports/nw",
                           "--out-models", "models/nw"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_stage_writes_metrics_figures_models_and_one_mlflow_run(tmp_path):
    section = {"n_train": 40, "repeats": 2, "epochs": 3, "bandwidth_steps": 6, "accelerator": "cpu"}
    done = run_stage(tmp_path, section)
    assert done.returncode == 0, done.stderr

    metrics = json.loads((tmp_path / "reports/nw/metrics.json").read_text())
    estimators = ["average", *KERNELS, "parametric"]
    assert list(metrics) == [*estimators, "summary"]
    for name in estimators:
        assert {"mse_truth", "mse_noisy"} <= set(metrics[name])
        for metric in ("mse_truth", "mse_noisy"):
            stats = metrics["summary"][name][metric]
            assert math.isfinite(stats["mean"]) and stats["std"] >= 0
    for kernel in KERNELS:
        assert 0.01 <= metrics[kernel]["bandwidth"] <= 10 and math.isfinite(metrics[kernel]["loo_mse"])
        assert metrics[kernel]["mse_truth"] < metrics["average"]["mse_truth"]
    assert math.isfinite(metrics["parametric"]["w"])

    figures = {path.name for path in (tmp_path / "reports/nw/figures").iterdir()}
    expected = ({f"fit_{name}.png" for name in estimators} | {f"attention_{name}.png" for name in estimators}
                | {"loss_parametric.png", "loo_cv.png", "scoring_additive.png", "scoring_scaled_dot.png"})
    assert figures == expected
    for name in expected:
        assert (tmp_path / "reports/nw/figures" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    state = torch.load(tmp_path / "models/nw/parametric.pt", weights_only=True)
    assert state["x_train"].shape == (40,)
    assert math.isclose(float(state["w"]), metrics["parametric"]["w"], rel_tol=1e-6)
    saved = json.loads((tmp_path / "models/nw/estimators.json").read_text())
    assert saved["bandwidths"] == {kernel: metrics[kernel]["bandwidth"] for kernel in KERNELS}

    from mlflow import MlflowClient
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("nw-test")
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 1
    run = runs[0]
    assert run.info.status == "FINISHED"
    assert run.data.tags["stage"] == "train_nw"
    assert run.data.params["train_nw.n_train"] == "40"
    assert math.isclose(run.data.metrics["gaussian.mse_truth"], metrics["gaussian"]["mse_truth"], rel_tol=1e-6)
    assert math.isclose(run.data.metrics["summary.parametric.mse_noisy.mean"],
                        metrics["summary"]["parametric"]["mse_noisy"]["mean"], rel_tol=1e-6)
    assert len(client.get_metric_history(run.info.run_id, "train/loss")) == 3
    artifacts = {Path(a.path).name for a in client.list_artifacts(run.info.run_id, "figures")}
    assert artifacts == expected


def test_stage_rejects_bad_params_with_the_key_and_exit_code_2(tmp_path):
    done = run_stage(tmp_path, {"bandwidth": -1.0})
    assert done.returncode == 2
    assert "error:" in done.stderr and "train_nw.bandwidth: must be > 0" in done.stderr
    assert not (tmp_path / "reports").exists() and not (tmp_path / "mlflow.db").exists()
