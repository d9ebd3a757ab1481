"""A match without human seats is paced (CreateMatchRequest.bot_pace, the
server's default otherwise) so that a spectator can follow it; a match with
a human seat never is; a paced turn holds up no runner. ListMatches leaves
abandoned matches out and says when each match started."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.settings import Settings
from tests.services.conftest import Served

BOT = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
SEAT = "meeple-seat-token"


def stub(served: Served) -> ms_grpc.MatchServiceStub:
    return ms_grpc.MatchServiceStub(served.channel)


def action_times(matches: ms_grpc.MatchServiceStub, match_id: str, count: int) -> list[int]:
    """When the match's first ``count`` actions were played (epoch ms)."""
    times = []
    for event in matches.WatchMatch(ms.WatchMatchRequest(match_id=match_id), timeout=30):
        if event.HasField("action"):
            times.append(event.time.ToMilliseconds())
            if len(times) == count:
                break
    return times


def bot_reply_seconds(matches: ms_grpc.MatchServiceStub) -> float:
    """How long a bot takes to answer a human's first move in a new match
    against it, as its watcher sees."""
    created = matches.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, BOT]))
    match_id = created.match.match_id
    joined = matches.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=0))
    move = pb.Action(board=pb.BoardMove(square=19))  # d3, Black's (seat 0's) opening
    request = ms.SubmitActionRequest(match_id=match_id, expected_ply=0, actions=[move])
    matches.SubmitAction(request, metadata=((SEAT, joined.seat_token),))
    started = time.monotonic()
    for event in matches.WatchMatch(ms.WatchMatchRequest(match_id=match_id, from_ply=1)):
        if event.HasField("action"):
            break
    return time.monotonic() - started


def test_a_bot_only_match_plays_at_its_pace(serve: Callable[..., Served]) -> None:
    matches = stub(serve(Settings()))
    request = ms.CreateMatchRequest(
        config=OTHELLO, seats=[BOT, BOT], bot_pace=Duration(nanos=200_000_000)
    )
    created = matches.CreateMatch(request).match
    assert created.bot_pace.ToMilliseconds() == 200
    times = action_times(matches, created.match_id, 5)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert min(gaps) >= 200, gaps


def test_the_pace_defaults_to_the_servers_and_zero_is_none(serve: Callable[..., Served]) -> None:
    matches = stub(serve(Settings(bot_pace=0.3)))
    paced = matches.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=[BOT, BOT])).match
    assert paced.bot_pace.ToMilliseconds() == 300
    assert Settings().bot_pace == 0.5  # the default of a server that sets none
    request = ms.CreateMatchRequest(config=OTHELLO, seats=[BOT, BOT], bot_pace=Duration())
    unpaced = matches.CreateMatch(request).match
    assert unpaced.bot_pace.ToMilliseconds() == 0
    started = time.monotonic()
    events = list(matches.WatchMatch(ms.WatchMatchRequest(match_id=unpaced.match_id), timeout=30))
    assert events[-1].HasField("ended")
    plies = events[-1].ply
    assert time.monotonic() - started < plies * 0.3 / 2  # far faster than paced


def test_a_match_with_a_human_seat_is_not_paced(serve: Callable[..., Served]) -> None:
    matches = stub(serve(Settings(bot_pace=5.0)))
    assert bot_reply_seconds(matches) < 4.0  # the bot's reply did not wait 5 s


def test_paced_turns_hold_up_no_runner(serve: Callable[..., Served]) -> None:
    """One AI worker has four runners. With eight bot-only matches waiting
    out a 3 s pace, a human's opponent still answers at once: runners
    waiting out the pace would make it wait its turn behind them."""
    matches = stub(serve(Settings(bot_pace=3.0), workers=1))
    for _ in range(8):
        matches.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=[BOT, BOT]))
    time.sleep(0.5)  # the paced turns are taken, and wait
    assert bot_reply_seconds(matches) < 1.5


def test_a_bad_pace_is_invalid_argument(serve: Callable[..., Served]) -> None:
    matches = stub(serve(Settings()))
    for pace in (Duration(seconds=11), Duration(seconds=-1)):
        request = ms.CreateMatchRequest(config=OTHELLO, seats=[BOT, BOT], bot_pace=pace)
        with pytest.raises(grpc.RpcError) as refused:
            matches.CreateMatch(request)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "bot_pace" in refused.value.details()


def test_the_live_list_leaves_abandoned_matches_out(serve: Callable[..., Served]) -> None:
    served = serve(Settings(abandoned_after=0.5, bot_pace=0.5))
    matches = stub(served)
    human = matches.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN]))
    for seat in (0, 1):
        matches.JoinMatch(ms.JoinMatchRequest(match_id=human.match.match_id, seat=seat))
    bots = matches.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=[BOT, BOT])).match
    listed = matches.ListMatches(ms.ListMatchesRequest()).matches
    assert {m.match_id for m in listed} == {human.match.match_id, bots.match_id}
    assert all(m.start_time.ToMilliseconds() > 0 for m in listed)
    time.sleep(0.7)  # the human seat to act has not moved for longer than abandoned_after
    listed = matches.ListMatches(ms.ListMatchesRequest()).matches
    assert [m.match_id for m in listed] == [bots.match_id]
