"""The log lines of a match, through real gRPC: "match created", "match
started", "match ended" (INFO) and "bot fallback played" (WARNING) on
``meeple.match``, each exactly once per match with its structured fields,
and no token the match issued (owner, seat, ticket tokens) in any record's
message or fields."""

from __future__ import annotations

import collections
import hashlib
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.convert import action_to_proto, replay
from services.settings import Settings
from tests.services.conftest import Served

OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)  # seat 0 places first
SEAT, TICKET = "meeple-seat-token", "meeple-ticket-token"
EVENTS = ("match created", "match started", "match ended", "bot fallback played")
# Every think runs past the 0.3 s limit: two attempts, then the fallback plays.
FAILING_BOTS = Settings(ai_max_think_seconds=0.3, bot_attempts=2, rate_per_second=None)


def events_of(
    caplog: pytest.LogCaptureFixture, match_id: str
) -> dict[str, list[logging.LogRecord]]:
    """The ``meeple.match`` records of the match, by message."""
    found: dict[str, list[logging.LogRecord]] = collections.defaultdict(list)
    for record in caplog.records:
        fields = getattr(record, "fields", {})
        if record.name == "meeple.match" and fields.get("match_id") == match_id:
            found[record.getMessage()].append(record)
    return found


def wait_for(caplog: pytest.LogCaptureFixture, match_id: str, message: str) -> None:
    """A runner logs just after its write, which a watcher may see first."""
    deadline = time.monotonic() + 10
    while not events_of(caplog, match_id)[message]:
        assert time.monotonic() < deadline, f"no {message!r} for {match_id}"
        time.sleep(0.02)


def check_no_token(caplog: pytest.LogCaptureFixture, tokens: list[str]) -> None:
    """No record's message, fields or traceback holds a token or its hash."""
    secrets = [t for t in tokens if t]
    secrets += [hashlib.sha256(t.encode()).hexdigest() for t in secrets]
    assert len(secrets) >= 4
    plain = logging.Formatter()
    for record in caplog.records:
        text = plain.format(record) + json.dumps(getattr(record, "fields", None), default=str)
        leaked = [secret for secret in secrets if secret in text]
        assert not leaked, f"a token in a {record.name} record: {text}"


def play_one(stub: ms_grpc.MatchServiceStub, match_id: str, token: str) -> None:
    """A legal move of the token's seat, whose turn it is."""
    got = stub.GetMatch(ms.GetMatchRequest(match_id=match_id))
    state = replay(got.record)
    action = action_to_proto(state, state.legal_actions()[0]).action
    request = ms.SubmitActionRequest(
        match_id=match_id, expected_ply=got.match.view.ply, actions=[action]
    )
    stub.SubmitAction(request, metadata=[(SEAT, token)])


def wait_for_ply(stub: ms_grpc.MatchServiceStub, match_id: str, ply: int) -> None:
    watch = stub.WatchMatch(ms.WatchMatchRequest(match_id=match_id), timeout=30)
    for event in watch:
        if event.HasField("action") and event.ply == ply:
            break
    watch.cancel()


def test_a_match_logs_each_event_once_and_no_token(
    serve: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    served = serve(FAILING_BOTS, workers=1)
    stub = ms_grpc.MatchServiceStub(served.channel)
    seats = [
        ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN),
        ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="mcts:time=5"),
    ]
    created = stub.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=seats))
    match_id = created.match.match_id
    owner = created.owner_token
    joined = stub.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=0))
    # The owner retakes the seat: the first seat token stops working.
    retaken = stub.JoinMatch(
        ms.JoinMatchRequest(match_id=match_id, seat=0), metadata=[("meeple-owner-token", owner)]
    )
    with pytest.raises(grpc.RpcError):
        play_one(stub, match_id, joined.seat_token)  # a token in an error: not in the logs
    play_one(stub, match_id, retaken.seat_token)
    wait_for_ply(stub, match_id, 1)  # the bot's turn, given up and played by the fallback
    wait_for(caplog, match_id, "bot fallback played")
    stub.Resign(ms.ResignRequest(match_id=match_id), metadata=[(SEAT, retaken.seat_token)])
    wait_for(caplog, match_id, "match ended")

    found = events_of(caplog, match_id)
    assert {message: len(found[message]) for message in EVENTS} == dict.fromkeys(EVENTS, 1)
    [made], [began], [ended], [fallback] = (found[message] for message in EVENTS)
    assert made.levelno == began.levelno == ended.levelno == logging.INFO
    assert made.fields == {  # type: ignore[attr-defined]
        "match_id": match_id,
        "game": "othello",
        "seats": ["human", "bot:mcts:time=5"],
        "matchmade": False,
    }
    assert ended.fields["reason"] == "resigned"  # type: ignore[attr-defined]
    assert ended.fields["seat"] == 0  # type: ignore[attr-defined]
    assert ended.fields["outcome"] == "resigned"  # type: ignore[attr-defined]
    assert fallback.levelno == logging.WARNING
    details: dict[str, Any] = fallback.fields  # type: ignore[attr-defined]
    assert (details["ply"], details["seat"], details["attempts"]) == (1, 1, 2)
    assert "0.3 s" in details["reason"]
    check_no_token(caplog, [owner, joined.seat_token, retaken.seat_token])


def test_a_matchmade_match_logs_each_event_once_and_no_ticket_token(
    serve: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    """Two tickets make a match (no bot); a player resigns."""
    caplog.set_level(logging.DEBUG)
    served = serve(FAILING_BOTS, workers=1)
    tickets = mm_grpc.MatchmakingServiceStub(served.channel)
    made = [
        tickets.CreateTicket(
            mm.CreateTicketRequest(config=OTHELLO, player_ids=[name], seat_counts=[2]),
            metadata=served.bearer(name),
        )
        for name in ("ann", "bob")
    ]
    # Both watched at once: only tickets with an open WatchTicket are seated.
    streams = [
        tickets.WatchTicket(
            mm.WatchTicketRequest(ticket_id=ticket.ticket.ticket_id),
            metadata=[(TICKET, ticket.ticket_token)],
            timeout=20,
        )
        for ticket in made
    ]
    with ThreadPoolExecutor(len(streams)) as pool:
        assignments = [events[-1].assigned for events in pool.map(list, streams)]
    match_id = assignments[0].match_id
    seat_tokens = [seat.seat_token for a in assignments for seat in a.seats]
    stub = ms_grpc.MatchServiceStub(served.channel)
    stub.Resign(ms.ResignRequest(match_id=match_id), metadata=[(SEAT, seat_tokens[1])])
    wait_for(caplog, match_id, "match ended")

    found = events_of(caplog, match_id)
    counts = {message: len(found[message]) for message in EVENTS}
    assert counts == {**dict.fromkeys(EVENTS[:3], 1), "bot fallback played": 0}
    assert found["match created"][0].fields["matchmade"] is True  # type: ignore[attr-defined]
    check_no_token(caplog, [t.ticket_token for t in made] + seat_tokens)
