"""One match followed to its end over WatchMatch, the seats we hold played
by the project's own bots (``ai.make_bot``, as ``meeple loadtest`` does):
each SubmitAction is sent from a greenlet of its own while the stream is
read on, so that an event's arrival is timed as it comes.

The follower that reports a match (one per match: the only one, or the
holder of seat 0 under matchmaking) reports each action event as a turn,
named ``GAME KIND``: ``ours`` (a move we submitted: from sending
SubmitAction to its event), ``bot`` (a server bot's), ``dice`` (a chance
outcome), ``other`` (another client's seat), each of those timed from the
previous event's arrival, or ``replayed`` (played before the stream opened,
sent at once with it)."""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any

import gevent  # type: ignore[import-untyped]
import gevent.pool  # type: ignore[import-untyped]
import grpc
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from ai import make_bot
from services.client import SEAT_TOKEN_METADATA
from services.convert import action_from_proto, action_to_proto, game_from_config
from services.loadtest.locust.options import Options
from services.loadtest.locust.reporting import GRPC, TURN, Failure, Reporter, failure_of

log = logging.getLogger("meeple.locust")


@dataclass
class Client:
    """A user's stubs (over its own channel), where its figures go, and its
    options and randomness."""

    matches: ms_grpc.MatchServiceStub
    tickets: mm_grpc.MatchmakingServiceStub
    reporter: Reporter
    options: Options
    rng: random.Random


@dataclass
class Table:
    """The seats we hold at one match, and whether we report it."""

    match_id: str
    game: str
    tokens: dict[int, str] = field(default_factory=dict)
    reports: bool = True


class Submissions:
    """Our SubmitActions in flight, each in a greenlet of its own; one that
    fails ends the stream (the match cannot go on without that move)."""

    def __init__(self, client: Client, table: Table, stream: Any) -> None:
        self.client, self.table, self.stream = client, table, stream
        self.sent: dict[int, float] = {}  # ply -> when its SubmitAction was sent
        self.failure: Failure | None = None
        self._group = gevent.pool.Group()

    def submit(self, ply: int, seat: int, action: Any) -> None:
        request = ms.SubmitActionRequest(
            match_id=self.table.match_id, expected_ply=ply, actions=[action]
        )
        metadata = ((SEAT_TOKEN_METADATA, self.table.tokens[seat]),)
        self.sent[ply] = time.perf_counter()
        self._group.spawn(self._send, request, metadata)

    def _send(self, request: ms.SubmitActionRequest, metadata: Any) -> None:
        client = self.client
        try:
            client.reporter.call(
                "SubmitAction",
                client.matches.SubmitAction,
                request,
                metadata=metadata,
                timeout=client.options.rpc_timeout,
            )
        except Failure as failure:
            self.failure = failure
            self.stream.cancel()
        except Exception as error:  # a bug of ours: the match fails saying so
            log.exception("SubmitAction")
            self.failure = Failure(type(error).__name__, str(error))
            self.stream.cancel()

    def join(self) -> None:
        self._group.join(timeout=self.client.options.rpc_timeout)


class Follower:
    """The state of one match as its stream tells it."""

    def __init__(self, client: Client, table: Table, submissions: Submissions) -> None:
        self.client, self.table, self.submissions = client, table, submissions
        self.state: Any = None
        self.bots: dict[int, Any] = {}
        self.bot_seats: set[int] = set()
        self.replayed_until = 0  # the match's ply when the stream opened
        self.pending: int | None = None  # the ply of our last submission
        self.last = time.perf_counter()  # the previous event's arrival

    def snapshot(self, event: ms.WatchMatchResponse) -> None:
        game = game_from_config(event.snapshot.config)
        self.state = game.new_initial_state()
        self.replayed_until = event.ply
        self.bot_seats = {
            seat.index for seat in event.snapshot.seats if seat.kind == ms.SEAT_KIND_BOT
        }
        spec, rng = self.client.options.bot_spec, self.client.rng
        self.bots = {
            seat: make_bot(game, spec, seed=rng.getrandbits(32)) for seat in self.table.tokens
        }

    def action(self, event: ms.WatchMatchResponse, arrived: float) -> None:
        played = event.action
        self.state.apply_action(action_from_proto(self.state, played.action.action))
        sent = self.submissions.sent.pop(event.ply, None)
        if not self.table.reports:
            return
        if event.ply < self.replayed_until:
            kind, began = "replayed", self.last
        elif sent is not None:
            kind, began = "ours", sent
        elif not played.HasField("seat"):
            kind, began = "dice", self.last
        elif played.seat in self.bot_seats:
            kind, began = "bot", self.last
        else:
            kind, began = "other", self.last
        self.client.reporter.report(TURN, f"{self.table.game} {kind}", arrived - began)

    def act(self) -> None:
        """Submits our bot's move when the seat to act is ours, once caught up."""
        state = self.state
        if state is None or state.is_terminal() or state.is_chance_node():
            return
        seat = state.current_player()
        ply = len(state.history())
        if seat in self.bots and ply >= self.replayed_until and self.pending != ply:
            self.pending = ply
            action = action_to_proto(state, self.bots[seat].choose(state.clone())).action
            self.submissions.submit(ply, seat, action)


def follow(client: Client, table: Table) -> int:
    """Watches ``table``'s match to its end, playing our seats: its plies
    (the actions its end event counts). Failure when the stream, one of our
    moves or the deadline (--meeple-match-timeout) fails it."""
    request = ms.WatchMatchRequest(match_id=table.match_id)
    opened = time.perf_counter()
    stream = client.matches.WatchMatch(request, timeout=client.options.match_timeout)
    submissions = Submissions(client, table, stream)
    follower = Follower(client, table, submissions)
    plies: int | None = None
    try:
        for event in stream:
            arrived = time.perf_counter()
            if event.HasField("snapshot"):
                client.reporter.report(GRPC, "WatchMatch", arrived - opened)
                follower.snapshot(event)
            elif event.HasField("action"):
                follower.action(event, arrived)
            elif event.HasField("ended"):
                # The stream ends right after: read on to its end, so the
                # server has counted the call.
                plies = event.ply
            follower.last = arrived
            if plies is None:
                follower.act()
    except grpc.RpcError as error:
        if submissions.failure is not None:
            raise submissions.failure from None
        failure = failure_of(error)
        if follower.state is None:  # no first message: WatchMatch itself failed
            client.reporter.report(
                GRPC, "WatchMatch", time.perf_counter() - opened, failure=failure
            )
        raise failure from None
    finally:
        stream.cancel()  # a no-op once it ended; else (killed at the stop) frees it
    submissions.join()
    if submissions.failure is not None:
        raise submissions.failure
    if plies is None:
        raise Failure("STREAM_ENDED", f"WatchMatch {table.match_id} ended before the match")
    return plies
