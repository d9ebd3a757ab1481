"""The Locust users: each plays whole matches over the public gRPC API, one
after another, with players of its own (guests it signs in as it starts),
over a channel of its own to ``--host``:

- ``ServerBotsUser``: a match of server bot seats (unpaced), watched to its end;
- ``ClientBotsUser``: a match of human seats, each joined by one of its
  players and played by the project's bots;
- ``MatchmakingUser``: one ticket per seat, then the seats played wherever
  they land;
- ``SpectatorUser``: watches live matches (ListMatches, WatchMatch).

Each match is one request of type ``match`` (named by its game, its length
the plies), a failed one carrying the code of what failed it."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator

import gevent  # type: ignore[import-untyped]
from locust import User, constant, task
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.loadtest.identities import Player
from services.loadtest.locust import gevent_grpc, seating, sessions
from services.loadtest.locust.options import Options
from services.loadtest.locust.playing import Client, Table, follow
from services.loadtest.locust.reporting import MATCH, Failure, Reporter
from services.loadtest.locust.spectating import spectate
from services.loadtest.players import SEATS

RETRY_SECONDS = 1.0  # after a sign-in refused, before the user tries again


class MeepleUser(User):
    """What every user has: its channel, stubs, options and players."""

    abstract = True
    wait_time = constant(0)  # closed loop: the next match as the last ends

    def on_start(self) -> None:
        self.channel = gevent_grpc.open_channel(self.host)
        self.reporter = Reporter(self.environment)
        self.auth = auth_grpc.AuthServiceStub(self.channel)
        self.players: list[Player] = []
        self.rng = random.Random()
        self.client = self.new_client()
        self._games: Iterator[str] = iter(())
        self._games_of: tuple[str, ...] = ()

    def on_stop(self) -> None:
        self.channel.close()

    def new_client(self) -> Client:
        """Options read anew (the web UI may change them between runs)."""
        return Client(
            ms_grpc.MatchServiceStub(self.channel),
            mm_grpc.MatchmakingServiceStub(self.channel),
            self.reporter,
            Options.of(self.environment.parsed_options),
            self.rng,
        )

    def next_game(self) -> str:
        games = self.client.options.games
        if games != self._games_of:  # each user starts at a game of its own
            start = self.rng.randrange(len(games))
            self._games = itertools.cycle(games[start:] + games[:start])
            self._games_of = games
        return next(self._games)

    def players_needed(self) -> int:
        return max(SEATS[game] for game in self.client.options.games)

    def ready(self) -> bool:
        """Whether the user has its players, signed in and fresh."""
        timeout = self.client.options.rpc_timeout
        try:
            missing = self.players_needed() - len(self.players)
            if missing > 0:
                self.players += sessions.sign_in(self.auth, self.reporter, missing, timeout)
            sessions.renew_due(self.auth, self.reporter, self.players, timeout)
        except Failure:
            gevent.sleep(RETRY_SECONDS)
            return False
        return True

    def play(self, seat: Callable[[Client, str], tuple[list[Table], Failure | None]]) -> None:
        """A match (or the matches our tickets landed at), seated by ``seat``,
        each reported as a request of type ``match``."""
        self.client = self.new_client()
        game = self.next_game()
        if not self.ready():
            return
        began = time.perf_counter()
        try:
            tables, failure = seat(self.client, game)
        except Failure as failed:
            self.reporter.report(MATCH, game, time.perf_counter() - began, failure=failed)
            return

        def one(table: Table) -> None:
            try:
                plies = follow(self.client, table)
            except Failure as failed:
                self.reporter.report(MATCH, game, time.perf_counter() - began, failure=failed)
                return
            if table.reports:
                self.reporter.report(MATCH, game, time.perf_counter() - began, plies)

        if len(tables) == 1:
            one(tables[0])
        else:
            gevent.joinall([gevent.spawn(one, table) for table in tables])
        if failure is not None:
            self.reporter.report(MATCH, game, time.perf_counter() - began, failure=failure)


def alone(table: Table) -> tuple[list[Table], Failure | None]:
    return [table], None


class ServerBotsUser(MeepleUser):
    """CreateMatch with server bot seats (bot_pace 0), WatchMatch to the end."""

    def players_needed(self) -> int:
        return 1  # the match's creator

    @task
    def server_bots_match(self) -> None:
        self.play(
            lambda client, game: alone(seating.with_server_bots(client, game, self.players[0]))
        )


class ClientBotsUser(MeepleUser):
    """A match of human seats, each joined by its own player (JoinMatch) and
    played with our bots (SubmitAction)."""

    @task
    def client_bots_match(self) -> None:
        self.play(lambda client, game: alone(seating.by_joins(client, game, self.players)))


class MatchmakingUser(MeepleUser):
    """One ticket per seat (CreateTicket, WatchTicket), then the seats played."""

    @task
    def matchmaking_match(self) -> None:
        self.play(lambda client, game: seating.by_tickets(client, game, self.players))


class SpectatorUser(MeepleUser):
    """Watches live matches, reporting each event's delivery lag."""

    def players_needed(self) -> int:
        return 0  # ListMatches and WatchMatch need no identity

    @task
    def watch_a_match(self) -> None:
        self.client = self.new_client()
        spectate(self.client)


__all__ = ["ClientBotsUser", "MatchmakingUser", "ServerBotsUser", "SpectatorUser"]
