"""Watchers of one match share one read of its event stream per cursor,
on every store: ten watchers waiting from the same cursor make one
``wait_events`` of the store and all get the event; one cancelled leaves
the read to the others; the next cursor is a new read."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.coordination import Coordination, Event, EventBatch
from services.match_service.shared_waits import SharedWaits
from tests.services.test_coordination import StoreFactory, make_store, record  # noqa: F401


class CountingWaits:
    """A store whose ``wait_events`` calls are counted."""

    def __init__(self, store: Coordination) -> None:
        self.store = store
        self.waits = 0

    async def wait_events(self, match_id: str, cursor: str, timeout: float) -> EventBatch:
        self.waits += 1
        return await self.store.wait_events(match_id, cursor, timeout)


def test_watchers_of_one_match_share_one_read(make_store: StoreFactory) -> None:  # noqa: F811
    async def scenario() -> None:
        store = await make_store()
        data = record()
        await store.create(data, [Event(0, b"first")], None)
        cursor = (await store.read_events("m1", 0)).cursor
        counting = CountingWaits(store)
        waits = SharedWaits(counting)  # type: ignore[arg-type]
        watchers = [asyncio.create_task(waits.wait_events("m1", cursor, 5.0)) for _ in range(10)]
        await asyncio.sleep(0.05)
        watchers[0].cancel()  # a watcher that goes leaves the read to the others
        data.version = 1
        assert await store.compare_and_set(data, 0, [Event(1, b"second")], None)
        batches = await asyncio.gather(*watchers[1:])
        assert counting.waits == 1
        assert all([e.payload for e in batch.events] == [b"second"] for batch in batches)
        with pytest.raises(asyncio.CancelledError):
            await watchers[0]
        assert len(waits) == 0  # nothing left in flight
        after = await waits.wait_events("m1", batches[0].cursor, 0.05)
        assert (after.events, counting.waits) == ([], 2)

    asyncio.run(scenario())


def test_a_failed_read_fails_each_of_its_watchers() -> None:
    class Failing:
        async def wait_events(self, *args: Any) -> EventBatch:
            await asyncio.sleep(0.01)
            raise ConnectionError("the store went away")

    async def scenario() -> None:
        waits = SharedWaits(Failing())  # type: ignore[arg-type]
        outcomes = await asyncio.gather(
            *(waits.wait_events("m1", "0", 1.0) for _ in range(3)), return_exceptions=True
        )
        assert all(isinstance(outcome, ConnectionError) for outcome in outcomes)
        assert len(waits) == 0

    asyncio.run(scenario())


def test_the_last_watcher_to_go_cancels_the_read(make_store: StoreFactory) -> None:  # noqa: F811
    """Nothing is left running when every watcher of a read went (a
    shutdown): the read is cancelled with the last of them."""

    async def scenario() -> None:
        store = await make_store()
        await store.create(record(), [], None)
        waits = SharedWaits(store)
        watchers = [asyncio.create_task(waits.wait_events("m1", "0", 30.0)) for _ in range(3)]
        await asyncio.sleep(0.05)
        (read,) = waits._reads.values()
        for watcher in watchers[:2]:
            watcher.cancel()
        await asyncio.sleep(0.01)
        assert not read.task.done()  # one watcher still waits on it
        watchers[2].cancel()
        await asyncio.wait(watchers)
        await asyncio.sleep(0.01)
        assert read.task.cancelled()
        assert len(waits) == 0

    asyncio.run(scenario())
