"""The bench's time budget: a total of seconds shared among its phases, and measurements repeated within a
phase until they agree or its share is spent.

A phase's share is set when it starts: the seconds left of the total, split among the phases still to run by
their weights (`PHASE_WEIGHTS`), so that a phase that ends early leaves its time to those after it and one that
overran takes it from them. Within a phase, each kind of measurement (a series, named by its label) is repeated,
up to the number asked for, while
- fewer than STEADY_AFTER values were taken, or they spread by more than STEADY_SPREAD (`spread`), and
- the next one, if it takes as long as the mean of those before, ends inside the phase's share.
A series' first measurement runs whenever the total has time left, so that a phase past its share still gives
one value of each kind; past the total it is skipped. Nothing starts after the total's end: the bench ends at
most one measurement past it. A measurement that can stop itself (a training run) reads `Phase.deadline` and
says so with `Phase.cut`.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

# A measurement's value: a rate, or several rates measured together (a mapping) when it may be repeated
# (`spread`); anything when it is taken once (`Phase.once`).
Value = TypeVar("Value")

STEADY_SPREAD = 0.03  # values within 3 % of their median: another repeat would say the same
STEADY_AFTER = 2  # ... once this many agree: a third repeat only where the first two differ
# Seconds of each phase of `bench --reference` on a quiet 2-core AMD EPYC (docs/speed.md: the bench under bf16),
# whose ratios share the budget; each peak 2 s more than its 4, for timings that do not agree at once. The GPU
# recipe, on CUDA, runs about as long as the Transformer on the CPU.
PHASE_WEIGHTS = {"peaks": 6, "seed": 10, "reference": 11, "default": 128, "transformer": 103, "gpu_recipe": 100,
                 "peaks_after": 6, "decoding": 95, "startup": 3}


# `Phase.repeat`'s signature, for code that measures with or without a budget: (measure, most, label) -> values.
Repeat = Callable[[Callable[[], Any], int, str], list]


def every(measure: Callable[[], Value], most: int, label: str = "") -> list[Value]:
    """`most` values of `measure()`: a `Repeat` without a budget or an early stop."""
    return [measure() for _ in range(most)]


def spread(values: list) -> float:
    """(max - min) / median of `values` (rates); for measurements of several rates, the largest of theirs."""
    if isinstance(values[0], Mapping):
        return max(spread([v[key] for v in values]) for key in values[0])
    middle = statistics.median(values)
    return (max(values) - min(values)) / middle if middle > 0 else math.inf


class Phase:
    """One phase's share of the budget (`Budget.phase`), and what its measurements got."""

    def __init__(self, name: str, share_s: float, end_s: float, clock: Callable[[], float]) -> None:
        self.name, self.share_s, self.clock = name, share_s, clock
        self.start = clock()
        self.deadline = self.start + share_s  # at or before the total's end
        self.end_s = end_s  # the total's end, on `clock`
        self.seconds: float | None = None  # its length, once it ended
        self.repeats: dict[str, int] = {}  # label -> measurements taken
        self.cut_short: list[str] = []  # labels the budget stopped before their number or their agreement

    def repeat(self, measure: Callable[[], Value], most: int, label: str) -> list[Value]:
        """Up to `most` values of `measure()` (as the module's docstring says), in order; none if skipped."""
        values: list = []
        seconds = 0.0
        while len(values) < most:
            if len(values) >= STEADY_AFTER and spread(values) <= STEADY_SPREAD:
                break
            now = self.clock()
            if now >= self.end_s or values and now + seconds / len(values) > self.deadline:
                self.cut(label)
                break
            values.append(measure())
            seconds += self.clock() - now
        self.repeats[label] = len(values)
        return values

    def once(self, measure: Callable[[], Value], label: str) -> Value | None:
        """`measure()`, or None where the total has no time left."""
        return next(iter(self.repeat(measure, 1, label)), None)

    def skip(self, label: str) -> None:
        """No measurement `label`: what it needed was skipped for want of time."""
        self.repeats[label] = 0
        self.cut(label)

    def cut(self, label: str) -> None:
        if label not in self.cut_short:
            self.cut_short.append(label)

    def record(self) -> dict:
        share = round(self.share_s, 1) if math.isfinite(self.share_s) else None
        return {"share_s": share, "repeats": self.repeats, **({"cut_short": self.cut_short} if self.cut_short else {})}


class Budget:
    """`total_s` seconds (None: no limit) for the phases named in `weights`, run in any order, each once."""

    def __init__(self, total_s: float | None, weights: Mapping[str, float],
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.total_s, self.weights, self.clock = total_s, dict(weights), clock
        self.start = clock()
        self.end_s = self.start + total_s if total_s is not None else math.inf
        self.phases: dict[str, Phase] = {}  # those that ended

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[Phase]:
        waiting = sum(w for n, w in self.weights.items() if n not in self.phases)
        left = max(0.0, self.end_s - self.clock())
        current = Phase(name, left * self.weights[name] / waiting if waiting else left, self.end_s, self.clock)
        try:
            yield current
        finally:
            current.seconds = self.clock() - current.start
            self.phases[name] = current

    def report(self) -> dict:
        """The budget, and each phase's share, measurements and what the budget cut short."""
        return {"budget_s": self.total_s, "phases": {name: phase.record() for name, phase in self.phases.items()}}
