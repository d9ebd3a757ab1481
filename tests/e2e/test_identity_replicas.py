"""Identities across replicas: two ``meeple up`` processes on one real
redis-server, clients over real gRPC (and Connect on a web port). The
guest signing key is shared through Redis, so a session signed in on one
replica is accepted and refreshed by the other, and a player's seat joined
on one is joined again on the other with the same seat token."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import grpc
import pytest
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from tests.e2e.processes import Meeple
from tests.identities import bearer
from tests.redis_servers import RedisServer

pytestmark = pytest.mark.slow

CALL_SECONDS = 10
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
SEAT = "meeple-seat-token"


class Replica:
    """A ``meeple up`` process and stubs to it."""

    def __init__(self, stack: ExitStack, url: str, data_dir: Path) -> None:
        env = {
            "MEEPLE_LOG_LEVEL": "WARNING",
            "MEEPLE_RATE_PER_SECOND": "off",
            # A data directory of its own: the key must come from Redis.
            "MEEPLE_DATA_DIR": str(data_dir),
            "HOME": str(data_dir),
        }
        args = ("up", "--port", "0", "--web-port", "0", "--metrics-port", "0", "--redis", url)
        self.process = Meeple(*args, env=env)
        stack.callback(self.process.kill)
        self.web = self.process.wait_for(r"web page: (http://\S+?)/?\s", 10).group(1)
        channel = grpc.insecure_channel(self.process.address)
        stack.callback(channel.close)
        self.auth = auth_grpc.AuthServiceStub(channel)
        self.matches = ms_grpc.MatchServiceStub(channel)
        self.tickets = mm_grpc.MatchmakingServiceStub(channel)

    def sign_in(self, name: str) -> auth.Session:
        request = auth.SignInGuestRequest(display_name=name)
        return self.auth.SignInGuest(request, timeout=CALL_SECONDS).session

    def identity(self, token: str) -> auth.Identity:
        request = auth.GetIdentityRequest()
        return self.auth.GetIdentity(request, metadata=bearer(token), timeout=CALL_SECONDS).identity

    def join(self, token: str, match_id: str) -> ms.JoinMatchResponse:
        request = ms.JoinMatchRequest(match_id=match_id)
        return self.matches.JoinMatch(request, metadata=bearer(token), timeout=CALL_SECONDS)

    def connect(self, method: str, message: dict, token: str) -> tuple[int, dict]:  # type: ignore[type-arg]
        """A Connect unary call in JSON on the web port."""
        request = urllib.request.Request(
            f"{self.web}/meeple.v1.{method}",
            data=json.dumps(message).encode(),
            headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=CALL_SECONDS) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


@pytest.fixture
def replicas(redis_server: RedisServer, tmp_path: Path) -> Iterator[Callable[[int], list[Replica]]]:
    """``replicas(n)``: n more replicas (their data directories: replica-0, -1, ...)."""
    redis_server.flush()
    started: list[Replica] = []
    with ExitStack() as stack:

        def start(count: int) -> list[Replica]:
            new = [
                Replica(stack, redis_server.url, tmp_path / f"replica-{len(started) + n}")
                for n in range(count)
            ]
            started.extend(new)
            return new

        yield start


def failure(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def test_a_guest_session_of_one_replica_is_the_others(
    replicas: Callable[[int], list[Replica]], tmp_path: Path
) -> None:
    a, b = replicas(2)
    session = a.sign_in("Ann")
    assert b.identity(session.access_token) == session.identity
    refreshed = b.auth.RefreshSession(
        auth.RefreshSessionRequest(refresh_token=session.refresh_token), timeout=CALL_SECONDS
    ).session
    assert refreshed.identity == session.identity
    assert a.identity(refreshed.access_token) == session.identity
    other = b.sign_in("Bo")
    assert a.identity(other.access_token) == other.identity
    status, body = b.connect("AuthService/GetIdentity", {}, session.access_token)
    assert (status, body["identity"]["playerId"]) == (200, session.identity.player_id), body
    # Redis holds the key, not a replica's data directory; a replica started
    # after both stopped accepts the sessions they signed.
    a.process.stop()
    b.process.stop()
    (c,) = replicas(1)
    assert c.identity(session.access_token) == session.identity
    assert c.identity(other.access_token) == other.identity
    assert not list(tmp_path.glob("replica-*/auth-key"))


def test_a_seat_joined_on_one_replica_is_joined_again_on_the_other(
    replicas: Callable[[int], list[Replica]],
) -> None:
    a, b = replicas(2)
    ann, bo = a.sign_in("Ann"), b.sign_in("Bo")
    created = a.matches.CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN]),
        metadata=bearer(ann.access_token),
        timeout=CALL_SECONDS,
    )
    match_id = created.match.match_id
    first = a.join(ann.access_token, match_id)
    again = b.join(ann.access_token, match_id)
    assert (again.seat, again.seat_token) == (first.seat, first.seat_token)
    status, body = b.connect("MatchService/JoinMatch", {"matchId": match_id}, ann.access_token)
    assert (status, body["seatToken"]) == (200, first.seat_token), body
    started = b.join(bo.access_token, match_id)
    assert started.seat != first.seat
    assert started.match.status == ms.MATCH_STATUS_PLAYING
    seats = sorted((s.index, s.player_id, s.display_name) for s in started.match.seats)
    assert seats == sorted(
        [
            (first.seat, ann.identity.player_id, "Ann"),
            (started.seat, bo.identity.player_id, "Bo"),
        ]
    )
    # The first token plays on the other replica.
    mover = first if started.match.view.seat_to_act == first.seat else started
    move = ms.SubmitActionRequest(
        match_id=match_id, expected_ply=0, actions=[pb.Action(board=pb.BoardMove(square=19))]
    )
    replica = b if mover is first else a
    played = replica.matches.SubmitAction(
        move, metadata=[(SEAT, mover.seat_token)], timeout=CALL_SECONDS
    )
    assert played.match.view.ply == 1


def test_a_player_queues_one_ticket_across_replicas(
    replicas: Callable[[int], list[Replica]],
) -> None:
    a, b = replicas(2)
    ann = a.sign_in("Ann")
    request = mm.CreateTicketRequest(config=OTHELLO)
    queued = a.tickets.CreateTicket(
        request, metadata=bearer(ann.access_token), timeout=CALL_SECONDS
    )
    assert list(queued.ticket.player_ids) == [ann.identity.player_id]
    code, details = failure(
        lambda: b.tickets.CreateTicket(
            request, metadata=bearer(ann.access_token), timeout=CALL_SECONDS
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "has a queued ticket in this queue already" in details
