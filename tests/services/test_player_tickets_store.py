"""One queued ticket per player and queue (``PlayerQueued``), on every
matchmaking store (memory, a real redis-server, a real Cluster): a player,
alone or in a party, queues at most one ticket in a queue, atomically,
from any replica, until that ticket ends; player ids of any characters
are kept apart."""

from __future__ import annotations

import asyncio

import pytest

from services.coordination.matchmaking import PlayerQueued, Status, TicketExists
from services.coordination.memory import wall_ms
from services.coordination.redis import RedisCoordination
from tests.services.test_matchmaking_store import (
    QUEUE,
    StoreFactory,
    make_store,  # noqa: F401 (the fixture)
    run,
    ticket,
)

OTHER_QUEUE = "rolit-abc"


def test_a_player_with_a_queued_ticket_queues_no_other_in_its_queue(
    make_store: StoreFactory,  # noqa: F811
) -> None:
    async def scenario() -> None:
        store = await make_store()
        await store.create_ticket(ticket("a", player_ids=["ann"], client="player:ann"), 4)
        with pytest.raises(PlayerQueued) as refused:
            await store.create_ticket(ticket("b", player_ids=["ann"], client="player:ann"), 4)
        assert refused.value.player_id == "ann"
        # A party with a queued member is refused by that member, whole.
        with pytest.raises(PlayerQueued) as refused:
            await store.create_ticket(ticket("c", player_ids=["bo", "ann"], client="player:bo"), 4)
        assert refused.value.player_id == "ann"
        for name in "bc":
            assert await store.load_ticket(f"{QUEUE}.{name}") is None
        assert [t.ticket_id for t in await store.queued(QUEUE)] == [f"{QUEUE}.a"]
        # A refused ticket counts among no client's open tickets, and queued no member.
        assert await store.open_tickets("player:ann") == 1
        assert await store.open_tickets("player:bo") == 0
        await store.create_ticket(ticket("d", player_ids=["bo"], client="player:bo"), 1)
        # Another queue is another matter.
        other = ticket("e", player_ids=["ann"], queue=OTHER_QUEUE, ticket_id=f"{OTHER_QUEUE}.e")
        await store.create_ticket(other)
        # The same ticket again is a retry (TicketExists), not a second ticket.
        with pytest.raises(TicketExists):
            await store.create_ticket(ticket("a", player_ids=["ann"], client="player:ann"), 4)
        assert await store.open_tickets("player:ann") == 1

    run(scenario())


@pytest.mark.parametrize("ending", ["cancelled", "assigned", "expired"])
def test_a_player_queues_again_once_its_ticket_ended(
    make_store: StoreFactory,  # noqa: F811
    ending: str,
) -> None:
    async def scenario() -> None:
        store = await make_store()
        now = wall_ms()
        first = ticket("a", player_ids=["ann", "bo"], created_ms=now, expires_ms=now + 300)
        await store.create_ticket(first)
        with pytest.raises(PlayerQueued):
            await store.create_ticket(ticket("b", player_ids=["bo"]))
        if ending == "cancelled":
            assert await store.cancel_ticket(f"{QUEUE}.a") is not None
        elif ending == "assigned":
            fence = await store.acquire_lease(QUEUE, "pass", 5.0)
            assert fence is not None
            assert (await store.claim(QUEUE, fence, [f"{QUEUE}.a"])).ok
            # Claimed (being seated) is still queued: no second ticket meanwhile.
            with pytest.raises(PlayerQueued):
                await store.create_ticket(ticket("b", player_ids=["bo"]))
            assert await store.assign(QUEUE, fence, {f"{QUEUE}.a": b"match"})
        else:
            await asyncio.sleep(0.4)
            await store.expire(QUEUE, [f"{QUEUE}.a"])
        ended = await store.load_ticket(f"{QUEUE}.a")
        assert ended is not None
        assert ended.status is not Status.QUEUED
        await store.create_ticket(ticket("b", player_ids=["bo"]))
        await store.create_ticket(ticket("c", player_ids=["ann"]))
        with pytest.raises(PlayerQueued):
            await store.create_ticket(ticket("d", player_ids=["ann"]))

    run(scenario())


def test_concurrent_tickets_of_one_player_queue_one(make_store: StoreFactory) -> None:  # noqa: F811
    """Creations at once (as from two devices, or two replicas): one queued."""

    async def scenario() -> None:
        store = await make_store()
        others = (
            [await make_store() for _ in range(2)] if isinstance(store, RedisCoordination) else []
        )
        stores = [store, *others]
        attempts = [
            stores[n % len(stores)].create_ticket(ticket(f"t{n}", player_ids=["ann"]))
            for n in range(8)
        ]
        results = await asyncio.gather(*attempts, return_exceptions=True)
        refused = [r for r in results if isinstance(r, PlayerQueued)]
        assert len(refused) == 7, results
        assert sum(r is None for r in results) == 1
        assert len(await store.queued(QUEUE)) == 1

    run(scenario())


@pytest.mark.parametrize("player", ["{x}", "a:b", "p:ann", "名前", "}{", "a b"])
def test_player_ids_of_any_characters_are_kept_apart(
    make_store: StoreFactory,  # noqa: F811
    player: str,
) -> None:
    """A player id is part of a key on Redis (``{q:<queue>}:p:<player>``): one
    with braces or colons stays in its queue's slot and names only itself."""

    async def scenario() -> None:
        store = await make_store()
        await store.create_ticket(ticket("a", player_ids=[player]))
        with pytest.raises(PlayerQueued):
            await store.create_ticket(ticket("b", player_ids=[player]))
        await store.create_ticket(ticket("c", player_ids=[player + "x"]))
        await store.create_ticket(ticket("d", player_ids=["x" + player]))

    run(scenario())
