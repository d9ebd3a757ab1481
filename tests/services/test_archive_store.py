"""The archive's storage contract (``services.archive.base.Archive``), on
``SqlArchive`` over a real SQLite file and a real PostgreSQL server (a fresh
database per test): matches and rating changes read back exactly as
written, writes are idempotent (whatever the second payload says), a
player's lists filter and page latest first, each match exactly once, with
ties on the end time ordered by match id, tallies count every page, prune
deletes old matches with their seats and rating changes (and span counts
them beforehand). A property test compares lists and tallies with a
plain-Python filter over random small archives. Reaching the database, and
failing to: ``test_archive_connections.py``."""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from meeple.v1 import match_service_pb2 as pb

from services.archive.base import MatchSpan
from services.archive.database import sqlite_url
from services.archive.records import (
    ArchivedMatch,
    ArchivedSeat,
    Cursor,
    MatchFilter,
    Outcome,
    RatingChange,
    Tally,
    outcomes,
)
from services.archive.sql import SqlArchive
from tests.postgres_servers import PostgresServer

T = TypeVar("T")
SECONDS = 30  # no test's archive work may take longer: it fails instead of hanging
BASE_MS = 1_764_000_000_000  # a wall-clock time, past 2**32 ms


def with_archive(url: str, body: Callable[[SqlArchive], Awaitable[T]]) -> T:
    """Runs ``body`` on a started archive at ``url`` (migrated), then closes it."""

    async def run() -> T:
        archive = SqlArchive(url, migrate=True)
        await archive.start()
        try:
            return await body(archive)
        finally:
            await archive.close()

    return asyncio.run(asyncio.wait_for(run(), SECONDS))


def seat(player_id: str, result: float, outcome: Outcome, **fields: Any) -> ArchivedSeat:
    """A human's seat, or a bot's for player ``""``."""
    human = bool(player_id)
    values: dict[str, Any] = {
        "kind": pb.SEAT_KIND_HUMAN if human else pb.SEAT_KIND_BOT,
        "bot_spec": "" if human else "mcts:level=3",
        "player_id": player_id,
        "display_name": player_id.title() if human else "Bot",
        "result": result,
        "outcome": outcome,
    }
    values.update(fields)
    return ArchivedSeat(**values)


def match(
    match_id: str, ended_ms: int, players: list[str], results: list[float], **fields: Any
) -> ArchivedMatch:
    """A finished match: a seat per player (``""``: a bot) with its result
    and the outcome that follows from the results."""
    seats = tuple(
        seat(player, result, outcome)
        for player, result, outcome in zip(players, results, outcomes(results), strict=True)
    )
    values: dict[str, Any] = {
        "match_id": match_id,
        "game": "rolit",
        "rated": False,
        "reason": pb.END_REASON_RULES,
        "end_seat": -1,
        "created_ms": ended_ms - 60_000,
        "started_ms": ended_ms - 50_000,
        "ended_ms": ended_ms,
        "plies": 42,
        "seats": seats,
        "record": f'{{"match_id": "{match_id}"}}'.encode(),
    }
    values.update(fields)
    return ArchivedMatch(**values)


def change(match_id: str, player_id: str, rated_ms: int, game: str = "rolit") -> RatingChange:
    return RatingChange(
        match_id=match_id,
        game=game,
        player_id=player_id,
        mu_before=25.0,
        sigma_before=25 / 3,
        mu_after=26.123456789012345,
        sigma_after=8.0000000001,
        matches_after=7,
        rated_ms=rated_ms,
    )


def win(match_id: str, ended_ms: int, **fields: Any) -> ArchivedMatch:
    """Ann beats Bob."""
    return match(match_id, ended_ms, ["ann", "bob"], [1.0, 0.0], **fields)


async def all_pages(
    archive: SqlArchive, where: MatchFilter, limit: int
) -> list[list[ArchivedMatch]]:
    """Every page of a list, following each page's last entry."""
    pages: list[list[ArchivedMatch]] = []
    after: Cursor | None = None
    while True:
        page = await archive.matches(where, after, limit)
        if not page:
            return pages
        pages.append(page)
        assert len(pages) < 1000, "the pages never end"
        after = Cursor(page[-1].ended_ms, page[-1].match_id)


def ids(matches: list[ArchivedMatch]) -> list[str]:
    return [found.match_id for found in matches]


def test_a_match_reads_back_exactly_as_written(archive_url: str) -> None:
    written = ArchivedMatch(
        match_id="0f1e2d3c4b5a6978",
        game="volta",
        rated=True,
        reason=pb.END_REASON_RESIGNATION,
        end_seat=2,
        created_ms=BASE_MS + 1,
        started_ms=BASE_MS + 2,
        ended_ms=2**53 - 1,
        plies=2**31 - 1,
        seats=(
            seat("ann", 0.1, Outcome.WIN, display_name="Änn 🎲"),
            seat("", -1.5, Outcome.LOSS, bot_spec="alphabeta:depth=4"),
            seat("cy", 1e-300, Outcome.LOSS, display_name=""),
            seat("dee", 0.30000000000000004, Outcome.WIN, kind=pb.SEAT_KIND_HUMAN),
        ),
        record=bytes(range(256)) + b"\x00" * 10_000,
    )
    unstarted = match("ffff", BASE_MS, ["", ""], [0.5, 0.5], started_ms=0, plies=0, record=b"")

    async def body(archive: SqlArchive) -> None:
        await archive.write([written, unstarted], [])
        assert await archive.match(written.match_id) == written
        assert await archive.match("ffff") == unstarted
        assert await archive.match("nope") is None
        assert await archive.matches(MatchFilter("ann"), None, 10) == [written]

    with_archive(archive_url, body)


def test_a_rating_change_reads_back_exactly_as_written(archive_url: str) -> None:
    written = change("m1", "ann", BASE_MS + 5)

    async def body(archive: SqlArchive) -> None:
        # Before its match: rating changes have no foreign key to matches.
        await archive.write([], [written])
        assert await archive.rating_history("ann", "rolit", None, 10) == [written]
        assert written.ordinal_after == pytest.approx(26.123456789012345 - 24.0000000003)

    with_archive(archive_url, body)


def test_writing_again_changes_nothing(archive_url: str) -> None:
    first = win("m1", BASE_MS)
    rated = change("m1", "ann", BASE_MS + 1)
    # The same ids, everything else different (more seats, other players,
    # another time, another record): the archive keeps what it has.
    second = match(
        "m1",
        BASE_MS + 99,
        ["bob", "ann", "cy", "dee"],
        [1.0, 0.0, 0.0, 0.0],
        game="volta",
        rated=True,
        record=b"other",
    )
    rerated = RatingChange("m1", "volta", "ann", 1.0, 1.0, 2.0, 2.0, 99, BASE_MS + 99)

    async def body(archive: SqlArchive) -> None:
        await archive.write([first], [rated])
        size = await archive.size()
        await archive.write([first], [rated])
        await archive.write([second], [rerated])
        await archive.write([second, first, second], [rerated, rated])
        assert await archive.match("m1") == first
        assert (await archive.size()).matches == size.matches == 1
        assert ids(await archive.matches(MatchFilter("ann"), None, 10)) == ["m1"]
        assert await archive.matches(MatchFilter("cy"), None, 10) == []
        assert await archive.tally(MatchFilter("ann")) == Tally(wins=1)
        assert await archive.tally(MatchFilter("bob")) == Tally(losses=1)
        assert await archive.rating_history("ann", "rolit", None, 10) == [rated]
        assert await archive.rating_history("ann", "volta", None, 10) == []

    with_archive(archive_url, body)


def test_a_batch_of_hundreds_is_written_at_once(archive_url: str) -> None:
    batch = [
        match(f"m{i:04d}", BASE_MS + i, ["ann", "", "bob", ""], [1.0, 0.0, 0.5, 0.0])
        for i in range(600)
    ]
    changes = [change(f"m{i:04d}", player, BASE_MS + i) for i in range(600) for player in "xy"]

    async def body(archive: SqlArchive) -> float:
        await archive.write([], [])  # nothing to write: nothing happens
        await archive.write(batch[:100], changes[:50])
        began = time.monotonic()
        # Already archived, new, and repeated within the batch.
        await archive.write(batch + batch[500:], changes + changes[:10])
        took = time.monotonic() - began
        assert (await archive.size()).matches == 600
        assert await archive.tally(MatchFilter("bob")) == Tally(losses=600)
        assert len(await archive.matches(MatchFilter("ann"), None, 1000)) == 600
        assert len(await archive.rating_history("x", "rolit", None, 1000)) == 600
        assert await archive.match("m0599") == batch[599]
        return took

    took = with_archive(archive_url, body)
    # One transaction of batched statements: well under a second here; a
    # statement per row would take many.
    assert took < 5, f"writing 600 matches (2400 seats) and 1200 changes took {took:.1f} s"


def test_lists_filter_by_game_outcome_time_and_opponent(archive_url: str) -> None:
    t = BASE_MS
    matches = [
        win("a", t + 10),  # ann wins against bob
        match("b", t + 20, ["bob", "ann"], [1.0, 0.0]),  # ann loses to bob
        match("c", t + 30, ["ann", "cy"], [0.5, 0.5], game="volta"),  # a draw with cy
        # Four seats: ann once, bots in two, dee in one; ann wins with a bot.
        match("d", t + 40, ["", "ann", "dee", ""], [0.0, 1.0, 0.0, 1.0], game="volta"),
        match("e", t + 50, ["bob", "cy"], [1.0, 0.0]),  # not ann's
    ]

    async def listed(archive: SqlArchive, **where: Any) -> list[str]:
        return ids(await archive.matches(MatchFilter("ann", **where), None, 100))

    async def body(archive: SqlArchive) -> None:
        await archive.write(matches, [])
        assert await listed(archive) == ["d", "c", "b", "a"]
        assert await listed(archive, game="rolit") == ["b", "a"]
        assert await listed(archive, game="volta") == ["d", "c"]
        assert await listed(archive, game="othello") == []
        assert await listed(archive, outcome=Outcome.WIN) == ["d", "a"]
        assert await listed(archive, outcome=Outcome.LOSS) == ["b"]
        assert await listed(archive, outcome=Outcome.DRAW) == ["c"]
        assert await listed(archive, game="volta", outcome=Outcome.WIN) == ["d"]
        # ended_after_ms is inclusive, ended_before_ms exclusive.
        assert await listed(archive, ended_after_ms=t + 20) == ["d", "c", "b"]
        assert await listed(archive, ended_before_ms=t + 30) == ["b", "a"]
        assert await listed(archive, ended_after_ms=t + 20, ended_before_ms=t + 40) == ["c", "b"]
        assert await listed(archive, ended_after_ms=t + 41) == []
        # Head to head: only matches with the opponent in another seat.
        assert await listed(archive, opponent_id="bob") == ["b", "a"]
        assert await listed(archive, opponent_id="dee") == ["d"]
        assert await listed(archive, opponent_id="cy") == ["c"]
        assert await listed(archive, opponent_id="ann") == []  # not against herself
        assert await listed(archive, opponent_id="") == ["d"]  # the bots' seats
        assert await listed(archive, opponent_id="bob", outcome=Outcome.WIN) == ["a"]
        assert await archive.tally(MatchFilter("ann", opponent_id="bob")) == Tally(1, 1, 0)
        assert await archive.tally(MatchFilter("ann")) == Tally(wins=2, losses=1, draws=1)
        assert await archive.tally(MatchFilter("ann", game="volta")) == Tally(wins=1, draws=1)
        assert await archive.tally(MatchFilter("dee")) == Tally(losses=1)
        assert await archive.tally(MatchFilter("nobody")) == Tally()
        # The 4-seat match reads back whole from dee's list too.
        assert (await archive.matches(MatchFilter("dee"), None, 10)) == [matches[3]]

    with_archive(archive_url, body)


def test_pages_hold_each_match_once_latest_first_ties_by_id(archive_url: str) -> None:
    # 25 matches on 7 end times (4 on each but the last): ties are ordered by match id.
    written = [win(f"m{i:02d}", BASE_MS + i // 4) for i in range(25)]
    expected = sorted(written, key=lambda found: (found.ended_ms, found.match_id), reverse=True)
    assert len({found.ended_ms for found in written}) < 25

    async def body(archive: SqlArchive) -> None:
        # In shuffled batches: the order comes from the columns, not insertion.
        await archive.write(written[::2], [])
        await archive.write(written[1::2], [])
        pages = await all_pages(archive, MatchFilter("ann"), limit=10)
        assert [len(page) for page in pages] == [10, 10, 5]
        assert [found for page in pages for found in page] == expected
        # From the middle of a tie: strictly after the cursor.
        middle = expected[11]
        after = await archive.matches(
            MatchFilter("ann"), Cursor(middle.ended_ms, middle.match_id), 3
        )
        assert after == expected[12:15]
        # A cursor between entries (of no match) starts after its position.
        assert ids(await archive.matches(MatchFilter("ann"), Cursor(BASE_MS + 3, "m13"), 2)) == [
            "m12",
            "m11",
        ]
        assert await archive.matches(MatchFilter("ann"), None, 0) == []
        assert await archive.tally(MatchFilter("ann")) == Tally(wins=25)
        assert await archive.tally(MatchFilter("bob")) == Tally(losses=25)

    with_archive(archive_url, body)


def test_rating_history_is_latest_first_per_player_and_game(archive_url: str) -> None:
    changes = [change(f"m{i:02d}", "ann", BASE_MS + i // 3) for i in range(12)]
    others = [
        change("m00", "bob", BASE_MS + 50),
        change("v1", "ann", BASE_MS + 50, game="volta"),
    ]
    expected = sorted(changes, key=lambda found: (found.rated_ms, found.match_id), reverse=True)

    async def body(archive: SqlArchive) -> None:
        await archive.write([], changes[6:] + others)
        await archive.write([], changes[:6])
        assert await archive.rating_history("ann", "rolit", None, 100) == expected
        pages: list[RatingChange] = []
        after: Cursor | None = None
        while page := await archive.rating_history("ann", "rolit", after, 5):
            assert len(page) <= 5
            pages += page
            after = Cursor(page[-1].rated_ms, page[-1].match_id)
        assert pages == expected
        assert await archive.rating_history("ann", "volta", None, 10) == [others[1]]
        assert await archive.rating_history("bob", "rolit", None, 10) == [others[0]]
        assert await archive.rating_history("cy", "rolit", None, 10) == []
        assert await archive.rating_history("ann", "rolit", None, 0) == []

    with_archive(archive_url, body)


def test_prune_deletes_old_matches_with_their_seats_and_rating_changes(archive_url: str) -> None:
    old = [win(f"old{i}", BASE_MS + i) for i in range(5)]
    new = [win(f"new{i}", BASE_MS + 100 + i) for i in range(3)]
    old_changes = [change(found.match_id, "ann", found.ended_ms + 1) for found in old]
    new_changes = [change(found.match_id, "ann", found.ended_ms + 1) for found in new]
    # A rating change of a match not archived yet, rated after the cutoff: kept.
    waiting = change("later", "ann", BASE_MS + 200)

    async def body(archive: SqlArchive) -> None:
        await archive.write(old + new, old_changes + new_changes + [waiting])
        assert await archive.prune(BASE_MS + 100) == 5
        assert await archive.prune(BASE_MS + 100) == 0
        assert [await archive.match(found.match_id) for found in old] == [None] * 5
        assert [await archive.match(found.match_id) for found in new] == new
        assert ids(await archive.matches(MatchFilter("ann"), None, 100)) == [
            "new2",
            "new1",
            "new0",
        ]
        assert await archive.tally(MatchFilter("bob")) == Tally(losses=3)
        history = await archive.rating_history("ann", "rolit", None, 100)
        assert history == [waiting, *reversed(new_changes)]
        assert (await archive.size()).matches == 3
        # Its seats went with it: the same id can be archived anew.
        await archive.write([old[0]], [])
        assert await archive.match("old0") == old[0]

    with_archive(archive_url, body)


def test_span_counts_what_prune_would_delete(archive_url: str) -> None:
    matches = [win(f"m{i}", BASE_MS + i * 10) for i in range(6)]

    async def body(archive: SqlArchive) -> None:
        assert await archive.span() == MatchSpan(0, None, None)
        await archive.write(matches, [])
        assert await archive.span() == MatchSpan(6, BASE_MS, BASE_MS + 50)
        assert await archive.span(BASE_MS + 30) == MatchSpan(3, BASE_MS, BASE_MS + 20)
        assert await archive.span(BASE_MS) == MatchSpan(0, None, None)
        assert await archive.prune(BASE_MS + 30) == 3
        assert await archive.span() == MatchSpan(3, BASE_MS + 30, BASE_MS + 50)

    with_archive(archive_url, body)


def test_size_grows_with_writes(archive_url: str) -> None:
    async def body(archive: SqlArchive) -> None:
        empty = await archive.size()
        assert empty.matches == 0
        assert empty.bytes >= 0
        await archive.write(
            [
                win(f"m{i:03d}", BASE_MS + i, record=random.Random(i).randbytes(2000))
                for i in range(200)
            ],
            [],
        )
        full = await archive.size()
        assert full.matches == 200
        assert full.bytes > empty.bytes + 200 * 2000

    with_archive(archive_url, body)


# The property: lists and tallies agree with a plain-Python filter.

PLAYERS = ["ann", "bob", "cy", ""]  # "": a bot's seat
GAMES = ["rolit", "volta"]

random_matches = st.dictionaries(
    keys=st.text("0123456789abcdef", min_size=1, max_size=3),
    values=st.tuples(
        st.integers(0, 5),  # end times: many ties
        st.sampled_from(GAMES),
        # Two to four seats; a player may hold two seats of one match.
        st.lists(
            st.tuples(st.sampled_from(PLAYERS), st.sampled_from([0.0, 0.5, 1.0])),
            min_size=2,
            max_size=4,
        ),
    ),
    max_size=12,
).map(
    lambda drawn: [
        match(
            match_id,
            BASE_MS + ended,
            [player for player, _ in seats],
            [result for _, result in seats],
            game=game,
        )
        for match_id, (ended, game, seats) in drawn.items()
    ]
)
random_filters = st.builds(
    MatchFilter,
    player_id=st.sampled_from(PLAYERS[:3]),
    game=st.none() | st.sampled_from([*GAMES, "othello"]),
    outcome=st.none() | st.sampled_from(list(Outcome)),
    ended_after_ms=st.none() | st.integers(0, 6).map(lambda ms: BASE_MS + ms),
    ended_before_ms=st.none() | st.integers(0, 6).map(lambda ms: BASE_MS + ms),
    opponent_id=st.none() | st.sampled_from(PLAYERS),
)


def reference(matches: list[ArchivedMatch], where: MatchFilter) -> list[ArchivedMatch]:
    """What a list holds, by the contract's words: the player's matches
    (their first seat's outcome, if they hold two), latest first."""
    kept = []
    for found in matches:
        players = [each.player_id for each in found.seats]
        if where.player_id not in players:
            continue
        mine = players.index(where.player_id)
        if where.game is not None and found.game != where.game:
            continue
        if where.outcome is not None and found.seats[mine].outcome != where.outcome:
            continue
        if where.ended_after_ms is not None and found.ended_ms < where.ended_after_ms:
            continue
        if where.ended_before_ms is not None and found.ended_ms >= where.ended_before_ms:
            continue
        others = players[:mine] + players[mine + 1 :]
        if where.opponent_id is not None and where.opponent_id not in others:
            continue
        kept.append(found)
    return sorted(kept, key=lambda found: (found.ended_ms, found.match_id), reverse=True)


def reference_tally(matches: list[ArchivedMatch], where: MatchFilter) -> Tally:
    counts = dict.fromkeys(Outcome, 0)
    for found in reference(matches, where):
        players = [each.player_id for each in found.seats]
        counts[found.seats[players.index(where.player_id)].outcome] += 1
    return Tally(counts[Outcome.WIN], counts[Outcome.LOSS], counts[Outcome.DRAW])


def check_against_reference(
    url: str, matches: list[ArchivedMatch], filters: list[MatchFilter]
) -> None:
    async def body(archive: SqlArchive) -> None:
        await archive.write(matches, [])
        for where in filters:
            expected = reference(matches, where)
            pages = await all_pages(archive, where, limit=3)
            assert [found for page in pages for found in page] == expected, where
            assert await archive.tally(where) == reference_tally(matches, where), where

    with_archive(url, body)


@settings(max_examples=25)
@given(matches=random_matches, filters=st.lists(random_filters, min_size=1, max_size=6))
def test_lists_agree_with_a_plain_filter_on_sqlite(
    matches: list[ArchivedMatch], filters: list[MatchFilter]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check_against_reference(sqlite_url(folder), matches, filters)


@settings(max_examples=5)
@given(matches=random_matches, filters=st.lists(random_filters, min_size=1, max_size=6))
def test_lists_agree_with_a_plain_filter_on_postgresql(
    postgres_server: PostgresServer, matches: list[ArchivedMatch], filters: list[MatchFilter]
) -> None:
    with postgres_server.database() as url:
        check_against_reference(url, matches, filters)
