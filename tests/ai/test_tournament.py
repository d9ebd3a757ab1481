"""The tournament runner: lineups, rotation, statistics, parallel replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ai.tournament import (
    GameResult,
    GameTask,
    TournamentResult,
    lineups,
    plan,
    run_tournament,
    tally,
    wilson_interval,
)
from services.cli import app


def test_wilson_interval_matches_known_values() -> None:
    # Reference values: Wilson (1927) score interval, z = 1.96.
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_lineups_are_combinations_or_one_against_a_field() -> None:
    assert lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert lineups(["a", "b"], 4) == [("a", "b", "b", "b"), ("b", "a", "a", "a")]
    assert len(lineups(["a", "b", "c", "d", "e"], 4)) == 5
    with pytest.raises(ValueError, match="each bot spec once"):
        lineups(["a", "a"], 2)
    with pytest.raises(ValueError, match="at least two bots"):
        lineups(["a"], 2)


def test_seats_rotate_so_every_bot_plays_every_seat() -> None:
    tasks = plan("rolit", {"players": 4}, ["greedy", "random"], 8, seed=0)
    focal = [task for task in tasks if task.lineup[0] == "greedy"]
    seats = sorted(task.seats.index("greedy") for task in focal)
    assert seats == [0, 0, 1, 1, 2, 2, 3, 3]
    assert len({task.seed for task in tasks}) == len(tasks)


def test_a_bad_spec_is_refused_before_any_game() -> None:
    with pytest.raises(ValueError, match="unknown bot 'wizard'"):
        plan("othello", {}, ["random", "wizard"], 2, seed=0)


def fake(seats: tuple[str, ...], returns: tuple[float, ...], seed: int) -> GameResult:
    task = GameTask("rolit", {"players": len(seats)}, seats, seats, seed)
    return GameResult(task, returns, 60, (0.1,) * len(seats), (15,) * len(seats))


def test_results_count_each_bot_once_by_its_best_seat() -> None:
    third = -1 / 3
    result = TournamentResult("rolit", {"players": 4}, ["a", "b"], 3, 0)
    result.results = [
        fake(("a", "b", "b", "b"), (1.0, third, third, third), 1),  # a beats the field
        fake(("a", "b", "b", "b"), (third, 1.0, third, third), 2),  # a b seat wins
        fake(("a", "b", "b", "b"), (1 / 3, 1 / 3, third, third), 3),  # shared top
    ]
    tally(result)
    by_bot = {stats.spec: stats for stats in result.stats}
    assert (by_bot["a"].wins, by_bot["a"].draws, by_bot["a"].losses) == (1, 1, 1)
    assert (by_bot["b"].wins, by_bot["b"].draws, by_bot["b"].losses) == (1, 1, 1)
    assert by_bot["a"].lineup == "a vs b x3"
    assert by_bot["b"].decisions == 3 * 3 * 15


def test_ratings_rank_the_stronger_bot_higher() -> None:
    result = TournamentResult("othello", {}, ["strong", "weak"], 20, 0)
    result.results = [
        fake(
            ("strong", "weak") if i % 2 else ("weak", "strong"),
            (1.0, -1.0) if i % 2 else (-1.0, 1.0),
            i,
        )
        for i in range(20)
    ]
    tally(result)
    (strong_mu, strong_sigma), (weak_mu, _) = result.ratings["strong"], result.ratings["weak"]
    assert strong_mu > weak_mu
    assert strong_sigma < 25 / 3  # uncertainty shrinks from openskill's default


def test_a_parallel_tournament_replays_the_serial_one() -> None:
    serial = run_tournament("othello", ["greedy", "random"], 4, seed=3, jobs=1)
    parallel = run_tournament("othello", ["greedy", "random"], 4, seed=3, jobs=2)
    assert [r.returns for r in serial.results] == [r.returns for r in parallel.results]
    assert [r.task for r in serial.results] == [r.task for r in parallel.results]
    document = json.loads(serial.to_json())
    assert {row["spec"] for row in document["table"]} == {"greedy", "random"}
    assert len(document["games"]) == 4


def test_progress_is_reported_for_every_game() -> None:
    seen: list[tuple[int, int]] = []
    run_tournament(
        "rolit",
        ["random", "greedy"],
        2,
        options={"players": 2},
        on_result=lambda _, done, total: seen.append((done, total)),
    )
    assert seen == [(1, 2), (2, 2)]


def test_the_cli_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = CliRunner().invoke(
        app,
        [
            "tournament",
            "rolit",
            "--bots",
            "greedy,random",
            "--players",
            "3",
            "--games",
            "3",
            "--json",
            str(out),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "greedy vs random x2" in result.output
    assert "win rate (95% CI)" in result.output
    document = json.loads(out.read_text())
    assert document["options"] == {"players": 3}
    assert set(document["ratings"]) == {"greedy", "random"}


def test_the_cli_explains_a_bad_spec() -> None:
    result = CliRunner().invoke(app, ["tournament", "othello", "--bots", "random,wizard"])
    assert result.exit_code != 0
    assert "unknown bot" in result.output
