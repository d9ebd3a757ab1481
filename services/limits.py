"""Limits per client address: a token-bucket rate limit and a cap on
concurrent calls. A client is its address without the port, so that opening
more connections buys no more room."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator

from services.errors import ResourceExhausted


def client_of(peer: str) -> str:
    """The client address of a gRPC peer string, without its port:
    ``ipv4:127.0.0.1:54321`` -> ``ipv4:127.0.0.1``, ``ipv6:[::1]:5`` -> ``ipv6:[::1]``.
    A peer without a port (a Unix socket) is its own client."""
    head, sep, port = peer.rpartition(":")
    return head if sep and port.isdigit() and ":" in head else peer


class RateLimiter:
    """A token bucket per client: bursts of up to ``burst`` calls, refilled
    at ``rate`` calls a second. Buckets that have refilled completely are
    forgotten, so memory grows with the clients active lately, not with
    every address ever seen."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not (rate > 0 and burst >= 1):
            raise ValueError(f"a rate limit needs rate > 0 and burst >= 1, got {rate}, {burst}")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._next_prune = 0.0

    def allow(self, client: str) -> bool:
        """Takes a token from ``client``'s bucket; False when it is empty."""
        now = self._clock()
        self._prune(now)
        tokens, last = self._buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1:
            self._buckets[client] = (tokens, now)
            return False
        self._buckets[client] = (tokens - 1, now)
        return True

    def has(self, client: str) -> bool:
        """Whether ``client`` has a token left now (nothing is taken)."""
        return self._tokens(client, self._clock()) >= 1

    def take_all(self, clients: Iterable[str]) -> bool:
        """A token from each of ``clients``, or (when one has none) from none."""
        now = self._clock()
        self._prune(now)
        distinct = set(clients)
        if any(self._tokens(client, now) < 1 for client in distinct):
            return False
        for client in distinct:
            self._buckets[client] = (self._tokens(client, now) - 1, now)
        return True

    def refund(self, clients: Iterable[str]) -> None:
        """Gives back one token to each of ``clients`` (taken for work that
        did not happen)."""
        now = self._clock()
        for client in set(clients):
            self._buckets[client] = (min(self.burst, self._tokens(client, now) + 1), now)

    def _tokens(self, client: str, now: float) -> float:
        tokens, last = self._buckets.get(client, (self.burst, now))
        return min(self.burst, tokens + (now - last) * self.rate)

    def check(self, client: str, what: str) -> None:
        """ResourceExhausted, naming ``what`` is limited, when ``client`` is over."""
        if not self.allow(client):
            raise ResourceExhausted(
                f"over the limit of {what}: bursts of {self.burst:g}, "
                f"then {self.rate:g} a second; retry later"
            )

    def _prune(self, now: float) -> None:
        """Drops the buckets that are full again (at most once per refill time)."""
        if now < self._next_prune:
            return
        refill = self.burst / self.rate
        self._next_prune = now + refill
        for client, (_, last) in list(self._buckets.items()):
            if now - last >= refill:
                del self._buckets[client]

    def __len__(self) -> int:
        return len(self._buckets)


def per_minute(count: int) -> RateLimiter:
    """Bursts of ``count``, refilled at ``count`` a minute (CreateMatch,
    CreateTicket, the matches a matchmaker seats)."""
    return RateLimiter(count / 60.0, float(count))


class CapReached(ResourceExhausted):
    """A client holds every place a ConcurrencyCap gives it."""


class ConcurrencyCap:
    """At most ``limit`` concurrent holds per client (open streams, AI calls
    in flight)."""

    def __init__(self, limit: int, what: str) -> None:
        if limit < 1:
            raise ValueError(f"a concurrency cap needs limit >= 1, got {limit}")
        self.limit = limit
        self.what = what
        self._held: dict[str, int] = {}

    @contextlib.contextmanager
    def hold(self, client: str) -> Iterator[None]:
        """Holds one of ``client``'s places; ResourceExhausted when none is free."""
        held = self._held.get(client, 0)
        if held >= self.limit:
            raise CapReached(f"at most {self.limit} {self.what} per client address")
        self._held[client] = held + 1
        try:
            yield
        finally:
            left = self._held[client] - 1
            if left:
                self._held[client] = left
            else:
                del self._held[client]

    def held(self, client: str) -> int:
        return self._held.get(client, 0)
