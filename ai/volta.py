"""The Volta planner: cross-entropy search over flicks, each scored by
simulating it, robust to the bot's own shaky hand, and looking past one
flick: the opponent's best reply, then the bot's own next flick.

1. Cross-entropy method (CEM): sample flicks (uniformly at first), simulate
   each, keep the best (the elites) and refit the sampling distribution to
   them: a categorical over the four sides and a normal per continuous field
   (offset, angle, impulse), for a few rounds.
2. A flick's score is the mean outcome over a few noisy executions drawn from
   the bot's hand model: a point won is +1, a point lost -1, and otherwise
   the position at rest, valued by ``ai.evaluation.volta`` at half weight.
   So a flick that only works when executed exactly scores low.
3. Looking past one flick, for the best few flicks that leave the point
   open: the opponent's best reply is searched (a small CEM of its own), so
   an approach that walks into a hit is seen for what it is; and, with
   ``followups``, so is this bot's own best flick after that reply, so an
   approach is worth the push it sets up. Approach, then push.
4. The chosen flick is then executed by the bot's hand: perturbed by its
   noise (``Hand``), which is what makes the easier levels beatable.

Every random draw comes from the rng passed in, so decisions are
reproducible from the seed.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass

from ai.evaluation.volta import evaluate
from engine_core import State
from engine_core.volta import Flick, VoltaState

POSITION_WEIGHT = 0.5  # a position at rest is worth less than a point
MIN_SPREAD = 0.02  # the CEM's narrowest normal, as a share of a field's range
CANDIDATES = 6  # flicks looked past: the best distinct ones of the first search
DISTINCT = 0.2  # candidates differ in side or by this share of a field's range
LOOKAHEAD_ROUNDS = 2  # CEM rounds of the reply and follow-up searches
LOOKAHEAD_ELITES = 4
MAX_BUDGET = 500  # the most samples, replies or follow-ups of one decision


@dataclass(frozen=True)
class Hand:
    """How shaky a bot's finger is: standard deviations of the offset (half
    sides), the push angle (radians) and the impulse (relative, log-normal)."""

    offset: float = 0.0
    angle: float = 0.0
    impulse: float = 0.0

    @classmethod
    def scaled(cls, noise: float) -> Hand:
        """One knob for all three: ``noise`` is the offset's deviation."""
        return cls(offset=noise, angle=0.8 * noise, impulse=1.2 * noise)

    def execute(self, flick: Flick, state: VoltaState, rng: random.Random) -> Flick:
        """The flick as this hand delivers it: perturbed, kept within bounds."""
        if not (self.offset or self.angle or self.impulse):
            return flick
        space = state.action_space()
        return Flick(
            side=flick.side,
            offset=_clamp(flick.offset + rng.gauss(0.0, self.offset), space.offset),
            angle=_clamp(flick.angle + rng.gauss(0.0, self.angle), space.angle),
            impulse=_clamp(flick.impulse * math.exp(rng.gauss(0.0, self.impulse)), space.impulse),
        )


def _clamp(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


class VoltaPlanner:
    """``choose(state)``: a flick planned by CEM and delivered by ``hand``.

    Budgets: ``samples`` flicks per CEM round for ``iterations`` rounds,
    refitted to the best ``elites``; each scored over ``robustness`` noisy
    executions. ``replies`` (0: none) is the budget of the search for the
    opponent's best reply, ``followups`` (0: none; needs replies) that of the
    bot's own next flick after it."""

    def __init__(
        self,
        rng: random.Random,
        *,
        samples: int = 48,
        iterations: int = 3,
        elites: int = 8,
        robustness: int = 3,
        replies: int = 8,
        followups: int = 0,
        hand: Hand = Hand(),
    ) -> None:
        for name, value, least in [
            ("samples", samples, 2),
            ("iterations", iterations, 1),
            ("elites", elites, 1),
            ("robustness", robustness, 1),
            ("replies", replies, 0),
            ("followups", followups, 0),
        ]:
            if value < least:
                raise ValueError(f"planner {name} must be >= {least}, got {value}")
        for name, value in [("samples", samples), ("replies", replies), ("followups", followups)]:
            if value > MAX_BUDGET:
                raise ValueError(f"planner {name} must be <= {MAX_BUDGET}, got {value}")
        if elites > samples:
            raise ValueError(f"planner elites ({elites}) cannot exceed samples ({samples})")
        if followups and not replies:
            raise ValueError("planner followups come after the opponent's reply: give replies too")
        self.rng = rng
        self.samples = samples
        self.iterations = iterations
        self.elites = elites
        self.robustness = robustness
        self.replies = replies
        self.followups = followups
        self.hand = hand
        # The planner plans for a hand at least this steady's shake, so a
        # perfectly steady bot still prefers flicks that forgive small errors.
        self._model = Hand(
            offset=max(hand.offset, 0.02),
            angle=max(hand.angle, 0.015),
            impulse=max(hand.impulse, 0.03),
        )
        self.simulations = 0

    def choose(self, state: State) -> Flick:
        if not isinstance(state, VoltaState):
            raise ValueError(f"the Volta planner plays Volta, not {type(state).__name__}")
        if state.is_terminal():
            raise ValueError("the match is over: there is no flick to choose")
        self.simulations = 0
        scored = self._cross_entropy(state, self.samples, self.iterations, self.elites)
        best = self._look_ahead(state, scored)
        return self.hand.execute(best, state, self.rng)

    # --- scoring ----------------------------------------------------------------

    def outcome(self, state: VoltaState, flick: Flick, seat: int) -> tuple[float, VoltaState]:
        """``seat``'s value after ``flick`` (a point is +-1), and the state."""
        self.simulations += 1
        child = state.clone()
        result = child.apply_flick(flick)
        if result.point_to is not None:
            return (1.0 if result.point_to == seat else -1.0), child
        return POSITION_WEIGHT * evaluate(child)[seat], child

    def executions(self, state: VoltaState, flick: Flick) -> list[float]:
        """The mover's values of ``flick`` as aimed and of noisy executions of
        it by the hand model (``robustness`` in all)."""
        seat = state.current_player()
        executions = [flick] + [
            self._model.execute(flick, state, self.rng) for _ in range(self.robustness - 1)
        ]
        return [self.outcome(state, f, seat)[0] for f in executions]

    def robust_score(self, state: VoltaState, flick: Flick) -> float:
        return statistics.fmean(self.executions(state, flick))

    # --- search -----------------------------------------------------------------

    def _cross_entropy(
        self, state: VoltaState, samples: int, iterations: int, elites: int
    ) -> list[tuple[float, Flick]]:
        """Every flick tried by the mover, with its robust score, best first."""
        space = state.action_space()
        fields = [space.offset, space.angle, space.impulse]
        scored: list[tuple[float, Flick]] = []
        flicks = state.sample_actions(samples, self.rng)
        for _ in range(iterations):
            batch = [(self.robust_score(state, f), f) for f in flicks]
            scored.extend(batch)
            elite = [f for _, f in sorted(batch, key=lambda pair: -pair[0])[:elites]]
            sides = [1.0 + sum(f.side == side for f in elite) for side in space.sides]
            normals = []
            for index, (low, high) in enumerate(fields):
                values = [(f.offset, f.angle, f.impulse)[index] for f in elite]
                spread = max(statistics.pstdev(values), MIN_SPREAD * (high - low))
                normals.append((statistics.fmean(values), spread))
            flicks = [
                Flick(
                    side=self.rng.choices(space.sides, sides)[0],
                    offset=_clamp(self.rng.gauss(*normals[0]), fields[0]),
                    angle=_clamp(self.rng.gauss(*normals[1]), fields[1]),
                    impulse=_clamp(self.rng.gauss(*normals[2]), fields[2]),
                )
                for _ in range(samples)
            ]
        scored.sort(key=lambda pair: -pair[0])
        return scored

    def _best_flick(self, state: VoltaState, budget: int) -> tuple[float, Flick]:
        """The mover's best flick (robust score, flick) for about ``budget``
        flicks tried: a small CEM."""
        rounds = min(LOOKAHEAD_ROUNDS, max(1, budget // LOOKAHEAD_ELITES))
        return self._cross_entropy(state, max(2, budget // rounds), rounds, LOOKAHEAD_ELITES)[0]

    def _look_ahead(self, state: VoltaState, scored: list[tuple[float, Flick]]) -> Flick:
        """The best of the top flicks once what follows is counted for those
        that leave the point open: the opponent's best reply and, with
        ``followups``, this bot's best flick after it."""
        if not self.replies:
            return scored[0][1]
        seat = state.current_player()

        def adjusted(score: float, flick: Flick) -> float:
            value, child = self.outcome(state, flick, seat)
            if abs(value) == 1.0 or child.is_terminal():
                return score  # this flick decides the point
            threat, reply = self._best_flick(child, self.replies)
            if not self.followups:
                return 0.5 * score - 0.5 * threat
            # How often the reply scores, and where its aimed execution leaves
            # this bot if it does not.
            chance = statistics.fmean(v == 1.0 for v in self.executions(child, reply))
            reply_value, after = self.outcome(child, reply, 1 - seat)
            if abs(reply_value) == 1.0 or after.is_terminal():
                return 0.5 * score - 0.5 * threat
            followup = self._best_flick(after, self.followups)[0]
            return 0.5 * score + 0.5 * (chance * -1.0 + (1.0 - chance) * followup)

        return max(self._distinct(state, scored), key=lambda pair: adjusted(*pair))[1]

    @staticmethod
    def _distinct(
        state: VoltaState, scored: list[tuple[float, Flick]]
    ) -> list[tuple[float, Flick]]:
        """The best CANDIDATES flicks of ``scored`` (best first) that differ
        from each other: the CEM crowds its last rounds around one flick, and
        looking past near-copies of it would tell nothing new."""
        space = state.action_space()
        spans = [high - low for low, high in (space.offset, space.angle, space.impulse)]

        def close(a: Flick, b: Flick) -> bool:
            fields = zip(
                (a.offset, a.angle, a.impulse), (b.offset, b.angle, b.impulse), strict=True
            )
            return a.side == b.side and all(
                abs(x - y) <= DISTINCT * span for (x, y), span in zip(fields, spans, strict=True)
            )

        # The best flick on each side first (pushing on another side is
        # another plan: towards, away, aside), then the best of the rest.
        chosen: list[tuple[float, Flick]] = []
        for side in space.sides:
            chosen.extend([pair for pair in scored if pair[1].side == side][:1])
        chosen.sort(key=lambda pair: -pair[0])
        for pair in scored:
            if len(chosen) >= CANDIDATES:
                break
            if not any(close(pair[1], other) for _, other in chosen):
                chosen.append(pair)
        return chosen
