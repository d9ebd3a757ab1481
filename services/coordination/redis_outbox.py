"""The archive's outbox on Redis (see ``coordination.outbox``): streams
with the consumer group ``archivers``, each in the slot of the step that
writes it, so that the step and its entry are one script on a Cluster too:

- ``{<shard>}:archive`` (``shards.outbox_key``): the finished matches of
  the shard's matches, written by the commit script of the finishing
  change (``m``: the id, ``r``: the record, ``rated``: the flag beside it);
- ``{r:<game>}:archive``: the game's rating updates, written by the
  ratings' apply script (``m``, ``g``: the game, ``c``: JSON of each
  player's rating before and after).

Each stream has a marker key beside it (``…:archiving``), set by
``enable_outbox`` with an expiry: the scripts write entries only while it
exists, so every process of the Redis writes them (a worker whose bot
ends a match too) once one archiver runs, and none pile up where no
archive was ever configured.

A pull reads new entries of every stream without blocking (one pipeline on
one server; in parallel on a Cluster), and every ``CLAIM_SECONDS`` (or
half the visibility timeout, if shorter) claims entries another taker
left pending past the visibility timeout (XAUTOCLAIM). An acknowledged
entry is deleted. Receipts are the stream's index and the entry's id. A
Redis that comes back empty has lost the groups and the markers: the next
pull makes the groups again, the archiver's next renewal the markers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.exceptions import ResponseError

import engine_core
from services.coordination.matchmaking import PlayerRating
from services.coordination.outbox import OutboxEntry, RatingUpdate
from services.coordination.records import load_match
from services.coordination.redis_client import (
    create_group,
    group_gone,
    unavailable_on_connection_errors,
)
from services.coordination.redis_ratings import (
    rating_of,
    ratings_outbox_key,
    ratings_outbox_marker_key,
)
from services.coordination.shards import SHARDS, outbox_key, outbox_marker_key

ARCHIVERS = "archivers"
CLAIM_SECONDS = 5.0


GAMES = engine_core.registered_games()
STREAMS = (
    *(outbox_key(shard) for shard in range(SHARDS)),
    *(ratings_outbox_key(game) for game in GAMES),
)
MARKERS = (
    *(outbox_marker_key(shard) for shard in range(SHARDS)),
    *(ratings_outbox_marker_key(game) for game in GAMES),
)


def _rating(player_id: str, fields: Any) -> PlayerRating | None:
    return rating_of(player_id, fields) if fields else None  # cjson's false: none before


def entry_of(stream: int, entry_id: bytes, fields: dict[bytes, bytes]) -> OutboxEntry:
    receipt = f"{stream}/{entry_id.decode()}"
    queued_ms = int(entry_id.split(b"-")[0])
    if b"r" in fields:
        data = load_match(fields[b"r"])
        data.rated = data.rated or fields.get(b"rated") == b"1"
        return OutboxEntry(receipt, queued_ms, match=data)
    changes = json.loads(fields[b"c"])
    update = RatingUpdate(
        game=fields[b"g"].decode(),
        match_id=fields[b"m"].decode(),
        before=tuple(_rating(change["p"], change["b"]) for change in changes),
        after=tuple(_rating(change["p"], change["a"]) for change in changes),  # type: ignore[misc]
    )
    return OutboxEntry(receipt, queued_ms, ratings=update)


class RedisOutbox:
    """Mixed into RedisCoordination, which sets the client, its consumer
    name, the visibility timeout and ``_each``."""

    client: Any
    consumer: str
    visibility_timeout: float
    _each: Callable[[Sequence[Callable[[Any], Awaitable[Any]]]], Awaitable[list[Any]]]
    _next_outbox_claim = 0.0

    @unavailable_on_connection_errors
    async def enable_outbox(self, seconds: float) -> None:
        for stream in STREAMS:
            await create_group(self.client, stream, ARCHIVERS)
        milliseconds = max(1, round(seconds * 1000))
        await self._each([_command("set", marker, "1", None, milliseconds) for marker in MARKERS])

    @unavailable_on_connection_errors
    async def pull_outbox(self, limit: int) -> list[OutboxEntry]:
        try:
            return await self._pull_outbox(limit)
        except ResponseError as error:
            if not group_gone(error):
                raise
            for stream in STREAMS:  # Redis came back empty: read again next time
                await create_group(self.client, stream, ARCHIVERS)
            return []

    async def _pull_outbox(self, limit: int) -> list[OutboxEntry]:
        calls: list[Callable[[Any], Awaitable[Any]]] = []
        claiming = time.monotonic() >= self._next_outbox_claim
        if claiming:
            every = min(CLAIM_SECONDS, self.visibility_timeout / 2)
            self._next_outbox_claim = time.monotonic() + every
            idle_ms = round(self.visibility_timeout * 1000)
            calls += [_autoclaim(stream, self.consumer, idle_ms, limit) for stream in STREAMS]
        calls += [_read_new(stream, self.consumer, limit) for stream in STREAMS]
        answers = await self._each(calls)
        entries: list[OutboxEntry] = []
        if claiming:
            for index, (_, claimed, *_) in enumerate(answers[: len(STREAMS)]):
                entries += [entry_of(index, i, f) for i, f in claimed if f is not None]
            answers = answers[len(STREAMS) :]
        for index, answer in enumerate(answers):
            for _, read in answer or []:
                entries += [entry_of(index, i, f) for i, f in read if f is not None]
        return entries

    @unavailable_on_connection_errors
    async def ack_outbox(self, receipts: list[str]) -> None:
        by_stream: dict[int, list[str]] = {}
        for receipt in receipts:
            index, entry_id = receipt.split("/", 1)
            by_stream.setdefault(int(index), []).append(entry_id)
        calls: list[Callable[[Any], Awaitable[Any]]] = []
        for stream, ids in by_stream.items():
            calls += [_command("xack", STREAMS[stream], ARCHIVERS, *ids)]
            calls += [_command("xdel", STREAMS[stream], *ids)]
        if calls:
            await self._each(calls)

    @unavailable_on_connection_errors
    async def outbox_size(self) -> int:
        return sum(await self._each([_command("xlen", stream) for stream in STREAMS]))


def _command(name: str, *arguments: Any) -> Callable[[Any], Awaitable[Any]]:
    return lambda client: getattr(client, name)(*arguments)


def _autoclaim(stream: str, consumer: str, idle_ms: int, count: int) -> Callable[[Any], Any]:
    return lambda client: client.xautoclaim(
        stream, ARCHIVERS, consumer, idle_ms, start_id="0-0", count=count
    )


def _read_new(stream: str, consumer: str, count: int) -> Callable[[Any], Any]:
    return lambda client: client.xreadgroup(ARCHIVERS, consumer, {stream: ">"}, count=count)
