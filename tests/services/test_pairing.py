"""Pairing as a pure function of the tickets and the time: the window
curve, mutual windows, parties kept together, the biggest table first, bot
fill only after the wait and only among tickets that allow bots."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from services.coordination.matchmaking import TicketRecord
from services.matchmaking.pairing import pair
from services.matchmaking.ratings import bot_level_for, new_rating, ranks, rate
from services.matchmaking.window import window

SECOND = 1000


def ticket(name: str, rating: float = 25.0, **fields: Any) -> TicketRecord:
    record = TicketRecord(
        ticket_id=f"q.{name}",
        queue="q",
        token_hash="",
        game="rolit",
        config=b"",
        seat_counts=[2],
        player_ids=[name],
        allow_bots=False,
        rating=rating,
        created_ms=0,
        expires_ms=10**9,
        seen_ms=0,
    )
    return dataclasses.replace(record, **fields)


def seated(tables: list[Any]) -> list[tuple[list[str], int]]:
    return [([t.ticket_id[2:] for t in table.tickets], table.bots) for table in tables]


def test_the_window_widens_along_its_curve() -> None:
    assert [window(t) for t in (0, 2, 6, 46, 1000)] == [2.0, 3.0, 5.0, 25.0, 25.0]


def test_ratings_five_apart_meet_once_both_windows_reach_five() -> None:
    tickets = [ticket("a", 25.0), ticket("b", 30.0)]
    assert pair(tickets, round(5.9 * SECOND), bot_fill_after=60) == []
    assert seated(pair(tickets, 6 * SECOND, bot_fill_after=60)) == [(["a", "b"], 0)]


def test_the_narrower_window_decides() -> None:
    """An old ticket's wide window does not let it take a new ticket whose
    own window is still narrow."""
    old = ticket("old", 25.0, created_ms=0)
    new = ticket("new", 29.0, created_ms=100 * SECOND)
    assert pair([old, new], 100 * SECOND, bot_fill_after=1000) == []
    assert seated(pair([old, new], 104 * SECOND, bot_fill_after=1000)) == [(["old", "new"], 0)]


def test_the_nearest_ratings_sit_together() -> None:
    tickets = [ticket("a", 25.0), ticket("far", 26.9), ticket("near", 25.5), ticket("x", 27.0)]
    assert seated(pair(tickets, 0, bot_fill_after=60)) == [(["a", "near"], 0), (["far", "x"], 0)]


def test_parties_stay_together_at_the_biggest_table() -> None:
    any_size = [2, 3, 4]
    party = ticket("party", player_ids=["p1", "p2"], seat_counts=any_size)
    singles = [ticket(name, seat_counts=any_size, created_ms=1) for name in ("s1", "s2")]
    tables = pair([party, *singles], 10, bot_fill_after=60)
    assert seated(tables) == [(["party", "s1", "s2"], 0)]
    assert tables[0].size == 4


def test_a_party_never_splits() -> None:
    party = ticket("party", player_ids=["p1", "p2"], seat_counts=[3])
    other = ticket("other", player_ids=["o1", "o2"], seat_counts=[3], created_ms=1)
    assert pair([party, other], 0, bot_fill_after=60) == []  # 3 seats, two parties of 2
    single = ticket("single", seat_counts=[3], created_ms=2)
    assert seated(pair([party, other, single], 0, bot_fill_after=60)) == [(["party", "single"], 0)]


def test_tables_only_of_sizes_every_ticket_accepts() -> None:
    four = [ticket(f"f{i}", seat_counts=[4]) for i in range(3)]
    two = ticket("two", seat_counts=[2])
    assert pair([*four, two], 0, bot_fill_after=60) == []


def test_bots_fill_after_the_wait_among_tickets_that_allow_them() -> None:
    lone = ticket("lone", allow_bots=True, seat_counts=[4])
    shy = ticket("shy", allow_bots=False, seat_counts=[4], created_ms=1)
    keen = ticket("keen", allow_bots=True, seat_counts=[4], created_ms=2)
    assert pair([lone, shy, keen], 9 * SECOND, bot_fill_after=10) == []
    tables = pair([lone, shy, keen], 10 * SECOND, bot_fill_after=10)
    assert seated(tables) == [(["lone", "keen"], 2)]
    never = pair([shy], 10**6, bot_fill_after=0)
    assert never == []


def test_bot_levels_and_ranks() -> None:
    assert [bot_level_for(mu) for mu in (5.0, 21.0, 25.0, 40.0)] == [
        "easy",
        "medium",
        "hard",
        "expert",
    ]
    assert ranks([1.0, -1.0]) == [1.0, 2.0]
    assert ranks([-1 / 3, 1 / 9, 1 / 9, 1 / 9]) == [2.0, 1.0, 1.0, 1.0]


def test_a_win_raises_a_rating_and_bots_keep_theirs() -> None:
    winner, loser = rate([new_rating("w"), new_rating("l")], [1.0, -1.0])
    assert winner.mu > 25.0 > loser.mu
    assert (winner.matches, winner.version) == (1, 1)
    (alone,) = rate([new_rating("h"), "expert"], [1.0, -1.0])
    (beaten,) = rate([new_rating("h"), "easy"], [1.0, -1.0])
    assert alone.mu > beaten.mu > 25.0  # beating a stronger bot is worth more
    with pytest.raises(KeyError):
        rate([new_rating("h"), "wizard"], [1.0, -1.0])
