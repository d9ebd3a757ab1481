"""The matchmaking store's contract, called directly, on every
implementation (memory, a real redis-server, a real Cluster): a ticket is
assigned at most once, a ticket cancelled while its table forms is never
assigned, a crashed pass's claims go back to the queue under the next lease,
a match is rated once, each client's open tickets are counted and capped,
and the ticket secret is shared. One queued ticket per player and queue:
``test_player_tickets_store.py``."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from services.coordination import MemoryCoordination, Store
from services.coordination.matchmaking import (
    Applied,
    PlayerRating,
    Status,
    TicketExists,
    TicketRecord,
    TooManyTickets,
)
from services.coordination.memory import wall_ms
from services.coordination.redis import RedisCoordination
from services.coordination.redis_matchmaking import queued_key

StoreFactory = Callable[..., Awaitable[Store]]
QUEUE = "othello-abc"


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def make_store(request: pytest.FixtureRequest) -> StoreFactory:
    if request.param == "memory":

        async def memory(**options: Any) -> Store:
            return MemoryCoordination(**options)

        return memory
    fixture = "redis_server" if request.param == "redis" else "redis_cluster"
    servers = request.getfixturevalue(fixture)
    servers.flush()

    async def remote(**options: Any) -> Store:
        store = RedisCoordination(servers.url, **options)
        await store.start()
        return store

    return remote


def ticket(name: str, **fields: Any) -> TicketRecord:
    now = wall_ms()
    record = TicketRecord(
        ticket_id=f"{QUEUE}.{name}",
        queue=QUEUE,
        token_hash="h",
        game="othello",
        config=b"",
        seat_counts=[2],
        player_ids=[name],
        allow_bots=False,
        rating=25.0,
        created_ms=now,
        expires_ms=now + 60_000,
        seen_ms=now,
    )
    return dataclasses.replace(record, **fields)


async def queue_tickets(store: Store, names: str) -> list[str]:
    """A ticket per name, queued; their ids."""
    for name in names:
        await store.create_ticket(ticket(name))
    return [f"{QUEUE}.{name}" for name in names]


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_tickets_are_queued_oldest_first(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        # b is stored first but is the younger (by a second: a slow store
        # must not reorder them).
        now = wall_ms()
        await store.create_ticket(ticket("b", created_ms=now))
        await store.create_ticket(ticket("a", created_ms=now - 1_000))
        assert await store.queues() == [QUEUE]
        assert [t.ticket_id for t in await store.queued(QUEUE)] == [f"{QUEUE}.a", f"{QUEUE}.b"]
        loaded = await store.load_ticket(f"{QUEUE}.a")
        assert loaded is not None
        assert (loaded.player_ids, loaded.status, loaded.claim) == (["a"], Status.QUEUED, 0)
        with pytest.raises(TicketExists, match="exists"):  # and the first stays as it was
            await store.create_ticket(ticket("a", player_ids=["someone else"]))
        again = await store.load_ticket(f"{QUEUE}.a")
        assert again is not None
        assert again.player_ids == ["a"]

    run(scenario())


def test_tickets_are_created_after_the_store_lost_its_scripts(make_store: StoreFactory) -> None:
    """A Redis restarted forgets the scripts loaded in it: creating a ticket
    (whose script runs by its digest) loads it again, once refused."""

    async def scenario() -> None:
        store = await make_store()
        await store.create_ticket(ticket("a"))
        if isinstance(store, RedisCoordination):
            await store.client.script_flush()
        await store.create_ticket(ticket("b"))
        with pytest.raises(TicketExists):
            await store.create_ticket(ticket("b"))
        assert [t.ticket_id for t in await store.queued(QUEUE)] == [f"{QUEUE}.a", f"{QUEUE}.b"]

    run(scenario())


def test_a_claimed_ticket_is_assigned_once(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        ids = await queue_tickets(store, "ab")
        fence = await store.acquire_lease(QUEUE, "one", 5.0)
        assert fence is not None
        assert await store.acquire_lease(QUEUE, "two", 5.0) is None  # one holder at a time
        assert (await store.claim(QUEUE, fence, ids)).ok
        again = await store.claim(QUEUE, fence, ids)
        assert not again.ok
        assert sorted(again.refused) == ids
        assert await store.assign(QUEUE, fence, dict.fromkeys(ids, b"match"))
        assert not await store.assign(QUEUE, fence, dict.fromkeys(ids, b"other"))
        # The same assignment again (a retry whose answer was lost) is done,
        # not refused: its pass would drop the match the tickets were given.
        assert await store.assign(QUEUE, fence, dict.fromkeys(ids, b"match"))
        for ticket_id in ids:
            loaded = await store.load_ticket(ticket_id)
            assert loaded is not None
            assert (loaded.status, loaded.assignment) == (Status.ASSIGNED, b"match")
        assert await store.queued(QUEUE) == []

    run(scenario())


def test_a_ticket_cancelled_while_its_table_forms_is_never_assigned(
    make_store: StoreFactory,
) -> None:
    async def scenario() -> None:
        store = await make_store()
        ids = await queue_tickets(store, "ab")
        fence = await store.acquire_lease(QUEUE, "one", 5.0)
        assert fence is not None
        assert (await store.claim(QUEUE, fence, ids)).ok
        cancelled = await store.cancel_ticket(ids[1])  # while the pass creates the match
        assert cancelled is not None
        assert cancelled.status is Status.CANCELLED
        assert not await store.assign(QUEUE, fence, dict.fromkeys(ids, b"match"))
        await store.release(QUEUE, fence, ids)
        first = await store.load_ticket(ids[0])
        assert first is not None
        assert (first.status, first.claim) == (Status.QUEUED, 0)  # back in the pool
        assert [t.ticket_id for t in await store.queued(QUEUE)] == [ids[0]]

    run(scenario())


def test_a_lost_lease_claims_nothing_and_its_claims_come_back(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        ids = await queue_tickets(store, "ab")
        crashed = await store.acquire_lease(QUEUE, "crashed", 0.2)
        assert crashed is not None
        assert (await store.claim(QUEUE, crashed, ids)).ok  # then it dies
        await asyncio.sleep(0.3)
        fence = await store.acquire_lease(QUEUE, "next", 5.0)
        assert fence is not None
        assert fence > crashed  # a new holder, a new fencing token
        assert not (await store.claim(QUEUE, crashed, ids)).ok  # the old holder is fenced off
        assert not await store.assign(QUEUE, fence, dict.fromkeys(ids, b"m"))  # not its claims
        await store.release(QUEUE, fence, ids)
        assert (await store.claim(QUEUE, fence, ids)).ok
        assert await store.assign(QUEUE, fence, dict.fromkeys(ids, b"m"))
        assert not await store.assign(QUEUE, crashed, dict.fromkeys(ids, b"late"))

    run(scenario())


def test_expiry_spares_claimed_tickets(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        await queue_tickets(store, "abc")
        fence = await store.acquire_lease(QUEUE, "one", 5.0)
        assert fence is not None
        assert (await store.claim(QUEUE, fence, [f"{QUEUE}.c"])).ok
        await store.expire(QUEUE, [f"{QUEUE}.a", f"{QUEUE}.c"])
        statuses = [await store.load_ticket(f"{QUEUE}.{n}") for n in "abc"]
        assert [t.status if t else None for t in statuses] == [
            Status.EXPIRED,
            Status.QUEUED,
            Status.QUEUED,
        ]

    run(scenario())


def test_a_watcher_sees_a_change_at_once(make_store: StoreFactory) -> None:
    async def scenario() -> float:
        store = await make_store()
        await store.create_ticket(ticket("a"))
        queued = await store.load_ticket(f"{QUEUE}.a")
        assert queued is not None

        async def cancel_soon() -> None:
            await asyncio.sleep(0.1)
            await store.cancel_ticket(f"{QUEUE}.a")

        canceller = asyncio.create_task(cancel_soon())
        began = asyncio.get_running_loop().time()
        changed = await store.wait_ticket(queued, 5.0)
        await canceller
        assert changed is not None
        assert changed.status is Status.CANCELLED
        return asyncio.get_running_loop().time() - began

    assert run(scenario()) < 1.0


def test_watchers_of_one_queue_each_see_their_own_ticket_change(
    make_store: StoreFactory,
) -> None:
    """Many waits of one queue at once (on Redis they share reads): a wait
    that starts while another's is under way sees its change at once, the
    others go on waiting; a wait on a ticket that changed past the version
    it knows returns at once; one without a change returns the ticket as it
    was after its timeout."""

    async def scenario() -> None:
        store = await make_store()
        ids = await queue_tickets(store, "abcd")
        known = [await store.load_ticket(ticket_id) for ticket_id in ids]
        a, b, c, d = (t for t in known if t is not None)
        loop = asyncio.get_running_loop()
        first = asyncio.create_task(store.wait_ticket(a, 5.0))
        await asyncio.sleep(0.2)  # a's wait is under way
        began = loop.time()
        later = [asyncio.create_task(store.wait_ticket(t, 5.0)) for t in (b, c)]
        await asyncio.sleep(0.05)
        await store.cancel_ticket(b.ticket_id)
        changed = await later[0]
        assert loop.time() - began < 1.0
        assert changed is not None
        assert (changed.status, changed.version) == (Status.CANCELLED, b.version + 1)
        assert not first.done()
        assert not later[1].done()
        await store.cancel_ticket(a.ticket_id)
        assert ((await first) or a).status is Status.CANCELLED
        at_once = await store.wait_ticket(b, 5.0)  # b knows an older version
        assert at_once is not None
        assert at_once.status is Status.CANCELLED
        assert loop.time() - began < 2.0
        began = loop.time()
        unchanged = await store.wait_ticket(d, 0.3)
        assert unchanged is not None
        assert (unchanged.status, unchanged.version) == (Status.QUEUED, d.version)
        assert 0.25 <= loop.time() - began < 1.0
        await store.cancel_ticket(c.ticket_id)
        assert ((await later[1]) or c).status is Status.CANCELLED

    run(scenario())


def test_a_match_is_rated_once(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        after = [PlayerRating("ann", 28.0, 7.0, 1, 1), PlayerRating("bo", 22.0, 7.0, 1, 1)]
        before = {"ann": 0, "bo": 0}
        assert await store.apply_ratings("othello", "m1", before, after) is Applied.APPLIED
        assert await store.apply_ratings("othello", "m1", before, after) is Applied.ALREADY
        stale = [PlayerRating("ann", 30.0, 6.0, 2, 2)]
        assert await store.apply_ratings("othello", "m2", {"ann": 0}, stale) is Applied.CONFLICT
        stored = await store.ratings("othello", ["ann", "bo", "cy"])
        assert set(stored) == {"ann", "bo"}
        assert (stored["ann"].mu, stored["ann"].matches, stored["ann"].version) == (28.0, 1, 1)
        board = await store.leaderboard("othello", 0, 10)
        assert [r.player_id for r in board] == ["ann", "bo"]
        assert [r.player_id for r in await store.leaderboard("othello", 1, 10)] == ["bo"]
        assert await store.leaderboard("rolit", 0, 10) == []

    run(scenario())


def test_a_finished_rated_match_is_queued_for_its_ratings(make_store: StoreFactory) -> None:
    """With its finishing write (never with a write that lost its race), and
    delivered again until acknowledged."""
    from tests.services.test_coordination import record

    async def scenario() -> None:
        store = await make_store(visibility_timeout=0.2)
        await store.create(record("m9"), [], None)
        assert not await store.compare_and_set(record("m9", version=5), 3, [], None, True)
        assert await store.pull_result(0.1) is None
        assert await store.compare_and_set(record("m9", version=1), 0, [], None, True)
        first = await store.pull_result(1.0)
        assert first is not None
        assert (first.match_id, first.version) == ("m9", 1)
        again = await store.pull_result(2.0)  # never acknowledged: back after 0.2 s
        assert again is not None
        assert again.match_id == "m9"
        await store.ack_result(again.receipt)
        assert await store.pull_result(0.5) is None

    run(scenario())


def test_a_stale_pass_claims_no_free_ticket_under_another_lease(
    make_store: StoreFactory,
) -> None:
    """The claim checks the lease's fencing token, not only that a lease
    exists: a pass whose lease ended (it stalled) claims nothing, not even
    free tickets, while the next holder's lease is live."""

    async def scenario() -> None:
        store = await make_store()
        ids = await queue_tickets(store, "ab")
        stale = await store.acquire_lease(QUEUE, "stalled", 0.2)
        assert stale is not None
        await asyncio.sleep(0.3)
        live = await store.acquire_lease(QUEUE, "next", 5.0)
        assert live is not None
        assert live > stale
        refused = await store.claim(QUEUE, stale, ids)  # both tickets are free
        assert not refused.ok
        assert sorted(refused.refused) == ids
        for ticket_id in ids:
            loaded = await store.load_ticket(ticket_id)
            assert loaded is not None
            assert loaded.claim == 0
        assert not await store.assign(QUEUE, stale, dict.fromkeys(ids, b"stale"))
        assert (await store.claim(QUEUE, live, ids)).ok  # the live holder still can

    run(scenario())


def test_a_pass_claims_its_tables_at_once_each_all_or_none(make_store: StoreFactory) -> None:
    """claim_tables claims each table as claim would, in order: a table
    with a ticket gone (cancelled) or claimed (by an earlier table of the
    same call too) is refused whole and names those tickets, the others are
    claimed; under a token that is not the lease's, every table is refused."""

    async def scenario() -> None:
        store = await make_store()
        a, b, c, d, e, f = await queue_tickets(store, "abcdef")
        await store.cancel_ticket(f)
        stale = await store.acquire_lease(QUEUE, "stalled", 0.2)
        assert stale is not None
        await asyncio.sleep(0.3)
        fence = await store.acquire_lease(QUEUE, "one", 5.0)
        assert fence is not None
        refused = await store.claim_tables(QUEUE, stale, [[a, b], [e]])
        assert [(t.ok, sorted(t.refused)) for t in refused] == [(False, [a, b]), (False, [e])]
        claims = await store.claim_tables(QUEUE, fence, [[a, b], [c, f], [b, d], [e]])
        assert [(t.ok, t.refused) for t in claims] == [
            (True, []),
            (False, [f]),
            (False, [b]),
            (True, []),
        ]
        loaded = [await store.load_ticket(t) for t in (a, b, c, d, e)]
        assert [t.claim if t else None for t in loaded] == [fence, fence, 0, 0, fence]
        assert await store.claim_tables(QUEUE, fence, []) == []

    run(scenario())


def test_a_pass_assigns_its_tables_at_once_each_all_or_none(make_store: StoreFactory) -> None:
    """assign_tables assigns each table as assign would: a table with a
    ticket not claimed by the fence is assigned not at all, the others are,
    and leave their clients' open tickets; the same call again (a retry) is
    done for the tables that were."""

    async def scenario() -> None:
        store = await make_store()
        for name in "abcde":
            await store.create_ticket(ticket(name, client="ipv4:10.0.0.7"), 8)
        a, b, c, d, e = (f"{QUEUE}.{name}" for name in "abcde")
        fence = await store.acquire_lease(QUEUE, "one", 5.0)
        assert fence is not None
        claims = await store.claim_tables(QUEUE, fence, [[a, b], [c], [d]])
        assert all(claim.ok for claim in claims)
        tables = [{a: b"m1", b: b"m1"}, {c: b"m2", e: b"m2"}, {d: b"m3"}]  # e: not claimed
        assert await store.assign_tables(QUEUE, fence, tables) == [True, False, True]
        assert await store.assign_tables(QUEUE, fence, tables) == [True, False, True]
        loaded = [await store.load_ticket(t) for t in (a, b, c, d, e)]
        assert [(t.status, t.assignment) if t else None for t in loaded] == [
            (Status.ASSIGNED, b"m1"),
            (Status.ASSIGNED, b"m1"),
            (Status.QUEUED, b""),
            (Status.ASSIGNED, b"m3"),
            (Status.QUEUED, b""),
        ]
        assert [t.ticket_id for t in await store.queued(QUEUE)] == [c, e]
        assert await store.open_tickets("ipv4:10.0.0.7") == 2
        assert await store.assign_tables(QUEUE, fence, []) == []

    run(scenario())


def test_every_ended_ticket_leaves_the_queue(make_store: StoreFactory) -> None:
    """Assigned, expired and cancelled tickets leave the queue's index of
    queued tickets (on Redis, the sorted set ``{q:<queue>}:queued``), so an
    emptied queue is dropped from the queues a matchmaker passes over."""

    async def scenario() -> None:
        store = await make_store()
        ids = await queue_tickets(store, "abcdefg")
        fence = await store.acquire_lease(QUEUE, "one", 5.0)
        assert fence is not None
        assert (await store.claim(QUEUE, fence, ids[:2])).ok  # a table of two
        assert await store.assign(QUEUE, fence, dict.fromkeys(ids[:2], b"m1"))
        assert (await store.claim(QUEUE, fence, ids[2:5])).ok  # of three, other seats
        assert await store.assign(QUEUE, fence, {i: i.encode() for i in ids[2:5]})
        await store.expire(QUEUE, [ids[5]])
        await store.cancel_ticket(ids[6])
        assert await store.queued(QUEUE) == []
        if isinstance(store, RedisCoordination):
            assert await store.client.zrange(queued_key(QUEUE), 0, -1) == []
        assert await store.queues() == []
        await store.create_ticket(ticket("h"))  # a new ticket brings the queue back
        assert await store.queues() == [QUEUE]

    run(scenario())


def test_open_tickets_are_counted_per_client_until_they_end(make_store: StoreFactory) -> None:
    """The cap is checked and the ticket counted in one step (on Redis, one
    script on the client's own key, so across replicas); a retry of an
    open ticket is counted once; a ticket that ends is counted no more,
    however it ends; tickets without a client are never capped."""

    async def scenario() -> None:
        store = await make_store()
        for name in "abc":
            await store.create_ticket(ticket(name, client="ipv4:10.0.0.9"), 3)
        with pytest.raises(TooManyTickets):
            await store.create_ticket(ticket("d", client="ipv4:10.0.0.9"), 3)
        assert await store.load_ticket(f"{QUEUE}.d") is None  # refused: nothing stored
        with pytest.raises(TicketExists):  # a retry of an open one is not over the cap
            await store.create_ticket(ticket("a", client="ipv4:10.0.0.9"), 3)
        await store.create_ticket(ticket("x", client="ipv4:10.0.0.10"), 3)  # its own count
        await store.create_ticket(ticket("y"), 1)  # no client: never capped
        await store.create_ticket(ticket("z"), 1)
        assert await store.open_tickets("ipv4:10.0.0.9") == 3
        fence = await store.acquire_lease(QUEUE, "one", 5.0)
        assert fence is not None
        assert (await store.claim(QUEUE, fence, [f"{QUEUE}.a", f"{QUEUE}.x"])).ok
        assert await store.assign(QUEUE, fence, {f"{QUEUE}.a": b"m", f"{QUEUE}.x": b"m"})
        await store.expire(QUEUE, [f"{QUEUE}.b"])
        await store.cancel_ticket(f"{QUEUE}.c")
        assert await store.open_tickets("ipv4:10.0.0.9") == 0
        assert await store.open_tickets("ipv4:10.0.0.10") == 0
        with pytest.raises(TicketExists):  # a retry of an ended one counts nothing
            await store.create_ticket(ticket("a", client="ipv4:10.0.0.9"), 3)
        assert await store.open_tickets("ipv4:10.0.0.9") == 0
        for name in "def":
            await store.create_ticket(ticket(name, client="ipv4:10.0.0.9"), 3)
        loaded = await store.load_ticket(f"{QUEUE}.d")
        assert loaded is not None
        assert loaded.client == "ipv4:10.0.0.9"
        assert {t.client for t in await store.queued(QUEUE)} == {"ipv4:10.0.0.9", ""}

    run(scenario())


def test_an_open_count_heals_when_its_tickets_max_wait_has_passed(
    make_store: StoreFactory,
) -> None:
    """A count whose end was never recorded (its process died between the
    end and the count) lasts no longer than the ticket's max_wait: on Redis
    the count is kept by deadline; in memory it ends with the ticket."""

    async def scenario() -> None:
        store = await make_store()
        now = wall_ms()
        short = ticket("a", client="ipv4:10.0.0.9", created_ms=now, expires_ms=now + 300)
        await store.create_ticket(short, 1)
        with pytest.raises(TooManyTickets):
            await store.create_ticket(ticket("b", client="ipv4:10.0.0.9"), 1)
        await asyncio.sleep(0.4)
        if not isinstance(store, RedisCoordination):
            await store.expire(QUEUE, [f"{QUEUE}.a"])  # as the next pass does
        await store.create_ticket(ticket("b", client="ipv4:10.0.0.9"), 1)

    run(scenario())


def test_a_shared_secret_is_the_first_one_offered(make_store: StoreFactory) -> None:
    """Each name keeps the first secret offered for it (ticket tokens, the
    guest signing key), apart from the other names'."""

    async def scenario() -> None:
        store = await make_store()
        assert await store.shared_secret("ticket-secret", b"first secret") == b"first secret"
        assert await store.shared_secret("ticket-secret", b"second secret") == b"first secret"
        assert await store.shared_secret("auth-key", b"a key") == b"a key"
        if isinstance(store, RedisCoordination):  # another replica's store reads the same
            other = await make_store()
            assert await other.shared_secret("ticket-secret", b"its own") == b"first secret"
            assert await other.shared_secret("auth-key", b"its own") == b"a key"

    run(scenario())


def test_concurrent_reads_of_a_queue_agree(make_store: StoreFactory) -> None:
    """Reads of one queue at once, as a pass and another caller of the same
    process make them (the web entry both serves and matches): each gets
    every ticket, although the first to return decodes tickets the others
    asked for whole (a read of undecoded tickets crashed when another had
    decoded them meanwhile)."""

    async def scenario() -> None:
        store = await make_store()
        ids = await queue_tickets(store, "abcd")
        reads = await asyncio.gather(*(store.queued(QUEUE) for _ in range(3)))
        assert [[t.ticket_id for t in read] for read in reads] == [ids] * 3
        again = await store.queued(QUEUE)  # decoded now: the state alone
        assert [t.ticket_id for t in again] == ids

    run(scenario())
