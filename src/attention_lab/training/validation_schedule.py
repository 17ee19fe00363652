"""When to validate: `points` validations spread evenly over a run, whatever its length or the
machine's speed, so that the learning curves have as many points on a slow machine as on a fast one.

A run of known length (a number of updates, or of epochs) validates after updates
ceil(k * total / points), k = 1 .. points: the same steps on every machine, the last where training
ends. A run laid over a wall-clock budget cannot know its length: the plan spreads what is left of
the budget evenly over the validations still to come, re-planning after each from the measured
speed of training and cost of validation (both of which it keeps back from the budget):

    next = step + rate * (seconds left - r * validation seconds) / r,   r = validations still to come

and leaves the last validation to the end of the budget, where the schedule stops training. A
budget too short for the validations asked for (a slow or busy machine, or a greedy decoding that
runs long while the model is young) validates less often rather than more: at most half of what
is left goes to validation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass
class ValidationSchedule:
    points: int
    total_steps: int | None = None  # known length; None: planned from the budget as the run goes
    done: int = 0  # validations run so far
    validation_s: float = 0.0  # what the last validation took (budget runs)

    def first(self, step: int = 0) -> int | None:
        """The step after which the first validation (after `step`, where a resumed run starts)
        runs; None for a budget run, which has no speed yet."""
        return self._fixed(step) if self.total_steps is not None else None

    def after_validation(self, step: int, rate: float | None = None, seconds_left: float | None = None) -> int | None:
        """Count the validation that ran at `step` and plan the next one (None: only the one that
        ends the run). `rate` (updates per second of training) and `seconds_left` are for budget runs."""
        self.done += 1
        return self.plan(step, rate, seconds_left)

    def plan(self, step: int, rate: float | None = None, seconds_left: float | None = None) -> int | None:
        if self.total_steps is not None:
            return self._fixed(step)
        remaining = self.points - self.done  # the validation that ends the run included
        if rate is None or seconds_left is None:
            return None
        if self.validation_s > 0:
            remaining = min(remaining, math.floor(seconds_left / (2 * self.validation_s)))
        if remaining <= 1:
            return None
        steps_left = rate * (seconds_left - remaining * self.validation_s)
        return step + max(1, round(steps_left / remaining))

    def reserve_s(self) -> float:
        """Budget seconds to keep for the validations still to come."""
        return max(self.points - self.done, 1) * self.validation_s

    def _fixed(self, step: int) -> int | None:
        """The first of the points' steps after `step` (points > total_steps share steps)."""
        k = step * self.points // self.total_steps + 1
        while k <= self.points and math.ceil(k * self.total_steps / self.points) <= step:
            k += 1
        return math.ceil(k * self.total_steps / self.points) if k <= self.points else None

    def state_dict(self) -> dict:
        return {"done": self.done, "validation_s": self.validation_s}

    def load_state_dict(self, state: dict) -> None:
        self.done, self.validation_s = int(state["done"]), float(state["validation_s"])
