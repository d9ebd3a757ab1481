"""The budget checks every search shares."""

from __future__ import annotations


def check_budget(algorithm: str, count_name: str, count: int | None, seconds: float | None) -> None:
    """A search needs a count (iterations, depth) or seconds, or both; each
    given one must be positive. ValueError says which is wrong."""
    if count is None and seconds is None:
        raise ValueError(f"{algorithm} needs a budget: {count_name}, time_limit or both")
    if count is not None and count < 1:
        raise ValueError(f"{count_name} must be >= 1, got {count}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {seconds}")
