"""Tests for the kernels and chunked attention pooling (attention_lab.nw.kernels)."""

from __future__ import annotations

import pytest
import torch
from nw_factory import BIG, KERNELS, sample

from attention_lab.nw.data import target
from attention_lab.nw.kernels import kernel_scores, log_kernel, pool

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
    for kernel in ("gaussian", "epanechnikov"):
        prediction, weights = pool(queries, x, y, kernel_scores(kernel, 1 / 0.02), 2 * 10 ** 6)
        assert weights is None
        # ~8000 points per window average the noise (σ 0.5) down to ~0.01; the bias is ~h².
        torch.testing.assert_close(prediction, target(queries), atol=0.03, rtol=0)


def test_log_kernel_refuses_an_unknown_kernel():
    with pytest.raises(ValueError, match="'banana'"):
        log_kernel("banana", torch.zeros(3))
