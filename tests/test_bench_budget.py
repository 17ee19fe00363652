"""The bench's time budget (`bench/budget.py`) on a fake clock: measurements advance it by the seconds they are
given, so that no test waits or depends on the machine's speed."""

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab.bench.budget import PHASE_WEIGHTS, STEADY_AFTER, STEADY_SPREAD, Budget, spread

NOISY = (1.0, 2.0, 1.5)  # values that never agree within STEADY_SPREAD


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def measurement(clock: Clock, seconds: list[float], values=NOISY, starts: list | None = None):
    """A measurement that takes `seconds[i]` on `clock` the i-th time (cycling) and returns `values[i]`;
    each start time goes to `starts`."""
    taken = zip(itertools.cycle(seconds), itertools.cycle(values))

    def measure() -> float:
        if starts is not None:
            starts.append(clock.now)
        duration, value = next(taken)
        clock.now += duration
        return value

    return measure


durations = st.lists(st.floats(0.0, 30.0), min_size=1, max_size=4)
series = st.lists(st.tuples(st.integers(1, 6), durations), min_size=1, max_size=3)  # (most, seconds) each
phases = st.lists(st.tuples(st.floats(0.5, 100.0), series), min_size=1, max_size=5)  # (weight, series) each


@settings(max_examples=300, deadline=None)
@given(total=st.floats(0.0, 200.0), plan=phases, between=st.floats(0.0, 2.0))
def test_nothing_starts_after_the_total_and_the_bench_ends_within_one_measurement_of_it(total, plan, between):
    clock, starts = Clock(), []
    budget = Budget(total, {f"p{i}": weight for i, (weight, _) in enumerate(plan)}, clock)
    for i, (_, kinds) in enumerate(plan):
        with budget.phase(f"p{i}") as phase:
            assert phase.deadline <= max(total, clock.now) + 1e-9  # never past the total's end, unless now is
            for k, (most, seconds) in enumerate(kinds):
                values = phase.repeat(measurement(clock, seconds, starts=starts), most, f"s{k}")
                assert len(values) <= most
                clock.now += between * bool(values)  # work between measurements, none when skipped
    assert all(start < total for start in starts)
    longest = max(max(seconds) for _, kinds in plan for _, seconds in kinds)
    assert clock.now <= total + longest + 2.0 * len(starts)  # one measurement past, and the gaps between them
    if not between:
        assert clock.now <= total + longest


@settings(max_examples=300, deadline=None)
@given(total=st.floats(0.0, 200.0), seconds=durations, slower=st.floats(1.0, 10.0), most=st.integers(1, 12))
def test_a_phase_whose_measurements_take_longer_gets_no_more_repeats(total, seconds, slower, most):
    def repeats(scale: float) -> int:
        clock = Clock()
        with Budget(total, {"only": 1.0}, clock).phase("only") as phase:
            return len(phase.repeat(measurement(clock, [s * scale for s in seconds]), most, "rate"))

    assert repeats(slower) <= repeats(1.0)


def test_a_long_measurement_gets_fewer_repeats_and_the_phase_says_it_was_cut_short():
    counts = {}
    for seconds in (1.0, 13.0):
        clock = Clock()
        budget = Budget(60, {"peaks": 1.0}, clock)
        with budget.phase("peaks") as phase:
            counts[seconds] = len(phase.repeat(measurement(clock, [seconds]), 10, "float32"))
        cut = budget.report()["phases"]["peaks"].get("cut_short", [])
        assert cut == ([] if counts[seconds] == 10 else ["float32"])
    assert counts == {1.0: 10, 13.0: 4}  # a fifth would end at 65 s, past the 60 of the share


@pytest.mark.parametrize("total", [None, 1e6])
def test_steady_values_stop_the_repeats_early_and_spread_ones_run_them_all(total):
    clock = Clock()
    budget = Budget(total, {"decoding": 1.0}, clock)
    close = (100.0, 100.0 * (1 + STEADY_SPREAD / 2))
    with budget.phase("decoding") as phase:
        assert len(phase.repeat(measurement(clock, [1.0], close), 8, "steady")) == STEADY_AFTER
        assert len(phase.repeat(measurement(clock, [1.0]), 8, "noisy")) == 8
        several = [{"greedy": 10.0, "beam": b} for b in (1.0, 2.0, 1.0, 2.0)]
        assert len(phase.repeat(measurement(clock, [1.0], several), 4, "both")) == 4  # one rate spread: all
    assert budget.report()["phases"]["decoding"]["repeats"] == {"steady": STEADY_AFTER, "noisy": 8, "both": 4}
    assert spread([{"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 1.5}]) == pytest.approx(0.4)


def test_shares_follow_the_weights_and_pass_on_what_a_phase_left_or_took():
    for used, share_after in ((0.0, 100.0), (10.0, 90.0), (40.0, 60.0), (150.0, 0.0)):
        clock = Clock()
        budget = Budget(100, {"seed": 1.0, "default": 3.0}, clock)
        with budget.phase("seed") as seed:
            assert seed.share_s == pytest.approx(25.0)
            clock.now += used
        with budget.phase("default") as default:
            assert default.share_s == pytest.approx(share_after)
            # Past the total: skipped, and said so; within it, the first measurement runs even past the share.
            assert (default.once(measurement(clock, [30.0]), "training") is None) == (used >= 100)
        phases = budget.report()["phases"]
        assert phases["default"]["repeats"] == {"training": int(used < 100)}
        assert ("cut_short" in phases["default"]) == (used >= 100)


def test_a_measurement_that_stops_itself_at_the_deadline_marks_the_phase():
    clock = Clock()
    budget = Budget(50, {"transformer": 1.0}, clock)
    with budget.phase("transformer") as phase:
        clock.now = phase.deadline
        phase.cut("training")
        phase.cut("training")
    assert budget.report()["phases"]["transformer"]["cut_short"] == ["training"]


def test_a_bench_out_of_budget_reports_what_it_measured_and_what_its_budget_cut(corpus_zip, tmp_path, capsys,
                                                                                monkeypatch):
    """A second for the whole run: the first phases take it, the training that starts ends at its deadline, what
    comes after is skipped; the report holds what was measured, and says what was not."""
    from test_cli import cli

    from attention_lab.bench import flops, report as bench_report

    monkeypatch.setattr(bench_report, "matmul_trial", lambda device, dtype: flops.matmul_trial(device, dtype, size=256))
    params = tmp_path / "params.yaml"
    params.write_text(json.dumps({"train_tokenizer": {"kind": "subword", "subword": {"size": 450, "model": "bpe"}},
                                  "train_seq2seq": {"data": {"batch_tokens": 256},
                                                    "model": {"embed_size": 8, "hidden_size": 16}}}))
    code, out, err = cli(capsys, "bench", "--corpus", corpus_zip, "--pairs", 120, "--epochs", 1000, "--reference",
                         "--params", params, "--splits", tmp_path / "absent", "--default-pairs", 200,
                         "--decode-sentences", 12, "--one-by-one", 3, "--budget-s", 1)
    assert code == 0, err[-3000:]
    report = json.loads(out)
    budget = report["budget"]
    assert budget["budget_s"] == 1 and list(budget["phases"]) == [name for name in PHASE_WEIGHTS if name != "gpu_recipe"]
    phases = budget["phases"]
    assert phases["peaks"]["repeats"]["float32"] >= 1  # the first phase always has time
    for name in ("seed", "reference", "default", "transformer"):  # a run is reported where its phase trained it
        assert (name in report) == (phases[name]["repeats"]["training"] == 1), (name, phases[name])
    assert "startup" not in report and "translate" in phases["startup"]["cut_short"]  # past the budget: skipped
    assert "cut_short" in phases["seed"] or "seed" not in report  # a 1,000-epoch run stopped at its deadline
    if "seed" in report:
        assert report["seed"]["epochs"] < 1000 and report["seed"]["tokens_per_s"] > 0
