"""Fuzzing every RPC with random and mutated messages (hypothesis): a bad
request never gets INTERNAL (or UNKNOWN), never crashes the server, and a
rejected one changes nothing."""

from __future__ import annotations

import math

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import rules_service_pb2 as rules

from services.convert import with_first_seat

TOKEN = "meeple-seat-token"
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

UNARY = {
    "/meeple.v1.RulesService/NewGame": rules.NewGameRequest(
        config=pb.GameConfig(kind=pb.GAME_KIND_ROLIT, rolit=pb.RolitOptions(players=3))
    ),
    "/meeple.v1.RulesService/ListLegalActions": rules.ListLegalActionsRequest(
        record=pb.GameRecord(
            config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
            history=[pb.Action(board=pb.BoardMove(square=19))],
        )
    ),
    "/meeple.v1.RulesService/ApplyAction": rules.ApplyActionRequest(
        record=pb.GameRecord(config=pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL)),
        actions=[pb.Action(volleyball=pb.VolleyballMove(place=pb.CourtSquare(column=2, row=3)))],
    ),
    "/meeple.v1.RulesService/SimulateFlick": rules.SimulateFlickRequest(
        record=pb.GameRecord(config=pb.GameConfig(kind=pb.GAME_KIND_VOLTA)),
        flick=pb.Flick(side=1, offset=0.2, angle_rad=0.1, impulse_ns=0.015),
    ),
    "/meeple.v1.AIService/SuggestAction": ai.SuggestActionRequest(
        record=pb.GameRecord(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)),
        bot_spec="greedy",
    ),
    "/meeple.v1.MatchService/CreateMatch": ms.CreateMatchRequest(
        config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
        seats=[ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN), ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)],
    ),
    "/meeple.v1.MatchService/CreateMatch#clocks": ms.CreateMatchRequest(
        config=pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=pb.VoltaOptions(first_seat=1)),
        seats=[ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN), ms.SeatConfig(kind=ms.SEAT_KIND_BOT)],
        time_control=ms.TimeControl(base=Duration(seconds=60), increment=Duration(nanos=5)),
    ),
    "/meeple.v1.MatchService/GetMatch": ms.GetMatchRequest(match_id="0123456789abcdef"),
    "/meeple.v1.MatchService/JoinMatch": ms.JoinMatchRequest(match_id="0123456789abcdef", seat=1),
    "/meeple.v1.MatchService/Resign": ms.ResignRequest(match_id="0123456789abcdef"),
    "/meeple.v1.MatchService/SubmitAction": ms.SubmitActionRequest(
        match_id="0123456789abcdef",
        expected_ply=3,
        actions=[pb.Action(volleyball=pb.VolleyballMove(end=pb.EndTurn()))],
    ),
}
STREAMS = {
    "/meeple.v1.MatchService/WatchMatch": ms.WatchMatchRequest(
        match_id="0123456789abcdef", from_ply=7
    ),
}


def call_raw(channel: grpc.Channel, method: str, payload: bytes, token: str | None = None) -> None:
    """Sends ``payload`` as the serialized request; the reply is discarded."""
    method = method.split("#")[0]
    metadata = [(TOKEN, token)] if token else None
    if method in STREAMS:
        stream = channel.unary_stream(method, request_serializer=None, response_deserializer=None)
        for _ in stream(payload, metadata=metadata, timeout=60):
            pass
        return
    call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
    call(payload, metadata=metadata, timeout=60)


def outcome(call: object) -> grpc.StatusCode:
    try:
        call()  # type: ignore[operator]
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def mutate(payload: bytes, edits: list[tuple[int, int]]) -> bytes:
    data = bytearray(payload)
    for position, value in edits:
        if data:
            data[position % len(data)] = value
    return bytes(data)


MESSAGES = {**UNARY, **STREAMS}


@pytest.mark.parametrize("method", sorted(MESSAGES))
@FUZZ
@given(noise=st.binary(max_size=200))
def test_random_bytes_never_get_internal(channel: grpc.Channel, method: str, noise: bytes) -> None:
    assert outcome(lambda: call_raw(channel, method, noise)) not in FORBIDDEN


@pytest.mark.parametrize("method", sorted(MESSAGES))
@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6))
def test_mutated_messages_never_get_internal(
    channel: grpc.Channel, method: str, edits: list[tuple[int, int]]
) -> None:
    payload = mutate(MESSAGES[method].SerializeToString(), edits)
    assert outcome(lambda: call_raw(channel, method, payload)) not in FORBIDDEN


numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([math.nan, -0.0, 1e308])
)
uint32 = st.integers(0, 2**32 - 1)
squares = st.builds(lambda c, r: pb.CourtSquare(column=c, row=r), uint32, uint32)
volleyball = st.one_of(
    st.builds(lambda sq: pb.VolleyballMove(place=sq), squares),
    st.builds(lambda sq: pb.VolleyballMove(serve=sq), squares),
    st.builds(lambda sq: pb.VolleyballMove(land=sq), squares),
    st.builds(
        lambda a, b: pb.VolleyballMove(step=pb.VolleyballStep(origin=a, target=b)), squares, squares
    ),
    st.builds(lambda a, b: pb.VolleyballMove(dice=pb.Dice(die1=a, die2=b)), uint32, uint32),
    st.just(pb.VolleyballMove(end=pb.EndTurn())),
    st.just(pb.VolleyballMove(roll=pb.RollDice())),
)
actions = st.one_of(
    st.builds(lambda s: pb.Action(board=pb.BoardMove(square=s)), uint32),
    st.just(pb.Action(board=pb.BoardMove(pass_turn=pb.PassTurn()))),
    st.just(pb.Action(board=pb.BoardMove())),
    st.builds(
        lambda side, o, a, i: pb.Action(
            flick=pb.Flick(side=side, offset=o, angle_rad=a, impulse_ns=i)
        ),
        st.integers(0, 2**32 - 1),
        numbers,
        numbers,
        numbers,
    ),
    st.builds(lambda move: pb.Action(volleyball=move), volleyball),
    st.just(pb.Action()),
)


@pytest.mark.parametrize("kind", [pb.GAME_KIND_ROLIT, pb.GAME_KIND_VOLLEYBALL, pb.GAME_KIND_VOLTA])
@FUZZ
@given(moves=st.lists(actions, min_size=1, max_size=4), ply=st.integers(0, 3))
def test_rejected_submissions_change_nothing(
    channel: grpc.Channel, kind: int, moves: list[pb.Action], ply: int
) -> None:
    matches = ms_grpc.MatchServiceStub(channel)
    seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)] + [
        ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
    ] * (3 if kind == pb.GAME_KIND_ROLIT else 1)
    config = with_first_seat(pb.GameConfig(kind=kind), 0)  # the human acts first
    match = matches.CreateMatch(ms.CreateMatchRequest(config=config, seats=seats)).match
    token = matches.JoinMatch(ms.JoinMatchRequest(match_id=match.match_id, seat=0)).seat_token
    before = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    request = ms.SubmitActionRequest(match_id=match.match_id, expected_ply=ply, actions=moves)
    code = outcome(lambda: matches.SubmitAction(request, metadata=[(TOKEN, token)]))
    assert code not in FORBIDDEN
    if code != grpc.StatusCode.OK:
        after = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
        assert after == before
