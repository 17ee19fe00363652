"""Learning-rate schedules laid over optimizer steps: linear warm-up, then linear decay to zero,
either over a known number of steps or over a wall-clock budget.

Over a budget (Li, Yumer and Ramanan 2020, "Budgeted Training: Rethinking Deep Neural Network
Training Under Resource Constraints", ICLR: linear decay to zero over the budget is a strong
schedule), the number of steps is not known in advance. After warm-up the plan measures steps
per second of training (the validations' time is kept back from the budget as `reserve_s`) and,
at every step, sets the remaining decay so that it reaches zero when the budget runs out:

    m <- m * (1 - 1 / R),   R = steps still affordable = rate * time left

With a steady rate R falls by one a step and m falls linearly to 0; when the machine slows
down, R shrinks faster and so does m, so the run still ends annealed, on any machine.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class LinearSchedule:
    """The learning-rate factor for each optimizer step (`factor`), and whether to stop (`done`).

    `total_steps` fixes the length (exactly reproducible); `budget_s` lays it over wall-clock
    seconds instead (set one). Time comes from the caller, so tests can fake it.
    """

    warmup_steps: int = 0
    total_steps: int | None = None
    budget_s: float | None = None
    measure_after: int = 20  # steps not timed (first batches, allocation, warm caches)
    window: int = 100  # the rate is measured over this many recent steps, so a slowdown shows soon
    step: int = 0
    multiplier: float = 1.0
    elapsed_s: float = 0.0  # wall-clock seconds of earlier sessions of this run (resumed runs)
    planned_steps: int = 0
    _started: float | None = field(default=None, repr=False)
    _times: deque = field(default_factory=deque, repr=False)  # (step, time) of recent steps

    def __post_init__(self) -> None:
        if (self.total_steps is None) == (self.budget_s is None):
            raise ValueError("give exactly one of total_steps and budget_s")

    def start(self, now: float) -> None:
        """Begin (or, after a resume, continue) the run's clock."""
        self._started = now - self.elapsed_s
        self._times.clear()

    def seconds(self, now: float) -> float:
        return now - self._started if self._started is not None else self.elapsed_s

    def factor(self, now: float, reserve_s: float = 0.0) -> float:
        """The factor for the step about to run; call once per optimizer step. `reserve_s` is
        time to keep back from the budget (the validation that follows the last step).

        Over a budget, warm-up scales the factor while the decay already runs, so a budget too
        short for the warm-up still ends annealed and on time."""
        self.elapsed_s = self.seconds(now)
        self.step += 1
        warm = min(1.0, self.step / self.warmup_steps) if self.warmup_steps else 1.0
        if self.total_steps is not None:
            self.planned_steps = self.total_steps
            if self.step <= self.warmup_steps:
                return warm
            remaining: float | None = self.total_steps - self.step + 1  # this step included
        else:
            remaining = self._affordable(now, reserve_s)
        current = self.multiplier
        if remaining is not None:  # what is left of the decay, spread over the remaining steps
            self.multiplier *= 1.0 - 1.0 / max(remaining, 1.0)
        return warm * current

    def _affordable(self, now: float, reserve_s: float) -> float | None:
        if self.step <= self.measure_after:
            return None  # not measured yet: hold the peak
        self._times.append((self.step, now))
        while len(self._times) > self.window:
            self._times.popleft()
        (first_step, first_time), (last_step, last_time) = self._times[0], self._times[-1]
        if last_step == first_step or last_time <= first_time:
            return None
        rate = (last_step - first_step) / (last_time - first_time)  # steps per second, recently
        remaining = max(rate * (self.budget_s - self.elapsed_s - reserve_s), 0.0)  # this step included
        self.planned_steps = self.step - 1 + max(int(remaining), 1)
        return remaining

    def restart_rate(self) -> None:
        """Measure the rate afresh from the next step: the pause since the last one (validation)
        is kept back from the budget as `reserve_s`, not read as a slower machine."""
        self._times.clear()

    def done(self) -> bool:
        """True once the decay has reached zero (or the fixed length is spent)."""
        if self.total_steps is not None:
            return self.step >= self.total_steps
        return self.multiplier <= 0.0

    def state_dict(self) -> dict:
        return {"step": self.step, "multiplier": self.multiplier, "elapsed_s": self.elapsed_s,
                "planned_steps": self.planned_steps}

    def load_state_dict(self, state: dict) -> None:
        self.step, self.multiplier = int(state["step"]), float(state["multiplier"])
        self.elapsed_s, self.planned_steps = float(state["elapsed_s"]), int(state["planned_steps"])
