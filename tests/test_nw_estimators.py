"""Tests for leave-one-out bandwidths and the learned Gaussian (attention_lab.nw.estimators)."""

from __future__ import annotations

import math

import pytest
import torch
from nw_factory import BIG, KERNELS, sample

from attention_lab.nw.data import NWParams, make_data
from attention_lab.nw.estimators import choose_bandwidth, loo_mse, train_parametric
from attention_lab.nw.kernels import kernel_scores, pool

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
