"""Search speed: MCTS simulations/s and alpha-beta nodes/s on Othello, and
MCTS simulations/s on Volleyball Returns, on the compiled cores against the
same search over each game's plain-Python reference (behind a small State
adapter where needed), measured in the same run. For Volta, whose reference
is a lone steed's friction stepper (not a whole match), the planner's flick
simulations/s is printed beside that kernel's speed, compiled against the
reference: a spinning, sliding steed brought to rest.

The searches are the real ``ai`` ones; only the State underneath differs, so
the ratio is what the compiled core buys the AI. Alpha-beta here evaluates by
ball count (both states offer ``scores()``), to time the search, not the
evaluation; MCTS uses random rollouts, and also each core's C batch playouts
(``random_playouts``, one per leaf).

Usage: python benchmarks/ai_search.py [--seconds 1.0] [--rounds 3]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import engine_core
from ai.alphabeta import AlphaBetaBot
from ai.mcts import BatchPlayoutEvaluator, MCTSBot, RandomRolloutEvaluator
from ai.volta import VoltaPlanner
from engine_core.api import returns_for_winners
from engine_core.rolit.reference import ReferenceFlipGame
from engine_core.volleyball import dice_action, place_action
from engine_core.volleyball.reference import ReferenceState as VolleyballReference
from engine_core.volta import DEFAULT_PHYSICS, World
from engine_core.volta import reference as volta_reference


class ReferenceGame:
    """The Game a reference adapter's states belong to: the real game's name,
    players and GameType, less what the plain-Python references do not offer
    (Zobrist hashes, turn override, batch playouts), so the searches read the
    declarations and never call what is not there."""

    def __init__(self, name: str) -> None:
        self.real = engine_core.load_game(name)
        self.name = self.real.name
        self.game_type = dataclasses.replace(
            self.real.game_type, position_hash=False, turn_override=False, batch_playouts=False
        )

    def num_players(self) -> int:
        return self.real.num_players()

    def options(self) -> dict[str, Any]:
        return self.real.options()


OTHELLO_REFERENCE = ReferenceGame("othello")
VOLLEYBALL_REFERENCE = ReferenceGame("volleyball")


class ReferenceState:
    """The plain-Python reference behind the Game API methods the search uses."""

    game = OTHELLO_REFERENCE

    def __init__(self, ref: ReferenceFlipGame, history: list[int]) -> None:
        self.ref = ref
        self._history = history

    @classmethod
    def othello(cls) -> ReferenceState:
        game: Any = engine_core.load_game("othello")
        return cls(ReferenceFlipGame(game.seat_colours, game.start, othello=True), [])

    def current_player(self) -> int:
        return engine_core.TERMINAL if self.ref.over else self.ref.seat

    def legal_actions(self) -> list[int]:
        return self.ref.legal_actions()

    def apply_action(self, action: int) -> None:
        self.ref.apply(action)
        self._history.append(action)

    def clone(self) -> ReferenceState:
        return ReferenceState(self.ref.copy(), list(self._history))

    def child(self, action: int) -> ReferenceState:
        twin = self.clone()
        twin.apply_action(action)
        return twin

    def is_terminal(self) -> bool:
        return self.ref.over

    def is_chance_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def returns(self) -> list[float]:
        return returns_for_winners(self.ref.winners(), 2) if self.ref.over else [0.0, 0.0]

    def history(self) -> list[int]:
        return list(self._history)

    def scores(self) -> list[int]:
        return self.ref.scores()


class VolleyballReferenceState(VolleyballReference):
    """The volleyball reference with the copies a search needs."""

    game = VOLLEYBALL_REFERENCE

    def clone(self) -> VolleyballReferenceState:
        return copy.deepcopy(self)

    def child(self, action: int) -> VolleyballReferenceState:
        twin = self.clone()
        twin.apply_action(action)
        return twin


def volleyball_receive(state: Any) -> Any:
    """A receive under way: both sides placed, served, the ball landed."""
    for column, row in [(4, 3), (6, 1), (4, 1), (6, 3), (1, 2), (5, 3)]:
        state.apply_action(place_action(column, row))
    for column, row in [(4, 2), (6, 2), (2, 2), (3, 3), (1, 3), (2, 1)]:
        state.apply_action(place_action(column, row))
    state.apply_action(state.legal_actions()[0])
    state.apply_action(dice_action(6, 6))
    return state


def ball_count(state: Any) -> list[float]:
    if state.is_terminal():
        return state.returns()
    black, white = state.scores()
    return [(black - white) / 64, (white - black) / 64]


def midgame(state: Any, plies: int = 12) -> Any:
    rng = random.Random(7)
    for _ in range(plies):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def mcts_rate(make_state: Callable[[], Any], batch: bool, seconds: float) -> float:
    rng = random.Random(1)
    evaluator = BatchPlayoutEvaluator(rng, 1) if batch else RandomRolloutEvaluator(rng)
    bot = MCTSBot(evaluator, rng, iterations=None, time_limit=seconds)
    start = time.perf_counter()
    root = bot.search(make_state())
    return root.visits / (time.perf_counter() - start)


def alphabeta_rate(make_state: Callable[[], Any], seconds: float) -> float:
    bot = AlphaBetaBot(2, ball_count, time_limit=seconds)
    start = time.perf_counter()
    bot.choose(make_state())
    return bot.nodes / (time.perf_counter() - start)


SLIDE = (0.0, 0.0, 0.3, 0.4, 0.2, 12.0)  # x, y, angle, vx, vy, omega: 45 cm/s, spinning


def slides_compiled(seconds: float) -> float:
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        world = World(DEFAULT_PHYSICS, (0.0, 0.0), (0.0, 0.0))
        world.set_steed(1, 0.0, 0.1, 0.0, on_arena=False)
        world.set_steed(0, *SLIDE)
        world.run()
        done += 1
    return done / (time.perf_counter() - start)


def slides_reference(seconds: float) -> float:
    physics = DEFAULT_PHYSICS
    slide = volta_reference.Slide(
        mu=physics.ground_friction,
        gravity=physics.gravity,
        half_side=physics.steed_side / 2,
        mass=physics.steed_mass,
        load=physics.steed_mass,
        dt=physics.time_step,
    )
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        slide.to_rest(SLIDE)
        done += 1
    return done / (time.perf_counter() - start)


def planner_simulations(seconds: float) -> float:
    state = engine_core.load_game("volta").new_initial_state()
    planner = VoltaPlanner(random.Random(1))
    simulations, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        planner.choose(state)
        simulations += planner.simulations
    return simulations / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    args = parser.parse_args()

    def compiled() -> Any:
        return midgame(engine_core.load_game("othello").new_initial_state())

    def reference() -> Any:
        return midgame(ReferenceState.othello())

    def volleyball_compiled() -> Any:
        return volleyball_receive(engine_core.load_game("volleyball").new_initial_state())

    def volleyball_reference() -> Any:
        return volleyball_receive(VolleyballReferenceState())

    contenders: dict[str, Callable[[], float]] = {
        "MCTS sims/s, random rollouts, compiled": lambda: mcts_rate(compiled, False, args.seconds),
        "MCTS sims/s, random rollouts, reference": lambda: mcts_rate(
            reference, False, args.seconds
        ),
        "MCTS sims/s, C batch playouts": lambda: mcts_rate(compiled, True, args.seconds),
        "alpha-beta nodes/s, compiled": lambda: alphabeta_rate(compiled, args.seconds),
        "alpha-beta nodes/s, reference": lambda: alphabeta_rate(reference, args.seconds),
        "volleyball MCTS sims/s, compiled": lambda: mcts_rate(
            volleyball_compiled, False, args.seconds
        ),
        "volleyball MCTS sims/s, reference": lambda: mcts_rate(
            volleyball_reference, False, args.seconds
        ),
        "volleyball MCTS sims/s, C batch playouts": lambda: mcts_rate(
            volleyball_compiled, True, args.seconds
        ),
        "volta planner flick simulations/s": lambda: planner_simulations(args.seconds),
        "volta lone slides to rest/s, compiled": lambda: slides_compiled(args.seconds),
        "volta lone slides to rest/s, reference": lambda: slides_reference(args.seconds),
    }
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.rounds):
        for name, measure in contenders.items():
            rates[name].append(measure())
    medians = {name: statistics.median(values) for name, values in rates.items()}

    setting = "othello midgame, volleyball receive, volta start"
    print(f"{setting}; median of {args.rounds} rounds of {args.seconds}s")
    for name, value in medians.items():
        print(f"{name:<42}{value:12,.0f}")
    mcts_base = medians["MCTS sims/s, random rollouts, reference"]
    ab_base = medians["alpha-beta nodes/s, reference"]
    print("ratios against the plain-Python reference:")
    volleyball_base = medians["volleyball MCTS sims/s, reference"]
    for name, base in [
        ("MCTS sims/s, random rollouts, compiled", mcts_base),
        ("MCTS sims/s, C batch playouts", mcts_base),
        ("alpha-beta nodes/s, compiled", ab_base),
        ("volleyball MCTS sims/s, compiled", volleyball_base),
        ("volleyball MCTS sims/s, C batch playouts", volleyball_base),
        (
            "volta lone slides to rest/s, compiled",
            medians["volta lone slides to rest/s, reference"],
        ),
    ]:
        print(f"  {name:<40}{medians[name] / base:8.1f}x")


if __name__ == "__main__":
    main()
