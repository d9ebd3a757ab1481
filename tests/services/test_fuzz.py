"""Fuzzing every RPC with random and mutated messages (hypothesis): a bad
request never gets INTERNAL (or UNKNOWN), never crashes the server, and a
rejected one changes nothing. The identity messages (AuthService's, a
ticket's party passes, a seat reserved for a player) are fuzzed on a server
of their own, with real tokens and passes to mutate, and so are bearer
tokens themselves, and the archive's requests on a server that keeps one."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import archive_service_pb2 as ar
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import rules_service_pb2 as rules

from services.auth import guests
from services.convert import with_first_seat
from services.settings import Settings
from tests.identities import token_for
from tests.services.conftest import Served, serving

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


def call_raw(
    channel: grpc.Channel,
    method: str,
    payload: bytes,
    token: str | None = None,
    metadata: list[tuple[str, str]] | None = None,
) -> None:
    """Sends ``payload`` as the serialized request; the reply is discarded."""
    method = method.split("#")[0]
    if token:
        metadata = [*(metadata or ()), (TOKEN, token)]
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


# --- identities -------------------------------------------------------------------------

LEADER, MEMBER = "fuzz-leader", "fuzz-member"
IDENTITY_METHODS = [
    "/meeple.v1.AuthService/SignInGuest",
    "/meeple.v1.AuthService/RefreshSession",
    "/meeple.v1.AuthService/GetIdentity",
    "/meeple.v1.AuthService/CreatePartyPass",
    "/meeple.v1.MatchmakingService/CreateTicket#party",
    "/meeple.v1.MatchmakingService/CreateTicket#named",
    "/meeple.v1.MatchService/CreateMatch#reserved",
    "/meeple.v1.MatchService/JoinMatch#reserved",
]


@pytest.fixture(scope="module")
def identity_server() -> Iterator[Served]:
    """A server of its own, whose limits the fuzzing never reaches (the
    suite's shared server keeps its sign-in and ticket budgets)."""
    settings = Settings(
        rate_per_second=None,
        matches_per_minute=1_000_000,
        guest_signins_per_minute=1_000_000,
        tickets_per_minute=1_000_000,
        open_tickets=1_000_000,
    )
    with serving(settings, workers=1) as served:
        yield served


@pytest.fixture(scope="module")
def identity_messages(identity_server: Served) -> dict[str, bytes]:
    """Each identity method's request, with real tokens and passes in it."""
    signer = identity_server.app.auth.signer
    refresh = signer.sign(guests.REFRESH_AUDIENCE, "guest-fuzz", 3600, name="Fuzz").token
    party_pass = signer.sign(
        guests.PARTY_AUDIENCE, MEMBER, 300, name="Member", src=1, leader=LEADER
    ).token
    matches = ms_grpc.MatchServiceStub(identity_server.plain)
    reserved_match = matches.CreateMatch(
        ms.CreateMatchRequest(
            config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
            seats=[ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN, player_id=MEMBER)] * 2,
        ),
        metadata=identity_server.bearer(LEADER),
        timeout=10,
    ).match.match_id
    rolit = pb.GameConfig(kind=pb.GAME_KIND_ROLIT)
    messages = {
        "/meeple.v1.AuthService/SignInGuest": auth.SignInGuestRequest(display_name="Fuzz Er-1"),
        "/meeple.v1.AuthService/RefreshSession": auth.RefreshSessionRequest(refresh_token=refresh),
        "/meeple.v1.AuthService/GetIdentity": auth.GetIdentityRequest(),
        "/meeple.v1.AuthService/CreatePartyPass": auth.CreatePartyPassRequest(
            leader_player_id=MEMBER
        ),
        "/meeple.v1.MatchmakingService/CreateTicket#party": mm.CreateTicketRequest(
            config=rolit, seat_counts=[2, 4], party_passes=[party_pass], allow_bots=True
        ),
        "/meeple.v1.MatchmakingService/CreateTicket#named": mm.CreateTicketRequest(
            config=rolit,
            player_ids=[MEMBER, LEADER],
            party_passes=[party_pass],
            request_id="fuzz-request-0123456789",
        ),
        "/meeple.v1.MatchService/CreateMatch#reserved": ms.CreateMatchRequest(
            config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
            seats=[
                ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN, player_id=MEMBER),
                ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN, player_id=LEADER),
            ],
        ),
        "/meeple.v1.MatchService/JoinMatch#reserved": ms.JoinMatchRequest(
            match_id=reserved_match, seat=1
        ),
    }
    return {method: message.SerializeToString() for method, message in messages.items()}


@pytest.mark.parametrize("method", IDENTITY_METHODS)
@FUZZ
@given(noise=st.binary(max_size=200))
def test_random_identity_messages_never_get_internal(
    identity_server: Served, method: str, noise: bytes
) -> None:
    metadata = list(identity_server.bearer(LEADER))
    call = lambda: call_raw(identity_server.plain, method, noise, metadata=metadata)  # noqa: E731
    assert outcome(call) not in FORBIDDEN


@pytest.mark.parametrize("method", IDENTITY_METHODS)
@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6))
def test_mutated_identity_messages_never_get_internal(
    identity_server: Served,
    identity_messages: dict[str, bytes],
    method: str,
    edits: list[tuple[int, int]],
) -> None:
    payload = mutate(identity_messages[method], edits)
    metadata = list(identity_server.bearer(LEADER))
    call = lambda: call_raw(identity_server.plain, method, payload, metadata=metadata)  # noqa: E731
    assert outcome(call) not in FORBIDDEN


TOKEN_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ {}"[]:,'
BEARER_METHODS = [
    ("/meeple.v1.AuthService/GetIdentity", auth.GetIdentityRequest()),
    (
        "/meeple.v1.MatchService/CreateMatch",
        ms.CreateMatchRequest(
            config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
            seats=[ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)] * 2,
        ),
    ),
    (
        "/meeple.v1.MatchmakingService/CreateTicket",
        mm.CreateTicketRequest(config=pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL)),
    ),
]


def bearer_outcomes(served: Served, value: str) -> set[grpc.StatusCode]:
    codes = set()
    for method, message in BEARER_METHODS:
        payload = message.SerializeToString()
        metadata = [("authorization", value)]
        codes.add(
            outcome(
                lambda method=method, payload=payload, metadata=metadata: call_raw(
                    served.plain, method, payload, metadata=metadata
                )
            )
        )
    return codes


@FUZZ
@given(text=st.text(alphabet=TOKEN_CHARACTERS, max_size=300))
def test_random_bearer_tokens_never_get_internal(identity_server: Served, text: str) -> None:
    codes = bearer_outcomes(identity_server, f"Bearer {text}")
    assert not codes & FORBIDDEN


@FUZZ
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 10_000), st.sampled_from(TOKEN_CHARACTERS)), min_size=1, max_size=4
    ),
    segment=st.sampled_from(["header", "payload", "signature", "any"]),
)
def test_mutated_bearer_tokens_never_get_internal(
    identity_server: Served, edits: list[tuple[int, str]], segment: str
) -> None:
    """A real access token with a few characters changed (in one of its
    parts): its header, decoded, may be any JSON at all."""
    token = token_for(identity_server.app, "fuzz-bearer", seconds=3600)
    parts = token.split(".")
    index = {"header": 0, "payload": 1, "signature": 2}.get(segment)
    target = token if index is None else parts[index]
    chars = list(target)
    for position, char in edits:
        chars[position % len(chars)] = char
    changed = "".join(chars)
    if index is not None:
        parts[index] = changed
        changed = ".".join(parts)
    codes = bearer_outcomes(identity_server, f"Bearer {changed}")
    assert not codes & FORBIDDEN


def header_token(header: object) -> str:
    """A token whose header is ``header`` (any JSON), with a real-looking body."""
    return f"{b64(json.dumps(header).encode())}.{b64(b'{}')}.c2ln"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@FUZZ
@given(
    header=st.one_of(
        json_values,
        st.fixed_dictionaries({"alg": json_values, "kid": json_values}),
        st.fixed_dictionaries({"alg": st.just("HS256"), "kid": json_values, "crit": json_values}),
    )
)
def test_any_json_token_header_never_gets_internal(identity_server: Served, header: object) -> None:
    codes = bearer_outcomes(identity_server, f"Bearer {header_token(header)}")
    assert codes <= {grpc.StatusCode.UNAUTHENTICATED}, header


def test_a_deeply_nested_token_header_is_unauthenticated(identity_server: Served) -> None:
    """JSON nested past Python's recursion limit, in a header anyone may send."""
    for opening in (b"[", b'{"a":'):
        deep = f"{b64(opening * 1100)}.e30.c2ln"  # past the recursion limit, within 8 KiB
        codes = bearer_outcomes(identity_server, f"Bearer {deep}")
        assert codes == {grpc.StatusCode.UNAUTHENTICATED}, opening


# --- the archive ------------------------------------------------------------------------

ARCHIVE = {
    "/meeple.v1.ArchiveService/ListPlayerMatches": ar.ListPlayerMatchesRequest(
        player_id="tester",
        game=pb.GAME_KIND_OTHELLO,
        outcome=ar.MATCH_OUTCOME_LOSS,
        ended_after=Timestamp(seconds=1),
        ended_before=Timestamp(seconds=4_000_000_000),
        page_size=5,
        page_token="1796222089787.0123456789abcdef",
    ),
    "/meeple.v1.ArchiveService/GetRatingHistory": ar.GetRatingHistoryRequest(
        player_id="tester", game=pb.GAME_KIND_OTHELLO, page_size=3
    ),
    "/meeple.v1.ArchiveService/GetHeadToHead": ar.GetHeadToHeadRequest(
        player_id="tester", opponent_id="other", game=pb.GAME_KIND_ROLIT, page_size=2
    ),
    "/meeple.v1.ArchiveService/ExportMatch": ar.ExportMatchRequest(
        match_id="0123456789abcdef", format=ar.EXPORT_FORMAT_GGF
    ),
    "/meeple.v1.ArchiveService/ExportPlayerMatches": ar.ExportPlayerMatchesRequest(
        player_id="tester", game=pb.GAME_KIND_OTHELLO
    ),
}


@pytest.fixture(scope="module")
def archive_channel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[grpc.Channel]:
    """A server that archives, with finished matches in its archive (and
    the match ids of the requests above, one of them finished)."""
    settings = Settings(data_dir=str(tmp_path_factory.mktemp("archive")))
    with serving(settings, workers=1) as served:
        matches = ms_grpc.MatchServiceStub(served.channel)
        for kind in (pb.GAME_KIND_OTHELLO, pb.GAME_KIND_VOLLEYBALL):
            seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN), ms.SeatConfig(kind=ms.SEAT_KIND_BOT)]
            request = ms.CreateMatchRequest(config=pb.GameConfig(kind=kind), seats=seats)
            match = matches.CreateMatch(request).match
            token = matches.JoinMatch(ms.JoinMatchRequest(match_id=match.match_id, seat=0))
            resign = ms.ResignRequest(match_id=match.match_id)
            matches.Resign(resign, metadata=[(TOKEN, token.seat_token)])
        yield served.channel


def call_archive(channel: grpc.Channel, method: str, payload: bytes) -> None:
    if method.endswith("ExportPlayerMatches"):
        stream = channel.unary_stream(method, request_serializer=None, response_deserializer=None)
        for _ in stream(payload, timeout=60):
            pass
        return
    call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
    call(payload, timeout=60)


@pytest.mark.parametrize("method", sorted(ARCHIVE))
@FUZZ
@given(noise=st.binary(max_size=200))
def test_random_archive_requests_never_get_internal(
    archive_channel: grpc.Channel, method: str, noise: bytes
) -> None:
    assert outcome(lambda: call_archive(archive_channel, method, noise)) not in FORBIDDEN


@pytest.mark.parametrize("method", sorted(ARCHIVE))
@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6))
def test_mutated_archive_requests_never_get_internal(
    archive_channel: grpc.Channel, method: str, edits: list[tuple[int, int]]
) -> None:
    payload = mutate(ARCHIVE[method].SerializeToString(), edits)
    assert outcome(lambda: call_archive(archive_channel, method, payload)) not in FORBIDDEN
