"""A match's log lines on Redis with two match replicas and two workers as
separate ``meeple`` processes, the match played through both replicas:
each event ("match created", "match started", "bot fallback played",
"match ended") is logged exactly once in all, by the process whose write
made it, and no process prints a token the match issued, nor the players'
access tokens (guests signed in on the topology's ``meeple serve auth``)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from meeple.v1 import match_service_pb2 as ms

from tests.e2e.processes import Meeple
from tests.e2e.test_redis_topology import TOKEN, Topology, bot
from tests.identities import bearer
from tests.redis_servers import RedisServer
from tests.services.test_match_logs import OTHELLO, play_one, wait_for_ply

pytestmark = pytest.mark.slow

EVENTS = ("match created", "match started", "bot fallback played", "match ended")
ENV = {
    "MEEPLE_LOG_LEVEL": "INFO",
    # Every think runs past the 0.3 s limit: two attempts, then the fallback.
    "MEEPLE_AI_MAX_THINK_SECONDS": "0.3",
    "MEEPLE_BOT_ATTEMPTS": "2",
}


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    yield server
    server.stop()


def lines_of(processes: list[Meeple], event: str) -> list[str]:
    pattern = re.compile(rf"meeple\.match: {event}\b")
    return [line for p in processes for line in p.lines if pattern.search(line)]


def test_each_event_is_logged_once_across_replicas_and_workers(redis: RedisServer) -> None:
    with ExitStack() as stack:
        world = Topology(stack, redis.url, env=ENV).start(replicas=2, workers=2)
        first, second = world.stub(0), world.stub(1)
        processes = world.processes
        human = world.sign_in("human")  # the creator (world.player) plays no seat
        seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN), bot("mcts:time=5")]
        created = first.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=seats))
        match_id = created.match.match_id
        joining = ms.JoinMatchRequest(match_id=match_id, seat=0)
        joined = second.JoinMatch(joining, metadata=bearer(human))
        play_one(first, match_id, joined.seat_token)
        wait_for_ply(second, match_id, 1)  # the fallback's move, by one of the workers
        second.Resign(ms.ResignRequest(match_id=match_id), metadata=[(TOKEN, joined.seat_token)])
        deadline = time.monotonic() + 10
        while not all(lines_of(processes, event) for event in EVENTS):
            assert time.monotonic() < deadline, "\n".join(p.output() for p in processes)
            time.sleep(0.1)
        time.sleep(1.0)  # a second line, were one to come, would be here by now
        counts = {event: len(lines_of(processes, event)) for event in EVENTS}
        assert counts == dict.fromkeys(EVENTS, 1), "\n".join(p.output() for p in processes)
        # Who logged what: the replicas the calls went to, and a worker.
        assert lines_of(world.replicas[:1], "match created")
        assert lines_of(world.replicas[1:], "match started")
        assert lines_of(world.workers, "bot fallback played")
        assert lines_of(world.replicas[1:], "match ended")
        for process in processes:
            output = "".join(process.lines)
            for token in (created.owner_token, joined.seat_token, world.player, human):
                assert token not in output, f"a token in the output of meeple {process.args}"
