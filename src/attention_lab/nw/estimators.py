"""The fitted estimators: kernels with a bandwidth chosen by leave-one-out cross-validation, and
d2l's parametric Gaussian whose width `w` (= 1/h) is learned by SGD."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytorch_lightning as pl
import torch
from torch import Tensor, nn
from torch.utils.data import DataLoader, TensorDataset

from attention_lab.nw.data import Data, NWParams
from attention_lab.nw.kernels import Kernel, Scores, kernel_scores, mse, pool

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

    At most `max_points` evenly spaced points (P,) are held out: x_train is sorted, so they cover
    its range, and the cost is P × K rather than K².
    """
    count = x_train.shape[0]
    held_out = torch.linspace(0, count - 1, min(max_points, count), dtype=torch.float64).round().long()  # (P,)
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

    A training batch is (queries (Q,), targets (Q,), positions (Q,)): the queries are training
    points (all of them, Q = K), and each attends to the other K - 1 (its own position is excluded,
    as d2l does by dropping the diagonal of the K × K table). The loss is d2l's summed squared error.
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
    positions = torch.arange(params.n_train)  # (K,)
    loader = DataLoader(TensorDataset(data.x_train, data.y_train, positions), batch_size=params.n_train)
    trainer = pl.Trainer(accelerator=params.accelerator, devices=1, max_epochs=params.epochs, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, log_every_n_steps=1)
    trainer.fit(model, loader)
    return model
