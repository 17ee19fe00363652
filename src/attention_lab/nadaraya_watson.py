"""Attention pooling as Nadaraya-Watson kernel regression (d2l §11.2).

Nadaraya, E. A. (1964). "On Estimating Regression". Theory of Probability & Its Applications 9(1).
Watson, G. S. (1964). "Smooth Regression Analysis". Sankhyā, Series A 26(4).

A prediction is attention pooling over the training set: queries are test inputs, keys the
training inputs, values the training targets,

    ŷ(q) = Σ_i α(q, k_i) v_i,   α(q, ·) = softmax_i(log K((q - k_i) / h)),

which is exactly K(u_i) / Σ_j K(u_j), computed in log space so that a tiny bandwidth cannot
underflow every weight to 0/0. Estimators: average pooling (the constant kernel), Gaussian,
boxcar and Epanechnikov kernels with a given bandwidth or one chosen by leave-one-out
cross-validation, and d2l's parametric Gaussian whose width `w` (= 1/h) is learned by SGD.

Shapes: Q queries, K keys (= training points), Qc the queries of one chunk, S held-out points
of leave-one-out cross-validation, G bandwidths in its grid.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pytorch_lightning as pl
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from torch import Tensor, nn
from torch.utils.data import DataLoader, TensorDataset

from attention_lab import plotting
from attention_lab.atomic import atomic_path, write_json
from attention_lab.attention import make_attention
from attention_lab.config import param

Kernel = Literal["gaussian", "boxcar", "epanechnikov"]
Scores = Callable[[Tensor], Tensor]  # differences q - k (Qc, K) -> logits (Qc, K), -inf = no weight


@dataclass(frozen=True)
class NWParams:
    n_train: int = param(50, ge=2)  # leave-one-out needs another point to predict from
    x_max: float = param(5.0, gt=0)  # x_train ~ U[0, x_max), x_test = arange(0, x_max, test_step)
    test_step: float = param(0.1, gt=0)
    noise_std: float = param(0.5, ge=0)  # of the N(0, σ) noise on training and test targets
    seed: int = 0
    kernels: tuple[Kernel, ...] = ("gaussian", "boxcar", "epanechnikov")
    bandwidth: float | Literal["auto"] = param("auto", gt=0)  # auto: leave-one-out CV per kernel
    bandwidth_min: float = param(0.01, gt=0)  # the log-spaced grid searched by `auto`
    bandwidth_max: float = param(10.0, gt=0)
    bandwidth_steps: int = param(41, ge=2)
    loo_max_points: int = param(1000, ge=1)  # held-out points of leave-one-out CV (each vs all K)
    lr: float = param(0.5, gt=0)  # parametric model: SGD on the summed squared loss, full batch
    epochs: int = param(5, ge=1)
    chunk_size: int = param(1_048_576, ge=1)  # query × training-point scores held at once
    repeats: int = param(10, ge=2)  # seeds seed, seed+1, ... for the mean ± std summary
    accelerator: Literal["auto", "cpu", "gpu", "cuda", "mps"] = "auto"

    def validate(self) -> None:
        if len(set(self.kernels)) != len(self.kernels):
            raise ValueError(f"kernels: listed twice in {list(self.kernels)}")
        if self.bandwidth_min >= self.bandwidth_max:
            raise ValueError(f"bandwidth_max: must be > bandwidth_min ({self.bandwidth_min}), "
                             f"got {self.bandwidth_max}")


# ---------------------------------------------------------------------------------------------
# Data


def target(x: Tensor) -> Tensor:
    """d2l's regression function f(x) = 2 sin(x) + x^0.8, elementwise."""
    return 2 * torch.sin(x) + x ** 0.8


@dataclass(frozen=True)
class Data:
    """Sorted training inputs x_train (K,) with noisy targets y_train (K,); test inputs x_test (Q,)
    with the true function y_truth (Q,) and noisy targets y_noisy (Q,)."""

    x_train: Tensor
    y_train: Tensor
    x_test: Tensor
    y_truth: Tensor
    y_noisy: Tensor


def make_data(params: NWParams, seed: int) -> Data:
    """d2l's data set, drawn from a generator of its own so that `seed` alone fixes it."""
    generator = torch.Generator().manual_seed(seed)
    x_train = torch.sort(torch.rand(params.n_train, generator=generator) * params.x_max).values
    y_train = target(x_train) + torch.normal(0.0, params.noise_std, x_train.shape, generator=generator)
    x_test = torch.arange(0, params.x_max, params.test_step)
    y_truth = target(x_test)
    y_noisy = y_truth + torch.normal(0.0, params.noise_std, x_test.shape, generator=generator)
    return Data(x_train, y_train, x_test, y_truth, y_noisy)


# ---------------------------------------------------------------------------------------------
# Kernels and chunked attention pooling


def log_kernel(kernel: Kernel | Literal["constant"], u: Tensor) -> Tensor:
    """log K(u) elementwise for u of any shape; -inf outside a compact kernel's support.

    Normalising constants are dropped: the softmax cancels them. Epanechnikov is the true
    (1 - u²)₊; d2l's "epanechikov" max(0, 1 - |u|) is the triangular kernel.
    """
    if kernel == "gaussian":
        return -u ** 2 / 2
    if kernel == "boxcar":
        return torch.log((u.abs() <= 1).to(u.dtype))
    if kernel == "epanechnikov":
        return torch.log((1 - u ** 2).clamp(min=0))
    if kernel == "constant":
        return torch.zeros_like(u)
    raise ValueError(f"unknown kernel {kernel!r}")


def kernel_scores(kernel: Kernel | Literal["constant"], scale: float | Tensor) -> Scores:
    """Scores log K((q - k) · scale): scale is 1 / bandwidth, or the parametric model's w."""
    return lambda diffs: log_kernel(kernel, diffs * scale)


def pool(queries: Tensor, keys: Tensor, values: Tensor, scores: Scores, chunk_size: int,
         exclude: Tensor | None = None, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
    """Attention pooling ŷ(q) = Σ_i softmax_i(scores(q - k_i)) v_i over queries (Q,), keys (K,) and
    values (K,), returning predictions (Q,) and, with `need_weights`, the weights (Q, K).

    At most `chunk_size` scores, but always at least one whole row of K, exist at once, so Q × K is
    never materialised unless the weights are asked for (under autograd the saved activations
    still add up to Q × K: chunking bounds inference, not training). `exclude` (Q,) names for every query the
    key it must not see: leave-one-out, where the query is that training point. A row with no key
    inside a compact kernel's window takes the value of the nearest key it may see (the h → 0
    limit of every kernel) instead of 0/0, so every weight row sums to 1 and nothing is NaN.
    """
    rows = max(1, chunk_size // keys.shape[0])
    predictions, weights = [], []
    for start in range(0, queries.shape[0], rows):
        chunk = slice(start, start + rows)
        diffs = queries[chunk, None] - keys[None, :]  # (Qc, K)
        hidden = torch.zeros_like(diffs, dtype=torch.bool)  # (Qc, K)
        if exclude is not None:
            hidden.scatter_(1, exclude[chunk, None], True)
        logits = scores(diffs).masked_fill(hidden, float("-inf"))  # (Qc, K)
        empty = torch.isneginf(logits).all(dim=-1, keepdim=True)  # (Qc, 1)
        nearest = diffs.abs().masked_fill(hidden, float("inf")).argmin(dim=-1, keepdim=True)  # (Qc, 1)
        fallback = torch.zeros_like(logits).scatter_(1, nearest, 1.0)  # (Qc, K)
        # Empty rows get finite logits so that neither softmax nor its gradient sees NaN.
        alpha = torch.where(empty, fallback, torch.softmax(logits.masked_fill(empty, 0.0), dim=-1))
        predictions.append(alpha @ values)  # (Qc,)
        if need_weights:
            weights.append(alpha)
    return torch.cat(predictions), torch.cat(weights) if need_weights else None


def mse(prediction: Tensor, target_values: Tensor) -> float:
    """Mean squared error of predictions (N,) against targets (N,)."""
    return float(((prediction - target_values) ** 2).mean())


# ---------------------------------------------------------------------------------------------
# Nonparametric regression: bandwidth by leave-one-out cross-validation


def bandwidth_grid(params: NWParams) -> Tensor:
    """The log-spaced candidate bandwidths (G,) of `bandwidth: auto`."""
    return torch.logspace(math.log10(params.bandwidth_min), math.log10(params.bandwidth_max),
                          params.bandwidth_steps, dtype=torch.float64)


@torch.no_grad()
def loo_mse(x_train: Tensor, y_train: Tensor, scores: Scores, max_points: int, chunk_size: int) -> float:
    """Leave-one-out MSE of `scores` on training points x_train (K,), y_train (K,), in closed form:
    each held-out point is a query that sees every training point but itself.

    At most `max_points` evenly spaced points (S,) are held out: x_train is sorted, so they cover
    its range, and the cost is S × K rather than K².
    """
    count = x_train.shape[0]
    held_out = torch.linspace(0, count - 1, min(max_points, count), dtype=torch.float64).round().long()  # (S,)
    prediction, _ = pool(x_train[held_out], x_train, y_train, scores, chunk_size, exclude=held_out)
    return mse(prediction, y_train[held_out])


def choose_bandwidth(data: Data, kernel: Kernel, params: NWParams) -> tuple[float, float, Tensor | None]:
    """The bandwidth of `kernel` (given, or the leave-one-out best of the grid), its LOO MSE, and
    the LOO MSE curve (G,) over the grid when one was searched."""
    def loo(bandwidth: float) -> float:
        return loo_mse(data.x_train, data.y_train, kernel_scores(kernel, 1 / bandwidth),
                       params.loo_max_points, params.chunk_size)

    if params.bandwidth != "auto":
        return params.bandwidth, loo(params.bandwidth), None
    grid = bandwidth_grid(params)
    curve = torch.tensor([loo(float(h)) for h in grid], dtype=torch.float64)  # (G,)
    best = int(curve.argmin())
    return float(grid[best]), float(curve[best]), curve


# ---------------------------------------------------------------------------------------------
# Parametric regression: d2l's NWKernelRegression


class NWKernelRegression(pl.LightningModule):
    """Gaussian attention pooling with a learnable width w: α(q, k_i) = softmax_i(-((q - k_i) w)² / 2)
    over training points x_train (K,) with targets y_train (K,) (d2l §11.2.4, `NWKernelRegression`).

    A training batch is (queries (B,), targets (B,), positions (B,)): the queries are training
    points, and each attends to the other K - 1 (its own position is excluded, as d2l does by
    dropping the diagonal of the K × K table). The loss is d2l's summed squared error.
    """

    def __init__(self, x_train: Tensor, y_train: Tensor, lr: float, chunk_size: int) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.rand(1))  # d2l's initialisation, drawn after seed_everything
        self.register_buffer("x_train", x_train)
        self.register_buffer("y_train", y_train)
        self.lr = lr
        self.chunk_size = chunk_size
        self.losses: list[float] = []

    def forward(self, queries: Tensor, exclude: Tensor | None = None) -> Tensor:
        """Predictions (Q,) for queries (Q,); `exclude` (Q,) as in `pool`."""
        return pool(queries, self.x_train, self.y_train, kernel_scores("gaussian", self.w),
                    self.chunk_size, exclude)[0]

    def training_step(self, batch: Sequence[Tensor], batch_idx: int) -> Tensor:
        queries, targets, positions = batch
        loss = ((self(queries, exclude=positions) - targets) ** 2).sum()
        self.log("train/loss", loss, batch_size=queries.shape[0])
        self.losses.append(float(loss.detach()))
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=self.lr)


def train_parametric(data: Data, params: NWParams, seed: int) -> NWKernelRegression:
    """Fit `NWKernelRegression` as d2l does: full batch, `epochs` SGD steps; its `losses` keeps the
    loss of every step."""
    pl.seed_everything(seed, verbose=False)
    model = NWKernelRegression(data.x_train, data.y_train, params.lr, params.chunk_size)
    positions = torch.arange(params.n_train)
    loader = DataLoader(TensorDataset(data.x_train, data.y_train, positions), batch_size=params.n_train)
    trainer = pl.Trainer(accelerator=params.accelerator, devices=1, max_epochs=params.epochs, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, log_every_n_steps=1)
    trainer.fit(model, loader)
    return model


# ---------------------------------------------------------------------------------------------
# One seed, and the experiment over `repeats` seeds


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
def evaluate(data: Data, scores: Scores, info: dict[str, float], chunk_size: int,
             need_weights: bool) -> Estimate:
    """Predictions (Q,) on the test inputs, their MSEs, and `info` (the fitted bandwidth or w)."""
    prediction, weights = pool(data.x_test, data.x_train, data.y_train, scores, chunk_size,
                               need_weights=need_weights)
    metrics = {"mse_truth": mse(prediction, data.y_truth), "mse_noisy": mse(prediction, data.y_noisy)}
    return Estimate(prediction, weights, metrics | info)


def run_seed(params: NWParams, seed: int, need_weights: bool) -> SeedResult:
    """Every estimator fitted on the data of `seed` and evaluated on its test inputs."""
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
    estimates = {name: evaluate(data, scores, info, params.chunk_size, need_weights)
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


def summarize(results: Sequence[SeedResult]) -> dict[str, dict[str, dict[str, float]]]:
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
    return Experiment(params, main, summarize([main, *others]))


def save_models(experiment: Experiment, folder: str | Path) -> None:
    """`parametric.pt` (the state_dict: w and the training data it pools over; loads with
    `weights_only=True`) and `estimators.json` (every kernel's bandwidth and the learned w)."""
    folder = Path(folder)
    with atomic_path(folder / "parametric.pt") as tmp:
        torch.save(experiment.main.model.state_dict(), tmp)
    metrics = experiment.metrics()
    bandwidths = {kernel: metrics[kernel]["bandwidth"] for kernel in experiment.params.kernels}
    write_json(folder / "estimators.json", {"bandwidths": bandwidths, "w": metrics["parametric"]["w"]})


# ---------------------------------------------------------------------------------------------
# Figures


DEMO_VALID_LENS = (2, 6)


@torch.no_grad()
def scoring_demo() -> dict[str, Tensor]:
    """d2l §11.3's masked toy example through additive and scaled dot-product attention: weights
    (2, 10) for two sequences of 10 identical keys with valid lengths 2 and 6, so each row is
    uniform over its valid keys and exactly 0 on the padding."""
    generator = torch.Generator().manual_seed(0)
    keys = torch.ones((2, 10, 2))
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)  # (2, 10, 4)
    valid_lens = torch.tensor(DEMO_VALID_LENS)
    weights = {}
    for kind, query_size in (("additive", 20), ("scaled_dot", 2)):
        attention = make_attention(kind, query_size, 2, hidden_size=8, dropout=0.1).eval()
        attention(torch.normal(0, 1, (2, 1, query_size), generator=generator), keys, values, valid_lens)
        weights[kind] = attention.attention_weights.squeeze(1)  # (2, 10)
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
