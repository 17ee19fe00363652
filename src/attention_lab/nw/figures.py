"""The stage's figures, and d2l §11.3's masked scoring demo that one pair of them shows."""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from torch import Tensor

from attention_lab import plotting
from attention_lab.model.attention import make_attention
from attention_lab.nw.estimators import bandwidth_grid
from attention_lab.nw.experiment import Experiment

DEMO_VALID_LENS = (2, 6)


@torch.no_grad()
def scoring_demo() -> dict[str, Tensor]:
    """d2l §11.3's masked toy example through additive and scaled dot-product attention: weights
    (B, K) = (2, 10) for two sequences of 10 identical keys with valid lengths 2 and 6, so each row
    is uniform over its valid keys and exactly 0 on the padding."""
    generator = torch.Generator().manual_seed(0)
    keys = torch.ones((2, 10, 2))  # (B, K, 2)
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)  # (B, K, 4)
    valid_lens = torch.tensor(DEMO_VALID_LENS)  # (B,)
    weights = {}
    for kind, query_size in (("additive", 20), ("scaled_dot", 2)):
        attention = make_attention(kind, query_size, 2, hidden_size=8, dropout=0.1).eval()
        queries = torch.normal(0, 1, (2, 1, query_size), generator=generator)  # (B, Q, H), Q = 1
        _, pooled = attention.attend(queries, attention.prepare_keys(keys), values, valid_lens)  # ., (B, Q, K)
        weights[kind] = pooled.squeeze(1)  # (B, K)
    return weights


TITLES = {"average": "Average pooling", "gaussian": "Gaussian kernel", "boxcar": "Boxcar kernel",
          "epanechnikov": "Epanechnikov kernel", "parametric": "Parametric Gaussian"}


def figures(experiment: Experiment) -> dict[str, Figure]:
    """Every figure of the stage by file stem: per estimator its fit and its attention heatmap, the
    parametric model's loss curve, the LOO-CV curves and the masked scoring-function demo."""
    main, data = experiment.main, experiment.main.data
    result: dict[str, Figure] = {}
    for name, estimate in main.estimates.items():
        detail = ", ".join(f"{key} = {estimate.metrics[key]:.3g}" for key in ("bandwidth", "w")
                           if key in estimate.metrics)
        title = f"{TITLES[name]}{f' ({detail})' if detail else ''}"
        result[f"fit_{name}"] = plotting.regression_fit(
            data.x_test.numpy(), data.y_truth.numpy(), estimate.prediction.numpy(), data.x_train.numpy(),
            data.y_train.numpy(), title=f"{title}: test MSE {estimate.metrics['mse_truth']:.3f}")
        result[f"attention_{name}"] = plotting.heatmap(
            estimate.weights.numpy(), title=title, xlabel="Sorted training inputs",
            ylabel="Sorted testing inputs")
    losses = main.model.losses
    result["loss_parametric"] = plotting.lines(
        np.arange(1, len(losses) + 1), {"train loss": losses}, title="Parametric Gaussian: training",
        xlabel="epoch", ylabel="summed squared loss")
    result["loss_parametric"].axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    if main.loo_curves:
        result["loo_cv"] = plotting.lines(
            bandwidth_grid(experiment.params).numpy(), {k: c.numpy() for k, c in main.loo_curves.items()},
            title="Leave-one-out cross-validation", xlabel="bandwidth h", ylabel="LOO MSE", logy=True)
        result["loo_cv"].axes[0].set_xscale("log")
    for kind, weights in scoring_demo().items():
        result[f"scoring_{kind}"] = plotting.heatmap(
            weights.numpy(), xlabels=[str(i) for i in range(weights.shape[1])],
            ylabels=[f"valid_len = {length}" for length in DEMO_VALID_LENS], title=f"{kind} attention, masked",
            xlabel="Keys", ylabel="Sequences")
    return result
