"""The linear learning-rate schedule: over a fixed number of steps, or laid over a wall-clock budget
(with a fake clock, alone and inside a real Lightning run whose steps slow down)."""

import math

import pandas as pd
import pytest
import pytorch_lightning as pl
import torch
from conftest import TINY_TRAINING, Interrupt, interrupt_at_step

from attention_lab.config import from_mapping
from attention_lab.tracking.store import MlflowParams
from attention_lab.training import run as training
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.run import train_seq2seq
from attention_lab.training.schedule import LinearSchedule
from attention_lab.training.validation_schedule import ValidationSchedule

torch.set_num_threads(1)


def run(schedule, step_seconds, reserve_s=0.0, now=0.0, max_steps=100_000):
    """Drive `schedule` as the Lightning callback does: `factor` at each step's start, `done` at
    its end. `step_seconds(now)` is how long the step starting at `now` takes. Returns the factors,
    the steps' start times and the time the last step ended."""
    schedule.start(now)
    factors, starts = [], []
    for _ in range(max_steps):
        factors.append(schedule.factor(now, reserve_s))
        starts.append(now)
        now += step_seconds(now)
        if schedule.done():
            return factors, starts, now
    raise AssertionError(f"not done after {max_steps} steps")


# -- a fixed number of steps -------------------------------------------------------------------------

@pytest.mark.parametrize("total", [1, 2, 7, 100])
def test_fixed_length_decays_linearly_to_one_over_total(total):
    schedule = LinearSchedule(total_steps=total)
    factors = []
    for step in range(total):
        assert not schedule.done()
        factors.append(schedule.factor(now=123.0))
    assert schedule.done() and schedule.planned_steps == total
    assert factors == pytest.approx([(total - k) / total for k in range(total)])
    assert factors[0] == 1.0 and factors[-1] == pytest.approx(1 / total)


@pytest.mark.parametrize("warmup, total", [(5, 20), (10, 11), (3, 3)])
def test_warmup_ramps_linearly_then_decays_linearly(warmup, total):
    schedule = LinearSchedule(warmup_steps=warmup, total_steps=total)
    factors, _, _ = run(schedule, lambda now: 1.0)
    assert len(factors) == total and schedule.step == total
    assert factors[:warmup] == pytest.approx([(k + 1) / warmup for k in range(warmup)])
    decay = factors[warmup:]
    if decay:
        assert decay[0] == pytest.approx(1.0)
        steps = [a - b for a, b in zip(decay, decay[1:])]
        assert steps == pytest.approx([decay[-1]] * len(steps))  # equal steps down, the last one to zero
        assert decay[-1] == pytest.approx(1 / len(decay))


def test_exactly_one_of_total_steps_and_budget():
    with pytest.raises(ValueError, match="exactly one"):
        LinearSchedule()
    with pytest.raises(ValueError, match="exactly one"):
        LinearSchedule(total_steps=10, budget_s=60.0)


def test_fixed_length_state_dict_round_trip_continues_identically():
    full, _, _ = run(LinearSchedule(warmup_steps=4, total_steps=30), lambda now: 1.0)
    first = LinearSchedule(warmup_steps=4, total_steps=30)
    first.start(0.0)
    head = [first.factor(float(k)) for k in range(12)]
    resumed = LinearSchedule(warmup_steps=4, total_steps=30)
    resumed.load_state_dict(first.state_dict())
    tail, _, _ = run(resumed, lambda now: 1.0, now=500.0)
    assert head + tail == full  # identical, not merely close


# -- a wall-clock budget (fake clock) ----------------------------------------------------------------

def test_budget_with_a_steady_rate_ends_annealed_within_the_budget():
    budget, seconds = 100.0, 0.7  # about 143 steps fit, not a whole number
    schedule = LinearSchedule(warmup_steps=5, budget_s=budget, measure_after=10)
    factors, starts, end = run(schedule, lambda now: seconds)
    assert max(factors) == 1.0 and factors[-1] <= 0.05 * max(factors)
    after_warmup = factors[5:]
    assert all(a >= b for a, b in zip(after_warmup, after_warmup[1:]))  # never rises again
    assert end >= budget - 2 * seconds  # uses the budget ...
    assert end <= budget + seconds + 1e-9, (  # ... and no more: only the step under way when it runs out
        f"the last step started at {starts[-1]:.1f} s of a {budget:.0f} s budget and ended at {end:.1f} s")


def test_budget_decays_linearly_at_a_steady_rate():
    schedule = LinearSchedule(budget_s=1000.0, measure_after=20)
    factors, _, _ = run(schedule, lambda now: 1.0)
    measured = factors[21:]  # the peak is held until the rate is measured, then a straight line down
    steps = [a - b for a, b in zip(measured, measured[1:])]
    assert max(steps) == pytest.approx(min(steps), rel=1e-6)


@pytest.mark.parametrize("slowdown", ["halfway", "gradual"])
def test_budget_when_the_machine_slows_down_still_ends_annealed_within_the_budget(slowdown):
    budget = 1000.0

    def step_seconds(now):
        if slowdown == "halfway":
            return 1.0 if now < budget / 2 else 3.0  # 3x slower for the second half
        return 1.0 + 2.0 * now / budget  # slower and slower, 3x at the end

    schedule = LinearSchedule(warmup_steps=10, budget_s=budget, measure_after=20)
    factors, starts, end = run(schedule, step_seconds)
    assert factors[-1] <= 0.05, f"the last step ran at {factors[-1]:.3f} of the peak"
    last_step = end - starts[-1]
    assert end <= budget + last_step, (  # the step under way when time runs out may finish
        f"the last step started at {starts[-1]:.1f} s of a {budget:.0f} s budget and ended at {end:.1f} s")


def test_budget_reserve_is_kept_back():
    budget, reserve, seconds = 100.0, 10.0, 0.5
    _, _, end_without = run(LinearSchedule(budget_s=budget, measure_after=5), lambda now: seconds)
    factors, _, end = run(LinearSchedule(budget_s=budget, measure_after=5), lambda now: seconds, reserve_s=reserve)
    assert end == pytest.approx(end_without - reserve, abs=seconds) and factors[-1] <= 0.05


def test_budget_state_dict_round_trip_continues_with_the_time_already_used():
    budget = 300.0
    full, _, full_end = run(LinearSchedule(warmup_steps=5, budget_s=budget, measure_after=10), lambda now: 1.0)
    first = LinearSchedule(warmup_steps=5, budget_s=budget, measure_after=10)
    first.start(0.0)
    head = [first.factor(float(k)) for k in range(120)]
    first.factor(120.0)  # one more call records the time used up to the interruption
    state = first.state_dict()
    assert state["elapsed_s"] == pytest.approx(120.0) and state["step"] == 121
    resumed = LinearSchedule(warmup_steps=5, budget_s=budget, measure_after=10)
    resumed.load_state_dict(state)
    assert resumed.state_dict() == state
    tail, starts, end = run(resumed, lambda now: 1.0, now=10_000.0)  # another session, another clock
    assert head == full[:120]
    assert tail[0] == pytest.approx(full[121])  # the same multiplier, where it left off
    assert abs((121 + len(tail)) - len(full)) <= 1  # the same plan, within a step
    assert 120.0 + (end - 10_000.0) <= full_end + 1.0 and tail[-1] <= 0.05  # the time used before counts


class LoaderBatches(pl.Callback):
    """The batches the training loader holds in each epoch, as Lightning sees them."""

    def __init__(self) -> None:
        self.per_epoch: list[int] = []

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        self.per_epoch.append(len(trainer.train_dataloader.batch_sampler))


def test_a_fixed_length_schedule_plans_the_steps_the_loader_holds(paths, monkeypatch):
    """The plan is counted from the training sampler before training: counted with other batching
    settings than the loader's, the schedule would stop training early or end it unannealed."""
    config = {**TINY_TRAINING, "data": {**TINY_TRAINING["data"], "batch_tokens": 200},
              "trainer": {**TINY_TRAINING["trainer"], "max_epochs": 3}}
    build_trainer, loader = training.build_trainer, LoaderBatches()

    def counting_trainer(*args, **kwargs):
        trainer, history, schedule = build_trainer(*args, **kwargs)
        trainer.callbacks.append(loader)
        return trainer, history, schedule

    monkeypatch.setattr(training, "build_trainer", counting_trainer)
    params = from_mapping(Seq2SeqParams, config, "train_seq2seq")
    metrics = train_seq2seq(params, MlflowParams(enabled=False), paths)
    history = pd.read_csv(paths.reports / "history.csv")
    assert len(loader.per_epoch) == 3
    total, points = sum(loader.per_epoch), params.trainer.validations
    assert history["planned_steps"].tolist() == [total] * points
    # Spread evenly over the run, across epoch ends, the last where training ends.
    assert history["step"].tolist() == [math.ceil(k * total / points) for k in range(1, points + 1)]
    assert metrics["updates"] == total and metrics["validations"] == points


# -- the real thing: a Lightning run whose steps get slower and slower -------------------------------

class SlowerAndSlower(pl.Callback):
    """A clock for the schedule on which each training step takes longer than the one before (the
    machine slows down) and validation costs time too. Fake, so that the test sees the same run on
    a fast or a busy CI machine; the real Lightning loop, callbacks and history run around it."""

    def __init__(self, step_s: float, slowdown_s: float, validation_batch_s: float) -> None:
        self.step_s, self.slowdown_s, self.validation_batch_s = step_s, slowdown_s, validation_batch_s
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self.now += self.step_s + self.slowdown_s * trainer.global_step

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0) -> None:
        self.now += self.validation_batch_s


def on_fake_clock(monkeypatch, extra: list) -> list:
    """Patch the stage's `build_trainer`: the callbacks that keep time (the schedule, the validations'
    plan, the history's minutes) read `extra[0]`'s clock, and the callbacks in `extra` (as it holds at
    each build) join them. Returns the schedules built, one a run."""
    build_trainer, schedules = training.build_trainer, []

    def faked_trainer(*args, **kwargs):
        trainer, history, schedule = build_trainer(*args, **kwargs)
        for callback in trainer.callbacks:
            if hasattr(callback, "clock"):
                callback.clock = extra[0].clock
        trainer.callbacks.extend(extra)
        schedules.append(schedule)
        return trainer, history, schedule

    monkeypatch.setattr(training, "build_trainer", faked_trainer)
    return schedules


def test_budgeted_training_ends_annealed_when_steps_slow_down(paths, monkeypatch):
    budget_minutes = 0.15
    config = {**TINY_TRAINING, "trainer": {**TINY_TRAINING["trainer"], "budget_minutes": budget_minutes}}
    params = from_mapping(Seq2SeqParams, config, "train_seq2seq")
    slowing = SlowerAndSlower(step_s=0.02, slowdown_s=0.0005, validation_batch_s=0.002)
    schedules = on_fake_clock(monkeypatch, [slowing])
    metrics = train_seq2seq(params, MlflowParams(enabled=False), paths)

    history = pd.read_csv(paths.reports / "history.csv")
    assert {"step", "planned_steps", "lr", "train_seconds"} <= set(history.columns)
    assert history["step"].is_monotonic_increasing
    # As many validations as asked for, whatever the speed: the plan kept their time back.
    assert params.trainer.validations - 1 <= len(history) <= params.trainer.validations
    # The last steps take several times longer than the first: the plan had to shrink.
    assert slowing.slowdown_s * metrics["updates"] > 2 * slowing.step_s
    peak = params.optim.lr
    lrs = history["lr"].tolist()
    assert all(math.isfinite(lr) and 0 <= lr <= peak for lr in lrs)
    assert lrs[-1] <= 0.05 * peak, f"training ended at {lrs[-1] / peak:.1%} of the peak lr: {lrs}"
    assert all(a >= b for a, b in zip(lrs, lrs[1:]))  # the first validation comes after the warm-up
    last = history.iloc[-1]
    assert last["planned_steps"] == last["step"] == metrics["updates"]  # the plan ended where training did
    # Minutes on the run's clock: the budget, give or take the step under way when it ran out.
    assert last["minutes"] == pytest.approx(budget_minutes, abs=0.005)
    [schedule] = schedules
    assert schedule.schedule.elapsed_s <= budget_minutes * 60  # on time, the validations along the way included
    assert metrics["final_lr"] == pytest.approx(lrs[-1], rel=1e-4)  # the CSV keeps 8 decimals
    assert (paths.out / "model.pt").is_file()


# -- when to validate ----------------------------------------------------------------------------------

@pytest.mark.parametrize("total, points", [(100, 16), (65, 16), (7, 16), (16, 16), (1, 3)])
def test_a_run_of_known_length_validates_at_evenly_spread_steps_the_last_where_it_ends(total, points):
    plan = ValidationSchedule(points, total_steps=total)
    steps, step = [], plan.first()
    while step is not None:
        steps.append(step)
        step = plan.after_validation(step)
    assert steps == sorted(set(steps)) and steps[-1] == total
    assert len(steps) == min(points, total)
    gaps = [b - a for a, b in zip([0, *steps], steps)]
    assert max(gaps) - min(gaps) <= 1  # evenly spread, to the step
    # A run resumed after any of them plans the same steps from there.
    for k, done in enumerate(steps[:-1]):
        resumed = ValidationSchedule(points, total_steps=total)
        resumed.load_state_dict({"done": k + 1, "validation_s": 0.0, "pause_s": 0.0, "planned": 0})
        assert resumed.first(done) == steps[k + 1]


def simulate_budget(points, budget_s, step_s, validation_s, plan_after=50):
    """Drive a budget run's validations as `PlannedValidation` does, on a fake clock: the first
    planned after `plan_after` steps from the speed so far, each later one after a validation.
    Returns the steps of the validations planned within the budget."""
    plan, now, step, target, steps = ValidationSchedule(points), 0.0, 0, None, []
    while now + step_s <= budget_s:
        step, now = step + 1, now + step_s
        if step == plan_after:
            target = plan.plan(step, 1 / step_s, budget_s - now)
        if target == step:
            now += validation_s
            plan.validation_s = validation_s
            steps.append(step)
            target = plan.after_validation(step, 1 / step_s, budget_s - now)
    return steps


@pytest.mark.parametrize("step_s", [0.05, 0.2, 0.6])  # a fast, a slow and a very slow machine
@pytest.mark.parametrize("validation_s", [0.0, 5.0])  # a 21-minute CPU run's take ~3.5 s
def test_a_budget_run_validates_as_often_on_any_machine(step_s, validation_s):
    points, budget_s = 16, 1260.0  # 21 minutes
    steps = simulate_budget(points, budget_s, step_s, validation_s)
    # The planned ones, and the one that ends the run where the budget does.
    assert len(steps) + 1 == points
    gaps = [b - a for a, b in zip(steps, steps[1:])]
    assert max(gaps) - min(gaps) <= 1
    end_steps = (budget_s - (points - 1) * validation_s) / step_s  # the validations along the way kept back
    assert steps[-1] < end_steps and end_steps - steps[-1] == pytest.approx(gaps[-1], rel=0.05, abs=2)


@pytest.mark.parametrize("validation_s", [60.0, 200.0, 2000.0])
def test_validations_too_costly_for_the_budget_come_less_often_never_every_step(validation_s):
    budget_s, step_s = 1260.0, 0.2
    steps = simulate_budget(16, budget_s, step_s, validation_s)
    assert len(steps) * validation_s <= budget_s / 2 + validation_s  # about half the budget at most
    gaps = [b - a for a, b in zip([0, *steps], steps)]
    assert all(gap >= 100 for gap in gaps[1:])  # no validation straight after another


def simulate_run(budget_s, step_s, validation_s, startup_s=0.0, warmup_steps=0, points=16, plan_after=50):
    """A budget run on a fake clock, driven as the callbacks drive it: `startup_s` of set-up and
    sanity check before the first update, the learning-rate schedule's `factor` before each update
    (the validations' reserve kept back), its `done` after, validation `k` taking `validation_s(k)`
    seconds, and the one that ends the run when the schedule is spent. Returns (seconds training,
    seconds from the first update to the end of the last validation, validation steps, the factor of each step)."""
    schedule, plan = LinearSchedule(warmup_steps=warmup_steps, budget_s=budget_s), ValidationSchedule(points)
    now, step, target, steps, training, factors = startup_s, 0, None, [], 0.0, []
    schedule.start(now)
    while True:
        factors.append(schedule.factor(now, reserve_s=plan.reserve_s()))
        step, now, training = step + 1, now + step_s, training + step_s
        if schedule.done() or target == step:
            now += validation_s(len(steps))
            steps.append(step)
            if schedule.done():
                return training, now - startup_s, steps, factors
            plan.validation_s = validation_s(len(steps) - 1)
            schedule.restart_rate()
            target = plan.after_validation(step, 1 / step_s, budget_s - schedule.seconds(now))
        elif step == plan_after:
            target = plan.plan(step, 1 / step_s, budget_s - schedule.seconds(now))


@pytest.mark.parametrize("step_s, first_s, later_s", [
    (0.01, 12.0, 3.0),  # a first validation 4x slower than the rest
    (1 / 146.6, 12.8, 4.7),  # the documented Transformer's 2-minute stage on an H200 (docs/speed.md)
])
def test_a_short_budget_trains_most_of_it_despite_a_slow_start_and_a_slow_first_validation(step_s, first_s, later_s):
    """Two minutes, 30 s of set-up before the first update (not counted), and a slow first validation
    (a young model decodes every output to its cap): the validations along the way are capped, so
    training still takes most of the budget."""
    budget_s = 120.0
    training, used, steps, _ = simulate_run(budget_s, step_s=step_s, startup_s=30.0,
                                            validation_s=lambda k: first_s if k == 0 else later_s)
    assert training >= 0.8 * budget_s, f"trained {training:.1f} s of {budget_s:.0f}"
    assert used <= budget_s + later_s + step_s  # the validation that scores the final weights follows the budget
    assert 2 <= len(steps) < 16  # fewer validations than asked, rather than less training


def test_a_budget_shorter_than_the_warmup_still_ends_on_time_and_annealed():
    training, used, steps, _ = simulate_run(30.0, step_s=0.05, warmup_steps=4000, validation_s=lambda k: 1.0)
    assert used <= 30.0 + 1.0 + 0.05 and training >= 0.8 * 30.0
    assert steps[-1] < 4000


@pytest.mark.parametrize("validation_s", [1.0, 3.5, 6.0])  # a 21-minute CPU run's validations take ~3.5 s
def test_the_21_minute_default_still_validates_16_times(validation_s):
    training, used, steps, _ = simulate_run(1260.0, step_s=0.15, validation_s=lambda k: validation_s)
    assert len(steps) == 16
    assert used <= 1260.0 + validation_s + 0.15 and training >= 1260.0 - 15 * validation_s - 5.0


@pytest.mark.parametrize("validation_s", [3.5, 20.0])
def test_after_each_validations_pause_the_decay_goes_on_along_the_planned_line(validation_s):
    """A validation is a stretch of seconds without steps. Read as a slower machine, it would drop the
    factor below the plan for the steps after each validation; the end time would hide it, since the
    rate comes back and the budget still ends the run."""
    _, _, steps, factors = simulate_run(1260.0, step_s=0.15, validation_s=lambda k: validation_s)
    assert len(steps) > 5  # pauses along the way
    # The plan at a steady rate: the peak until the rate is measured, then a straight line to zero.
    held, n = LinearSchedule.measure_after, len(factors)
    plan = [min(1.0, (n - k) / (n - held)) for k in range(n)]
    worst = max(range(n), key=lambda k: abs(factors[k] - plan[k]))
    assert abs(factors[worst] - plan[worst]) <= 0.01, (
        f"step {worst + 1} of {n} ran at {factors[worst]:.3f} of the peak, planned {plan[worst]:.3f}")


def test_a_budget_run_resumed_after_a_kill_goes_on_validating(paths, monkeypatch):
    config = {**TINY_TRAINING, "trainer": {**TINY_TRAINING["trainer"], "budget_minutes": 0.05, "validations": 8}}
    params = from_mapping(Seq2SeqParams, config, "train_seq2seq")
    extra: list = []
    on_fake_clock(monkeypatch, extra)
    extra[:] = [SlowerAndSlower(step_s=0.02, slowdown_s=0.0, validation_batch_s=0.002)]
    train_seq2seq(params, MlflowParams(enabled=False), paths)
    whole = pd.read_csv(paths.reports / "history.csv")["step"].tolist()
    killed_at = whole[2] + 10  # after three validations
    extra[:] = [SlowerAndSlower(step_s=0.02, slowdown_s=0.0, validation_batch_s=0.002), interrupt_at_step(killed_at)]
    with pytest.raises(Interrupt):
        train_seq2seq(params, MlflowParams(enabled=False), paths)
    extra[:] = extra[:1]  # the same clock goes on, as a machine's would
    train_seq2seq(params, MlflowParams(enabled=False), paths)
    resumed = pd.read_csv(paths.reports / "history.csv")["step"].tolist()
    assert resumed[:3] == whole[:3]  # the validations before the kill, from the checkpoint
    assert len(resumed) >= params.trainer.validations - 1  # and as many after it as the budget holds
    assert sum(step > killed_at for step in resumed) >= len(whole) - 4


class SlowCheckpoints(pl.Callback):
    """A fake clock on which each training step takes a second and the checkpoints written after
    each validation take `checkpoint_s` (a GPU-sized model and its Adam state: over half a gigabyte)."""

    def __init__(self, checkpoint_s: float = 100.0) -> None:
        self.now, self.checkpoint_s = 0.0, checkpoint_s

    def clock(self) -> float:
        return self.now

    perf_counter = clock  # the module reads it as `time.perf_counter`

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self.now += 1.0

    def on_validation_end(self, trainer, pl_module) -> None:
        if not trainer.sanity_checking:
            self.now += self.checkpoint_s


def train_with_slow_checkpoints(paths, monkeypatch, slow: SlowCheckpoints, **trainer_params) -> dict:
    """The stage on `slow`'s clock: the module's, the schedule's and the validations' plan's."""
    config = {**TINY_TRAINING, "trainer": {**TINY_TRAINING["trainer"], **trainer_params}}
    on_fake_clock(monkeypatch, [slow])
    monkeypatch.setattr("attention_lab.training.module.time", slow)
    return train_seq2seq(from_mapping(Seq2SeqParams, config, "train_seq2seq"), MlflowParams(enabled=False), paths)


def test_training_seconds_leave_out_the_checkpoints_written_after_each_validation(paths, monkeypatch):
    metrics = train_with_slow_checkpoints(paths, monkeypatch, SlowCheckpoints(), budget_updates=30, validations=3)

    history = pd.read_csv(paths.reports / "history.csv")
    assert len(history) == 3 and metrics["updates"] == 30
    # A second a step, epoch boundaries included; none of the 100 s after a validation.
    assert history["train_seconds"].tolist() == history["step"].diff().fillna(history["step"]).tolist()
    assert metrics["train_seconds"] == 30


def test_a_budget_keeps_the_checkpoints_after_its_validations_within_their_share(paths, monkeypatch):
    """Two and a half minutes at a second a step, and 5 s of checkpoint after each validation: counted
    as the validation's cost, they cap the validations along the way (a tenth of the seconds left), so
    the run still trains most of its budget. Counting the validation alone (nothing, on this clock),
    all 16 came, and their checkpoints took half the budget."""
    budget_s = 150.0
    metrics = train_with_slow_checkpoints(paths, monkeypatch, SlowCheckpoints(checkpoint_s=5.0),
                                          budget_minutes=budget_s / 60, validations=16)
    assert metrics["train_seconds"] >= 0.85 * budget_s, metrics
    assert 2 <= metrics["validations"] < 16
