"""Coordination on Redis or Redis Cluster: any number of service and worker
processes share matches, events and bot jobs.

Keys (``shards``: a match lives in one of 16 shards, each a hash tag
``{meeple:<k>:<n>}`` of its own, whose slots spread over a Cluster):

- ``{<shard>}:m:<id>``: a hash with the record's ``version``, the ``record``
  (JSON), its ``status`` and the ``rated`` flag; ``{<shard>}:e:<id>``: the
  match's event stream, each entry's id ``<ply + 1>-<n>`` so a watcher reads
  from a ply with XRANGE and waits with XREAD BLOCK.
- ``{<shard>}:jobs`` (a stream with the consumer group ``workers``),
  ``{<shard>}:delayed`` (a sorted set of retries by due time) and
  ``{<shard>}:dead`` (the recent dead letters): see ``redis_jobs``.
- ``{<shard>}:archive``: the archive's outbox of the shard's finished
  matches, written while ``{<shard>}:archiving`` exists (``redis_outbox``).
- ``meeple:deadlines``: a sorted set of match ids by clock deadline.
- ``meeple:live``: a sorted set of the playing matches' ids by when they
  started. A write that changes a match's status (the commit script returns
  the one it replaced) updates it just after the commit; a crash between
  the two leaves an entry that ``live_matches`` drops when it meets it, or
  leaves a match unlisted (it can still be watched by its id).

One script commits a change: it compare-and-sets the record, appends its
events, sets their expiry, acknowledges the job the change plays and
queues the one it makes due (with the record, so the worker that pulls it
reads nothing more), and for a change that finishes the match writes its
archive outbox entry, all in the match's slot. A clock deadline and a rated
match's result live in other slots: on one server the same script writes
them; on a Cluster they are written *ahead* of the commit, so a change
never commits without them (a result whose change lost its race is
deleted again, or found stale by the rater after a crash). A deadline
entry that no longer holds is corrected by ``due_matches``.

Connection errors retry with exponential backoff and jitter; once the
retries are spent a call raises ``Unavailable`` (UNAVAILABLE to clients),
as does every failure of a Cluster's topology (a master restarting:
``redis_client.is_connection_error``).
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from meeple.v1 import match_service_pb2 as ms

from services.coordination.base import (
    JOB_LEASE_SECONDS,
    BotJob,
    Event,
    EventBatch,
    MatchData,
)
from services.coordination.memory import wall_ms
from services.coordination.records import dump_job, dump_match, load_match
from services.coordination.redis_client import (
    CLUSTER_SCHEMES,
    connect,
    unavailable_on_connection_errors,
)
from services.coordination.redis_jobs import GROUP, RedisJobs, split_receipt
from services.coordination.redis_matchmaking import RedisMatchmaking
from services.coordination.redis_outbox import RedisOutbox
from services.coordination.redis_ratings import RESULTS, RedisRatings
from services.coordination.shards import (
    data_key,
    events_key,
    jobs_key,
    outbox_key,
    outbox_marker_key,
    shard_of,
)

DEADLINES = "meeple:deadlines"
LIVE = "meeple:live"
PLAYING = str(ms.MATCH_STATUS_PLAYING)
BEFORE_ANY_SEQUENCE = 2**64 - 1  # "<ply>-<this>" sorts before every id of ply + 1
__all__ = ["GROUP", "RedisCoordination", "data_key", "events_key"]

# Commits a change: KEYS data, events, the shard's job stream, the shard's
# archive outbox and its marker (while it exists, a change that finishes
# the match writes its outbox entry), and on one server (not a Cluster:
# other slots) the deadlines and the results; ARGV 1 expected version
# ("new" for a new match), 2 new version, 3 record, 4 expiry (ms, 0 for
# none), 5 status, 6 the entry id of the job the change plays ("" for
# none), 7 "result" (its result is queued for the ratings: ahead on a
# Cluster, by the script on one server), "end" (it finishes the match,
# whose copy the caller has is not rated) or "", 8 its clock deadline (ms,
# 0 for none), 9 the match id, 10 how many fields the job it queues has (0:
# none), then those fields and values, then each event's ply and payload.
# Returns the status it replaced ("" for a new match); nil when the version
# did not match. On a Cluster, "rated" (and nothing changes) when the
# change ends a match marked rated with no result queued (the caller's copy
# predates the mark: it writes the result ahead and commits again); on one
# server the script queues that result itself. The same write again (a
# retry whose first answer was lost with its connection) finds itself
# stored and returns its own status, changing nothing.
COMMIT = """
local current = redis.call('HMGET', KEYS[1], 'version', 'status', 'rated')
if current[1] == ARGV[2] and redis.call('HGET', KEYS[1], 'record') == ARGV[3] then
  return ARGV[5]
end
if ARGV[1] == 'new' then
  if current[1] then return false end
elseif current[1] ~= ARGV[1] then
  return false
end
local marked_end = ARGV[7] == 'end' and current[2] ~= ARGV[5] and current[3] == '1'
local one_server = #KEYS == 7
if marked_end and not one_server then return 'rated' end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3], 'status', ARGV[5])
local fields = tonumber(ARGV[10])
local first_event = 11 + 2 * fields
for i = first_event, #ARGV, 2 do
  redis.call('XADD', KEYS[2], (tonumber(ARGV[i]) + 1) .. '-*', 'e', ARGV[i + 1])
end
local expires = tonumber(ARGV[4])
if expires > 0 then
  redis.call('PEXPIREAT', KEYS[1], expires)
  redis.call('PEXPIREAT', KEYS[2], expires)
else
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
end
if ARGV[6] ~= '' then
  redis.call('XACK', KEYS[3], 'workers', ARGV[6])
  redis.call('XDEL', KEYS[3], ARGV[6])
end
if fields > 0 then
  local job = {unpack(ARGV, 11, first_event - 1)}
  table.insert(job, 'record')
  table.insert(job, ARGV[3])
  table.insert(job, 'rated')
  table.insert(job, current[3] or '0')
  redis.call('XADD', KEYS[3], '*', unpack(job))
end
if ARGV[7] ~= '' and current[2] ~= ARGV[5] and redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('XADD', KEYS[4], '*', 'm', ARGV[9], 'r', ARGV[3], 'rated', current[3] or '0')
end
if one_server then
  if tonumber(ARGV[8]) > 0 then redis.call('ZADD', KEYS[6], 'LT', ARGV[8], ARGV[9]) end
  if ARGV[7] == 'result' or marked_end then
    redis.call('XADD', KEYS[7], '*', 'm', ARGV[9], 'v', ARGV[2])
  end
end
return current[2] or ''
"""

# Marks a match rated in a field of its own: KEYS data.
MARK_RATED = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'rated', '1') end
return 0
"""


def event_cursor(ply: int) -> str:
    """The stream id just before the first event of ``ply``."""
    return f"{ply}-{BEFORE_ANY_SEQUENCE}"


class RedisCoordination(RedisJobs, RedisMatchmaking, RedisRatings, RedisOutbox):
    """The coordination interface, the matchmaking store and the
    archive's outbox on Redis (``await store.start()`` first)."""

    def __init__(
        self,
        url: str,
        visibility_timeout: float = 60.0,
        clock_ms: Callable[[], int] = wall_ms,
        lease: float = JOB_LEASE_SECONDS,
    ) -> None:
        self.url = url
        self.cluster = urlsplit(url).scheme in CLUSTER_SCHEMES
        self.visibility_timeout = visibility_timeout
        self.job_lease = min(lease, visibility_timeout)
        self._now_ms = clock_ms
        self.client = connect(url)
        self.consumer = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._commit = self.client.register_script(COMMIT)
        self._mark_rated = self.client.register_script(MARK_RATED)
        self._register_job_scripts()
        self._register_matchmaking_scripts()
        self._register_rating_scripts()

    @unavailable_on_connection_errors
    async def start(self) -> None:
        """Creates the job streams' consumer groups if they are not there yet."""
        await self._create_job_groups()
        await self._create_results_group()

    async def close(self) -> None:
        await self.client.aclose()

    # --- matches -----------------------------------------------------------------

    async def create(self, data: MatchData, events: list[Event], job: BotJob | None) -> None:
        if not await self._write(data, "new", events, job):
            raise ValueError(f"match {data.match_id} exists already")

    async def compare_and_set(
        self,
        data: MatchData,
        expected_version: int,
        events: list[Event],
        job: BotJob | None,
        result: bool = False,
        settles: str | None = None,
    ) -> bool:
        return await self._write(data, str(expected_version), events, job, result, settles)

    @unavailable_on_connection_errors
    async def delete(self, match_id: str) -> None:
        await self.client.delete(data_key(match_id))
        await self.client.delete(events_key(match_id))
        await self.client.zrem(LIVE, match_id)

    @unavailable_on_connection_errors
    async def live_matches(self, start: int, count: int) -> tuple[list[MatchData], int]:
        ids = await self.client.zrevrange(LIVE, start, start + count - 1)
        live = []
        for raw in ids:
            data = await self.load(raw.decode())
            if data is not None and data.status == ms.MATCH_STATUS_PLAYING:
                live.append(data)
            else:  # left by a crash between a commit and this index
                await self.client.zrem(LIVE, raw)
        return live, start + len(ids)

    @unavailable_on_connection_errors
    async def _write(
        self,
        data: MatchData,
        expected: str,
        events: list[Event],
        job: BotJob | None,
        result: bool = False,
        settles: str | None = None,
    ) -> bool:
        match_id = data.match_id
        shard = shard_of(match_id)
        entry = ""
        if settles is not None:
            settled_shard, entry = split_receipt(settles)
            if settled_shard != shard:
                raise ValueError(f"the delivery {settles} is not of match {match_id}'s shard")
        status = str(data.status)
        fields = dump_job(job) | {"attempts": "0"} if job is not None else {}
        keys = [data_key(match_id), events_key(match_id), jobs_key(shard)]
        keys += [outbox_key(shard), outbox_marker_key(shard)]
        if not self.cluster:
            keys += [DEADLINES, RESULTS]
        finished = data.status == ms.MATCH_STATUS_FINISHED
        while True:
            arguments: list[Any] = [expected, data.version, dump_match(data), data.expires_ms]
            end = "result" if result else "end" if finished else ""
            arguments += [status, entry, end, data.deadline_ms, match_id, len(fields)]
            for name, value in fields.items():
                arguments += [name, value]
            for event in events:
                arguments += [event.ply, event.payload]
            replaced, queued_result = await self._commit_with(data, result, keys, arguments)
            if replaced != b"rated":
                break
            result = True  # marked rated since the caller read it: its result goes ahead
        stored = replaced is not None
        if stored and settles is not None:
            self._held.pop(settles, None)  # acknowledged with the write
        if stored and replaced.decode() != status and PLAYING in (status, replaced.decode()):
            if status == PLAYING:  # it started
                await self.client.zadd(LIVE, {match_id: self._now_ms()})
            else:
                await self.client.zrem(LIVE, match_id)
        if not stored and queued_result is not None:
            await self.client.xdel(RESULTS, queued_result)
        # A deadline that no longer holds stays in the index until it comes
        # due; due_matches drops it then, so no change pays to remove it.
        return stored

    async def _commit_with(
        self, data: MatchData, result: bool, keys: list[str], arguments: list[Any]
    ) -> tuple[Any, bytes | None]:
        """The commit script's answer, and the stream id of a result written
        ahead of it (None: none). On one server the script writes the
        deadline and the result itself. On a Cluster they live on other
        masters, so they are written just before it: the result of a rated
        match it finishes, and a clock deadline (which only ever moves
        earlier here, so a change that loses its race cannot hide the real
        one; due_matches corrects entries that are early)."""
        if not self.cluster or (not result and not data.deadline_ms):
            return await self._commit(keys=keys, args=arguments), None
        async with self.client.pipeline(transaction=False) as pipe:
            if result:
                pipe.xadd(RESULTS, {"m": data.match_id, "v": data.version})
            if data.deadline_ms:
                pipe.zadd(DEADLINES, {data.match_id: data.deadline_ms}, lt=True)
            answers = await pipe.execute()
        return await self._commit(keys=keys, args=arguments), answers[0] if result else None

    @unavailable_on_connection_errors
    async def load(self, match_id: str) -> MatchData | None:
        raw, rated = await self.client.hmget(data_key(match_id), ["record", "rated"])
        if raw is None:
            return None
        data = load_match(raw)
        data.rated = data.rated or rated is not None
        return data

    @unavailable_on_connection_errors
    async def mark_rated(self, match_id: str) -> None:
        await self._mark_rated(keys=[data_key(match_id)])

    @unavailable_on_connection_errors
    async def match_count(self) -> int:
        count = 0
        async for _ in self.client.scan_iter(match="{meeple:*}:m:*", count=1000):
            count += 1
        return count

    @unavailable_on_connection_errors
    async def due_matches(self, now_ms: int, limit: int) -> list[str]:
        due = []
        ids = await self.client.zrangebyscore(DEADLINES, "-inf", now_ms, start=0, num=limit)
        for raw in ids:
            match_id = raw.decode()
            data = await self.load(match_id)
            if data is None or not data.deadline_ms:
                await self.client.zrem(DEADLINES, match_id)
            elif data.deadline_ms <= now_ms:
                due.append(match_id)
            else:  # an entry written ahead of a change that moved the deadline
                await self.client.zadd(DEADLINES, {match_id: data.deadline_ms})
        return due

    # --- events ------------------------------------------------------------------

    @unavailable_on_connection_errors
    async def read_events(self, match_id: str, from_ply: int) -> EventBatch:
        entries = await self.client.xrange(events_key(match_id), min=f"{from_ply + 1}-0")
        return self._batch(entries, event_cursor(from_ply))

    @unavailable_on_connection_errors
    async def wait_events(self, match_id: str, cursor: str, timeout: float) -> EventBatch:
        block = max(1, round(timeout * 1000))
        answer = await self.client.xread({events_key(match_id): cursor}, block=block)
        entries = answer[0][1] if answer else []
        return self._batch(entries, cursor)

    @staticmethod
    def _batch(entries: list[tuple[bytes, dict[bytes, bytes]]], cursor: str) -> EventBatch:
        events = []
        for entry_id, fields in entries:
            cursor = entry_id.decode()
            events.append(Event(int(cursor.split("-")[0]) - 1, fields[b"e"]))
        return EventBatch(events, cursor)
