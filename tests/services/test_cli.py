"""The ``meeple`` command line."""

import re

from typer.testing import CliRunner

from services.cli import app

runner = CliRunner()


def test_demo_plays_a_whole_seeded_game() -> None:
    result = runner.invoke(app, ["demo", "--seed", "3"])
    assert result.exit_code == 0, result.output
    moves = re.findall(r"^\s*(\d+)\. seat (\d) \((\w+)\) plays ([a-h][1-8])$", result.output, re.M)
    assert [int(number) for number, *_ in moves] == list(range(1, 61))
    assert [int(seat) for _, seat, *_ in moves[:5]] == [0, 1, 2, 3, 0]
    finals = re.findall(r"seat \d \((\w+)\): (\d+) balls, (wins|loses)", result.output)
    assert len(finals) == 4
    assert sum(int(balls) for _, balls, _ in finals) == 64
    assert "game over" in result.output


def test_demo_is_reproducible_and_depends_on_the_seed() -> None:
    first = runner.invoke(app, ["demo", "--seed", "5", "--players", "2"]).output
    assert runner.invoke(app, ["demo", "--seed", "5", "--players", "2"]).output == first
    assert runner.invoke(app, ["demo", "--seed", "6", "--players", "2"]).output != first


def test_demo_rejects_a_bad_player_count() -> None:
    result = runner.invoke(app, ["demo", "--players", "5"])
    assert result.exit_code != 0


def help_text(*command: str) -> str:
    """``meeple COMMAND --help``, its box drawing and wrapping undone."""
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


def test_the_worker_needs_redis_and_may_share_a_machine() -> None:
    text = help_text("worker")
    assert "in memory" not in text
    assert "(required)" in text
    assert "--metrics-port 0" in text
    for command in ("up", "serve", "worker"):
        assert "0: any free port" in help_text(command), command


def test_health_is_a_command_with_its_options() -> None:
    text = help_text("health")
    for option in ("--service", "--http", "--timeout"):
        assert option in text
    assert "exits 0 if the answer is SERVING, 1 otherwise" in text


def test_loadtest_names_its_identity_options() -> None:
    text = help_text("loadtest")
    for option in ("--players", "--jwt-key", "--jwt-kid", "--jwt-issuer", "--jwt-audience",
                   "--jwt-algorithm", "--jwt-print-jwks"):  # fmt: skip
        assert option in text, option
    assert "--no-jwt-print-jwks" not in text
    assert "MEEPLE_GUEST_SIGNINS_PER_MINUTE" in text
