"""Figures built with matplotlib's object API: arrays and labels in, a `Figure` out.

No pyplot and no global rcParams, so figures are safe in workers and tests; callers save them
(`save_figure`, atomic) or log them to MLflow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from attention_lab.atomic import atomic_path


def save_figure(figure: Figure, path: str | Path, dpi: int = 120) -> None:
    path = Path(path)
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format=path.suffix.lstrip(".") or "png", dpi=dpi, bbox_inches="tight")


def _draw_heatmap(ax: Axes, weights: np.ndarray, xlabels: Sequence[str] | None,
                  ylabels: Sequence[str] | None, title: str, xlabel: str, ylabel: str) -> object:
    image = ax.imshow(weights, cmap="Reds", vmin=0.0, vmax=max(float(np.max(weights, initial=0.0)), 1e-12),
                      aspect="auto", interpolation="nearest")
    if xlabels is not None:
        ax.set_xticks(range(len(xlabels)), labels=list(xlabels), rotation=60, ha="right", fontsize=8)
    if ylabels is not None:
        ax.set_yticks(range(len(ylabels)), labels=list(ylabels), fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return image


def heatmap(weights: np.ndarray, xlabels: Sequence[str] | None = None, ylabels: Sequence[str] | None = None,
            title: str = "", xlabel: str = "Keys", ylabel: str = "Queries") -> Figure:
    """Attention weights (Q, K) as an image with a colour bar; tick labels when given."""
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2:
        raise ValueError(f"heatmap needs a 2-D array, got shape {weights.shape}")
    for name, labels, size in (("xlabels", xlabels, weights.shape[1]), ("ylabels", ylabels, weights.shape[0])):
        if labels is not None and len(labels) != size:
            raise ValueError(f"{name}: {len(labels)} labels for {size} columns/rows")
    width = 1.5 + 0.35 * (len(xlabels) if xlabels is not None else 12)
    height = 1.2 + 0.3 * (len(ylabels) if ylabels is not None else 12)
    figure = Figure(figsize=(min(max(width, 3.5), 14), min(max(height, 2.5), 14)))
    ax = figure.add_subplot()
    image = _draw_heatmap(ax, weights, xlabels, ylabels, title, xlabel, ylabel)
    figure.colorbar(image, ax=ax, shrink=0.8)
    return figure


def heatmap_grid(panels: Sequence[Mapping], ncols: int = 2, xlabel: str = "Keys",
                 ylabel: str = "Queries", title: str = "") -> Figure:
    """Several heatmaps in one figure; each panel maps `weights`, `xlabels`, `ylabels`, `title`."""
    nrows = max(1, -(-len(panels) // ncols))
    figure = Figure(figsize=(5.0 * ncols, 4.0 * nrows), layout="constrained")
    if title:
        figure.suptitle(title)
    axes = figure.subplots(nrows, ncols, squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        image = _draw_heatmap(ax, np.asarray(panel["weights"], dtype=float), panel.get("xlabels"),
                              panel.get("ylabels"), panel.get("title", ""), xlabel, ylabel)
        figure.colorbar(image, ax=ax, shrink=0.8)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    return figure


def lines(x: np.ndarray | Sequence[float], series: Mapping[str, Sequence[float]], title: str = "",
          xlabel: str = "", ylabel: str = "", logy: bool = False) -> Figure:
    """One line per named series against a shared x."""
    figure = Figure(figsize=(6, 4))
    ax = figure.add_subplot()
    for name, values in series.items():
        ax.plot(x, values, label=name)
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if len(series) > 1:
        ax.legend()
    ax.grid(alpha=0.3)
    return figure


def regression_fit(x: np.ndarray | Sequence[float], truth: Sequence[float], prediction: Sequence[float],
                   x_train: np.ndarray | Sequence[float], y_train: Sequence[float], title: str = "",
                   xlabel: str = "x", ylabel: str = "y") -> Figure:
    """A regression's predictions and the true function over test inputs x (Q,), with the training
    samples x_train, y_train (K,) as dots (d2l §11.2's fit plots)."""
    figure = lines(x, {"Truth": truth, "Prediction": prediction}, title=title, xlabel=xlabel, ylabel=ylabel)
    ax = figure.axes[0]
    ax.plot(x_train, y_train, "o", alpha=0.5, label="Samples")
    ax.legend()
    return figure


def curves(panels: Sequence[tuple[str, Mapping[str, tuple[Sequence[float], Sequence[float]]]]],
           xlabel: str = "") -> Figure:
    """One axis per panel, side by side: a panel is its y label and its lines, label -> (x, y),
    each line with an x of its own."""
    figure = Figure(figsize=(6 * len(panels), 4))
    for ax, (ylabel, series) in zip(figure.subplots(1, len(panels), squeeze=False)[0], panels):
        for name, (x, y) in series.items():
            ax.plot(x, y, label=name, marker="o" if len(x) < 40 else None)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend()
        ax.grid(alpha=0.3)
    figure.tight_layout()
    return figure
