"""When to validate: `points` validations spread evenly over a run, whatever its length or the
machine's speed, so that the learning curves have as many points on a slow machine as on a fast one.

A run of known length (a number of updates, or of epochs) validates after updates
ceil(k * total / points), k = 1 .. points: the same steps on every machine, the last where training
ends. A run laid over a wall-clock budget cannot know its length: the plan spreads what is left of
the budget evenly over the validations still to come, re-planning after each from the measured
speed of training and cost of validation (the validations' time is kept back from the budget):

    next = step + rate * (seconds left - (r - 1) * validation seconds) / r,   r = validations still to come

and the last validation comes where the schedule stops training, when the budget is spent.

The budget counts training and the validations along the way, from the first update: the model's
set-up, the data and Lightning's sanity check come before it, and the validation that scores the
final weights after it (so a run ends one validation past its budget). The validations along the
way may take at most `VALIDATION_SHARE` of the seconds left, so a budget too short for the
validations asked for (a short budget, a slow or busy machine, or the greedy decoding of a young
model that runs every output to its cap) validates less often rather than training less: the
count still to come is capped at what that share affords at the last validation's cost: the whole
pause in training, the checkpoint written after it and the loader's restart included (`pause_s`,
measured when training goes on). One slow early validation then costs its own time, and the next
one's cost replaces it in the estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

VALIDATION_SHARE = 0.1  # of the budget seconds left, at most, for the validations to come before the last


@dataclass
class ValidationSchedule:
    points: int
    total_steps: int | None = None  # known length; None: planned from the budget as the run goes
    done: int = 0  # validations run so far
    validation_s: float = 0.0  # what the last validation took (budget runs)
    pause_s: float = 0.0  # what followed it before training went on: its checkpoint, the loader's restart
    planned: int = 0  # validations still to come in the current plan, the last one included (budget runs)

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
            self.planned = remaining
            return None
        if self.cost_s > 0:
            remaining = min(remaining, 1 + math.floor(VALIDATION_SHARE * seconds_left / self.cost_s))
        self.planned = max(remaining, 1)
        if remaining <= 1:
            return None
        steps_left = rate * (seconds_left - self.reserve_s())
        return step + max(1, round(steps_left / remaining))

    @property
    def cost_s(self) -> float:
        """Budget seconds a validation along the way takes from training, by the last one."""
        return self.validation_s + self.pause_s

    def reserve_s(self) -> float:
        """Budget seconds to keep for the validations planned before the last, at the last one's cost."""
        return max(self.planned - 1, 0) * self.cost_s

    def _fixed(self, step: int) -> int | None:
        """The first of the points' steps after `step` (points > total_steps share steps)."""
        k = step * self.points // self.total_steps + 1
        while k <= self.points and math.ceil(k * self.total_steps / self.points) <= step:
            k += 1
        return math.ceil(k * self.total_steps / self.points) if k <= self.points else None

    def state_dict(self) -> dict:
        return {"done": self.done, "validation_s": self.validation_s, "pause_s": self.pause_s, "planned": self.planned}

    def load_state_dict(self, state: dict) -> None:
        self.done, self.validation_s = int(state["done"]), float(state["validation_s"])
        self.pause_s, self.planned = float(state["pause_s"]), int(state["planned"])
