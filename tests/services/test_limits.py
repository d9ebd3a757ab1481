"""The per-client limits where they live: a client is its address without
the port, buckets refill and are forgotten, concurrency caps count holds."""

from __future__ import annotations

import pytest

from services.errors import ResourceExhausted
from services.limits import ConcurrencyCap, RateLimiter, client_of, per_minute


@pytest.mark.parametrize(
    ("peer", "client"),
    [
        ("ipv4:127.0.0.1:54321", "ipv4:127.0.0.1"),
        ("ipv4:127.0.0.1:1", "ipv4:127.0.0.1"),
        ("ipv6:[::1]:40000", "ipv6:[::1]"),
        ("ipv6:[2001:db8::7]:5", "ipv6:[2001:db8::7]"),
        ("unix:/tmp/meeple.sock", "unix:/tmp/meeple.sock"),
    ],
)
def test_a_client_is_its_address_without_the_port(peer: str, client: str) -> None:
    assert client_of(peer) == client


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=2, burst=3, clock=clock)
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b")  # another client has its own bucket
    clock.now += 0.5  # one token back
    assert [limiter.allow("a") for _ in range(2)] == [True, False]
    with pytest.raises(ResourceExhausted, match="bursts of 3, then 2 a second"):
        limiter.check("a", "calls")


def test_full_buckets_are_forgotten() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=10, burst=20, clock=clock)
    for client in range(10_000):
        assert limiter.allow(f"ipv4:10.0.{client // 256}.{client % 256}")
    assert len(limiter) == 10_000
    clock.now += 2.0  # 20 tokens at 10 a second: every bucket is full again
    limiter.allow("ipv4:10.1.0.0")
    assert len(limiter) == 1


def test_a_concurrency_cap_counts_holds_per_client() -> None:
    cap = ConcurrencyCap(2, "streams")
    with cap.hold("a"), cap.hold("a"):
        with pytest.raises(ResourceExhausted, match="at most 2 streams per client address"):
            cap.hold("a").__enter__()
        with cap.hold("b"):
            assert (cap.held("a"), cap.held("b")) == (2, 1)
    assert (cap.held("a"), cap.held("b")) == (0, 0)


def test_a_budget_is_taken_from_every_client_or_from_none() -> None:
    """The matchmaker's match budget: a table's addresses each pay one
    match, all or none, and a match that was not made is paid back."""
    clock = Clock()
    assert (per_minute(2).rate, per_minute(2).burst) == (2 / 60, 2)
    budget = RateLimiter(2 / 60, 2, clock=clock)  # per_minute(2) on the test's clock
    assert budget.take_all(["a", "b", "a"])  # a table where a sits twice: a pays once
    assert budget.take_all(["a"])
    assert not budget.has("a")
    assert budget.has("b")
    assert not budget.take_all(["a", "b"])  # a has none left: b keeps its token
    assert budget.has("b")
    budget.refund(["a"])
    assert budget.take_all(["a", "b"])
    assert not budget.has("b")
    clock.now += 30.0  # one back each
    assert budget.has("a")
    assert budget.has("b")
    budget.refund(["c"])  # never over its burst
    assert budget.take_all(["c"])
    assert budget.take_all(["c"])
    assert not budget.take_all(["c"])
