"""Volleyball Returns: the compiled core against the plain-Python reference.

Prints, measured in this one run: coverage evaluations per second (a
formation's exact chance of intercepting a rolled ball, all 18 landing
squares) and random full games per second, for the compiled core and for
``engine_core.volleyball.reference``, with the ratio.

    .venv/bin/python benchmarks/volleyball_core.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from engine_core.volleyball import VolleyballGame, analysis
from engine_core.volleyball import reference as ref
from engine_core.volleyball.actions import column_of, row_of, squares_of


def rate(work: Callable[[], int], seconds: float) -> float:
    """Items per second: ``work`` returns how many items it did; repeated
    until ``seconds`` have passed (at least once)."""
    done = 0
    start = time.perf_counter()
    while True:
        done += work()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def cells(formation: int) -> set[tuple[int, int]]:
    return {(column_of(sq), row_of(sq)) for sq in squares_of(formation)}


def compiled_state_games(big_leagues: bool, seed: int) -> Callable[[], int]:
    """Random games through the public State API (Python calls into the core)."""
    game = VolleyballGame(big_leagues=big_leagues, seed=seed)
    rng = random.Random(seed)

    def play() -> int:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome())
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        return 1

    return play


def compiled_c_loop_games(big_leagues: bool) -> Callable[[], int]:
    """Random games played entirely inside the core, 200 per call."""
    state = VolleyballGame(big_leagues=big_leagues).new_initial_state()
    seeds = iter(range(10**9))
    return lambda: len(state.random_playouts(200, seed=next(seeds)))


def reference_games(big_leagues: bool, seed: int) -> Callable[[], int]:
    rng = random.Random(seed)

    def play() -> int:
        ref.random_game(ref.ReferenceState(big_leagues=big_leagues), rng)
        return 1

    return play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    seconds = parser.parse_args().seconds

    formations = analysis.all_formations()
    start = time.perf_counter()
    counts = analysis.coverage_counts(formations)
    all_placements = time.perf_counter() - start
    best = max(counts)
    print(f"all C(18,6) = {len(formations):,} placements: {all_placements * 1000:.1f} ms "
          f"compiled ({counts.count(best):,} cover all {best} landing squares)")  # fmt: skip

    sample = random.Random(1).sample(formations, 200)
    compiled_coverage = rate(lambda: len(analysis.coverage_counts(formations)), seconds)
    position = iter(range(10**9))

    def reference_coverage() -> int:
        ref.covered_landings(cells(sample[next(position) % len(sample)]))
        return 1

    reference_rate = rate(reference_coverage, seconds)
    ratio = compiled_coverage / reference_rate
    print(f"coverage evaluations/s  compiled {compiled_coverage:12,.0f}  reference "
          f"{reference_rate:10,.1f}  ratio {ratio:10,.0f}x")  # fmt: skip

    for big_leagues in (False, True):
        label = "Big Leagues" if big_leagues else "standard   "
        c_rate = rate(compiled_c_loop_games(big_leagues), seconds)
        api_rate = rate(compiled_state_games(big_leagues, 7), seconds)
        ref_rate = rate(reference_games(big_leagues, 7), seconds)
        print(f"random games/s {label}  compiled C loop {c_rate:10,.0f}  compiled via State API "
              f"{api_rate:8,.0f}  reference {ref_rate:7,.1f}  ratios {c_rate / ref_rate:,.0f}x "
              f"and {api_rate / ref_rate:,.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
