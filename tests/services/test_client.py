"""The Python client helper and the example that uses it, against the server."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from meeple.v1 import game_pb2 as pb

from services.client import MeepleClient, game_config
from tests.services.conftest import Served

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "play_vs_ai.py"


def test_game_config_builds_options() -> None:
    config = game_config("volta", dents=["large", "small"], swap_every=5)
    assert config.kind == pb.GAME_KIND_VOLTA
    assert list(config.volta.dents) == [pb.DENT_SIZE_LARGE, pb.DENT_SIZE_SMALL]
    assert game_config("rolit", players=3).rolit.players == 3
    with pytest.raises(ValueError, match="unknown game"):
        game_config("chess")
    with pytest.raises(ValueError, match="takes no options"):
        game_config("othello", players=2)


def test_the_example_plays_a_whole_game_of_each_kind(
    server: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("play_vs_ai", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    results = example.main(["--address", server.address, "--bot", "easy", "--hint", "greedy"])
    assert set(results) == {"rolit", "othello", "volleyball", "volta"}
    for game, returns in results.items():
        assert sum(returns) == pytest.approx(0.0), game
        assert any(returns), game  # every game was played to a result
    out = capsys.readouterr().out
    assert "end: returns" in out


def test_watch_resumes_without_gaps(server: Served) -> None:
    with MeepleClient(server.address) as client:
        match = client.create_match("othello", ["random", "random"]).match
        events = list(client.watch(match.match_id))
        tail = list(client.watch(match.match_id, from_ply=10))
    assert events[0].HasField("snapshot")
    actions = [e for e in events if e.HasField("action")]
    assert [e.ply for e in actions] == list(range(len(actions)))
    assert tail[0].HasField("snapshot")
    assert tail[1:] == [e for e in events[1:] if e.ply >= 10]


def test_meeple_watch_prints_a_match(server: Served) -> None:
    from typer.testing import CliRunner

    from services.cli import app

    address = server.address
    with MeepleClient(address) as client:
        match = client.create_match("othello", ["random", "random"]).match
    result = CliRunner().invoke(app, ["watch", match.match_id, "--address", address])
    assert result.exit_code == 0, result.output
    assert "    0  seat 0: " in result.output
    assert "match over at ply" in result.output
    missing = CliRunner().invoke(app, ["watch", "0123456789abcdef", "--address", address])
    assert missing.exit_code == 1
    assert "NOT_FOUND" in missing.output
