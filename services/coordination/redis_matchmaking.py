"""The matchmaking half of the Redis store (see ``coordination.matchmaking``).

Keys, one hash tag per queue so that one script claims or assigns a table:

- ``{q:<queue>}:t:<ticket>``: a hash with the ticket's fixed ``record``
  (JSON), the ``client`` address that created it, and its changing
  ``status``, ``claim``, ``version``, ``seen`` and ``assignment``;
  ``{q:<queue>}:t:<ticket>:x``: a short stream with one entry
  ``<version>-1`` per change, which watchers wait on with XREAD BLOCK (one
  read for many watchers of a queue: ``redis_ticket_waits``);
- ``{q:<queue>}:queued``: a sorted set of the queued tickets by age;
- ``{q:<queue>}:p:<player>``: the player's last ticket in the queue (for
  its max_wait), so that a player queues at most one ticket at a time;
- ``{q:<queue>}:lease`` (``holder|fence``, with a TTL) and
  ``{q:<queue>}:fence`` (the fencing counter: see ``LEASE``);
- ``meeple:queues``: the queues that may have tickets;
- ``{c:<client>}:open``: a sorted set of the client's open tickets, by the
  end of their max_wait (see ``OPEN``);
- ``meeple:<name>``: the secrets the replicas share (``shared_secret``:
  ``meeple:ticket-secret``, which ticket tokens derive from when the
  replicas are configured with none, and ``meeple:auth-key``, the guest
  signing key), the first replica's (``SET NX``);
- ratings, the leaderboard and finished rated matches: ``redis_ratings``.

An ended ticket stays readable for ``TERMINAL_TICKET_MS``.

A Redis that comes back empty (restarted without persistence) has lost the
tickets, the leases and the fencing counters: the next pass takes the
lease with a token above every one issued before, and a watch of a lost
ticket ends (its heartbeat finds it gone).
"""

from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from redis.exceptions import NoScriptError

from services.coordination.matchmaking import (
    Claim,
    PlayerQueued,
    Status,
    TicketExists,
    TicketRecord,
    TooManyTickets,
)
from services.coordination.redis_client import (
    unavailable_on_connection_errors,
)
from services.coordination.redis_ticket_waits import TicketWaits

QUEUES = "meeple:queues"
TERMINAL_TICKET_MS = 600_000
FIXED_CACHE = 50_000  # tickets whose fixed fields a process keeps decoded

# The fields of a ticket that never change, kept as one JSON value.
FIXED = (
    "ticket_id",
    "queue",
    "token_hash",
    "game",
    "config",
    "seat_counts",
    "player_ids",
    "allow_bots",
    "rating",
    "created_ms",
    "expires_ms",
)

# Takes or renews a queue's lease: KEYS lease, fencing counter; ARGV holder,
# TTL (ms). Returns the lease's fencing token (a string of digits), or nil
# while another holds it. A new holder's token is the counter plus one; with
# no counter (a new queue, or a Redis that came back empty) the counter
# starts again from the Redis clock in milliseconds, above every token
# issued before the loss: those count up by one per new holder (at most one
# a pass, 20 a second) from an earlier reading of that clock. So a pass that
# took its lease before the loss and stalled is fenced off for good: it can
# claim nothing (the lease holds another token), and can release or assign
# no later claim (each is of a larger token). The clock's 13 digits print
# exactly from a Lua number too (16 would print as "1.7e+15"), so an older
# replica's script, which concatenates the number, shares the counter.
LEASE = """
local lease = redis.call('GET', KEYS[1])
if lease then
  local holder, fence = string.match(lease, '^(.*)|(%d+)$')
  if holder ~= ARGV[1] then return false end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return fence
end
local fence
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('INCR', KEYS[2])
  fence = redis.call('GET', KEYS[2])
else
  local now = redis.call('TIME')
  fence = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
  redis.call('SET', KEYS[2], fence)
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. fence, 'PX', ARGV[2])
return fence
"""

# Claims the tables of a pass, each all or none, in order: KEYS lease, then
# every table's tickets one after the other; ARGV fence, the number of
# tables, each table's size, then the tickets' ids (aligned with the keys).
# Returns {'-lease'} while the lease's token is not the fence, else for each
# table the number of its tickets refused (not queued, or claimed: by an
# earlier table too) followed by their ids; a table with none refused is
# claimed.
CLAIM = """
local lease = redis.call('GET', KEYS[1])
if not lease or string.match(lease, '|(%d+)$') ~= ARGV[1] then return {'-lease'} end
local tables = tonumber(ARGV[2])
local answer = {}
local at = 0
for t = 1, tables do
  local size = tonumber(ARGV[2 + t])
  local refused = {}
  for i = at + 1, at + size do
    local state = redis.call('HMGET', KEYS[1 + i], 'status', 'claim')
    if state[1] ~= '1' or state[2] ~= '0' then table.insert(refused, ARGV[2 + tables + i]) end
  end
  if #refused == 0 then
    for i = at + 1, at + size do redis.call('HSET', KEYS[1 + i], 'claim', ARGV[1]) end
  end
  table.insert(answer, #refused)
  for _, ticket in ipairs(refused) do table.insert(answer, ticket) end
  at = at + size
end
return answer
"""

# Counts a new ticket among its client's open ones, unless the client has
# the cap already (0: no cap): KEYS the client's open set; ARGV ticket id,
# the end of its max_wait (ms), now (ms), the cap. Returns 1, or 0 at the
# cap. A ticket leaves the set when it ends (the store removes it after the
# script that ended it) or, at the latest, when its max_wait has passed: a
# removal lost with its process heals by then. A retry of a counted
# ticket's creation is counted once.
OPEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  local cap = tonumber(ARGV[4])
  if cap > 0 and redis.call('ZCARD', KEYS[1]) >= cap then return 0 end
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
local ttl = tonumber(ARGV[2]) - tonumber(ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
"""

# KEYS: tickets...; ARGV: fence
RELEASE = """
for i = 1, #KEYS do
  local claim = tonumber(redis.call('HGET', KEYS[i], 'claim') or '0')
  if claim > 0 and claim <= tonumber(ARGV[1]) then redis.call('HSET', KEYS[i], 'claim', '0') end
end
return 0
"""

# Ends tickets, in tables: KEYS queued, then the n tickets of every table
# one after the other, then their streams; ARGV the number of tables, the
# new status, what a ticket must be claimed by ('0': unclaimed), the TTL
# (ms) of an ended ticket, each table's size, then the n ids, then the n
# assignments ('' for none). Assigning (status 2) ends a table all or none:
# only if every ticket is queued and claimed by that claim. Returns how many
# of each table's tickets it ended, then the client and id of each ended
# ticket that has a client (to take out of the client's open set).
# Assigning a table the same seats again (a retry whose first answer was
# lost with its connection) finds them assigned and counts them all.
END = """
local tables = tonumber(ARGV[1])
local n = (#KEYS - 1) / 2
local answer = {}
local freed = {}
local at = 0
for t = 1, tables do
  local size = tonumber(ARGV[4 + t])
  local valid = true
  local again = 0
  if ARGV[2] == '2' then
    for i = at + 1, at + size do
      local state = redis.call('HMGET', KEYS[1 + i], 'status', 'claim', 'assignment')
      if state[1] == '2' and state[3] == ARGV[4 + tables + n + i] then
        again = again + 1
      elseif state[1] ~= '1' or state[2] ~= ARGV[3] then
        valid = false
      end
    end
  end
  local ended = 0
  if valid and ARGV[2] == '2' and again == size then
    ended = size
  elseif valid then
    for i = at + 1, at + size do
      local key = KEYS[1 + i]
      local ticket = ARGV[4 + tables + i]
      local assignment = ARGV[4 + tables + n + i]
      local state = redis.call('HMGET', key, 'status', 'claim', 'client')
      if state[1] == '1' and state[2] == ARGV[3] then
        local version = redis.call('HINCRBY', key, 'version', 1)
        redis.call('HSET', key, 'status', ARGV[2], 'claim', '0', 'assignment', assignment)
        redis.call('ZREM', KEYS[1], ticket)
        local change = {'s', ARGV[2], 'a', assignment}
        redis.call('XADD', KEYS[1 + n + i], 'MAXLEN', '8', version .. '-1', unpack(change))
        redis.call('PEXPIRE', key, ARGV[4])
        redis.call('PEXPIRE', KEYS[1 + n + i], ARGV[4])
        ended = ended + 1
        if state[3] and state[3] ~= '' then
          table.insert(freed, state[3])
          table.insert(freed, ticket)
        end
      end
    end
  end
  table.insert(answer, ended)
  at = at + size
end
for _, value in ipairs(freed) do table.insert(answer, value) end
return answer
"""

# KEYS: ticket, queued, its stream; ARGV: ticket id, TTL (ms) of an ended
# ticket. Returns {1, its client ('' for none)} if it cancelled it, else {0}.
CANCEL = """
local state = redis.call('HMGET', KEYS[1], 'status', 'claim', 'client')
if state[1] ~= '1' then return {0} end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'status', '4', 'claim', '0')
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('XADD', KEYS[3], 'MAXLEN', '8', version .. '-1', 's', '4')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return {1, state[3] or ''}
"""

# KEYS: ticket, queued, then each player's key in the queue; ARGV: ticket
# id, its creation (ms), its max_wait (ms), then its fields. A player's key
# names its last ticket in the queue; while that one is queued, the player
# may not queue another (-i: the i-th player has one). The other ticket's
# key shares this one's hash tag (its slot) and is made from its prefix.
# Returns 1, or 0 if the ticket exists already.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[1])
for i = 3, #KEYS do
  local other = redis.call('GET', KEYS[i])
  if other and redis.call('HGET', prefix .. other, 'status') == '1' then return 2 - i end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
for i = 3, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[3]) end
return 1
"""

HEARTBEAT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'seen', ARGV[1])
return 1
"""


def ticket_key(queue: str, ticket_id: str) -> str:
    return f"{{q:{queue}}}:t:{ticket_id}"


def changes_key(queue: str, ticket_id: str) -> str:
    return f"{{q:{queue}}}:t:{ticket_id}:x"


def queued_key(queue: str) -> str:
    return f"{{q:{queue}}}:queued"


def player_key(queue: str, player_id: str) -> str:
    return f"{{q:{queue}}}:p:{player_id}"


def open_key(client: str) -> str:
    return f"{{c:{client}}}:open"


def queue_of(ticket_id: str) -> str:
    """Ticket ids are ``<queue>.<random>``."""
    return ticket_id.rsplit(".", 1)[0]


# The hash fields beside the fixed record: the changing ones, then the
# client and the players' display names (fields of their own, so that a
# replica of an older version, which reads the record as the fixed fields
# it knows, still reads new tickets).
STATE = ("status", "claim", "version", "seen", "assignment", "client", "names")


def _fixed(raw: bytes) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(raw)
    record["config"] = bytes.fromhex(record["config"])
    return record


def _ticket(fixed: dict[str, Any], state: list[bytes | None]) -> TicketRecord:
    status, claim, version, seen, assignment, client, names = state
    return TicketRecord(
        **fixed,
        seen_ms=int(seen or 0),
        status=Status(int(status or 0)),
        claim=int(claim or 0),
        assignment=assignment or b"",
        version=int(version or 0),
        client=(client or b"").decode(),
        names=json.loads(names) if names else [],
    )


def _freed(named: list[Any]) -> dict[str, list[str]]:
    """The ids of the ended tickets an END answer names (its clients and ids,
    in pairs), by client."""
    freed: dict[str, list[str]] = {}
    for client, ticket_id in zip(named[0::2], named[1::2], strict=True):
        freed.setdefault(client.decode(), []).append(ticket_id.decode())
    return freed


class RedisMatchmaking:
    """Mixed into RedisCoordination, which sets the client, its consumer name
    and the visibility timeout."""

    client: Any
    consumer: str
    visibility_timeout: float
    _now_ms: Callable[[], int]

    def _register_matchmaking_scripts(self) -> None:
        self._fixed_cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._ticket_waits = TicketWaits(self.client)
        self._create = self.client.register_script(CREATE)
        self._open = self.client.register_script(OPEN)
        self._lease = self.client.register_script(LEASE)
        self._claim = self.client.register_script(CLAIM)
        self._release_claims = self.client.register_script(RELEASE)
        self._end = self.client.register_script(END)
        self._cancel = self.client.register_script(CANCEL)
        self._heartbeat = self.client.register_script(HEARTBEAT)

    # --- tickets -----------------------------------------------------------------

    @unavailable_on_connection_errors
    async def create_ticket(self, ticket: TicketRecord, open_limit: int = 0) -> None:
        record = {name: getattr(ticket, name) for name in FIXED}
        record["config"] = ticket.config.hex()
        key = ticket_key(ticket.queue, ticket.ticket_id)
        if ticket.client:
            args = [ticket.ticket_id, ticket.expires_ms, ticket.created_ms, open_limit]
            if not await self._open(keys=[open_key(ticket.client)], args=args):
                raise TooManyTickets(f"{ticket.client} has {open_limit} open tickets")
        fields = {
            "record": json.dumps(record),
            "status": int(ticket.status),
            "claim": 0,
            "version": ticket.version,
            "seen": ticket.seen_ms,
            "assignment": b"",
            "client": ticket.client,
            "names": json.dumps(ticket.names),
        }
        flat = [value for pair in fields.items() for value in pair]
        players = [player_key(ticket.queue, player) for player in ticket.player_ids]
        keys = [key, queued_key(ticket.queue), *players]
        lifetime = max(1, ticket.expires_ms - ticket.created_ms)
        args = [ticket.ticket_id, ticket.created_ms, lifetime, *flat]
        # One round trip: the script by its digest beside the SADD (a
        # Script in a pipeline would ask whether it is loaded first); a
        # Redis that lost its scripts (restarted) is given it again.
        async with self.client.pipeline(transaction=False) as pipe:
            # (execute_command: a Cluster's pipeline blocks its evalsha method)
            pipe.execute_command("EVALSHA", self._create.sha, len(keys), *keys, *args)
            pipe.sadd(QUEUES, ticket.queue)
            created, added = await pipe.execute(raise_on_error=False)
        if isinstance(added, Exception):
            raise added
        if isinstance(created, NoScriptError):
            created = await self._create(keys=keys, args=args)
        elif isinstance(created, Exception):
            raise created
        if created < 0:
            if ticket.client:  # counted by OPEN above, but never queued
                await self.client.zrem(open_key(ticket.client), ticket.ticket_id)
            raise PlayerQueued(ticket.player_ids[-created - 1])
        if not created:
            # A retry: counted once while the ticket is open, not at all once it ended.
            if ticket.client and await self.client.hget(key, "status") != b"1":
                await self.client.zrem(open_key(ticket.client), ticket.ticket_id)
            raise TicketExists(f"ticket {ticket.ticket_id} exists already")

    @unavailable_on_connection_errors
    async def open_tickets(self, client: str) -> int:
        return int(await self.client.zcount(open_key(client), f"({self._now_ms()}", "+inf"))

    @unavailable_on_connection_errors
    async def shared_secret(self, name: str, candidate: bytes) -> bytes:
        stored = await self.client.set(f"meeple:{name}", candidate.hex(), nx=True, get=True)
        return bytes.fromhex(stored.decode()) if stored is not None else candidate

    async def _close_open(self, freed: dict[str, list[str]]) -> None:
        """Takes ended tickets out of their clients' open sets (one pipeline)."""
        if not freed:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for client, ids in freed.items():
                pipe.zrem(open_key(client), *ids)
            await pipe.execute()

    @unavailable_on_connection_errors
    async def load_ticket(self, ticket_id: str) -> TicketRecord | None:
        key = ticket_key(queue_of(ticket_id), ticket_id)
        raw, *state = await self.client.hmget(key, ["record", *STATE])
        return _ticket(self._fixed_of(ticket_id, raw), state) if raw and state[0] else None

    def _fixed_of(self, ticket_id: str, raw: bytes) -> dict[str, Any]:
        """A ticket's fixed fields, decoded once per process (they never change)."""
        fixed = self._fixed_cache.get(ticket_id)
        if fixed is None:
            fixed = self._fixed_cache[ticket_id] = _fixed(raw)
            while len(self._fixed_cache) > FIXED_CACHE:
                self._fixed_cache.popitem(last=False)
        return fixed

    @unavailable_on_connection_errors
    async def wait_ticket(self, ticket: TicketRecord, timeout: float) -> TicketRecord | None:
        # The change stream's ids are "<version>-1", and each entry carries
        # the new status and assignment: XREAD returns at once if the ticket
        # changed past its version already, with what changed.
        # The watchers of a queue in this process share their reads
        # (``TicketWaits``).
        stream = changes_key(ticket.queue, ticket.ticket_id)
        change = await self._ticket_waits.wait(ticket.queue, stream, ticket.version, timeout)
        if change is None:
            return ticket
        version, fields = change
        return dataclasses.replace(
            ticket,
            status=Status(int(fields[b"s"])),
            assignment=fields.get(b"a", b""),
            claim=0,
            version=version,
        )

    @unavailable_on_connection_errors
    async def heartbeat(self, ticket_id: str, now_ms: int) -> bool:
        key = ticket_key(queue_of(ticket_id), ticket_id)
        return bool(await self._heartbeat(keys=[key], args=[now_ms]))

    @unavailable_on_connection_errors
    async def cancel_ticket(self, ticket_id: str) -> TicketRecord | None:
        queue = queue_of(ticket_id)
        keys = [ticket_key(queue, ticket_id), queued_key(queue), changes_key(queue, ticket_id)]
        answer = await self._cancel(keys=keys, args=[ticket_id, TERMINAL_TICKET_MS])
        if len(answer) > 1 and answer[1]:
            await self._close_open({answer[1].decode(): [ticket_id]})
        return await self.load_ticket(ticket_id)

    @unavailable_on_connection_errors
    async def queues(self) -> list[str]:
        return sorted(raw.decode() for raw in await self.client.smembers(QUEUES))

    @unavailable_on_connection_errors
    async def queued(self, queue: str) -> list[TicketRecord]:
        ids = [raw.decode() for raw in await self.client.zrange(queued_key(queue), 0, -1)]
        if not ids:
            await self.client.srem(QUEUES, queue)  # a later ticket adds it again
            return []
        # The fixed record only when not decoded yet. What each read asked
        # for is kept, with the decoded records it relies on: another call
        # may decode (or the cache drop) a ticket while this one waits.
        known = [self._fixed_cache.get(ticket_id) for ticket_id in ids]
        async with self.client.pipeline(transaction=False) as pipe:
            for ticket_id, fixed in zip(ids, known, strict=True):
                fields = STATE if fixed is not None else ("record", *STATE)
                pipe.hmget(ticket_key(queue, ticket_id), list(fields))
            answers = await pipe.execute()
        tickets = []
        for ticket_id, fixed, answer in zip(ids, known, answers, strict=True):
            if fixed is None:
                raw, *answer = answer
                if raw is None:
                    continue
                fixed = self._fixed_of(ticket_id, raw)
            if answer[0] is not None:
                tickets.append(_ticket(fixed, answer))
        return [t for t in tickets if t.status is Status.QUEUED]

    # --- leases and claims ----------------------------------------------------------

    @unavailable_on_connection_errors
    async def acquire_lease(self, queue: str, holder: str, seconds: float) -> int | None:
        keys = [f"{{q:{queue}}}:lease", f"{{q:{queue}}}:fence"]
        fence = await self._lease(keys=keys, args=[holder, round(seconds * 1000)])
        return int(fence) if fence else None

    async def claim(self, queue: str, fence: int, ticket_ids: list[str]) -> Claim:
        return (await self.claim_tables(queue, fence, [ticket_ids]))[0]

    @unavailable_on_connection_errors
    async def claim_tables(self, queue: str, fence: int, tables: list[list[str]]) -> list[Claim]:
        ids = [ticket_id for ticket_ids in tables for ticket_id in ticket_ids]
        keys = [f"{{q:{queue}}}:lease", *(ticket_key(queue, t) for t in ids)]
        args = [fence, len(tables), *(len(ticket_ids) for ticket_ids in tables), *ids]
        answer = await self._claim(keys=keys, args=args)
        if answer and answer[0] == b"-lease":
            return [Claim(False, list(ticket_ids)) for ticket_ids in tables]
        claims, at = [], 0
        for _ in tables:
            count = int(answer[at])
            refused = [raw.decode() for raw in answer[at + 1 : at + 1 + count]]
            claims.append(Claim(not refused, refused))
            at += 1 + count
        return claims

    @unavailable_on_connection_errors
    async def release(self, queue: str, fence: int, ticket_ids: list[str]) -> None:
        if ticket_ids:
            keys = [ticket_key(queue, t) for t in ticket_ids]
            await self._release_claims(keys=keys, args=[fence])

    async def _end_tickets(
        self,
        queue: str,
        tables: list[list[str]],
        status: Status,
        claimed_by: int,
        assignments: list[bytes],
    ) -> list[int]:
        """Ends the tables' tickets (see ``END``); how many of each it ended.
        ``assignments`` are aligned with the tickets, table after table."""
        ids = [ticket_id for ticket_ids in tables for ticket_id in ticket_ids]
        keys = [
            queued_key(queue),
            *(ticket_key(queue, t) for t in ids),
            *(changes_key(queue, t) for t in ids),
        ]
        args = [len(tables), int(status), claimed_by, TERMINAL_TICKET_MS]
        args += [len(ticket_ids) for ticket_ids in tables]
        answer = await self._end(keys=keys, args=[*args, *ids, *assignments])
        await self._close_open(_freed(answer[len(tables) :]))
        return [int(ended) for ended in answer[: len(tables)]]

    async def assign(self, queue: str, fence: int, assignments: dict[str, bytes]) -> bool:
        return (await self.assign_tables(queue, fence, [assignments]))[0]

    @unavailable_on_connection_errors
    async def assign_tables(
        self, queue: str, fence: int, tables: list[dict[str, bytes]]
    ) -> list[bool]:
        if not tables:
            return []
        ids = [list(assignments) for assignments in tables]
        values = [assignments[t] for assignments in tables for t in assignments]
        ended = await self._end_tickets(queue, ids, Status.ASSIGNED, fence, values)
        return [count == len(table) for count, table in zip(ended, tables, strict=True)]

    @unavailable_on_connection_errors
    async def expire(self, queue: str, ticket_ids: list[str]) -> None:
        if ticket_ids:
            blank = [b""] * len(ticket_ids)
            await self._end_tickets(queue, [ticket_ids], Status.EXPIRED, 0, blank)
