"""ListMatches through gRPC: the playing matches, the most recently started
first, paged and filtered by game; waiting and finished matches are not
listed; bad pages are INVALID_ARGUMENT."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.settings import Settings
from tests.services.conftest import Served

HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
TOKEN = "meeple-seat-token"


def playing(stub: ms_grpc.MatchServiceStub, kind: pb.GameKind) -> tuple[str, str]:
    """A match of two joined humans (so it plays), and seat 0's token."""
    config = pb.GameConfig(kind=kind)
    if kind == pb.GAME_KIND_ROLIT:
        config.rolit.players = 2
    match_id = stub.CreateMatch(
        ms.CreateMatchRequest(config=config, seats=[HUMAN] * 2)
    ).match.match_id
    token = stub.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=0)).seat_token
    stub.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=1))
    return match_id, token


def listed(stub: ms_grpc.MatchServiceStub, **fields: object) -> ms.ListMatchesResponse:
    return stub.ListMatches(ms.ListMatchesRequest(**fields))  # type: ignore[arg-type]


@pytest.fixture
def stub(serve: Callable[..., Served]) -> ms_grpc.MatchServiceStub:
    served = serve(Settings(rate_per_second=None, matches_per_minute=10_000))
    return ms_grpc.MatchServiceStub(served.channel)


def test_playing_matches_are_listed_newest_first_and_paged(stub: ms_grpc.MatchServiceStub) -> None:
    ids = [playing(stub, pb.GAME_KIND_OTHELLO)[0] for _ in range(5)]
    waiting = stub.CreateMatch(
        ms.CreateMatchRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), seats=[HUMAN] * 2)
    ).match.match_id
    first = listed(stub, page_size=2)
    assert [m.match_id for m in first.matches] == ids[::-1][:2]
    assert all(m.status == ms.MATCH_STATUS_PLAYING for m in first.matches)
    assert first.next_page_token
    second = listed(stub, page_size=2, page_token=first.next_page_token)
    third = listed(stub, page_size=2, page_token=second.next_page_token)
    seen = [m.match_id for page in (first, second, third) for m in page.matches]
    assert seen == ids[::-1]
    assert third.next_page_token == ""
    assert waiting not in seen


def test_a_finished_match_leaves_the_list(stub: ms_grpc.MatchServiceStub) -> None:
    match_id, token = playing(stub, pb.GAME_KIND_OTHELLO)
    assert [m.match_id for m in listed(stub).matches] == [match_id]
    stub.Resign(ms.ResignRequest(match_id=match_id), metadata=[(TOKEN, token)])
    assert list(listed(stub).matches) == []


def test_the_list_keeps_one_game(stub: ms_grpc.MatchServiceStub) -> None:
    rolit = [playing(stub, pb.GAME_KIND_ROLIT)[0] for _ in range(3)]
    othello = playing(stub, pb.GAME_KIND_OTHELLO)[0]
    only = listed(stub, kind=pb.GAME_KIND_ROLIT, page_size=2)
    rest = listed(stub, kind=pb.GAME_KIND_ROLIT, page_size=2, page_token=only.next_page_token)
    assert [m.match_id for m in [*only.matches, *rest.matches]] == rolit[::-1]
    assert [m.match_id for m in listed(stub, kind=pb.GAME_KIND_OTHELLO).matches] == [othello]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"page_size": 101}, "page_size: at most 100"),
        ({"page_token": "x1"}, "page_token"),
        ({"page_token": "9" * 20}, "page_token"),
        ({"kind": 99}, "kind"),
    ],
)
def test_bad_pages_are_invalid_argument(
    stub: ms_grpc.MatchServiceStub, fields: dict[str, object], reason: str
) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        listed(stub, **fields)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason in (raised.value.details() or "")
