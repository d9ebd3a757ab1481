"""The bot-job half of the Redis store: a job stream per shard
(``shards``), in the slot of the matches whose turns it carries.

A change's commit script queues the job it makes due in the match's own
shard, with the record as it stored it, so a job is never seen before its
change, and a worker's pull returns the job and the record in one answer
(``Delivery.data``, on a job's first delivery). The commit that plays a
job acknowledges it in the same script (``compare_and_set(settles=...)``).

- On one redis-server a pull is one XREADGROUP BLOCK over every shard's
  stream; several answers at once wait in this process for its next pulls
  (they count as held: their leases run).
- On a Cluster a multi-key read must stay in one slot, so a pull scans the
  shards without blocking (one command per shard, in one pipeline: a round
  trip per master), and when none has a job, blocks on one shard (the next
  in turn) for a slice; the scan runs again at once while it finds jobs,
  else every ``CLUSTER_SCAN_SECONDS``. An idle Cluster's job therefore
  waits up to that long.

A few times a second, one pull of the process sweeps every shard with one
script each: due retries rejoin the stream, and one job whose lease lapsed
(its worker died, or held it the whole visibility timeout) is claimed with
XAUTOCLAIM. Every ``ORPHAN_CHECK_SECONDS`` it also looks for jobs pending
on this consumer that no task of the process holds (a reply lost with its
connection). A worker alive and working on a job renews the lease with
``extend_job`` (an XCLAIM JUSTID of its own pending entry, which resets the
entry's idle time without counting a delivery), up to the visibility
timeout after the delivery.

A Redis that comes back empty has lost the consumer groups with everything
else: a read that finds a group gone (NOGROUP) makes every shard's again,
and one warning from each process that made some says so.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.exceptions import ResponseError

from services.coordination.base import BotJob, DeadLetter, Delivery
from services.coordination.records import load_job, load_match
from services.coordination.redis_client import (
    create_group,
    group_gone,
    in_group,
    log,
    unavailable_on_connection_errors,
)
from services.coordination.shards import (
    JOB_STREAMS,
    SHARDS,
    dead_key,
    delayed_key,
    jobs_key,
)

GROUP = "workers"
KEEP_DEAD_LETTERS = 100  # per shard
PULL_SLICE_SECONDS = 0.1  # the sweep runs this often, and a blocking read lasts at most this
ORPHAN_CHECK_SECONDS = 2.0
CLUSTER_SCAN_SECONDS = 0.05
SCAN_COUNT = 4  # jobs a Cluster scan takes from a shard at most
RELEASE_AT_ONCE = 100

# Sweeps a shard: KEYS delayed, stream; ARGV now (ms), how many retries at
# most, group, consumer, the lease (ms). Due retries join the stream; then
# one entry idle longer than the lease is claimed for the consumer. Returns
# the claimed entries as {id, fields, times delivered}.
SWEEP = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, job in ipairs(due) do
  redis.call('ZREM', KEYS[1], job)
  local flat = {}
  for key, value in pairs(cjson.decode(job)) do
    table.insert(flat, key)
    table.insert(flat, value)
  end
  redis.call('XADD', KEYS[2], '*', unpack(flat))
end
local claimed = redis.call('XAUTOCLAIM', KEYS[2], ARGV[3], ARGV[4], ARGV[5], '0-0', 'COUNT', 1)[2]
local out = {}
for _, entry in ipairs(claimed) do
  if entry[2] then
    local pending = redis.call('XPENDING', KEYS[2], ARGV[3], entry[1], entry[1], 1)[1]
    table.insert(out, {entry[1], entry[2], pending and pending[4] or 1})
  end
end
return out
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
# ("ack", "retry" or "dead"), due time (ms) for a retry, a reason for a dead
# letter, how many dead letters to keep. A retry or a dead letter counts
# the deliveries so far in ``attempts`` and drops the record (a job
# delivered again reads the match afresh).
SETTLE = """
local entry = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])[1]
local pending = redis.call('XPENDING', KEYS[1], 'workers', ARGV[1], ARGV[1], 1)[1]
redis.call('XACK', KEYS[1], 'workers', ARGV[1])
redis.call('XDEL', KEYS[1], ARGV[1])
if not entry or ARGV[2] == 'ack' then return 0 end
local fields = {}
for i = 1, #entry[2], 2 do fields[entry[2][i]] = entry[2][i + 1] end
fields['record'] = nil
fields['rated'] = nil
fields['attempts'] = tostring((tonumber(fields['attempts']) or 0) + (pending and pending[4] or 0))
if ARGV[2] == 'retry' then
  redis.call('ZADD', KEYS[2], ARGV[3], cjson.encode(fields))
else
  fields['reason'] = ARGV[4]
  local flat = {}
  for key, value in pairs(fields) do
    table.insert(flat, key)
    table.insert(flat, value)
  end
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*', unpack(flat))
end
return 1
"""

Entry = tuple[bytes, dict[bytes, bytes]]
SHARD_OF_STREAM = {stream.encode(): shard for shard, stream in enumerate(JOB_STREAMS)}


def receipt_of(shard: int, entry_id: bytes | str) -> str:
    """A delivery's receipt: its shard and its entry's id."""
    return f"{shard}/{entry_id.decode() if isinstance(entry_id, bytes) else entry_id}"


def split_receipt(receipt: str) -> tuple[int, str]:
    shard, entry_id = receipt.split("/", 1)
    return int(shard), entry_id


def command(name: str, *arguments: Any) -> Callable[[Any], Awaitable[Any]]:
    """A command, to run on a client or queue on a pipeline (``_each``)."""
    return lambda client: getattr(client, name)(*arguments)


def delivery_of(shard: int, entry: Entry, attempt: int, fresh: bool) -> Delivery:
    """A stream entry as a Delivery; a fresh one brings its record."""
    entry_id, fields = entry
    data = None
    if fresh and b"record" in fields:
        data = load_match(fields[b"record"])
        data.rated = data.rated or fields.get(b"rated") == b"1"
    return Delivery(receipt_of(shard, entry_id), load_job(fields), attempt, data)


class RedisJobs:
    """Mixed into RedisCoordination, which sets the client, its consumer
    name, ``cluster``, the lease and the visibility timeout."""

    client: Any
    consumer: str
    cluster: bool
    job_lease: float
    visibility_timeout: float
    _now_ms: Callable[[], int]

    def _register_job_scripts(self) -> None:
        self._sweep = self.client.register_script(SWEEP)
        self._settle = self.client.register_script(SETTLE)
        self._extend = self.client.register_script(EXTEND)
        # The jobs tasks of this process work on, each with the time
        # (monotonic) its lease may be renewed until.
        self._held: dict[str, float] = {}
        self._ready: deque[Delivery] = deque()  # pulled, waiting for a task
        self._next_orphan_check = 0.0
        self._next_sweep = 0.0
        self._next_scan = 0.0
        self._scan_found = False
        self._scanning = asyncio.Lock()
        self._making_groups = asyncio.Lock()
        self._rotation = itertools.cycle(range(SHARDS))

    async def _create_job_groups(self) -> int:
        """Creates every shard's consumer group that is missing (one task of
        the process at a time); how many were."""
        async with self._making_groups:
            made = [await create_group(self.client, stream, GROUP) for stream in JOB_STREAMS]
        return sum(made)

    async def _restore_groups(self, error: ResponseError) -> None:
        """After ``error`` from a job command: the groups made again if one
        was gone (``error`` raised again otherwise), with one warning from
        each process that made some (XGROUP CREATE makes each in one
        process only). They read from their streams' start, so the jobs
        written since Redis came back empty are delivered."""
        if not group_gone(error):
            raise error
        made = await self._create_job_groups()
        if made:
            fields = {"streams": list(JOB_STREAMS), "group": GROUP, "answer": str(error)}
            log.warning(
                "recreated the consumer group %s of %d of the %d job streams: it was gone "
                "(Redis came back empty?)",
                GROUP,
                made,
                SHARDS,
                extra={"fields": fields},
            )

    async def _each(self, calls: Sequence[Callable[[Any], Awaitable[Any]]]) -> list[Any]:
        """Runs ``call(client)`` for each call, as one pipeline on one server
        (one round trip) or concurrently on a Cluster (one per master, in
        parallel); their answers in order."""
        if self.cluster:
            return list(await asyncio.gather(*(call(self.client) for call in calls)))
        async with self.client.pipeline(transaction=False) as pipe:
            for call in calls:
                await call(pipe)
            answers: list[Any] = await pipe.execute()
        return answers

    # --- pulling -----------------------------------------------------------------

    @unavailable_on_connection_errors
    async def pull_job(self, timeout: float) -> Delivery | None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                delivery = await self._pull_once(min(timeout, PULL_SLICE_SECONDS))
            except ResponseError as error:  # a group is gone: made again, pulled next time
                await self._restore_groups(error)
                delivery = None
            remaining = deadline - time.monotonic()
            if delivery is not None or remaining <= 0:
                return delivery
            timeout = remaining

    async def _pull_once(self, block: float) -> Delivery | None:
        """A job pulled before, else the sweep's, else a new one (waiting up
        to ``block``)."""
        if not self._ready and time.monotonic() >= self._next_sweep:
            await self._sweep_shards()
        if not self._ready:
            if self.cluster:
                await self._read_cluster(block)
            else:
                await self._read(JOB_STREAMS, block)
        if self._ready:
            return self._ready.popleft()
        return None

    def _take(self, shard: int, entry: Entry, attempt: int, fresh: bool) -> None:
        delivery = delivery_of(shard, entry, attempt, fresh)
        self._held[delivery.receipt] = time.monotonic() + self.visibility_timeout
        self._ready.append(delivery)

    def _take_new(self, answer: Any) -> int:
        """The entries of an XREADGROUP answer, as fresh deliveries; how many."""
        taken = 0
        for stream, entries in answer or ():
            shard = SHARD_OF_STREAM[stream]
            for entry in entries:
                if entry[1] is not None:  # deleted meanwhile
                    attempt = int(entry[1].get(b"attempts", b"0")) + 1
                    self._take(shard, entry, attempt, fresh=True)
                    taken += 1
        return taken

    async def _read(self, streams: Sequence[str], block: float) -> int:
        answer = await self.client.xreadgroup(
            GROUP,
            self.consumer,
            dict.fromkeys(streams, ">"),
            count=1,
            block=max(1, round(block * 1000)),
        )
        return self._take_new(answer)

    async def _read_cluster(self, block: float) -> None:
        """Scans every shard without blocking (again at once while it finds
        jobs, else every CLUSTER_SCAN_SECONDS; one scan at a time, in one
        pipeline, each master's commands in one round trip, up to
        SCAN_COUNT jobs a shard), then blocks on the next shard in turn."""
        if self._scanning.locked():  # another task's scan fills the buffer
            async with self._scanning:
                return
        now = time.monotonic()
        if self._scan_found or now >= self._next_scan:
            async with self._scanning:
                self._next_scan = now + CLUSTER_SCAN_SECONDS
                async with self.client.pipeline() as pipe:
                    for stream in JOB_STREAMS:
                        pipe.xreadgroup(GROUP, self.consumer, {stream: ">"}, count=SCAN_COUNT)
                    answers = await pipe.execute()
                self._scan_found = sum(self._take_new(answer) for answer in answers) > 0
            if self._scan_found:
                return
        await self._read([JOB_STREAMS[next(self._rotation)]], min(block, CLUSTER_SCAN_SECONDS))

    async def _sweep_shards(self) -> None:
        """Due retries rejoin their streams and lapsed leases are claimed, in
        every shard; every few seconds, this consumer's orphans too."""
        now = time.monotonic()
        self._next_sweep = now + PULL_SLICE_SECONDS
        lease_ms = round(self.job_lease * 1000)
        wall = self._now_ms()

        def sweep(shard: int) -> Callable[[Any], Awaitable[Any]]:
            keys = [delayed_key(shard), jobs_key(shard)]
            arguments = [wall, RELEASE_AT_ONCE, GROUP, self.consumer, lease_ms]
            return lambda client: self._sweep(keys=keys, args=arguments, client=client)

        for shard, claimed in enumerate(await self._each([sweep(s) for s in range(SHARDS)])):
            for entry_id, flat, delivered in claimed:
                fields = dict(zip(flat[::2], flat[1::2], strict=True))
                attempt = int(fields.get(b"attempts", b"0")) + int(delivered)
                self._take(shard, (entry_id, fields), attempt, fresh=False)
        if now >= self._next_orphan_check:
            self._next_orphan_check = now + ORPHAN_CHECK_SECONDS
            await self._take_orphans()

    async def _take_orphans(self) -> None:
        """Our consumer's pending jobs that no task of this process holds."""

        answers = await self._each(
            [
                command("xreadgroup", GROUP, self.consumer, {stream: "0"}, 100)
                for stream in JOB_STREAMS
            ]
        )
        for shard, answer in enumerate(answers):
            for entry in answer[0][1] if answer else ():
                receipt = receipt_of(shard, entry[0])
                if entry[1] is not None and receipt not in self._held:
                    attempt = int(entry[1].get(b"attempts", b"0")) + 1
                    self._take(shard, entry, attempt, fresh=False)

    # --- settling ------------------------------------------------------------------

    async def _settle_job(self, receipt: str, what: str, due_ms: int = 0, reason: str = "") -> None:
        self._held.pop(receipt, None)
        shard, entry_id = split_receipt(receipt)
        keys = [jobs_key(shard), delayed_key(shard), dead_key(shard)]
        arguments = [entry_id, what, due_ms, reason, KEEP_DEAD_LETTERS]
        stream = jobs_key(shard)
        await in_group(self.client, stream, GROUP, lambda: self._settle(keys=keys, args=arguments))

    @unavailable_on_connection_errors
    async def extend_job(self, receipt: str) -> bool:
        held_until = self._held.get(receipt)
        left = (held_until or 0.0) - time.monotonic()
        if held_until is None or left <= 0:
            return False
        idle_ms = max(0, round((self.job_lease - left) * 1000))  # lapses by held_until
        shard, entry_id = split_receipt(receipt)
        arguments = [GROUP, self.consumer, entry_id, idle_ms]
        try:
            return bool(await self._extend(keys=[jobs_key(shard)], args=arguments))
        except ResponseError as error:
            if group_gone(error):  # Redis lost its data: the job went with it
                return False
            raise

    @unavailable_on_connection_errors
    async def ack_job(self, receipt: str) -> None:
        await self._settle_job(receipt, "ack")

    @unavailable_on_connection_errors
    async def retry_job(self, receipt: str, delay: float) -> None:
        await self._settle_job(receipt, "retry", self._now_ms() + round(delay * 1000))

    @unavailable_on_connection_errors
    async def dead_letter(self, receipt: str, reason: str) -> None:
        await self._settle_job(receipt, "dead", reason=reason)

    # --- reading the queues --------------------------------------------------------

    @unavailable_on_connection_errors
    async def dead_letters(self) -> list[DeadLetter]:
        """Every shard's recent dead letters, oldest first (by entry id: the
        time they were given up)."""

        letters: list[tuple[tuple[int, int], BotJob, str]] = []
        reads = [command("xrange", dead_key(shard)) for shard in range(SHARDS)]
        for entries in await self._each(reads):
            for entry_id, fields in entries:
                when, sequence = entry_id.decode().split("-")
                reason = fields.get(b"reason", b"").decode()
                letters.append(((int(when), int(sequence)), load_job(fields), reason))
        letters.sort(key=lambda letter: letter[0])
        return [DeadLetter(job, reason) for _, job, reason in letters]

    @unavailable_on_connection_errors
    async def queue_depth(self) -> int:
        """Jobs waiting for a worker, over every shard (not those a worker
        holds): each stream's length less its pending entries, plus the
        retries, plus those this process pulled but has not handed to a
        task yet (another process's count as held)."""
        calls = [
            call
            for shard in range(SHARDS)
            for call in (
                command("xlen", jobs_key(shard)),
                command("xpending", jobs_key(shard), GROUP),
                command("zcard", delayed_key(shard)),
            )
        ]
        try:
            answers = await self._each(calls)
        except ResponseError as error:
            await self._restore_groups(error)
            answers = await self._each(calls)
        lengths, pending, retries = answers[::3], answers[1::3], answers[2::3]
        return len(self._ready) + sum(
            int(length) - int(summary["pending"]) + int(waiting)
            for length, summary, waiting in zip(lengths, pending, retries, strict=True)
        )
