"""The coordination interface and the records it keeps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class MatchData:
    """Everything the server keeps about a match.

    ``version`` grows by one with every change (an action, a join, a
    resignation); writes compare-and-set on it. The game state itself is
    ``config`` plus ``history`` (serialized meeple.v1 messages), replayed.
    """

    match_id: str
    config: bytes  # a serialized GameConfig
    seat_kinds: list[int]  # SeatKind per seat
    bot_specs: list[str]  # per seat; "" for humans
    token_hashes: list[str]  # sha256 of each seat's token; "" while free
    history: list[bytes] = field(default_factory=list)  # serialized Actions
    status: int = 0  # MatchStatus
    resigned_seat: int = -1
    dice_seed: int = 0
    version: int = 0
    # Idempotency: the ply each human submission was made at, with a digest
    # of the request and the response it got.
    submissions: dict[int, tuple[str, bytes]] = field(default_factory=dict)

    @property
    def ply(self) -> int:
        return len(self.history)


@dataclass(frozen=True)
class BotJob:
    """A bot seat is to act in a match at a ply."""

    match_id: str
    ply: int


class Coordination(Protocol):
    async def create(self, data: MatchData, events: list[bytes]) -> None:
        """Stores a new match and its first events; the id must be new."""
        ...

    async def load(self, match_id: str) -> MatchData | None:
        """A copy of the match's record, or None if there is no such match."""
        ...

    async def compare_and_set(
        self, data: MatchData, expected_version: int, events: list[bytes]
    ) -> bool:
        """Stores ``data`` and appends ``events`` if the stored version is
        still ``expected_version``; False (and nothing changes) otherwise."""
        ...

    async def read_events(self, match_id: str, start: int) -> list[bytes]:
        """The match's events from index ``start`` on (maybe none)."""
        ...

    async def wait_events(self, match_id: str, start: int, timeout: float) -> list[bytes]:
        """Like read_events, but waits up to ``timeout`` seconds for some."""
        ...

    async def push_job(self, job: BotJob) -> None:
        """Queues a bot turn."""
        ...

    async def pull_job(self, timeout: float) -> tuple[str, BotJob] | None:
        """The next job and its receipt, or None after ``timeout`` seconds. A
        job not acknowledged within the visibility timeout is delivered again."""
        ...

    async def ack_job(self, receipt: str) -> None:
        """Marks a pulled job done."""
        ...

    async def queue_depth(self) -> int:
        """Jobs waiting or in flight."""
        ...
