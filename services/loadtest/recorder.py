"""What a load test records as it runs: latencies in HDR histograms (never
averages), counts and errors by code, for the whole run, for each game and
for each interval of wall-clock time, plus the matches in flight and the
load generator's own CPU at the end of each interval.

Intervals are aligned to the wall clock (interval ``k`` covers
``[k * interval_s, (k + 1) * interval_s)`` seconds since the epoch), so the
reports of several generators that ran side by side line up and merge
(``merge``)."""

from __future__ import annotations

import collections
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import grpc
from hdrh.histogram import HdrHistogram

T = TypeVar("T")

# Latencies that are not one RPC's: a turn as a player sees it, the wait
# for a matchmaking assignment, and an event's delivery to a spectator.
TURN = "turn"
ASSIGNMENT = "assignment"
SPECTATOR_LAG = "spectator_lag"
NOT_RPCS = (TURN, ASSIGNMENT, SPECTATOR_LAG)


def histogram() -> HdrHistogram:
    """Microseconds from 1 µs to 10 minutes, three significant digits."""
    return HdrHistogram(1, 600_000_000, 3)


def microseconds(seconds: float) -> int:
    return max(1, round(seconds * 1e6))


@dataclass
class Tally:
    """One set of figures: the run's, one game's or one interval's."""

    latency: dict[str, HdrHistogram] = field(
        default_factory=lambda: collections.defaultdict(histogram)
    )
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    matches_started: int = 0
    matches_completed: int = 0
    matches_failed: int = 0
    actions: int = 0  # actions the completed matches played, dice included

    def add(self, other: Tally) -> None:
        for name, values in other.latency.items():
            self.latency[name].add(values)
        self.errors.update(other.errors)
        self.matches_started += other.matches_started
        self.matches_completed += other.matches_completed
        self.matches_failed += other.matches_failed
        self.actions += other.actions


@dataclass
class Interval(Tally):
    """A tally of one interval, and what was sampled at its end."""

    matches_in_flight: int | None = None
    cpu_percent: float | None = None  # of one core, the generator's process


@dataclass
class Recorder:
    """Counts and latencies of one run, filled in as it goes. Figures
    recorded before ``start`` (the players' sign-ins) count in the run's
    totals but in no interval: the series cover the load alone."""

    interval_s: float = 1.0
    now: Callable[[], float] = time.time  # wall-clock seconds
    cpu: Callable[[], float] = time.process_time
    total: Tally = field(default_factory=Tally)
    games: dict[str, Tally] = field(default_factory=lambda: collections.defaultdict(Tally))
    intervals: dict[int, Interval] = field(default_factory=dict)
    began: float | None = None
    ended: float | None = None
    plies_by_match: dict[str, int] = field(default_factory=dict)
    _sampled: tuple[float, float] | None = None  # (wall, cpu) at the last sample

    def start(self) -> None:
        """The load begins."""
        self.began = self.now()
        self._sampled = (self.began, self.cpu())

    def stop(self) -> None:
        """The load has ended: a last sample closes the last interval."""
        self.sample(final=True)
        self.ended = self.now()

    # --- recording --------------------------------------------------------------
    def _tallies(self, game: str | None, at: float | None = None) -> list[Tally]:
        tallies = [self.total]
        if game is not None:
            tallies.append(self.games[game])
        if self.began is not None:
            tallies.append(self.interval_at(self.now() if at is None else at))
        return tallies

    def interval_at(self, wall: float) -> Interval:
        key = int(wall // self.interval_s)
        if key not in self.intervals:
            self.intervals[key] = Interval()
        return self.intervals[key]

    def record(self, name: str, seconds: float, game: str | None = None) -> None:
        """One latency sample of ``name`` (an RPC's or one of NOT_RPCS)."""
        value = microseconds(seconds)
        for tally in self._tallies(game):
            tally.latency[name].record_value(value)

    def error(self, code: str, game: str | None = None) -> None:
        for tally in self._tallies(game):
            tally.errors[code] += 1

    async def timed(self, name: str, call: Awaitable[T], game: str | None = None) -> T:
        """Awaits ``call`` (an RPC named ``name``), recording its latency or its error code."""
        began = time.perf_counter()
        try:
            result = await call
        except grpc.aio.AioRpcError as failure:
            self.error(failure.code().name, game)
            raise
        self.record(name, time.perf_counter() - began, game)
        return result

    def match_started(self, game: str) -> None:
        for tally in self._tallies(game):
            tally.matches_started += 1

    def match_failed(self, game: str) -> None:
        for tally in self._tallies(game):
            tally.matches_failed += 1

    def finished(self, match_id: str, plies: int, game: str) -> None:
        """A match ended after ``plies`` actions (counted once, however many
        of our clients watched it)."""
        if match_id in self.plies_by_match:
            return
        self.plies_by_match[match_id] = plies
        for tally in self._tallies(game):
            tally.matches_completed += 1
            tally.actions += plies

    def sample(self, final: bool = False) -> None:
        """Closes an interval: the matches in flight and the generator's CPU
        since the last sample, in the interval that period mostly lies in
        (the ticker samples just after each boundary), or for the ``final``
        one, in the interval of the load's end."""
        if self._sampled is None:
            return
        wall, cpu = self.now(), self.cpu()
        last_wall, last_cpu = self._sampled
        self._sampled = (wall, cpu)
        interval = self.interval_at(wall - 1e-6 if final else (last_wall + wall) / 2)
        interval.matches_in_flight = self.in_flight
        if wall > last_wall:
            interval.cpu_percent = round(100 * (cpu - last_cpu) / (wall - last_wall), 1)

    # --- reading ----------------------------------------------------------------
    @property
    def in_flight(self) -> int:
        t = self.total
        return t.matches_started - t.matches_completed - t.matches_failed

    @property
    def elapsed(self) -> float:
        if self.began is None:
            return 1e-9
        return max(1e-9, (self.ended or self.now()) - self.began)
