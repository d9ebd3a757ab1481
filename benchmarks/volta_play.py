"""Volta play: does the expert score, and how are the points won?

Plays a fixed, seeded set of matches (the first seat alternating) and prints:
- the expert against a minimal-flick opponent (every flick at the minimum
  impulse, on a seeded random side, offset and angle): its flicks per point
  won by its own push or hit (target: 8 or fewer), beside the same figure
  for the baseline measured in this run, the one-flick planner (the
  expert's budget without looking past its flick: no reply, no follow-up);
- the expert against the baseline: the share of the points it wins (what
  looking past one flick is worth against an opponent that hits back);
- the expert against itself: the share of points won by the mover's own
  push or hit rather than given away by the other's fall (own rider thrown,
  own steed off; target: at least half), and the mean flicks per match;
- the planner's think time per flick at each level on a fixed set of
  positions, and its overhead: its flick simulations per second against bare
  ``state.simulate`` calls on the same positions.

A point is the mover's push or hit when the flick that ends it scores for
the mover; otherwise the mover gave it away. Matches stop at ``--cap``
flicks (reported as unfinished).

Usage: python benchmarks/volta_play.py [--matches 3] [--duels 2] [--selfplay 2]
[--cap 400] (a few minutes on one core with the defaults)
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass, field

import engine_core
from ai.bots import BotSpec, level_spec, make_bot
from ai.volta import VoltaPlanner
from engine_core.volta import Flick, VoltaState

TARGET_FLICKS_PER_POINT = 8.0
TARGET_PUSH_SHARE = 0.5


class MinimalFlicker:
    """The passive opponent: every flick the gentlest legal one, aimed at
    random (seeded)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: VoltaState) -> Flick:
        flick = state.sample_actions(1, self.rng)[0]
        return Flick(flick.side, flick.offset, flick.angle, state.action_space().impulse[0])


@dataclass
class Tally:
    """Per seat: flicks, points won by one's own push or hit, points won
    because the other gave them away, think time."""

    flicks: list[int] = field(default_factory=lambda: [0, 0])
    pushed: list[int] = field(default_factory=lambda: [0, 0])
    given: list[int] = field(default_factory=lambda: [0, 0])
    think: list[list[float]] = field(default_factory=lambda: [[], []])
    matches: int = 0
    unfinished: int = 0

    def add(self, other: Tally, swap: bool) -> None:
        """Adds ``other``'s figures, seat for seat, or swapped."""
        order = (1, 0) if swap else (0, 1)
        for mine, theirs in enumerate(order):
            self.flicks[mine] += other.flicks[theirs]
            self.pushed[mine] += other.pushed[theirs]
            self.given[mine] += other.given[theirs]
            self.think[mine] += other.think[theirs]
        self.matches += other.matches
        self.unfinished += other.unfinished


def play(bots: list[object], first_seat: int, cap: int) -> Tally:
    game = engine_core.load_game("volta", first_seat=first_seat)
    state = game.new_initial_state()
    assert isinstance(state, VoltaState)
    tally = Tally(matches=1)
    while not state.is_terminal() and sum(tally.flicks) < cap:
        mover = state.current_player()
        start = time.process_time()
        flick = bots[mover].choose(state.clone())  # type: ignore[attr-defined]
        tally.think[mover].append(time.process_time() - start)
        result = state.apply_flick(flick)
        tally.flicks[mover] += 1
        if result.point_to == mover:
            tally.pushed[mover] += 1
        elif result.point_to is not None:
            tally.given[result.point_to] += 1
    tally.unfinished = int(not state.is_terminal())
    return tally


def series(spec: str, opponent: str, matches: int, cap: int) -> Tally:
    """``spec`` (seat 0 of the tally) against ``opponent`` (a spec, or
    "minimal"), first seat alternating, seeded by the match number."""
    game = engine_core.load_game("volta")
    total = Tally()
    for number in range(matches):
        bot = make_bot(game, spec, seed=1000 + number)
        other = (
            MinimalFlicker(2000 + number)
            if opponent == "minimal"
            else make_bot(game, opponent, seed=3000 + number)
        )
        swap = number % 2 == 1
        bots: list[object] = [other, bot] if swap else [bot, other]
        total.add(play(bots, first_seat=number % 2, cap=cap), swap)
    return total


def per_point(tally: Tally) -> float:
    return tally.flicks[0] / tally.pushed[0] if tally.pushed[0] else float("inf")


def one_flick(spec: str) -> str:
    """``spec`` without looking past its flick: no reply, no follow-up."""
    parsed = BotSpec.parse(spec)
    options = {**parsed.options, "replies": "0"}
    options.pop("followups", None)
    return str(BotSpec(parsed.algorithm, options))


def positions(count: int) -> list[VoltaState]:
    """The start, then positions of seeded gentle random play."""
    state = engine_core.load_game("volta").new_initial_state()
    assert isinstance(state, VoltaState)
    rng = random.Random(7)
    found = [state.clone()]
    while len(found) < count:
        low, high = state.action_space().impulse
        flick = state.sample_actions(1, rng)[0]
        state.apply_action(Flick(flick.side, flick.offset, flick.angle, low + (high - low) / 4))
        if state.is_terminal():
            break
        found.append(state.clone())
    return found


def speeds(places: list[VoltaState]) -> None:
    game = engine_core.load_game("volta")
    print("think time per flick, seconds of CPU (mean / max) on", len(places), "positions:")
    for level in ("easy", "medium", "hard", "expert"):
        bot = make_bot(game, level, seed=5)
        times = []
        for place in places:
            start = time.process_time()
            bot.choose(place.clone())
            times.append(time.process_time() - start)
        mean = statistics.fmean(times)
        print(f"  {level:<7}{mean:7.3f} / {max(times):.3f}   {level_spec(game, level)}")
    planner = make_bot(game, "expert", seed=6)
    assert isinstance(planner, VoltaPlanner)
    simulated, start = 0, time.process_time()
    for place in places:
        planner.choose(place.clone())
        simulated += planner.simulations
    planner_rate = simulated / (time.process_time() - start)
    rng = random.Random(8)
    flicks = [(place, place.sample_actions(200, rng)) for place in places]
    start = time.process_time()
    for place, batch in flicks:
        for flick in batch:
            place.simulate(flick, record=False)
    bare_rate = sum(len(batch) for _, batch in flicks) / (time.process_time() - start)
    print(f"expert planner: {planner_rate:,.0f} flick simulations/s")
    print(f"bare state.simulate: {bare_rate:,.0f} flicks/s")
    print(f"  ratio planner / bare: {planner_rate / bare_rate:.2f} (the search's own overhead)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3, help="matches against minimal flicks")
    parser.add_argument("--duels", type=int, default=2, help="expert-against-baseline matches")
    parser.add_argument("--selfplay", type=int, default=2, help="expert-against-expert matches")
    parser.add_argument("--cap", type=int, default=400, help="flicks at most per match")
    parser.add_argument("--positions", type=int, default=6, help="positions for think times")
    args = parser.parse_args()
    game = engine_core.load_game("volta")
    expert = level_spec(game, "expert")
    baseline = one_flick(expert)

    print(f"expert = {expert}\nbaseline = {baseline} (one flick, same budget)")
    rows = []
    for name, spec in (("expert", expert), ("baseline", baseline)):
        tally = series(spec, "minimal", args.matches, args.cap)
        rows.append((name, tally))
        print(
            f"{name} vs minimal flicks, {tally.matches} matches: {tally.flicks[0]} flicks, "
            f"{tally.pushed[0]} points by its push or hit, {tally.given[0]} given away, "
            f"lost {tally.pushed[1] + tally.given[1]}, unfinished {tally.unfinished}"
        )
    expert_rate, baseline_rate = per_point(rows[0][1]), per_point(rows[1][1])
    print(
        f"flicks per point won by its own push or hit: expert {expert_rate:.2f} "
        f"(target <= {TARGET_FLICKS_PER_POINT:g}), baseline {baseline_rate:.2f}, "
        f"ratio expert / baseline {expert_rate / baseline_rate:.2f}"
    )

    duel = series(expert, baseline, args.duels, args.cap)
    won, lost = duel.pushed[0] + duel.given[0], duel.pushed[1] + duel.given[1]
    print(
        f"expert vs baseline, {duel.matches} matches: points {won}-{lost}, "
        f"ratio expert / baseline {won / max(1, lost):.2f}, unfinished {duel.unfinished}"
    )

    selfplay = series(expert, expert, args.selfplay, args.cap)
    pushed, given = sum(selfplay.pushed), sum(selfplay.given)
    share = pushed / (pushed + given) if pushed + given else 0.0
    flicks = sum(selfplay.flicks) / max(1, selfplay.matches)
    print(
        f"expert vs expert, {selfplay.matches} matches: {pushed + given} points, {pushed} by the "
        f"mover's push or hit, {given} by the other's own fall: share {share:.0%} "
        f"(target >= {TARGET_PUSH_SHARE:.0%}); {flicks:.1f} flicks per match on average, "
        f"unfinished {selfplay.unfinished}"
    )
    thinking = selfplay.think[0] + selfplay.think[1]
    print(
        f"expert think time per flick in play: mean {statistics.fmean(thinking):.3f} s, "
        f"max {max(thinking):.3f} s"
    )
    speeds(positions(args.positions))


if __name__ == "__main__":
    main()
