"""A match's life at the logic level, with an injected clock: waiting
matches expire, finished ones are kept for the retention time then dropped,
the turn clocks count exactly, and memory levels off however many matches
come and go."""

from __future__ import annotations

import asyncio

import pytest
from google.protobuf.duration_pb2 import Duration
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from engine_core import IllegalAction
from services.coordination import MemoryCoordination
from services.errors import NotFound
from services.match_service import logic, sweeper
from services.match_service.logic import Matches
from services.settings import Settings

HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)


class FakeClock:
    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)


def matches(clock: FakeClock, **settings: float) -> Matches:
    store = MemoryCoordination(clock_ms=clock)
    return Matches(store, Settings(**settings), now_ms=clock)  # type: ignore[arg-type]


TWO_HUMANS = ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN] * 2)


def test_a_waiting_match_expires() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        m = matches(clock, waiting_ttl=60)
        created = await logic.create_match(
            m, ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN] * 2)
        )
        match_id = created.match.match_id
        assert created.match.expire_time.ToMilliseconds() == clock.ms + 60_000
        clock.advance(59.9)
        await logic.get_match(m, match_id)
        await logic.join_match(m, ms.JoinMatchRequest(match_id=match_id), None)  # one of two
        clock.advance(0.1)
        with pytest.raises(NotFound):
            await logic.get_match(m, match_id)
        assert await m.coordination.match_count() == 0

    asyncio.run(scenario())


def test_a_finished_match_is_kept_for_the_retention_then_dropped() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        m = matches(clock, finished_retention=3600)
        created = await logic.create_match(
            m, ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN] * 2)
        )
        match_id = created.match.match_id
        seat = await logic.join_match(m, ms.JoinMatchRequest(match_id=match_id), None)
        await logic.join_match(m, ms.JoinMatchRequest(match_id=match_id), None)
        clock.advance(1000)  # a full match never expires while it is played
        ended = await logic.resign(m, match_id, seat.seat_token)
        assert ended.expire_time.ToMilliseconds() == clock.ms + 3_600_000
        clock.advance(3599)
        got = await logic.get_match(m, match_id)
        assert got.match.status == ms.MATCH_STATUS_FINISHED
        events = [e async for e in logic.watch(m, match_id, 0)]
        assert events[-1].HasField("ended")
        clock.advance(1)
        with pytest.raises(NotFound):
            await logic.get_match(m, match_id)

    asyncio.run(scenario())


def test_the_clocks_count_exactly() -> None:
    """Base 10 s and 2 s a turn: black spends 3.5 s (10 - 3.5 + 2 = 8.5 s
    left), white 9 s (3 s), then white's clock runs out while it thinks."""

    async def scenario() -> None:
        clock = FakeClock()
        m = matches(clock)
        control = ms.TimeControl(base=Duration(seconds=10), increment=Duration(seconds=2))
        request = ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN] * 2, time_control=control)
        match_id = (await logic.create_match(m, request)).match.match_id
        black = (await logic.join_match(m, ms.JoinMatchRequest(match_id=match_id), None)).seat_token
        joined = await logic.join_match(m, ms.JoinMatchRequest(match_id=match_id), None)
        assert joined.match.turn_deadline.ToMilliseconds() == clock.ms + 10_000

        async def play(token: str, ply: int, square: int) -> ms.Match:
            action = pb.Action(board=pb.BoardMove(square=square))
            response = await logic.submit_action(m, match_id, None, token, ply, [action])
            return response.match

        clock.advance(3.5)
        after = await play(black, 0, 19)  # d3
        assert [s.time_left.ToMilliseconds() for s in after.seats] == [8_500, 10_000]
        assert after.turn_deadline.ToMilliseconds() == clock.ms + 10_000
        clock.advance(9)
        after = await play(joined.seat_token, 1, 18)  # c3
        assert [s.time_left.ToMilliseconds() for s in after.seats] == [8_500, 3_000]
        clock.advance(8.499)
        assert await sweeper.sweep(m) == 0
        clock.advance(0.001)
        assert await sweeper.sweep(m) == 1
        ended = (await logic.get_match(m, match_id)).match
        assert ended.ended.reason == ms.END_REASON_TIMEOUT
        assert ended.ended.seat == 0
        assert list(ended.view.returns) == [-1.0, 1.0]
        assert ended.seats[0].time_left.ToMilliseconds() == 0
        with pytest.raises(IllegalAction, match="over"):
            await play(black, 2, 29)

    asyncio.run(scenario())


def test_memory_levels_off_as_matches_come_and_go() -> None:
    """10,000 matches: half finish, half are left waiting. With a minute of
    retention and a minute's wait, a match every 50 ms keeps about 1,200
    stored, however many have come and gone."""

    async def scenario() -> list[int]:
        clock = FakeClock()
        m = matches(clock, waiting_ttl=60, finished_retention=60)
        sizes = []
        for index in range(10_000):
            match_id = (await logic.create_match(m, TWO_HUMANS)).match.match_id
            if index % 2:
                joined = ms.JoinMatchRequest(match_id=match_id)
                seat = await logic.join_match(m, joined, None)
                await logic.join_match(m, joined, None)
                await logic.resign(m, match_id, seat.seat_token)
            clock.advance(0.05)
            if index % 1000 == 999:
                sizes.append(await m.coordination.match_count())
        assert len(m.states) <= m.states.capacity
        return sizes

    sizes = asyncio.run(scenario())
    assert max(sizes) <= 1_201, sizes
    assert sizes[-1] == sizes[-5], sizes  # level: the same count from minute to minute
