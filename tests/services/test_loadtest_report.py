"""The load test's report over time, checked on known samples with a fake
clock: intervals on the wall clock, the merge of several generators'
reports (equal to one run over all their samples), SLOs, ramp stages, the
warnings, the CSV files and the terminal tables."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from services.loadtest import slo, stages
from services.loadtest.csv_files import write
from services.loadtest.merge import MergeError, merge
from services.loadtest.recorder import TURN, Recorder
from services.loadtest.report import Report
from services.loadtest.tables import report_tables

REMOTE = {"address": "10.0.0.5:50051", "in_process": False, "description": "a server"}


class Clock:
    """Wall-clock and CPU seconds that only move when told."""

    def __init__(self, wall: float) -> None:
        self.wall, self.cpu = wall, 0.0

    def __call__(self) -> float:
        return self.wall


def recorder_at(clock: Clock, interval_s: float = 1.0) -> Recorder:
    return Recorder(interval_s=interval_s, now=clock, cpu=lambda: clock.cpu)


def report_of(recorder: Recorder, target: dict[str, Any] = REMOTE) -> dict[str, Any]:
    return Report({"games": ["othello"]}, recorder, target, None).to_json()


def test_figures_fall_into_wall_clock_intervals() -> None:
    clock = Clock(1000.25)
    recorder = recorder_at(clock)
    recorder.record("SignInGuest", 0.010)  # before the load: totals only
    recorder.start()
    recorder.match_started("othello")
    clock.wall = 1000.5
    recorder.record("CreateMatch", 0.002, "othello")
    clock.wall, clock.cpu = 1001.001, 0.5
    recorder.sample()  # closes [1000, 1001)
    clock.wall = 1001.2
    recorder.error("UNAVAILABLE", "othello")
    clock.wall = 1002.9
    recorder.finished("m1", 60, "othello")
    recorder.finished("m1", 60, "othello")  # a second watcher of the same match
    recorder.stop()
    data = report_of(recorder)
    assert [i["start"] for i in data["intervals"]] == [1000.0, 1001.0, 1002.0]
    assert [i["t"] for i in data["intervals"]] == [-0.25, 0.75, 1.75]
    first, second, third = data["intervals"]
    assert first["matches_started"] == 1
    assert first["latency"]["CreateMatch"]["count"] == 1
    assert first["matches_in_flight"] == 1
    assert first["cpu_percent"] == pytest.approx(100 * 0.5 / 0.751, abs=0.1)
    assert second["errors"] == {"UNAVAILABLE": 1}
    assert second["matches_in_flight"] is None
    assert third["matches_completed"] == 1
    assert third["actions"] == 60
    assert third["matches_in_flight"] == 0
    assert data["rpcs"]["SignInGuest"]["count"] == 1  # in the totals, in no interval
    assert data["matches"] == {"started": 1, "completed": 1, "failed": 0,
                               "per_second": pytest.approx(1 / 2.65)}  # fmt: skip
    assert data["per_game"]["othello"]["errors"] == {"UNAVAILABLE": 1}
    assert data["started_at"] == "1970-01-01T00:16:40.250+00:00"
    assert data["duration_s"] == pytest.approx(2.65)


Sample = tuple[float, str, str, float]  # (when, game, name, seconds)
samples = st.lists(
    st.tuples(
        st.floats(0, 5.999),
        st.sampled_from(["rolit", "othello", "volta"]),
        st.sampled_from(["SubmitAction", "CreateMatch", TURN, "error:UNAVAILABLE", "match"]),
        st.floats(0.0001, 3.0),
    ),
    max_size=40,
)


def play_back(recorder: Recorder, clock: Clock, events: list[Sample], tag: str) -> None:
    for n, (when, game, name, seconds) in enumerate(sorted(events)):
        clock.wall = 2000.0 + when
        if name.startswith("error:"):
            recorder.error(name.removeprefix("error:"), game)
        elif name == "match":
            recorder.match_started(game)
            recorder.finished(f"{tag}{n}", round(seconds * 100), game)
        else:
            recorder.record(name, seconds, game)


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """What merging must keep exactly (not the CPU, which is each generator's)."""
    keys = ("matches", "actions", "rpcs", "turn", "errors", "histograms", "per_game")
    intervals = [
        {k: v for k, v in i.items() if k not in ("cpu_percent", "matches_in_flight")}
        for i in data["intervals"]
    ]
    return {**{k: data[k] for k in keys}, "intervals": intervals, "span": data["duration_s"]}


@settings(max_examples=40, deadline=None)
@given(samples, samples)
def test_a_merged_report_equals_one_run_over_both_sets_of_samples(
    first: list[Sample], second: list[Sample]
) -> None:
    clocks = [Clock(2000.0), Clock(2000.0), Clock(2000.0)]
    a, b, both = (recorder_at(clock) for clock in clocks)
    for recorder in (a, b, both):
        recorder.start()
    play_back(a, clocks[0], first, "a")
    play_back(b, clocks[1], second, "b")
    play_back(both, clocks[2], first, "a")
    play_back(both, clocks[2], second, "b")
    for recorder, clock in zip((a, b, both), clocks, strict=True):
        clock.wall = 2006.0
        recorder.stop()
    merged = merge([report_of(a), report_of(b)])
    assert comparable(merged) == comparable(report_of(both))
    assert merged["generator"]["count"] == 2
    assert [s["config"] for s in merged["sources"]] == [{"games": ["othello"]}] * 2


def test_merging_refuses_what_cannot_add_up() -> None:
    clock = Clock(10.0)
    recorder = recorder_at(clock)
    recorder.start()
    one = report_of(recorder)
    other = report_of(recorder_at(clock, interval_s=5.0))
    with pytest.raises(MergeError, match="intervals differ"):
        merge([one, other])
    with pytest.raises(MergeError, match=r"is not meeple\.loadtest/1"):
        merge([one, {"schema": "something/2"}])
    with pytest.raises(MergeError, match="no reports"):
        merge([])


def judged(text: str, data: dict[str, Any]) -> dict[str, Any]:
    return slo.parse(text).check(data)


def test_slos_are_checked_against_the_report() -> None:
    clock = Clock(50.0)
    recorder = recorder_at(clock)
    recorder.start()
    for ms in range(1, 1001):  # SubmitAction of 1 .. 1000 ms
        recorder.record("SubmitAction", ms / 1000, "othello")
    for _ in range(3):
        recorder.error("UNAVAILABLE", "othello")
    recorder.match_started("othello")
    recorder.match_failed("othello")
    clock.wall = 60.0
    recorder.stop()
    data = report_of(recorder)
    p99 = judged("SubmitAction.p99<995ms", data)
    assert p99["passed"]
    assert p99["value"] == pytest.approx(990, rel=1e-3)
    assert p99["detail"] == "1000 samples"
    assert not judged("SubmitAction.p99<0.9s", data)["passed"]
    assert judged("SubmitAction.p99.9>=999ms", data)["passed"]
    assert judged("SubmitAction.max<=1000.5ms", data)["passed"]
    errors = judged("errors<0.5%", data)  # 3 of 1003 calls
    assert errors["passed"]
    assert errors["value"] == pytest.approx(100 * 3 / 1003, abs=1e-3)
    assert errors["detail"] == "3 of 1003 calls"
    assert not judged("errors<3", data)["passed"]
    assert not judged("failed<1", data)["passed"]
    assert judged("failed<=100%", data)["passed"]
    assert judged("actions/s>=0", data)["passed"]
    missing = judged("turn.p50<1s", data)
    assert (missing["passed"], missing["value"], missing["detail"]) == (
        False,
        None,
        "no samples of turn",
    )
    assert slo.check(data, [slo.parse("errors<1%"), slo.parse("failed<1")]) is False
    assert [v["passed"] for v in data["slos"]] == [True, False]
    assert slo.judges_errors([slo.parse("errors<1%")])
    assert not slo.judges_errors([slo.parse("turn.p99<1s")])


@pytest.mark.parametrize(
    "text",
    ["SubmitAction.p99<50", "SubmitAction.p101<5ms", "p99<5ms", "errors=0", "latency<5ms", ""],
)
def test_a_malformed_slo_says_how_to_write_one(text: str) -> None:
    with pytest.raises(ValueError, match=r"--slo"):
        slo.parse(text)


def test_stages_ramp_the_start_rate_linearly() -> None:
    ramp = stages.parse("10s:10/s, 20s:10/s,1m:0/s")
    assert ramp == (stages.Stage(10, 10), stages.Stage(20, 10), stages.Stage(60, 0))
    assert stages.total_seconds(ramp) == 90
    assert [stages.rate_at(ramp, t) for t in (0, 5, 10, 29, 60, 90)] == [0, 5, 10, 10, 5, 0]
    starts = stages.starts(ramp)
    # 50 starts over the ramp up, 200 held, 300 ramping down.
    assert len(starts) == pytest.approx(550, abs=1)
    assert sum(1 for t in starts if t < 10) == pytest.approx(50, abs=1)
    assert starts == sorted(starts)
    for bad, why in [
        ("30s:10", "DURATION:RATE/s"),
        ("10:5/s", "DURATION:RATE/s"),
        ("0s:5/s", "lasts no time"),
        ("10s:0/s", "no match would start"),
    ]:
        with pytest.raises(ValueError, match=why):
            stages.parse(bad)


def test_warnings_say_what_makes_the_figures_less_than_they_look() -> None:
    clock = Clock(0.0)
    recorder = recorder_at(clock)
    recorder.start()
    for second in range(3):
        clock.wall = second + 0.5
        recorder.record("CreateMatch", 0.001, "rolit")
        clock.wall, clock.cpu = second + 1.0, clock.cpu + (0.95 if second else 0.2)
        recorder.sample()
    recorder.stop()
    local = {"address": "127.0.0.1:1", "in_process": True, "description": "here"}
    found = report_of(recorder, local)["warnings"]
    assert len(found) == 3
    assert "meeple up in this process" in found[0]
    assert "above 85% of a core in 2 of 3 intervals (peak 95%)" in found[1]
    assert "fewer than 100 samples: CreateMatch (3)" in found[2]
    assert report_of(recorder)["warnings"][0].startswith("the load generator's CPU")


def two_game_report() -> dict[str, Any]:
    clock = Clock(100.0)
    recorder = recorder_at(clock)
    recorder.start()
    rng = random.Random(4)
    for n in range(150):
        clock.wall = 100 + n / 50
        game = ("rolit", "volta")[n % 2]
        recorder.record(TURN, rng.uniform(0.001, 0.05), game)
        recorder.record("SubmitAction", rng.uniform(0.001, 0.01), game)
        if n % 30 == 0:
            recorder.error("DEADLINE_EXCEEDED", game)
    clock.wall = 103.0
    recorder.stop()
    return report_of(recorder)


def test_the_csv_files_hold_the_series(tmp_path: Path) -> None:
    data = two_game_report()
    written = write(data, tmp_path / "out")
    assert [p.name for p in written] == [
        "latency.csv",
        "intervals.csv",
        "interval_latency.csv",
        "errors.csv",
    ]

    def rows(name: str) -> list[dict[str, str]]:
        return list(csv.DictReader((tmp_path / "out" / name).open()))

    latency = rows("latency.csv")
    assert {(r["game"], r["name"]) for r in latency} == {
        (game, name) for game in ("all", "rolit", "volta") for name in ("SubmitAction", "turn")
    }
    turn = next(r for r in latency if (r["game"], r["name"]) == ("all", "turn"))
    assert int(turn["count"]) == 150
    assert [r["t"] for r in rows("intervals.csv")] == ["0.0", "1.0", "2.0"]
    per_interval = [r for r in rows("interval_latency.csv") if r["name"] == "turn"]
    assert sum(int(r["count"]) for r in per_interval) == 150
    assert per_interval[0]["per_s"] == "50.0"
    assert sum(int(r["count"]) for r in rows("errors.csv")) == 5


def test_the_tables_read_as_text_not_python() -> None:
    data = two_game_report()
    data["server"] = {
        "rpcs_by_code": {"OK": 12},
        "submit_action": {"p50_ms": 0.5, "p99_ms": 9.7},
        "ai_think": {"p50_ms": None, "p99_ms": None},
        "ai_queue_depth": 0.0,
    }
    slo.check(data, [slo.parse("turn.p99<1ms")])
    console = Console(file=io.StringIO(), width=200)
    for table in report_tables(data):
        console.print(table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "None" not in text
    assert "{" not in text
    assert "ai think" in text
    assert "no samples" in text
    assert "p50 0.5 ms, p99 9.7 ms" in text
    assert "per game" in text
    assert "volta" in text
    assert "turn.p99<1ms" in text
    assert "FAILED" in text
