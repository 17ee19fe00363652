"""One seed's fits and scores, the experiment over `repeats` seeds, and its saved models."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from attention_lab.atomic import write_json, write_with
from attention_lab.nw.data import Data, NWParams, make_data
from attention_lab.nw.estimators import (
    NWKernelRegression,
    choose_bandwidth,
    train_parametric,
)
from attention_lab.nw.kernels import Scores, kernel_scores, mse, pool


@dataclass(frozen=True)
class Estimate:
    """One estimator on the test inputs: predictions (Q,), weights (Q, K) when asked for, and its
    metrics (test MSEs, bandwidth or w, LOO or training loss)."""

    prediction: Tensor
    weights: Tensor | None
    metrics: dict[str, float]


@dataclass(frozen=True)
class SeedResult:
    """Everything fitted on one seed's data, by estimator name: average, each kernel, parametric."""

    data: Data
    estimates: dict[str, Estimate]
    loo_curves: dict[str, Tensor]  # kernel -> LOO MSE (G,), when the bandwidth was searched
    model: NWKernelRegression


@torch.no_grad()
def score_estimator(data: Data, scores: Scores, info: dict[str, float], chunk_size: int,
                    need_weights: bool) -> Estimate:
    """Predictions (Q,) on the test inputs, their MSEs, and `info` (the fitted bandwidth or w)."""
    prediction, weights = pool(data.x_test, data.x_train, data.y_train, scores, chunk_size,
                               need_weights=need_weights)
    metrics = {"mse_truth": mse(prediction, data.y_truth), "mse_noisy": mse(prediction, data.y_noisy)}
    return Estimate(prediction, weights, metrics | info)


def run_seed(params: NWParams, seed: int, need_weights: bool) -> SeedResult:
    """Every estimator fitted on the data of `seed` and scored on its test inputs."""
    data = make_data(params, seed)
    estimators: dict[str, tuple[Scores, dict[str, float]]] = {"average": (kernel_scores("constant", 1.0), {})}
    loo_curves = {}
    for kernel in params.kernels:
        bandwidth, loo, curve = choose_bandwidth(data, kernel, params)
        estimators[kernel] = (kernel_scores(kernel, 1 / bandwidth), {"bandwidth": bandwidth, "loo_mse": loo})
        if curve is not None:
            loo_curves[kernel] = curve
    model = train_parametric(data, params, seed)
    w = float(model.w.detach())
    estimators["parametric"] = (kernel_scores("gaussian", w), {"w": w, "train_loss": model.losses[-1]})
    estimates = {name: score_estimator(data, scores, info, params.chunk_size, need_weights)
                 for name, (scores, info) in estimators.items()}
    return SeedResult(data, estimates, loo_curves, model)


@dataclass(frozen=True)
class Experiment:
    """The main seed's results (for figures and models) and the summary over all seeds:
    estimator -> metric -> {mean, std} (sample std) of the test MSEs."""

    params: NWParams
    main: SeedResult
    summary: dict[str, dict[str, dict[str, float]]]

    def metrics(self) -> dict:
        """metrics.json: every estimator's metrics on the main seed, plus `summary`."""
        estimators = {name: estimate.metrics for name, estimate in self.main.estimates.items()}
        return estimators | {"summary": self.summary}


def summarize_seeds(results: Sequence[SeedResult]) -> dict[str, dict[str, dict[str, float]]]:
    """Estimator -> test MSE -> mean and sample std over the seeds of `results`."""
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for name in results[0].estimates:
        summary[name] = {}
        for metric in ("mse_truth", "mse_noisy"):
            values = np.array([result.estimates[name].metrics[metric] for result in results])
            summary[name][metric] = {"mean": float(values.mean()), "std": float(values.std(ddof=1))}
    return summary


def run_experiment(params: NWParams) -> Experiment:
    """The main seed with attention weights kept, then `repeats - 1` further seeds for the summary."""
    main = run_seed(params, params.seed, need_weights=True)
    others = [run_seed(params, params.seed + i, need_weights=False) for i in range(1, params.repeats)]
    return Experiment(params, main, summarize_seeds([main, *others]))


def save_models(experiment: Experiment, folder: str | Path) -> None:
    """`parametric.pt` (the state_dict: w and the training data it pools over; loads with
    `weights_only=True`) and `estimators.json` (every kernel's bandwidth and the learned w)."""
    folder = Path(folder)
    state = experiment.main.model.state_dict()
    write_with(folder / "parametric.pt", lambda handle: torch.save(state, handle))
    metrics = experiment.metrics()
    bandwidths = {kernel: metrics[kernel]["bandwidth"] for kernel in experiment.params.kernels}
    write_json(folder / "estimators.json", {"bandwidths": bandwidths, "w": metrics["parametric"]["w"]})
