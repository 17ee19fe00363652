"""The stage's parameters and d2l's synthetic data set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

from attention_lab.config import param, seed_param
from attention_lab.nw.kernels import Kernel


@dataclass(frozen=True)
class NWParams:
    n_train: int = param(50, ge=2)  # leave-one-out needs another point to predict from
    x_max: float = param(5.0, gt=0)  # x_train ~ U[0, x_max), x_test = arange(0, x_max, test_step)
    test_step: float = param(0.1, gt=0)
    noise_std: float = param(0.5, ge=0)  # of the N(0, σ) noise on training and test targets
    seed: int = seed_param()
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
        if self.x_max / self.test_step > 1e7:  # the test inputs, and a (Q, K) weight table per estimator
            raise ValueError(f"test_step: at most 10 million test points, got x_max / test_step = "
                             f"{self.x_max / self.test_step:.3g}")
        if self.bandwidth_min >= self.bandwidth_max:
            raise ValueError(f"bandwidth_max: must be > bandwidth_min ({self.bandwidth_min}), "
                             f"got {self.bandwidth_max}")


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
