"""Coordination on Redis or Redis Cluster: any number of service and worker
processes share matches, events and bot jobs.

Keys:

- ``{m:<id>}:data``: a hash with the record's ``version`` and the ``record``
  (JSON); ``{m:<id>}:events``: the match's event stream, each entry's id
  ``<ply + 1>-<n>`` so a watcher reads from a ply with XRANGE and waits with
  XREAD BLOCK. One hash tag per match: both keys sit in one Cluster slot, so
  one Lua script compare-and-sets the record, appends its events and sets
  their expiry atomically.
- ``{meeple:jobs}:stream`` (a stream with the consumer group ``workers``),
  ``{meeple:jobs}:delayed`` (a sorted set of retries by due time) and
  ``{meeple:jobs}:dead`` (the recent dead letters): one hash tag, so moving a
  job between them is one script.
- ``meeple:deadlines``: a sorted set of match ids by clock deadline.
- ``meeple:live``: a sorted set of the playing matches' ids by when they
  started. A write that changes a match's status (the commit script returns
  the one it replaced) updates it just after the commit; a crash between
  the two leaves an entry that ``live_matches`` drops when it meets it, or
  leaves a match unlisted (it can still be watched by its id).

A bot job and a deadline are written *ahead* of the compare-and-set that
makes them due (they live in other slots, so no one script can write both on
a Cluster). A change therefore never commits without its job; a job whose
change lost its race is found stale by the worker (``BotJob.version`` is
newer than the record for a while, then older) and dropped.

Connection errors retry with exponential backoff and jitter; once the
retries are spent a call raises ``Unavailable`` (UNAVAILABLE to clients),
as does every failure of a Cluster's topology (a master restarting:
``redis_client.is_connection_error``).

A worker holds a job it took for a lease (``job_lease``, a few seconds):
XAUTOCLAIM hands a pending job to another worker once it has been idle that
long, and a worker alive and working on a job renews the lease with
``extend_job`` (an XCLAIM JUSTID of its own pending entry, which resets the
entry's idle time without counting a delivery), up to the visibility
timeout after the delivery (the last renewal sets the idle time so that the
lease lapses then). A worker that dies stops renewing: its jobs come back
after one lease, not after the visibility timeout.

A Redis that comes back empty (restarted without persistence) has lost the
consumer groups with everything else: a read of the job stream that finds
its group gone (NOGROUP) makes it again, and one warning says so.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable
from typing import Any

from meeple.v1 import match_service_pb2 as ms
from redis.exceptions import ResponseError

from services.coordination.base import (
    JOB_LEASE_SECONDS,
    BotJob,
    DeadLetter,
    Delivery,
    Event,
    EventBatch,
    MatchData,
)
from services.coordination.memory import wall_ms
from services.coordination.records import dump_job, dump_match, load_job, load_match
from services.coordination.redis_client import (
    connect,
    create_group,
    group_gone,
    in_group,
    recreate_group,
    unavailable_on_connection_errors,
)
from services.coordination.redis_matchmaking import RESULTS, RedisMatchmaking

JOBS = "{meeple:jobs}:stream"
DELAYED = "{meeple:jobs}:delayed"
DEAD = "{meeple:jobs}:dead"
GROUP = "workers"
DEADLINES = "meeple:deadlines"
LIVE = "meeple:live"
PLAYING = str(ms.MATCH_STATUS_PLAYING)
KEEP_DEAD_LETTERS = 100
BEFORE_ANY_SEQUENCE = 2**64 - 1  # "<ply>-<this>" sorts before every id of ply + 1
PULL_SLICE_SECONDS = 0.1  # a pull checks for due retries and lost jobs this often
ORPHAN_CHECK_SECONDS = 2.0

# Compare-and-set of a record with its events: KEYS data, events; ARGV
# expected version ("new" for a new match), new version, record, expiry (ms,
# 0 for none), status, then each event's ply and payload. Returns the status
# it replaced ("" for a new match), or nil when the version did not match.
# The same write again (a retry whose first answer was lost with its
# connection) finds itself stored and returns its own status, changing nothing.
COMMIT = """
local current = redis.call('HMGET', KEYS[1], 'version', 'status')
if current[1] == ARGV[2] and redis.call('HGET', KEYS[1], 'record') == ARGV[3] then
  return ARGV[5]
end
if ARGV[1] == 'new' then
  if current[1] then return false end
elseif current[1] ~= ARGV[1] then
  return false
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3], 'status', ARGV[5])
for i = 6, #ARGV, 2 do
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
return current[2] or ''
"""

# Marks a match rated in a field of its own: KEYS data.
MARK_RATED = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'rated', '1') end
return 0
"""

# Moves the retries that are due into the stream: KEYS delayed, stream;
# ARGV now (ms), how many at most.
RELEASE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, job in ipairs(due) do
  redis.call('ZREM', KEYS[1], job)
  local fields = cjson.decode(job)
  local flat = {}
  for key, value in pairs(fields) do
    table.insert(flat, key)
    table.insert(flat, value)
  end
  redis.call('XADD', KEYS[2], '*', unpack(flat))
end
return #due
"""

# Renews the lease of a delivered job, if the consumer still holds it (not
# reclaimed by another): KEYS stream; ARGV group, consumer, entry id, the
# idle time to set (ms; above 0 when the lease may not run its full length).
# XCLAIM JUSTID resets the idle time without counting a delivery. 1 if
# renewed, else 0.
EXTEND = """
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2])
if #pending == 0 then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[4], 'JUSTID')
return 1
"""

# Settles a delivered job: KEYS stream, delayed, dead; ARGV entry id, what
# ("ack", "retry" or "dead"), due time (ms) for a retry, deliveries so far,
# a reason for a dead letter.
SETTLE = """
local entry = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])[1]
redis.call('XACK', KEYS[1], 'workers', ARGV[1])
redis.call('XDEL', KEYS[1], ARGV[1])
if not entry or ARGV[2] == 'ack' then return 0 end
local fields = {}
for i = 1, #entry[2], 2 do fields[entry[2][i]] = entry[2][i + 1] end
fields['attempts'] = ARGV[4]
if ARGV[2] == 'retry' then
  redis.call('ZADD', KEYS[2], ARGV[3], cjson.encode(fields))
else
  fields['reason'] = ARGV[5]
  local flat = {}
  for key, value in pairs(fields) do
    table.insert(flat, key)
    table.insert(flat, value)
  end
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', unpack(flat))
end
return 1
"""


def data_key(match_id: str) -> str:
    return f"{{m:{match_id}}}:data"


def events_key(match_id: str) -> str:
    return f"{{m:{match_id}}}:events"


def event_cursor(ply: int) -> str:
    """The stream id just before the first event of ``ply``."""
    return f"{ply}-{BEFORE_ANY_SEQUENCE}"


class RedisCoordination(RedisMatchmaking):
    """The coordination interface and the matchmaking store on Redis
    (``await store.start()`` first)."""

    def __init__(
        self,
        url: str,
        visibility_timeout: float = 60.0,
        clock_ms: Callable[[], int] = wall_ms,
        lease: float = JOB_LEASE_SECONDS,
    ) -> None:
        self.url = url
        self.visibility_timeout = visibility_timeout
        self.job_lease = min(lease, visibility_timeout)
        self._now_ms = clock_ms
        self.client = connect(url)
        self.consumer = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._commit = self.client.register_script(COMMIT)
        self._release = self.client.register_script(RELEASE)
        self._settle = self.client.register_script(SETTLE)
        self._extend = self.client.register_script(EXTEND)
        self._register_matchmaking_scripts()
        self._mark_rated = self.client.register_script(MARK_RATED)
        # The jobs tasks of this process work on, each with the time
        # (monotonic) its lease may be renewed until.
        self._held: dict[str, float] = {}
        self._next_orphan_check = 0.0
        self._next_sweep = 0.0

    @unavailable_on_connection_errors
    async def start(self) -> None:
        """Creates the job queue's consumer group if it is not there yet."""
        await create_group(self.client, JOBS, GROUP)
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
    ) -> bool:
        return await self._write(data, str(expected_version), events, job, result)

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
    ) -> bool:
        # Ahead of the commit (see the module's docstring). A deadline only
        # ever moves earlier here, so a change that loses its race cannot
        # hide the real one; due_matches corrects entries that are early.
        queued = rated = None
        if job is not None or result or data.deadline_ms:
            async with self.client.pipeline(transaction=False) as ahead:
                if job is not None:
                    ahead.xadd(JOBS, {**dump_job(job), "attempts": "0"})
                if result:
                    ahead.xadd(RESULTS, {"m": data.match_id, "v": data.version})
                if data.deadline_ms:
                    ahead.zadd(DEADLINES, {data.match_id: data.deadline_ms}, lt=True)
                answers = iter(await ahead.execute())
            queued = next(answers) if job is not None else None
            rated = next(answers) if result else None
        status = str(data.status)
        arguments: list[Any] = [expected, data.version, dump_match(data), data.expires_ms, status]
        for event in events:
            arguments += [event.ply, event.payload]
        keys = [data_key(data.match_id), events_key(data.match_id)]
        replaced = await self._commit(keys=keys, args=arguments)
        stored = replaced is not None
        if stored and replaced.decode() != status and PLAYING in (status, replaced.decode()):
            if status == PLAYING:  # it started
                await self.client.zadd(LIVE, {data.match_id: self._now_ms()})
            else:
                await self.client.zrem(LIVE, data.match_id)
        if not stored and queued is not None:
            await self.client.xdel(JOBS, queued)  # a crash before this: the worker drops it
        if not stored and rated is not None:
            await self.client.xdel(RESULTS, rated)
        # A deadline that no longer holds stays in the index until it comes
        # due; due_matches drops it then, so no change pays to remove it.
        return stored

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
        async for _ in self.client.scan_iter(match="{m:*}:data", count=1000):
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

    # --- bot jobs ------------------------------------------------------------------

    @unavailable_on_connection_errors
    async def pull_job(self, timeout: float) -> Delivery | None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                delivery = await self._pull_once(min(timeout, PULL_SLICE_SECONDS))
            except ResponseError as error:  # the group is gone: made again, pulled next time
                await recreate_group(self.client, JOBS, GROUP, error)
                delivery = None
            remaining = deadline - time.monotonic()
            if delivery is not None or remaining <= 0:
                return delivery
            timeout = remaining

    async def _pull_once(self, block: float) -> Delivery | None:
        """Due retries join the stream; then a job of ours whose delivery we
        never saw (the reply was lost with a connection), or one whose lease
        lapsed (its worker died, or held it the whole visibility timeout),
        else a new one (waiting up to ``block``)."""
        claimed: list[Any] = []
        now = time.monotonic()
        if now >= self._next_sweep:  # the slower paths, a few times a second
            self._next_sweep = now + PULL_SLICE_SECONDS
            await self._release(keys=[DELAYED, JOBS], args=[self._now_ms(), 100])
            claimed = await self._orphans()
            if not claimed:
                idle_ms = round(self.job_lease * 1000)
                _, claimed, *_ = await self.client.xautoclaim(
                    JOBS, GROUP, self.consumer, idle_ms, start_id="0-0", count=1
                )
        fresh = not claimed
        if fresh:
            answer = await self.client.xreadgroup(
                GROUP, self.consumer, {JOBS: ">"}, count=1, block=max(1, round(block * 1000))
            )
            claimed = answer[0][1] if answer else []
        for entry_id, fields in claimed:
            if fields is None:  # deleted meanwhile
                continue
            delivered = 1  # a new delivery; a job delivered before asks how often
            if not fresh:
                pending = await self.client.xpending_range(JOBS, GROUP, entry_id, entry_id, 1)
                delivered = pending[0]["times_delivered"] if pending else 1
            attempt = int(fields.get(b"attempts", b"0")) + delivered
            self._held[entry_id.decode()] = time.monotonic() + self.visibility_timeout
            return Delivery(entry_id.decode(), load_job(fields), attempt)
        return None

    async def _orphans(self) -> list[tuple[bytes, dict[bytes, bytes]]]:
        """Our consumer's pending jobs that no task of this process holds,
        looked for every few seconds."""
        now = time.monotonic()
        if now < self._next_orphan_check:
            return []
        self._next_orphan_check = now + ORPHAN_CHECK_SECONDS
        answer = await self.client.xreadgroup(GROUP, self.consumer, {JOBS: "0"}, count=100)
        entries = answer[0][1] if answer else []
        return [entry for entry in entries if entry[0].decode() not in self._held][:1]

    async def _settle_job(self, receipt: str, what: str, due_ms: int = 0, reason: str = "") -> None:
        self._held.pop(receipt, None)
        if what == "ack":
            await self._settle(keys=[JOBS, DELAYED, DEAD], args=[receipt, what, 0, 0, "", 0])
            return
        pending = await self.client.xpending_range(JOBS, GROUP, receipt, receipt, 1)
        entry = await self.client.xrange(JOBS, receipt, receipt)
        attempts = int(entry[0][1].get(b"attempts", b"0")) if entry else 0
        delivered = pending[0]["times_delivered"] if pending else 0
        await self._settle(
            keys=[JOBS, DELAYED, DEAD],
            args=[receipt, what, due_ms, attempts + delivered, reason, KEEP_DEAD_LETTERS],
        )

    @unavailable_on_connection_errors
    async def extend_job(self, receipt: str) -> bool:
        held_until = self._held.get(receipt)
        left = (held_until or 0.0) - time.monotonic()
        if held_until is None or left <= 0:
            return False
        idle_ms = max(0, round((self.job_lease - left) * 1000))  # lapses by held_until
        arguments = [GROUP, self.consumer, receipt, idle_ms]
        try:
            return bool(await self._extend(keys=[JOBS], args=arguments))
        except ResponseError as error:
            if group_gone(error):  # Redis lost its data: the job went with it
                return False
            raise

    @unavailable_on_connection_errors
    async def ack_job(self, receipt: str) -> None:
        await self._settle_job(receipt, "ack")

    @unavailable_on_connection_errors
    async def retry_job(self, receipt: str, delay: float) -> None:
        due_ms = self._now_ms() + round(delay * 1000)
        await in_group(self.client, JOBS, GROUP, lambda: self._settle_job(receipt, "retry", due_ms))

    @unavailable_on_connection_errors
    async def dead_letter(self, receipt: str, reason: str) -> None:
        await in_group(
            self.client, JOBS, GROUP, lambda: self._settle_job(receipt, "dead", reason=reason)
        )

    @unavailable_on_connection_errors
    async def dead_letters(self) -> list[DeadLetter]:
        entries = await self.client.xrange(DEAD)
        return [
            DeadLetter(load_job(fields), fields.get(b"reason", b"").decode())
            for _, fields in entries
        ]

    @unavailable_on_connection_errors
    async def queue_depth(self) -> int:
        length = await self.client.xlen(JOBS)
        summary = await in_group(
            self.client, JOBS, GROUP, lambda: self.client.xpending(JOBS, GROUP)
        )
        delayed = await self.client.zcard(DELAYED)
        return int(length) - int(summary["pending"]) + int(delayed)
