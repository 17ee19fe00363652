"""Tests for Nadaraya-Watson kernel regression (attention_lab.nadaraya_watson) and its stage."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml

from attention_lab.config import ConfigError, from_mapping
from attention_lab.nadaraya_watson import (
    NWParams,
    choose_bandwidth,
    kernel_scores,
    log_kernel,
    loo_mse,
    make_data,
    pool,
    target,
    train_parametric,
)

REPO = Path(__file__).resolve().parents[1]
KERNELS = ("gaussian", "boxcar", "epanechnikov")
BIG = 10 ** 12  # a chunk_size that keeps everything in one chunk


def sample(n: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Sorted x (n,) on [0, 5) and noisy targets y (n,)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.sort(torch.rand(n, generator=generator) * 5).values
    return x, target(x) + 0.5 * torch.randn(n, generator=generator)


# ---------------------------------------------------------------------------------------------
# Pooling


@pytest.mark.parametrize("kernel", KERNELS)
def test_tiny_bandwidth_at_a_training_point_returns_its_value(kernel):
    x = torch.tensor([0.0, 1.0, 1.01, 2.5, 4.0])
    y = torch.tensor([3.0, -1.0, 5.0, 7.0, 2.0])
    prediction, _ = pool(x, x, y, kernel_scores(kernel, 1 / 1e-3), BIG)
    torch.testing.assert_close(prediction, y)


def test_average_pooling_returns_the_mean():
    x, y = sample(37)
    queries = torch.linspace(-3, 9, 11)
    prediction, weights = pool(queries, x, y, kernel_scores("constant", 1.0), BIG, need_weights=True)
    torch.testing.assert_close(prediction, y.mean().expand(11))
    torch.testing.assert_close(weights, torch.full((11, 37), 1 / 37))
    # Leaving a point out averages the others.
    left_out, _ = pool(x[:3], x, y, kernel_scores("constant", 1.0), BIG, exclude=torch.arange(3))
    torch.testing.assert_close(left_out, torch.stack([(y.sum() - y[i]) / 36 for i in range(3)]))


@pytest.mark.parametrize("kernel", KERNELS)
def test_weights_match_the_kernel_formula(kernel):
    """softmax(log K) is K(u_i) / Σ_j K(u_j), with the kernels written out as in the textbooks."""
    x, y = sample(23)
    queries = torch.tensor([0.3, 1.7, 2.2, 4.9])
    bandwidth = 0.8
    u = (queries[:, None] - x[None, :]) / bandwidth  # (Q, K)
    k = {"gaussian": torch.exp(-u ** 2 / 2), "boxcar": (u.abs() <= 1).float(),
         "epanechnikov": 0.75 * (1 - u ** 2).clamp(min=0)}[kernel]
    expected = k / k.sum(-1, keepdim=True)
    prediction, weights = pool(queries, x, y, kernel_scores(kernel, 1 / bandwidth), BIG, need_weights=True)
    torch.testing.assert_close(weights, expected)
    torch.testing.assert_close(prediction, expected @ y)


def test_gaussian_with_unit_bandwidth_is_d2l_nonparametric_pooling():
    x, y = sample(50)
    x_test = torch.arange(0, 5, 0.1)
    # d2l §11.2.3, verbatim up to names.
    x_repeat = x_test.repeat_interleave(50).reshape((-1, 50))
    attention_weights = torch.nn.functional.softmax(-(x_repeat - x) ** 2 / 2, dim=1)
    prediction, weights = pool(x_test, x, y, kernel_scores("gaussian", 1.0), BIG, need_weights=True)
    torch.testing.assert_close(weights, attention_weights)
    torch.testing.assert_close(prediction, attention_weights @ y)


@pytest.mark.parametrize("kernel", (*KERNELS, "constant"))
@pytest.mark.parametrize("bandwidth", [1e-4, 0.05, 0.5, 50.0])
def test_weight_rows_sum_to_one_and_never_nan(kernel, bandwidth):
    x, y = sample(30)
    queries = torch.cat([torch.linspace(-2, 7, 13), x[:5]])  # outside, between and on the data
    exclude = torch.cat([torch.zeros(13, dtype=torch.long), torch.arange(5)])
    for mask in (None, exclude):
        prediction, weights = pool(queries, x, y, kernel_scores(kernel, 1 / bandwidth), 7 * 30, mask,
                                   need_weights=True)
        assert prediction.isfinite().all() and weights.isfinite().all()
        assert (weights >= 0).all()
        torch.testing.assert_close(weights.sum(-1), torch.ones(18))
        if mask is not None:
            assert (weights[torch.arange(18), mask] == 0).all()


@pytest.mark.parametrize("kernel", ["boxcar", "epanechnikov"])
def test_compact_kernel_with_an_empty_window_takes_the_nearest_visible_point(kernel):
    x = torch.tensor([0.0, 1.0, 2.0, 3.0])
    y = torch.tensor([10.0, 20.0, 30.0, 40.0])
    queries = torch.tensor([-5.0, 1.4, 1.6, 9.0, 2.0])
    scores = kernel_scores(kernel, 1 / 0.1)
    prediction, _ = pool(queries, x, y, scores, BIG)
    torch.testing.assert_close(prediction, torch.tensor([10.0, 20.0, 30.0, 40.0, 30.0]))
    # Leave-one-out: the point itself is never the nearest one.
    left_out, _ = pool(x, x, y, scores, BIG, exclude=torch.arange(4))
    torch.testing.assert_close(left_out, torch.tensor([20.0, 10.0, 20.0, 30.0]))


@pytest.mark.parametrize("kernel", (*KERNELS, "constant"))
def test_chunked_equals_unchunked(kernel):
    x, y = sample(41)
    queries = torch.linspace(-0.5, 5.5, 29)
    exclude = torch.randint(0, 41, (29,), generator=torch.Generator().manual_seed(1))
    scores = kernel_scores(kernel, 1 / 0.3)
    expected, expected_weights = pool(queries, x, y, scores, BIG, exclude, need_weights=True)
    for chunk_size in (1, 41, 3 * 41 + 5, 28 * 41):  # one row, one row, 3 rows, 28 rows + a remainder
        prediction, weights = pool(queries, x, y, scores, chunk_size, exclude, need_weights=True)
        torch.testing.assert_close(prediction, expected)
        torch.testing.assert_close(weights, expected_weights)


def test_a_million_training_points_in_chunks():
    x, y = sample(10 ** 6, seed=3)
    queries = torch.tensor([0.5, 1.5, 2.5, 3.5, 4.5])
    start = time.perf_counter()
    for kernel in ("gaussian", "epanechnikov"):
        prediction, weights = pool(queries, x, y, kernel_scores(kernel, 1 / 0.02), 2 * 10 ** 6)
        assert weights is None
        # ~8000 points per window average the noise (σ 0.5) down to ~0.01; the bias is ~h².
        torch.testing.assert_close(prediction, target(queries), atol=0.03, rtol=0)
    assert time.perf_counter() - start < 10


# ---------------------------------------------------------------------------------------------
# Leave-one-out cross-validation


def test_loo_mse_equals_refitting_without_each_point():
    x, y = sample(12)
    scores = kernel_scores("epanechnikov", 1 / 0.7)
    refits = []
    for i in range(12):
        keep = torch.arange(12) != i
        refits.append(pool(x[i:i + 1], x[keep], y[keep], scores, BIG)[0])
    expected = float(((torch.cat(refits) - y) ** 2).mean())
    assert math.isclose(loo_mse(x, y, scores, max_points=12, chunk_size=BIG), expected, rel_tol=1e-6)


def test_loo_mse_caps_the_held_out_points():
    x, y = sample(100)
    scores = kernel_scores("gaussian", 1 / 0.3)
    held_out = torch.tensor([0, 33, 66, 99])  # evenly spaced over the sorted inputs
    prediction, _ = pool(x[held_out], x, y, scores, BIG, exclude=held_out)
    expected = float(((prediction - y[held_out]) ** 2).mean())
    assert math.isclose(loo_mse(x, y, scores, max_points=4, chunk_size=BIG), expected, rel_tol=1e-6)


@pytest.mark.parametrize("kernel", KERNELS)
def test_loo_cv_picks_a_finite_bandwidth_that_beats_a_bad_one(kernel):
    params = NWParams(bandwidth_steps=25)
    data = make_data(params, seed=0)
    bandwidth, loo, curve = choose_bandwidth(data, kernel, params)
    assert params.bandwidth_min <= bandwidth <= params.bandwidth_max and math.isfinite(loo)
    assert curve.shape == (25,) and curve.isfinite().all() and loo == float(curve.min())
    for bad in (0.01, 5.0):  # interpolating the noise, and nearly average pooling
        assert loo < loo_mse(data.x_train, data.y_train, kernel_scores(kernel, 1 / bad), 1000, BIG)


def test_a_given_bandwidth_is_used_as_is():
    params = NWParams(bandwidth=0.4)
    bandwidth, loo, curve = choose_bandwidth(make_data(params, seed=0), "boxcar", params)
    assert bandwidth == 0.4 and curve is None and math.isfinite(loo)


# ---------------------------------------------------------------------------------------------
# The parametric model


def test_parametric_model_trains_with_lightning_and_its_loss_decreases():
    params = NWParams(n_train=30, epochs=6, accelerator="cpu")
    data = make_data(params, seed=0)
    model = train_parametric(data, params, seed=0)
    assert len(model.losses) == 6
    assert model.losses[-1] < model.losses[0]
    assert all(math.isfinite(loss) for loss in model.losses)
    # d2l's formulation: each training point against the other n - 1, the diagonal dropped.
    w = model.w.detach()
    others = data.x_train.repeat(30, 1)[~torch.eye(30, dtype=torch.bool)].reshape(30, 29)  # (K, K - 1)
    values = data.y_train.repeat(30, 1)[~torch.eye(30, dtype=torch.bool)].reshape(30, 29)  # (K, K - 1)
    weights = torch.softmax(-((data.x_train[:, None] - others) * w) ** 2 / 2, dim=1)  # (K, K - 1)
    with torch.no_grad():
        prediction = model(data.x_train, exclude=torch.arange(30))
    torch.testing.assert_close(prediction, (weights * values).sum(1))
    # The first loss is d2l's summed squared loss at d2l's initialisation, w ~ U[0, 1).
    torch.manual_seed(0)
    w0 = torch.rand(1)
    first, _ = pool(data.x_train, data.x_train, data.y_train, kernel_scores("gaussian", w0), BIG,
                    exclude=torch.arange(30))
    assert math.isclose(model.losses[0], float(((first - data.y_train) ** 2).sum()), rel_tol=1e-5)
    assert not torch.equal(w, w0)


def test_parametric_gradient_reaches_w_only():
    x, y = sample(20)
    w = torch.tensor([2.0], requires_grad=True)
    prediction, _ = pool(x, x, y, kernel_scores("gaussian", w), 3 * 20, exclude=torch.arange(20))
    ((prediction - y) ** 2).sum().backward()
    assert w.grad is not None and w.grad.isfinite().all() and w.grad.abs().item() > 0


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


def test_log_kernel_refuses_an_unknown_kernel():
    with pytest.raises(ValueError, match="'banana'"):
        log_kernel("banana", torch.zeros(3))


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
