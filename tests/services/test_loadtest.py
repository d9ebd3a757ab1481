"""``meeple loadtest`` against a real server, as a user runs it: every match
completes, the report's counts add up against each other and against what
the server counted, and there are no errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
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
