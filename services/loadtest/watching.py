"""Watching a match of a load test to its end: one stream per match,
whichever of the run's players hold its seats, playing those seats with
the project's bots and timing each turn as a player sees it; and the
spectators, timing each event's delivery."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from ai import make_bot
from services.convert import action_from_proto, action_to_proto, game_from_config
from services.loadtest.identities import Players
from services.loadtest.recorder import SPECTATOR_LAG, TURN, Recorder

SEAT_TOKEN = "meeple-seat-token"


@dataclass
class Client:
    """Stubs over one channel, and where the run's figures go."""

    matches: ms_grpc.MatchServiceAsyncStub
    tickets: mm_grpc.MatchmakingServiceAsyncStub
    recorder: Recorder
    bot_spec: str
    spectators: int
    seed: int
    players: Players
    # The matches this run watches, by id: one stream per match, whichever
    # of the run's tickets its seats went to.
    tables: dict[str, Table] = field(default_factory=dict)


async def sit(client: Client, game: str, match_id: str, tokens: dict[int, str]) -> None:
    """Plays ``tokens``'s seats of a match to its end: on the run's stream
    of that match if another of its tickets already watches it (so each
    match has one stream and is counted once), else on a new one."""
    table = client.tables.get(match_id)
    if table is not None:
        table.seat(tokens)
        await table.done.wait()
        return
    try:
        await watch_to_end(client, game, match_id, tokens)
    finally:
        client.tables.pop(match_id, None)


class Table:
    """A match this run watches: the seats it plays there (which other
    tickets of the run may add to while it runs) and a wake-up for the
    watcher when they do."""

    def __init__(self, tokens: dict[int, str]) -> None:
        self.tokens = dict(tokens)
        self.changed = asyncio.Event()
        self.done = asyncio.Event()

    def seat(self, tokens: dict[int, str]) -> None:
        self.tokens.update(tokens)
        self.changed.set()


async def watch_to_end(client: Client, game: str, match_id: str, tokens: dict[int, str]) -> None:
    """Follows the match's stream to its end, playing the seats in
    ``tokens`` with our bots; spectators watch alongside.

    Each move's turn is timed as a player sees it: a move of ours from
    sending it to its event on the stream; anyone else's (a server bot's,
    another player's) from the event before it to its own. Dice are not
    turns, and neither are the events the stream replays from before it
    opened."""
    table = client.tables.setdefault(match_id, Table(tokens))
    try:
        await Watcher(client, game, match_id, table).run()
    finally:
        table.done.set()


class Watcher:
    def __init__(self, client: Client, game: str, match_id: str, table: Table) -> None:
        self.client, self.game, self.match_id, self.table = client, game, match_id, table
        self.rules: Any = None
        self.state: Any = None
        self.bots: dict[int, Any] = {}
        self.rng = random.Random(client.seed)
        self.submitted: dict[int, float] = {}  # ply -> when we sent its move
        self.opened_at = 0  # the match's ply when the stream opened
        self.last_seen = time.perf_counter()

    async def run(self) -> None:
        client = self.client
        spectators = [
            asyncio.get_running_loop().create_task(spectate(client, self.game, self.match_id))
            for _ in range(client.spectators)
        ]
        events: asyncio.Queue[Any] = asyncio.Queue()
        stream = client.matches.WatchMatch(ms.WatchMatchRequest(match_id=self.match_id))

        async def read() -> None:
            try:
                async for event in stream:
                    events.put_nowait((event, time.perf_counter()))
            finally:
                events.put_nowait(None)  # the stream's end

        async def seated() -> None:
            while True:
                await self.table.changed.wait()
                self.table.changed.clear()
                events.put_nowait(SEATED)

        reader = asyncio.create_task(read())
        waker = asyncio.create_task(seated())
        try:
            while (item := await events.get()) is not None:
                if item is not SEATED:
                    self.see(*item)
                await self.act()
            await reader  # the stream's error, if it ended in one
        finally:
            reader.cancel()
            waker.cancel()
            await asyncio.gather(*spectators, return_exceptions=True)

    def see(self, event: Any, now: float) -> None:
        """Takes in one event of the stream, which arrived at ``now``."""
        recorder, game = self.client.recorder, self.game
        if event.HasField("snapshot"):
            recorder.record("WatchMatch", now - self.last_seen, game)
            self.rules = game_from_config(event.snapshot.config)
            self.state = self.rules.new_initial_state()
            self.opened_at = event.ply
            self.last_seen = now
        elif event.HasField("started"):
            self.last_seen = now
        elif event.HasField("action"):
            state = self.state
            ply = len(state.history())
            if ply >= self.opened_at and not state.is_chance_node():
                sent = self.submitted.get(ply)
                recorder.record(TURN, now - (self.last_seen if sent is None else sent), game)
            state.apply_action(action_from_proto(state, event.action.action.action))
            self.last_seen = now
        elif event.HasField("ended"):
            # The stream ends right after (WatchMatch streams until the match
            # ends): read on to its end, so the server has counted the call
            # before the report's last scrape.
            recorder.finished(self.match_id, event.ply, game)

    async def act(self) -> None:
        state = self.state
        if state is None or state.is_terminal() or state.is_chance_node():
            return
        seat, ply = state.current_player(), len(state.history())
        token = self.table.tokens.get(seat)
        if token is None or ply < self.opened_at or ply in self.submitted:
            return
        if seat not in self.bots:
            self.bots[seat] = make_bot(
                self.rules, self.client.bot_spec, seed=self.rng.getrandbits(32)
            )
        action = action_to_proto(state, self.bots[seat].choose(state.clone())).action
        request = ms.SubmitActionRequest(match_id=self.match_id, expected_ply=ply, actions=[action])
        self.submitted[ply] = time.perf_counter()
        call = self.client.matches.SubmitAction(request, metadata=((SEAT_TOKEN, token),))
        await self.client.recorder.timed("SubmitAction", call, self.game)


SEATED = object()  # a Watcher's wake-up: the run holds more of the match's seats


async def spectate(client: Client, game: str, match_id: str) -> None:
    """A spectator: its delay is when each event arrives minus when the
    server stored it."""
    recorder = client.recorder
    stream = client.matches.WatchMatch(ms.WatchMatchRequest(match_id=match_id))
    async for event in stream:
        if event.HasField("time"):
            delay = time.time() - event.time.ToMilliseconds() / 1000
            recorder.record(SPECTATOR_LAG, max(0.0, delay), game)
    # Read to the stream's end, which follows the match's (the server has
    # then counted the call, and the report's last scrape sees it).
