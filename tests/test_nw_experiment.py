"""Tests for the stage's parameters and data (attention_lab.nw.data) and its refusal of bad params; what
the stage writes and records is checked on the end-to-end `dvc repro` (tests/test_pipeline.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from conftest import REPO

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
# The stage's entry point on bad params, in a temporary folder


def run_stage(tmp_path: Path, section: dict) -> subprocess.CompletedProcess:
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(
        {"train_nw": section, "mlflow": {"enabled": True, "experiment": "nw-test"}}))
    env = dict(os.environ, MLFLOW_TRACKING_URI=f"sqlite:///{tmp_path / 'mlflow.db'}",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    env.pop("DVC_ROOT", None)
    return subprocess.run([sys.executable, "-m", "pipeline.train_nw", "--out-reports", "reports/nw",
                           "--out-models", "models/nw"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_stage_rejects_bad_params_with_the_key_and_exit_code_2(tmp_path):
    done = run_stage(tmp_path, {"bandwidth": -1.0})
    assert done.returncode == 2
    assert "error:" in done.stderr and "train_nw.bandwidth: must be > 0" in done.stderr
    assert not (tmp_path / "reports").exists() and not (tmp_path / "mlflow.db").exists()
