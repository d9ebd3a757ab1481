"""One matchmaking pass over a queue, as a pure function of its tickets and
the time: which tickets sit together, and how many bots fill each table.

- Oldest ticket first, each is the anchor of a table: it takes the
  compatible tickets nearest its rating (mutually inside both windows,
  accepting the table's size, never splitting a party) until the table is
  full; bigger tables first, among the sizes every ticket at it accepts.
- A ticket that has waited ``bot_fill_after`` seconds with no full table
  sits at the smallest table its party fits, with bots in the empty seats,
  when every ticket at that table allows bots.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from services.coordination.matchmaking import TicketRecord
from services.matchmaking.window import window


@dataclass(frozen=True)
class Table:
    """Tickets that sit together, in seat order, and the bots that fill it."""

    tickets: tuple[TicketRecord, ...]
    size: int

    @property
    def bots(self) -> int:
        return self.size - sum(ticket.party for ticket in self.tickets)


def window_of(ticket: TicketRecord, now_ms: int) -> float:
    return window((now_ms - ticket.created_ms) / 1000)


def compatible(a: TicketRecord, b: TicketRecord, now_ms: int) -> bool:
    return abs(a.rating - b.rating) <= min(window_of(a, now_ms), window_of(b, now_ms))


def pair(tickets: Sequence[TicketRecord], now_ms: int, bot_fill_after: float) -> list[Table]:
    """The tables a pass forms from ``tickets`` (queued and unclaimed)."""
    by_rating = sorted(tickets, key=lambda t: (t.rating, t.created_ms, t.ticket_id))
    seated: set[str] = set()
    tables = []
    for anchor in sorted(tickets, key=lambda t: (t.created_ms, t.ticket_id)):
        if anchor.ticket_id in seated:
            continue
        table = None
        for size in sorted(anchor.seat_counts, reverse=True):
            chosen = gather(anchor, by_rating, seated, size, now_ms, bots=False)
            if sum(t.party for t in chosen) == size:
                table = Table(tuple(chosen), size)
                break
        waited = (now_ms - anchor.created_ms) / 1000
        if table is None and anchor.allow_bots and waited >= bot_fill_after:
            size = min(s for s in anchor.seat_counts if s >= anchor.party)
            table = Table(tuple(gather(anchor, by_rating, seated, size, now_ms, bots=True)), size)
        if table is not None:
            tables.append(table)
            seated.update(t.ticket_id for t in table.tickets)
            by_rating = [t for t in by_rating if t.ticket_id not in seated]
    return tables


def nearest(
    anchor: TicketRecord, by_rating: Sequence[TicketRecord], now_ms: int
) -> Iterator[TicketRecord]:
    """The other tickets in order of rating distance from ``anchor``, as far
    as its window reaches (``by_rating`` is sorted by rating)."""
    reach = window_of(anchor, now_ms)
    index = bisect.bisect_left(by_rating, anchor.rating, key=lambda t: t.rating)
    low, high = index - 1, index
    while low >= 0 or high < len(by_rating):
        below = anchor.rating - by_rating[low].rating if low >= 0 else math.inf
        above = by_rating[high].rating - anchor.rating if high < len(by_rating) else math.inf
        if below <= above:
            candidate, low = by_rating[low], low - 1
        else:
            candidate, high = by_rating[high], high + 1
        if min(below, above) > reach:
            return
        if candidate is not anchor:
            yield candidate


def gather(
    anchor: TicketRecord,
    by_rating: Sequence[TicketRecord],
    seated: set[str],
    size: int,
    now_ms: int,
    bots: bool,
) -> list[TicketRecord]:
    """``anchor`` and the unseated tickets that fit ``size`` seats with it
    (nearest rating first), each accepting that size (and bots, if ``bots``)
    and inside the windows of all already there."""
    chosen = [anchor]
    seats = anchor.party
    for other in nearest(anchor, by_rating, now_ms):
        if seats == size:
            break
        if other.ticket_id in seated or (bots and not other.allow_bots):
            continue
        fits = size in other.seat_counts and seats + other.party <= size
        if fits and all(compatible(other, sitting, now_ms) for sitting in chosen):
            chosen.append(other)
            seats += other.party
    return chosen
