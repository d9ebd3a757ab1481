"""Tournaments between bot specs: lineups, seat rotation, parallel games, and
the statistics (win/draw/loss, Wilson intervals, openskill ratings).

Lineups: with at least as many bots as seats, every combination of distinct
bots; with fewer, each bot against a field of copies of each other bot (so
``hard,random`` with 4 seats plays hard against three randoms, and random
against three hards). Game ``i`` of a lineup seats it rotated by ``i``, so
every bot plays every seat equally often.

Results are counted per lineup and bot, a bot's result in a game being its
best seat's: it wins when no other bot's best seat does as well, draws when
another bot's does exactly as well, and loses otherwise (so in ``hard`` against
three randoms, hard wins when it beats every random). Ratings use openskill's
Plackett-Luce model over all games, ranking each bot once per game by the
same best seat.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from openskill.models import PlackettLuce

import engine_core
from ai.bots import make_bot
from ai.mcts import random_action


@dataclass(frozen=True)
class GameTask:
    """One game to play: everything a worker process needs."""

    game: str
    options: dict[str, Any]
    lineup: tuple[str, ...]  # the bots, unrotated
    seats: tuple[str, ...]  # the bot spec in each seat
    seed: int


@dataclass(frozen=True)
class GameResult:
    task: GameTask
    returns: tuple[float, ...]
    plies: int
    think_seconds: tuple[float, ...]  # per seat
    decisions: tuple[int, ...]  # per seat


@dataclass
class BotStats:
    """One bot's record in one lineup."""

    lineup: str
    spec: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    think_seconds: float = 0.0
    decisions: int = 0
    rating_mu: float = 0.0
    rating_sigma: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def win_interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def ms_per_move(self) -> float:
        return 1000 * self.think_seconds / self.decisions if self.decisions else 0.0


@dataclass
class TournamentResult:
    game: str
    options: dict[str, Any]
    bots: list[str]
    games_per_lineup: int
    seed: int
    stats: list[BotStats] = field(default_factory=list)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # mu, sigma
    results: list[GameResult] = field(default_factory=list)

    def to_json(self) -> str:
        table = []
        for stats in self.stats:
            low, high = stats.win_interval()
            row = asdict(stats)
            row.update(games=stats.games, win_rate=stats.win_rate, win_rate_95=[low, high])
            row["ms_per_move"] = stats.ms_per_move
            table.append(row)
        games = [
            {
                "seats": list(r.task.seats),
                "seed": r.task.seed,
                "returns": list(r.returns),
                "plies": r.plies,
            }
            for r in self.results
        ]
        document = {
            "game": self.game,
            "options": self.options,
            "bots": self.bots,
            "games_per_lineup": self.games_per_lineup,
            "seed": self.seed,
            "table": table,
            "ratings": {s: {"mu": mu, "sigma": sigma} for s, (mu, sigma) in self.ratings.items()},
            "games": games,
        }
        return json.dumps(document, indent=2)


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a binomial proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    if len(set(bots)) != len(bots):
        raise ValueError(f"each bot spec once, please: {', '.join(bots)}")
    if len(bots) < 2:
        raise ValueError("a tournament needs at least two bots")
    if len(bots) >= players:
        return list(itertools.combinations(bots, players))
    return [(bot, *[other] * (players - 1)) for bot in bots for other in bots if other != bot]


def plan(
    game: str, options: dict[str, Any], bots: Sequence[str], games: int, seed: int
) -> list[GameTask]:
    """Every game of the tournament, with seats rotated and seeds derived."""
    players = engine_core.load_game(game, **options).num_players()
    for spec in bots:  # refuse a bad spec before any process starts
        make_bot(engine_core.load_game(game, **options), spec)
    tasks = []
    for number, lineup in enumerate(lineups(bots, players)):
        for i in range(games):
            shift = i % players
            seats = lineup[shift:] + lineup[:shift]
            task_seed = seed * 1_000_003 + number * 10_007 + i
            tasks.append(GameTask(game, dict(options), lineup, seats, task_seed))
    return tasks


# Volleyball has no length limit (a rally lasts while both sides intercept);
# a game this long is stopped and scored as a draw rather than hang the run.
MAX_PLIES = 20_000


def play(task: GameTask) -> GameResult:
    """Plays one game (in a worker process); one that reaches MAX_PLIES is
    stopped and counts as a draw."""
    game = engine_core.load_game(task.game, **task.options)
    rng = random.Random(task.seed)
    bots = [make_bot(game, spec, seed=rng.getrandbits(32)) for spec in task.seats]
    think = [0.0] * len(bots)
    decisions = [0] * len(bots)
    state = game.new_initial_state()
    plies = 0
    while not state.is_terminal() and plies < MAX_PLIES:
        plies += 1
        if state.is_chance_node():
            state.apply_action(random_action(state, rng))
            continue
        seat = state.current_player()
        start = time.perf_counter()
        action = bots[seat].choose(state.clone())
        think[seat] += time.perf_counter() - start
        decisions[seat] += 1
        state.apply_action(action)
    returns = tuple(state.returns())  # all zeros for a stopped game: a draw
    return GameResult(task, returns, plies, tuple(think), tuple(decisions))


def lineup_label(lineup: tuple[str, ...]) -> str:
    counts = {spec: lineup.count(spec) for spec in lineup}
    return " vs ".join(spec if n == 1 else f"{spec} x{n}" for spec, n in counts.items())


def tally(result: TournamentResult) -> None:
    """Fills ``result.stats`` and ``result.ratings`` from ``result.results``."""
    stats: dict[tuple[str, str], BotStats] = {}
    model = PlackettLuce()
    ratings = {spec: model.rating(name=spec) for spec in result.bots}
    for game in sorted(result.results, key=lambda r: r.task.seed):
        label = lineup_label(game.task.lineup)
        best: dict[str, float] = {}
        for seat, spec in enumerate(game.task.seats):
            best[spec] = max(best.get(spec, -math.inf), game.returns[seat])
            entry = stats.setdefault((label, spec), BotStats(label, spec))
            entry.think_seconds += game.think_seconds[seat]
            entry.decisions += game.decisions[seat]
        for spec, value in best.items():
            entry = stats[(label, spec)]
            rival = max(v for s, v in best.items() if s != spec)
            if value > rival:
                entry.wins += 1
            elif value == rival:
                entry.draws += 1
            else:
                entry.losses += 1
        specs = list(best)
        ordered = sorted(best.values(), reverse=True)
        ranks = [float(ordered.index(best[spec]) + 1) for spec in specs]
        updated = model.rate([[ratings[spec]] for spec in specs], ranks=ranks)
        for spec, team in zip(specs, updated, strict=True):
            ratings[spec] = team[0]
    result.stats = list(stats.values())
    result.ratings = {spec: (r.mu, r.sigma) for spec, r in ratings.items()}


def run_tournament(
    game: str,
    bots: Sequence[str],
    games: int,
    *,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    jobs: int = 1,
    on_result: Callable[[GameResult, int, int], None] | None = None,
) -> TournamentResult:
    """Plays the whole tournament, ``jobs`` games at a time in worker
    processes (in this process when ``jobs`` is 1); ``on_result(result, done,
    total)`` follows progress."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    options = dict(options or {})
    tasks = plan(game, options, bots, games, seed)
    result = TournamentResult(game, options, list(bots), games, seed)
    if jobs == 1:
        for task in tasks:
            result.results.append(play(task))
            if on_result:
                on_result(result.results[-1], len(result.results), len(tasks))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(play, task) for task in tasks]
            for future in as_completed(futures):
                result.results.append(future.result())
                if on_result:
                    on_result(result.results[-1], len(result.results), len(tasks))
    result.results.sort(key=lambda r: r.task.seed)
    tally(result)
    return result
