"""The coordination interface and the records it keeps."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Protocol

from meeple.v1 import match_service_pb2 as ms

from services.coordination.matchmaking import MatchmakingStore
from services.coordination.outbox import OutboxStore


@dataclass
class MatchData:
    """Everything the server keeps about a match.

    ``version`` grows by one with every change (an action, a join, a
    resignation, a timeout); writes compare-and-set on it. The game state
    itself is ``config`` plus ``history`` (serialized meeple.v1 messages),
    replayed under ``rules_version``.
    """

    match_id: str
    config: bytes  # a serialized GameConfig, the first seat included
    rules_version: int
    seat_kinds: list[ms.SeatKind]
    bot_specs: list[str]  # per seat; "" for humans
    token_hashes: list[str]  # sha256 of each seat's token; "" while free
    owner_hash: str = ""  # sha256 of the owner token
    history: list[bytes] = field(default_factory=list)  # serialized Actions
    # A rated match (seated by the matchmaker); each seat's player id (the
    # one holding it, or the one it is reserved for; "" for bots and seats
    # taken without identities) and display name ("" until joined). Older
    # records have empty lists.
    rated: bool = False
    players: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    # The key a player's seat token derives from (hex; "" in older records),
    # so that a player who joins its seat again gets the same token; and
    # each seat's round, which an owner's retake advances, so that a retaken
    # seat's old token stops working (missing: 0).
    seat_key: str = ""
    seat_rounds: list[int] = field(default_factory=list)
    status: ms.MatchStatus = ms.MATCH_STATUS_UNSPECIFIED
    end_reason: ms.EndReason = ms.END_REASON_UNSPECIFIED  # once finished
    end_seat: int = -1  # the seat that resigned or ran out of time
    first_seat_drawn: bool = False
    dice_seed: int = 0
    version: int = 0
    # Turn clocks, in milliseconds: each seat's time left as its turn began
    # (or as it stands, for a seat not to act); ``turn_started_ms`` is when
    # the running clock started (0: no clock runs).
    base_ms: int = 0
    increment_ms: int = 0
    clocks_ms: list[int] = field(default_factory=list)
    clock_seat: int = -1  # the seat whose clock runs (-1: none)
    turn_started_ms: int = 0
    # When a human seat's clock runs out (0: none); the store indexes it so
    # that a sweeper finds the matches to end.
    deadline_ms: int = 0
    # When the store drops the match (0: never); waiting and finished
    # matches expire.
    expires_ms: int = 0
    # When the match was created, play began and it ended (epoch ms; 0: not
    # yet, or an older record), for the archive.
    created_ms: int = 0
    started_ms: int = 0
    ended_ms: int = 0
    # The least time between two moves of a match without human seats, in
    # ms (0: none).
    bot_pace_ms: int = 0
    # Each seat's result once finished (MatchEnded.returns; empty before,
    # and in older records).
    returns: list[float] = field(default_factory=list)
    # Idempotency: the ply each human submission was made at, with the
    # submitting seat and a digest of its actions, and the response it got.
    submissions: dict[int, tuple[str, bytes]] = field(default_factory=dict)

    @property
    def ply(self) -> int:
        return len(self.history)

    def copy(self) -> MatchData:
        """A copy that shares nothing mutable with this one (the items of
        its lists and dicts are immutable)."""
        return dataclasses.replace(
            self,
            seat_kinds=list(self.seat_kinds),
            bot_specs=list(self.bot_specs),
            token_hashes=list(self.token_hashes),
            players=list(self.players),
            names=list(self.names),
            seat_rounds=list(self.seat_rounds),
            history=list(self.history),
            clocks_ms=list(self.clocks_ms),
            returns=list(self.returns),
            submissions=dict(self.submissions),
        )


@dataclass(frozen=True)
class Event:
    """One event of a match's stream: a serialized WatchMatchResponse and its
    ply (the stream is ordered by ply; several events may share one)."""

    ply: int
    payload: bytes


@dataclass(frozen=True)
class EventBatch:
    """Events read from a match's stream, and the cursor after the last."""

    events: list[Event]
    cursor: str


# Seconds a delivered job stays held by its worker without ``extend_job``:
# a worker that dies (kill -9, a lost machine) stops extending, and its jobs
# come back this soon. Its runners extend every quarter of it.
JOB_LEASE_SECONDS = 5.0


@dataclass(frozen=True)
class BotJob:
    """A bot seat is to act in a match at a ply: the change that stored
    ``version`` of the match's record made it due."""

    match_id: str
    ply: int
    seat: int
    bot_spec: str
    queued_ms: int  # when it was queued (epoch ms), for the job-age metric
    deadline_ms: int  # when its move is due; a worker that takes it later counts it late
    version: int


@dataclass(frozen=True)
class Delivery:
    """A job handed to a worker: the receipt acknowledges or releases it;
    ``attempt`` counts deliveries, this one included. On a job's first
    delivery ``data`` is the match's record as the change that queued the
    job stored it (it comes with the job: no read); a job delivered again
    has None (the match may have moved on since: load it)."""

    receipt: str
    job: BotJob
    attempt: int
    data: MatchData | None = None


@dataclass(frozen=True)
class DeadLetter:
    """A job given up after its attempts, and why."""

    job: BotJob
    reason: str


class Coordination(Protocol):
    """The state services share. Every write of a match is one atomic step:
    the record, the events it appends, the bot job it queues and the one it
    settles; a job is never seen before the change that queued it."""

    async def start(self) -> None:
        """Connects and prepares what the store needs (a consumer group)."""
        ...

    async def close(self) -> None:
        """Lets go of connections."""
        ...

    async def create(self, data: MatchData, events: list[Event], job: BotJob | None) -> None:
        """Stores a new match, its first events and its first job; another
        match with that id is ValueError (the same write again is stored)."""
        ...

    async def load(self, match_id: str) -> MatchData | None:
        """A copy of the match's record, or None if there is no such match
        (or it expired)."""
        ...

    async def compare_and_set(
        self,
        data: MatchData,
        expected_version: int,
        events: list[Event],
        job: BotJob | None,
        result: bool = False,
        settles: str | None = None,
    ) -> bool:
        """Stores ``data``, appends ``events`` and queues ``job`` (and, with
        ``result``, the finished rated match for its ratings) if the stored
        version is still ``expected_version``; False (and nothing changes)
        otherwise. A change that finishes a match marked rated queues its
        result even without ``result`` (the caller's copy may predate
        ``mark_rated``). ``settles`` is the receipt of a delivered job of
        this match that the change plays: it is acknowledged in the same
        step (not if the write is not stored). The same write again, once
        stored, is True and changes nothing: a retry whose first answer was
        lost must not read as a lost race (its caller would drop the job the
        write queued)."""
        ...

    async def delete(self, match_id: str) -> None:
        """Drops a match that nobody knows of yet (a table whose seating failed)."""
        ...

    async def live_matches(self, start: int, count: int) -> tuple[list[MatchData], int]:
        """Playing matches, the most recently started first: those among
        positions ``start`` to ``start + count - 1`` of that order, and the
        position after them (where the next page starts). A match that
        starts or ends meanwhile may shift a later page by one."""
        ...

    async def mark_rated(self, match_id: str) -> None:
        """Makes a match rated: the change that finishes it queues its result
        for the ratings (a flag beside the record: no version, no conflict)."""
        ...

    async def read_events(self, match_id: str, from_ply: int) -> EventBatch:
        """The match's events of ply ``from_ply`` on (maybe none)."""
        ...

    async def wait_events(self, match_id: str, cursor: str, timeout: float) -> EventBatch:
        """The events after ``cursor``, waiting up to ``timeout`` seconds for some."""
        ...

    @property
    def job_lease(self) -> float:
        """Seconds a delivery stays held after its delivery, or after its
        last ``extend_job``: the lease (``JOB_LEASE_SECONDS``, at most the
        visibility timeout)."""
        ...

    async def pull_job(self, timeout: float) -> Delivery | None:
        """The next job, or None after ``timeout`` seconds. A job neither
        acknowledged nor released is delivered again once its lease lapses
        (``job_lease`` seconds after its delivery or its last
        ``extend_job``), and at the latest the visibility timeout after its
        delivery, however often it was extended."""
        ...

    async def extend_job(self, receipt: str) -> bool:
        """Renews a delivery's lease (its holder is alive and working on it),
        never past the visibility timeout after its delivery; False if the
        delivery is no longer this holder's to extend (settled, delivered
        again, or held that long already)."""
        ...

    async def ack_job(self, receipt: str) -> None:
        """Marks a delivered job done."""
        ...

    async def retry_job(self, receipt: str, delay: float) -> None:
        """Puts a delivered job back, to be delivered again after ``delay`` seconds."""
        ...

    async def dead_letter(self, receipt: str, reason: str) -> None:
        """Marks a delivered job given up, keeping it (and why) among the
        recent dead letters."""
        ...

    async def dead_letters(self) -> list[DeadLetter]:
        """The recent dead letters, oldest first."""
        ...

    async def queue_depth(self) -> int:
        """Jobs waiting for a worker (not those a worker holds)."""
        ...

    async def due_matches(self, now_ms: int, limit: int) -> list[str]:
        """Up to ``limit`` matches whose ``deadline_ms`` has passed."""
        ...

    async def match_count(self) -> int:
        """How many matches the store holds (expired ones excluded)."""
        ...


class Store(Coordination, MatchmakingStore, OutboxStore, Protocol):
    """Everything the services share: matches, bot jobs, matchmaking and
    the archive's outbox. Both implementations (memory, Redis) are one
    object holding all of it."""
