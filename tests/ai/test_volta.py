"""The Volta planner: safe flicks where most are not, points where they can
be had, the hand's noise, and legal, reproducible matches."""

from __future__ import annotations

import math
import random

import pytest

import engine_core
from ai.bots import make_bot
from ai.evaluation.volta import corner_toward, evaluate, push_setup, rim_margin
from ai.mcts import MCTSBot, RandomRolloutEvaluator
from ai.volta import Hand, VoltaPlanner
from engine_core.volta import DEFAULT_PHYSICS, Flick, VoltaState


def position(mine: tuple[float, float, float], theirs: tuple[float, float, float]) -> VoltaState:
    """Seat 0 to flick with its steed at ``mine`` and seat 1's at ``theirs``
    (x, y in metres, angle in radians)."""
    state = engine_core.load_game("volta").new_initial_state()
    assert isinstance(state, VoltaState)
    state.world.set_steed(0, *mine)
    state.world.set_steed(1, *theirs)
    return state


def test_at_the_start_only_gentle_flicks_keep_the_rider() -> None:
    state = engine_core.load_game("volta").new_initial_state()
    assert isinstance(state, VoltaState)
    hard = Flick(side=2, offset=0.0, angle=0.0, impulse=0.1)
    assert state.simulate(hard, record=False).point_to == 1  # own rider thrown
    for seed in range(4):
        flick = make_bot(state.game, "planner:noise=0", seed=seed).choose(state)
        assert state.simulate(flick, record=False).point_to != 1
        assert flick.impulse < 0.03


def test_near_the_rim_the_planner_finds_a_safe_flick() -> None:
    # Seat 0's steed 1.5 cm from the rim: most flicks lose the point.
    state = position((-0.105, 0.0, 0.0), (0.075, 0.0, 0.0))
    rng = random.Random(1)
    losing = sum(
        state.simulate(f, record=False).point_to == 1 for f in state.sample_actions(200, rng)
    )
    assert losing > 150
    for seed in range(4):
        flick = make_bot(state.game, "hard", seed=seed).choose(state)
        assert state.simulate(flick, record=False).point_to is None


def test_the_expert_pushes_a_steed_on_the_rim_off() -> None:
    # Seat 1's steed 3 cm from falling, turned, seat 0's 2 cm behind it and
    # off its line: under 2% of random flicks score here.
    state = position((0.02, 0.03, 0.3), (0.09, 0.02, 0.2))
    rng = random.Random(1)
    scoring = sum(
        state.simulate(f, record=False).point_to == 0 for f in state.sample_actions(500, rng)
    )
    assert scoring < 10
    for seed in range(3):
        flick = make_bot(state.game, "expert", seed=seed).choose(state)
        assert state.simulate(flick, record=False).point_to == 0


def test_the_hand_perturbs_within_bounds_and_reproducibly() -> None:
    state = engine_core.load_game("volta").new_initial_state()
    assert isinstance(state, VoltaState)
    flick = Flick(side=1, offset=0.99, angle=0.0, impulse=0.05)
    steady = Hand()
    assert steady.execute(flick, state, random.Random(0)) is flick
    shaky = Hand.scaled(0.3)
    space = state.action_space()
    shaken = [shaky.execute(flick, state, random.Random(seed)) for seed in range(50)]
    assert all(space.offset[0] <= f.offset <= space.offset[1] for f in shaken)
    assert all(space.impulse[0] <= f.impulse <= space.impulse[1] for f in shaken)
    assert all(f.side == 1 for f in shaken)
    assert len({f.impulse for f in shaken}) > 45  # a few clamp at the maximum
    assert any(f.offset == 1.0 for f in shaken)  # clamped at the corner
    assert shaky.execute(flick, state, random.Random(3)) == shaken[3]


def test_easier_levels_shake_more() -> None:
    game = engine_core.load_game("volta")
    hands = [make_bot(game, level).hand for level in ("easy", "medium", "hard", "expert")]
    assert all(isinstance(hand, Hand) for hand in hands)
    offsets = [hand.offset for hand in hands]
    assert offsets == sorted(offsets, reverse=True)
    assert offsets[-1] > 0


def test_the_planner_refuses_other_games_and_bad_options() -> None:
    with pytest.raises(ValueError, match="planner needs continuous actions; othello"):
        make_bot(engine_core.load_game("othello"), "planner")
    with pytest.raises(ValueError, match="elites"):
        VoltaPlanner(random.Random(0), samples=4, elites=8)
    with pytest.raises(ValueError, match="noise"):
        make_bot(engine_core.load_game("volta"), "planner:noise=2")
    with pytest.raises(ValueError, match="give replies too"):
        make_bot(engine_core.load_game("volta"), "planner:replies=0:followups=16")
    with pytest.raises(ValueError, match="followups must be <= 500"):
        make_bot(engine_core.load_game("volta"), "planner:followups=100000")
    with pytest.raises(ValueError, match="replies must be >= 0"):
        make_bot(engine_core.load_game("volta"), "planner:replies=-1")


class MinimalFlicker:
    """A passive opponent: only ever the gentlest legal flick, aimed at random."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: VoltaState) -> Flick:
        flick = state.sample_actions(1, self.rng)[0]
        return Flick(flick.side, flick.offset, flick.angle, state.action_space().impulse[0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_against_a_passive_opponent_the_hard_bot_scores_within_four_flicks(seed: int) -> None:
    """From the start, against minimal flicks: approach, then push or hit.
    The point is won by the bot's own flick (not given away by the other)."""
    game = engine_core.load_game("volta")
    state = game.new_initial_state()
    assert isinstance(state, VoltaState)
    bot, passive = make_bot(game, "hard", seed=seed), MinimalFlicker(seed)
    own_flicks = 0
    while state.scores() == [0, 0]:
        mover = state.current_player()
        result = state.apply_flick((bot if mover == 0 else passive).choose(state.clone()))
        own_flicks += mover == 0
    assert (mover, result.point_to) == (0, 0)
    assert own_flicks <= 4


def test_looking_ahead_costs_simulations_and_stays_reproducible() -> None:
    """The reply and follow-up searches are simulations of their own, drawn
    from the same seeded rng: the same seed, the same flick."""
    state = position((-0.03, 0.0, 0.0), (0.075, 0.0, 0.0))
    plain = VoltaPlanner(random.Random(3), samples=16, iterations=2, replies=0)
    ahead = VoltaPlanner(random.Random(3), samples=16, iterations=2, replies=16, followups=16)
    plain.choose(state)
    first = ahead.choose(state)
    assert ahead.simulations > plain.simulations
    again = VoltaPlanner(random.Random(3), samples=16, iterations=2, replies=16, followups=16)
    assert again.choose(state) == first


def test_the_evaluation_values_a_push_set_up() -> None:
    """Close behind the other steed, with it near the rim straight ahead: the
    next flick can push it off. Far away, or with the rim far ahead, not."""
    side = DEFAULT_PHYSICS.steed_side
    touching = position((0.09 - side, 0.0, 0.0), (0.09, 0.0, 0.0))
    assert push_setup(touching, 0) == pytest.approx(1.0 - 0.03 / 0.12)
    assert push_setup(touching, 1) == 0.0  # behind it is the whole arena
    apart = position((0.09 - side - 0.04, 0.0, 0.0), (0.09, 0.0, 0.0))
    assert 0.0 < push_setup(apart, 0) < push_setup(touching, 0)
    assert push_setup(position((-0.075, 0.0, 0.0), (0.075, 0.0, 0.0)), 0) == 0.0
    sideways = position((0.09 - side, 0.0, 0.0), (0.09, 0.0, 0.0))
    sideways.world.set_steed(0, 0.09, -side, 0.0)  # pushing it along the rim
    assert push_setup(sideways, 0) < push_setup(touching, 0)
    # the same steeds with the roles swapped value the other way round
    swapped = position((0.09, 0.0, 0.0), (0.09 - side, 0.0, 0.0))
    assert evaluate(touching)[0] > 0.0
    assert evaluate(swapped)[0] < 0.0


def test_the_evaluation_reads_rims_and_corners() -> None:
    centre = position((0.0, 0.0, 0.0), (0.11, 0.0, 0.0))
    assert rim_margin(centre, 0) == pytest.approx(1.0)
    assert rim_margin(centre, 1) == pytest.approx(1 - 0.11 / 0.12)
    assert evaluate(centre)[0] > 0.5
    assert sum(evaluate(centre)) == pytest.approx(0.0)
    face = position((0.0, 0.0, 0.0), (0.06, 0.0, 0.0))
    corner = position((0.0, 0.0, math.pi / 4), (0.06, 0.0, 0.0))
    assert corner_toward(face, 0) == pytest.approx(0.0)
    assert corner_toward(corner, 0) == pytest.approx(1.0)
    assert evaluate(corner)[0] > evaluate(face)[0]


def test_mcts_widens_progressively_over_sampled_flicks() -> None:
    state = engine_core.load_game("volta").new_initial_state()
    bot = MCTSBot(
        RandomRolloutEvaluator(random.Random(0)),
        random.Random(0),
        iterations=60,
        widening_constant=2.0,
        widening_exponent=0.5,
    )
    root = bot.search(state)
    assert root.visits == 60
    # Children are added only while fewer than 2 * sqrt(visits) exist.
    assert 2 <= len(root.children) <= math.ceil(2.0 * 60**0.5)
    space = state.action_space()
    for child in root.children:
        assert isinstance(child.action, Flick)
        assert space.impulse[0] <= child.action.impulse <= space.impulse[1]


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:iterations=8", "easy", "hard"])
def test_bots_play_whole_matches_legally_and_reproducibly(spec: str) -> None:
    game = engine_core.load_game("volta")

    def play(seed: int) -> list[Flick]:
        bots = [make_bot(game, spec, seed=seed), make_bot(game, "easy", seed=seed + 1)]
        state = game.new_initial_state()
        while not state.is_terminal():
            flick = bots[state.current_player()].choose(state.clone())
            state.apply_action(flick)  # raises on an illegal flick
        return state.history()

    assert play(2) == play(2)
