"""A spectator: a live match picked from ListMatches (of one of the games,
at random), watched from its current ply to its end. Each event stored
after the stream opened is reported with its delivery lag: its arrival
minus the server's time on it (``WatchMatchResponse.time``; across machines
it includes their clocks' difference)."""

from __future__ import annotations

import time

import gevent  # type: ignore[import-untyped]
import grpc
from meeple.v1 import match_service_pb2 as ms

from services.loadtest.locust.playing import Client
from services.loadtest.locust.reporting import GRPC, SPECTATE, failure_of
from services.loadtest.players import GAMES

IDLE_SECONDS = 0.2  # the wait when no match of the game is playing


def spectate(client: Client) -> None:
    game = client.rng.choice(client.options.games)
    listing = ms.ListMatchesRequest(kind=GAMES[game].kind, page_size=20)
    listed = client.reporter.call(
        "ListMatches", client.matches.ListMatches, listing, timeout=client.options.rpc_timeout
    )
    if not listed.matches:
        gevent.sleep(IDLE_SECONDS)
        return
    match = client.rng.choice(list(listed.matches))
    request = ms.WatchMatchRequest(match_id=match.match_id, from_ply=match.view.ply)
    opened = time.perf_counter()
    stream = client.matches.WatchMatch(request, timeout=client.options.match_timeout)
    live_from: int | None = None  # the snapshot's ply: events before it are replays
    try:
        for event in stream:
            if event.HasField("snapshot"):
                client.reporter.report(GRPC, "WatchMatch", time.perf_counter() - opened)
                live_from = event.ply
                continue
            replayed = event.HasField("action") and event.ply < (live_from or 0)
            if event.HasField("time") and not replayed:
                lag = time.time() - event.time.ToMilliseconds() / 1000
                client.reporter.report(SPECTATE, game, lag)
    except grpc.RpcError as error:
        failure = failure_of(error)
        kind, name = (GRPC, "WatchMatch") if live_from is None else (SPECTATE, game)
        client.reporter.report(kind, name, time.perf_counter() - opened, failure=failure)
    finally:
        stream.cancel()
