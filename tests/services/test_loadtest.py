"""``meeple loadtest`` against a real server, as a user runs it: every match
completes, the report's counts add up against each other and against what
the server counted (during the run only: the server has served traffic
before it), and there are no errors; and the report's figures on known
samples: exact percentiles, the server's change between its scrapes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.loadtest.report import Recorder, histogram, summary
from services.loadtest.scrape import Samples, figures, quantile
from services.settings import Settings
from tests.services.conftest import Served

LOAD = Settings(rate_per_second=None, matches_per_minute=100_000)
KEYS = {
    "schema",
    "config",
    "duration_s",
    "matches",
    "actions",
    "rpcs",
    "assignment",
    "spectator_lag",
    "errors",
    "server",
    "identities",
}


def load(served: Served | None, tmp_path: Path, *options: str) -> dict:  # type: ignore[type-arg]
    """Runs a load test against ``served`` (None: the in-process meeple up)
    and checks what every report must hold."""
    out = tmp_path / "report.json"
    arguments = ["loadtest"]
    if served is not None:
        arguments += ["--target", served.address, "--metrics", served.metrics_url]
    result = CliRunner().invoke(app, [*arguments, *options, "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert set(report) == KEYS
    assert report["schema"] == "meeple.loadtest/1"
    assert report["errors"] == {}
    matches = report["matches"]
    assert matches["started"] == matches["completed"] + matches["failed"]
    assert matches["failed"] == 0
    return report  # type: ignore[no-any-return]


def test_server_bots_with_spectators(serve: Callable[..., Served], tmp_path: Path) -> None:
    served = serve(LOAD, workers=2)
    # Traffic before the run: the server's counters are not zero when the
    # run begins, so a report of totals, not changes, would count it too.
    load(served, tmp_path, "--game", "othello", "--matches", "3", "--concurrency", "3")
    report = load(served, tmp_path, "--game", "all", "--matches", "8", "--concurrency", "4",
                  "--spectators", "2")  # fmt: skip
    assert report["matches"]["completed"] == 8
    assert report["server"]["matches_finished"] == 8  # the server saw the same matches end
    assert report["rpcs"]["CreateMatch"]["count"] == 8
    assert report["rpcs"]["WatchMatch"]["count"] == 8
    # Each spectator saw each match's events: at least one per action.
    assert report["spectator_lag"]["count"] >= 2 * report["actions"]["total"]
    assert report["server"]["rpcs_by_code"] == {"OK": 8 + 8 + 2 * 8}  # creates and streams
    assert report["actions"]["per_second"] == pytest.approx(
        report["actions"]["total"] / report["duration_s"], rel=0.01
    )


def test_client_bots_play_every_action(serve: Callable[..., Served], tmp_path: Path) -> None:
    served = serve(LOAD, workers=1)
    report = load(served, tmp_path, "--game", "rolit,othello", "--matches", "4",
                  "--bots", "client", "--concurrency", "2")  # fmt: skip
    assert report["config"]["games"] == ["rolit", "othello"]
    assert report["matches"]["completed"] == 4
    # No dice and no server bots: every action is one of our submissions.
    assert report["rpcs"]["SubmitAction"]["count"] == report["actions"]["total"]
    assert report["rpcs"]["JoinMatch"]["count"] == 2 * 4 + 2 * 2  # two matches of each
    assert report["server"]["matches_finished"] == 4


def test_matchmaking_seats_the_players(serve: Callable[..., Served], tmp_path: Path) -> None:
    served = serve(LOAD, workers=1)
    report = load(served, tmp_path, "--game", "othello", "--matches", "6", "--bots", "client",
                  "--matchmaking", "--concurrency", "3")  # fmt: skip
    assert report["matches"]["completed"] == 6
    assert report["rpcs"]["CreateTicket"]["count"] == 12
    assert report["assignment"]["count"] == 12
    assert report["rpcs"]["SubmitAction"]["count"] == report["actions"]["total"]


def test_a_timed_run_against_its_own_meeple_up(tmp_path: Path) -> None:
    report = load(None, tmp_path, "--game", "othello", "--duration", "2", "--concurrency", "4")
    assert report["config"]["target"] is None
    completed = report["matches"]["completed"]
    assert completed >= 1
    assert report["server"]["matches_finished"] == completed  # scraped from its own /metrics
    assert report["rpcs"]["CreateMatch"]["count"] == completed


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    for options, expected in [
        (["--game", "chess", "--matches", "1"], "games are some of"),
        (["--matchmaking", "--matches", "1"], "--bots client"),
        (["--rate", "0", "--matches", "1"], "rate must be > 0"),
    ]:
        result = runner.invoke(app, ["loadtest", *options], env={"COLUMNS": "300"})
        assert result.exit_code != 0
        assert expected in result.output


def test_latency_percentiles_are_exact_on_known_samples() -> None:
    """1, 2, ..., 1000 ms: each percentile is that many milliseconds, to
    the histogram's three significant digits."""
    recorder = Recorder()
    values = histogram()
    for ms in range(1000, 0, -1):
        recorder.record(values, ms / 1000)
    figures = summary(values)
    assert figures["count"] == 1000
    for key, ms in [("p50_ms", 500), ("p95_ms", 950), ("p99_ms", 990), ("max_ms", 1000)]:
        assert figures[key] == pytest.approx(ms, rel=1e-3), (key, figures)
    # A tail of 1 in 100: the p99 is still the bulk, the max is the tail.
    skewed = histogram()
    for _ in range(990):
        recorder.record(skewed, 0.002)
    for _ in range(10):
        recorder.record(skewed, 2.0)
    tail = summary(skewed)
    assert tail["p50_ms"] == pytest.approx(2, rel=1e-3)
    assert tail["p99_ms"] == pytest.approx(2, rel=1e-3)
    assert tail["max_ms"] == pytest.approx(2000, rel=1e-3)


def test_histogram_quantile_is_prometheuss() -> None:
    """Cumulative buckets of 10 each up to 1 s: linear within a bucket."""
    buckets = {b / 10: 10.0 * b for b in range(1, 11)} | {float("inf"): 100.0}
    assert quantile(buckets, 0.5) == pytest.approx(0.5)
    assert quantile(buckets, 0.99) == pytest.approx(0.99)
    assert quantile(buckets, 0.25) == pytest.approx(0.25)
    assert quantile({float("inf"): 0.0}, 0.5) is None


def metrics_page(
    ok: float, submit_buckets: dict[float, float], finished: float, dead: float
) -> Samples:
    """The samples of a /metrics page with these totals."""
    return {
        "grpc_server_handled_total": [
            ({"grpc_method": "SubmitAction", "grpc_code": "OK"}, ok),
            ({"grpc_method": "CreateMatch", "grpc_code": "OK"}, ok / 2),
        ],
        "grpc_server_handling_seconds_bucket": [
            ({"grpc_method": "SubmitAction", "le": str(le)}, n) for le, n in submit_buckets.items()
        ],
        "meeple_match_finished_total": [({"game": "othello"}, finished)],
        "meeple_ai_dead_letters_total": [({"game": "othello"}, dead)],
        "meeple_ai_queue_depth": [({"kind": "bot_seat"}, 0.0), ({"kind": "hint"}, 0.0)],
    }


def test_the_server_figures_are_what_changed_during_the_run() -> None:
    """Before the run the server had answered 1000 slow submissions (all
    between 0.9 and 1 s); the run added 100 fast ones, 10 in each 10 ms
    bucket up to 0.1 s. The figures are the run's alone."""
    bounds = [b / 100 for b in range(1, 11)] + [b / 10 for b in range(2, 11)]
    before = {le: (1000.0 if le >= 1.0 else 0.0) for le in bounds} | {float("inf"): 1000.0}
    run = {le: 10.0 * min(10, round(le * 100)) for le in bounds} | {float("inf"): 100.0}
    after = {le: before[le] + run[le] for le in before}
    change = figures(
        metrics_page(1000, before, finished=7, dead=1),
        metrics_page(1100, after, finished=12, dead=1),
    )
    assert change["rpcs_by_code"] == {"OK": 150}
    assert change["matches_finished"] == 5
    assert change["ai_dead_letters"] == 0
    assert change["submit_action"] == {"p50_ms": pytest.approx(50), "p99_ms": pytest.approx(99)}
