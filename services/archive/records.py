"""What the archive keeps: finished matches, each seat's player and result,
and the rating changes of rated matches."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Outcome(enum.Enum):
    """A match's result for one seat (the proto's MatchOutcome)."""

    WIN = "win"  # the best return, and not every seat's
    LOSS = "loss"  # another seat's return is better
    DRAW = "draw"  # every seat has the same return


def outcomes(returns: list[float]) -> list[Outcome]:
    """Each seat's outcome: the seats with the best return win (several
    share a win: the others resigned, say), unless every seat has it."""
    best = max(returns)
    if all(value == best for value in returns):
        return [Outcome.DRAW] * len(returns)
    return [Outcome.WIN if value == best else Outcome.LOSS for value in returns]


@dataclass(frozen=True)
class ArchivedSeat:
    """One seat of a finished match."""

    kind: int  # meeple.v1.SeatKind
    bot_spec: str  # "" for humans
    player_id: str  # "" for bots and seats joined without identities
    display_name: str
    result: float  # the seat's return
    outcome: Outcome


@dataclass(frozen=True)
class ArchivedMatch:
    """A finished match. ``record`` is the match's whole record as the
    coordination store kept it (``coordination.records.dump_match``: JSON),
    from which the services rebuild the Match and its GameRecord; the other
    fields are the columns the archive is searched by."""

    match_id: str
    game: str  # the engine's name: "rolit", "othello", "volleyball", "volta"
    rated: bool
    reason: int  # meeple.v1.EndReason
    end_seat: int  # -1: none
    created_ms: int
    started_ms: int  # 0: play never began
    ended_ms: int
    plies: int
    seats: tuple[ArchivedSeat, ...]
    record: bytes


@dataclass(frozen=True)
class RatingChange:
    """What a rated match did to one player's rating in its game."""

    match_id: str
    game: str
    player_id: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    matches_after: int  # rated matches played, this one included
    rated_ms: int  # when the rating was written

    @property
    def ordinal_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before

    @property
    def ordinal_after(self) -> float:
        return self.mu_after - 3 * self.sigma_after


@dataclass(frozen=True)
class Cursor:
    """Where a page of a list ends (keyset paging): the last entry's time
    and id; the next page starts after it."""

    ms: int
    key: str


@dataclass(frozen=True)
class MatchFilter:
    """Which of a player's matches a list keeps."""

    player_id: str
    game: str | None = None  # None: every game
    outcome: Outcome | None = None  # None: every outcome
    ended_after_ms: int | None = None  # inclusive
    ended_before_ms: int | None = None  # exclusive
    opponent_id: str | None = None  # only matches with this player in another seat


@dataclass(frozen=True)
class Tally:
    """A player's outcomes in the matches a filter keeps."""

    wins: int = 0
    losses: int = 0
    draws: int = 0


@dataclass(frozen=True)
class ArchiveSize:
    """How much the archive holds."""

    matches: int
    bytes: int  # the database's size on disk (SQLite) or its tables' (PostgreSQL)
