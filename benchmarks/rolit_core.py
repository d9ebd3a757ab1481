"""Random playouts per second on the flip core, against baselines in the same run.

Contenders, each playing uniformly random games from the start to the end:
- batch C: ``state.random_playouts(n, seed)``, the whole loop in C;
- Game API: a Python loop of ``legal_actions`` + ``apply_action`` on our State;
- reference: the same loop on the plain-Python reference (reference.py);
- OpenSpiel: its C++ ``othello`` driven from Python the same way (PyPI
  ``open-spiel``, the ``bench`` extra; skipped with a note if missing).

Rounds interleave the contenders so that machine noise hits them alike; each
rate is the median over rounds. Ratios are against OpenSpiel's othello (the
issue's targets: batch C >= 30x, Othello through our Game API >= 2x).

Usage: python benchmarks/rolit_core.py [--seconds 0.5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable
from typing import Any

from timing import rate

import engine_core
from engine_core.rolit import FlipState
from engine_core.rolit.reference import ReferenceFlipGame

Contender = Callable[[int], None]  # plays n playouts


def api_loop(game: Any) -> Contender:
    """Random playouts through a game's Python API: ours or OpenSpiel's, which
    share the method names."""
    rng = random.Random(1)

    def run(n: int) -> None:
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))

    return run


def batch(name: str, **options: int) -> Contender:
    state = engine_core.load_game(name, **options).new_initial_state()
    assert isinstance(state, FlipState)
    seeds = iter(range(1, 10**9))

    def run(n: int) -> None:
        state.random_playouts(n, next(seeds))

    return run


def reference(name: str, **options: int) -> Contender:
    game = engine_core.load_game(name, **options)
    rng = random.Random(1)

    def run(n: int) -> None:
        for _ in range(n):
            ref = ReferenceFlipGame(
                game.seat_colours,  # type: ignore[attr-defined]
                game.start,  # type: ignore[attr-defined]
                othello=game.othello,  # type: ignore[attr-defined]
            )
            while not ref.over:
                ref.apply(rng.choice(ref.legal_actions()))

    return run


def openspiel_othello() -> Contender | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    return api_loop(pyspiel.load_game("othello"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    args = parser.parse_args()

    contenders: dict[tuple[str, str], Contender] = {
        ("othello", "batch C"): batch("othello"),
        ("othello", "Game API"): api_loop(engine_core.load_game("othello")),
        ("othello", "reference"): reference("othello"),
        ("rolit-4p", "batch C"): batch("rolit", players=4),
        ("rolit-4p", "Game API"): api_loop(engine_core.load_game("rolit", players=4)),
        ("rolit-4p", "reference"): reference("rolit", players=4),
    }
    baseline_key = ("othello", "OpenSpiel")
    openspiel = openspiel_othello()
    if openspiel is None:
        print("open-spiel is not installed (pip install -e '.[bench]'): no OpenSpiel row")
    else:
        contenders[baseline_key] = openspiel

    rates: dict[tuple[str, str], list[float]] = {key: [] for key in contenders}
    for _ in range(args.rounds):
        for key, run in contenders.items():
            rates[key].append(rate(run, args.seconds))
    medians = {key: statistics.median(values) for key, values in rates.items()}

    baseline = medians.get(baseline_key)
    header = f"{'game':<10}{'contender':<12}{'playouts/s':>14}"
    print(f"{header}{'vs OpenSpiel':>14}{'vs reference':>14}")
    for (game, kind), value in medians.items():
        versus_ref = value / medians[(game, "reference")]
        versus_os = f"{value / baseline:13.1f}x" if baseline else f"{'-':>14}"
        print(f"{game:<10}{kind:<12}{value:14,.0f}{versus_os}{versus_ref:13.1f}x")
    if baseline:
        targets = [
            ("batch C >= 30x OpenSpiel", medians[("othello", "batch C")] / baseline, 30),
            ("Game API >= 2x OpenSpiel", medians[("othello", "Game API")] / baseline, 2),
        ]
        for label, ratio, target in targets:
            verdict = "met" if ratio >= target else "MISSED"
            print(f"target (othello) {label}: {ratio:.1f}x, {verdict}")


if __name__ == "__main__":
    main()
