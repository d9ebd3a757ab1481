"""Volta's match rules on the physics core, as the project reads the rulebook
(RULES.md here quotes the sentences each rule comes from)."""

from __future__ import annotations

import random
from typing import Any

from engine_core.api import (
    TERMINAL,
    ActionKind,
    GameType,
    IllegalAction,
    register_game,
    returns_for_winners,
)
from engine_core.volta import flick as flicks
from engine_core.volta._physics import FALLEN_STATE, ROLLING_STATE, SEATED_STATE
from engine_core.volta._world import World
from engine_core.volta.drawing import draw_arena
from engine_core.volta.flick import ActionSpace, Flick
from engine_core.volta.params import DEFAULT_PHYSICS, DENT_SIZES, LARGE, Physics
from engine_core.volta.trajectory import RIDER_STATES, FlickResult, Pose, event_from, frame_from

NUM_PLAYERS = 2
WINNING_SCORE = 10
WINNING_LEAD = 2
SWAP_CHOICES = (0, 5)
# kg: a 16 mm ball from wood (1 g) to steel (17 g); heavier cannot be that
# size, and the minimum nudge must still move a steed that carries it.
RIDER_MASS_RANGE = (0.001, 0.02)


def _pair(name: str, value: Any) -> tuple[Any, Any]:
    if not isinstance(value, tuple | list) or len(value) != NUM_PLAYERS:
        raise ValueError(f"volta: {name} must be a pair (one per player), got {value!r}")
    return (value[0], value[1])


class VoltaGame:
    """``load_game("volta", dents=("large", "large"), rider_masses=(0.0055, 0.0055),
    swap_every=0, first_seat=0)``.

    ``dents`` is each player's dent side (the handicap: "small" is harder);
    ``rider_masses`` the mass (kg, 0.001 to 0.02) of each player's marble; with
    ``swap_every=5`` the players exchange steeds and riders after every five
    points (the dent sides stay with the players); ``first_seat`` flicks first.
    """

    name = "volta"
    game_type = GameType(
        name="volta",
        min_players=2,
        max_players=2,
        chance=False,
        actions=ActionKind.CONTINUOUS,
        position_hash=False,
        turn_override=False,
        batch_playouts=False,
        # 2: the minimum nudge and the recalibrated physics (RULES.md, Calibration)
        rules_version=2,
    )

    def __init__(
        self,
        dents: tuple[str, str] | list[str] = (LARGE, LARGE),
        rider_masses: tuple[float, float] | list[float] = (
            DEFAULT_PHYSICS.rider_mass,
            DEFAULT_PHYSICS.rider_mass,
        ),
        swap_every: int = 0,
        first_seat: int = 0,
    ) -> None:
        self.physics: Physics = DEFAULT_PHYSICS
        pair = _pair("dents", dents)
        for dent in pair:
            if dent not in DENT_SIZES:
                raise ValueError(f"volta: each dent is 'large' or 'small', got {dent!r}")
        self.dents: tuple[str, str] = (pair[0], pair[1])
        masses = _pair("rider_masses", rider_masses)
        low, high = RIDER_MASS_RANGE
        for mass in masses:
            number = isinstance(mass, int | float) and not isinstance(mass, bool)
            if not number or not low <= mass <= high:
                raise ValueError(f"volta: rider masses are kg in [{low}, {high}], got {mass!r}")
        self.rider_masses: tuple[float, float] = (float(masses[0]), float(masses[1]))
        if type(swap_every) is not int or swap_every not in SWAP_CHOICES:
            raise ValueError(f"volta: swap_every must be 0 or 5, got {swap_every!r}")
        self.swap_every = swap_every
        if type(first_seat) is not int or first_seat not in (0, 1):
            raise ValueError(f"volta: first_seat must be 0 or 1, got {first_seat!r}")
        self.first_seat = first_seat

    def num_players(self) -> int:
        return NUM_PLAYERS

    def options(self) -> dict[str, Any]:
        return {
            "dents": self.dents,
            "rider_masses": self.rider_masses,
            "swap_every": self.swap_every,
            "first_seat": self.first_seat,
        }

    def action_space(self) -> ActionSpace:
        return flicks.action_space(self.physics)

    def new_initial_state(self) -> VoltaState:
        return VoltaState(self)

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={value!r}" for key, value in self.options().items())
        return f"load_game('volta', {options})"


class VoltaState:
    """A Volta match: the two steeds on the arena, the score and whose flick it is."""

    def __init__(self, game: VoltaGame) -> None:
        self.game = game
        self._scores = [0, 0]
        self._player = game.first_seat
        self._history: list[Flick] = []
        self.world = World(game.physics)
        self._equip()

    # --- equipment and resets ---------------------------------------------

    def swapped(self) -> bool:
        """Whether the players have exchanged steeds and riders (every
        ``swap_every`` points, when that option is on)."""
        every = self.game.swap_every
        return every > 0 and (sum(self._scores) // every) % 2 == 1

    def rider_mass(self, seat: int) -> float:
        """The mass of the marble that ``seat`` rides with now."""
        return self.game.rider_masses[seat ^ int(self.swapped())]

    def _equip(self) -> None:
        physics = self.game.physics
        for seat in range(NUM_PLAYERS):
            rim = physics.dent(self.game.dents[seat]).rim_radius
            self.world.configure_rider(seat, self.rider_mass(seat), rim)
        self.world.reset()

    # --- the Game API -------------------------------------------------------

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self._player

    def scores(self) -> list[int]:
        """Points won so far, by seat."""
        return list(self._scores)

    def is_terminal(self) -> bool:
        high, low = max(self._scores), min(self._scores)
        return high >= WINNING_SCORE and high - low >= WINNING_LEAD

    def winner(self) -> int | None:
        if not self.is_terminal():
            return None
        return 0 if self._scores[0] > self._scores[1] else 1

    def returns(self) -> list[float]:
        winner = self.winner()
        if winner is None:
            return [0.0, 0.0]
        return returns_for_winners([winner], NUM_PLAYERS)

    def is_chance_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        return []

    def action_space(self) -> ActionSpace:
        return self.game.action_space()

    def legal_actions(self) -> list[Flick]:
        """A representative grid of 180 flicks (see ``flick.representative``):
        the real action space is continuous, and any Flick within
        ``action_space()`` is legal; use ``sample_actions`` for more."""
        if self.is_terminal():
            return []
        return flicks.representative(self.game.physics)

    def sample_actions(self, n: int, rng: random.Random) -> list[Flick]:
        """``n`` flicks drawn uniformly from the action space (none once the
        match is over); a negative or non-integer ``n`` is a ValueError."""
        flicks.check_count(n)
        if self.is_terminal():
            return []
        return flicks.sample(n, rng, self.game.physics)

    def simulate(self, action: Flick, record: bool = True) -> FlickResult:
        """What ``action`` would do, without changing this state: the frames
        (if ``record``), the events and who would score."""
        return self._run(self.world.copy(), action, record)

    def apply_action(self, action: Flick) -> None:
        self.apply_flick(action)

    def apply_flick(self, action: Flick, record: bool = False) -> FlickResult:
        """Plays ``action`` and returns what happened (the frames if ``record``)."""
        world = self.world.copy()
        result = self._run(world, action, record)
        self.world = world
        self._history.append(flicks.validate(action, self.game.physics))
        if result.point_to is None:
            self._player = 1 - self._player
        else:
            self._scores[result.point_to] += 1
            self._player = 1 - result.point_to  # the loser of the point starts
            self._equip()
        return result

    def _run(self, world: World, action: Flick, record: bool) -> FlickResult:
        if self.is_terminal():
            raise IllegalAction("the match is over")
        flick = flicks.validate(action, self.game.physics)
        mover = self._player
        world.start_flick(mover, flick.side, flick.offset, flick.angle, flick.impulse)
        raw_events, raw_frames, capped = world.run(record)
        if capped:
            # Out of time with a marble still rocking in its dent: it stays on.
            for seat in range(NUM_PLAYERS):
                if world.rider(seat)[0] == ROLLING_STATE:
                    world.set_rider(seat, SEATED_STATE)
        frames = tuple(frame_from(raw) for raw in raw_frames) if raw_frames else ()
        return FlickResult(
            mover=mover,
            events=tuple(event_from(raw) for raw in raw_events),
            frames=frames,
            point_to=self._point_to(world, mover),
            capped=capped,
            duration=world.time,
        )

    @staticmethod
    def _point_to(world: World, mover: int) -> int | None:
        def down(seat: int) -> bool:
            return not world.on_arena(seat) or world.rider(seat)[0] == FALLEN_STATE

        opponent = 1 - mover
        if down(mover):  # own rider down or own steed off, both off included
            return opponent
        if down(opponent):
            return mover
        return None

    def child(self, action: Flick) -> VoltaState:
        state = self.clone()
        state.apply_action(action)
        return state

    def clone(self) -> VoltaState:
        state = VoltaState.__new__(VoltaState)
        state.game = self.game
        state._scores = list(self._scores)
        state._player = self._player
        state._history = list(self._history)
        state.world = self.world.copy()
        return state

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles as the game, the score, the player to flick, the history and
        the steeds' poses: between flicks everything is at rest with the
        riders seated, so that is the whole state."""
        poses = tuple(self.world.steed(seat)[:3] for seat in range(NUM_PLAYERS))
        return (
            _restore,
            (self.game, tuple(self._scores), self._player, tuple(self._history), poses),
        )

    def history(self) -> list[Flick]:
        return list(self._history)

    def poses(self) -> tuple[Pose, Pose]:
        """Both steeds and riders as they stand (seat i plays steed i), in
        the form of a flick's frames."""

        def pose(seat: int) -> Pose:
            x, y, angle = self.world.steed(seat)[:3]
            rider, dx, dy = self.world.rider(seat)[:3]
            on_arena = self.world.on_arena(seat)
            return Pose(x, y, angle, on_arena, x + dx, y + dy, RIDER_STATES[rider])

        return pose(0), pose(1)

    def action_to_string(self, action: Flick) -> str:
        return flicks.to_string(flicks.validate(action, self.game.physics))

    def string_to_action(self, text: str) -> Flick:
        return flicks.parse(text, self.game.physics)

    def __str__(self) -> str:
        lines = draw_arena(self.world)
        status = "game over" if self.is_terminal() else f"to flick: seat {self._player}"
        steeds = "  ".join(
            f"{'AB'[seat]}: {self.game.dents[seat]} dent, {self.rider_mass(seat) * 1000:g} g"
            for seat in range(NUM_PLAYERS)
        )
        lines.append(f"score {self._scores[0]}-{self._scores[1]} | {status}")
        lines.append(steeds)
        return "\n".join(lines)

    def __repr__(self) -> str:
        score = f"{self._scores[0]}-{self._scores[1]}"
        return f"<{self.game!r} score {score} after {len(self._history)} flicks>"


def _restore(
    game: VoltaGame,
    scores: tuple[int, int],
    player: int,
    history: tuple[Flick, ...],
    poses: tuple[tuple[float, float, float], ...],
) -> VoltaState:
    """Rebuilds a pickled state (see VoltaState.__reduce__)."""
    state = VoltaState(game)
    state._scores = list(scores)
    state._player = player
    state._history = list(history)
    state._equip()  # the riders' marbles depend on the score (swaps)
    for seat, (x, y, angle) in enumerate(poses):
        state.world.set_steed(seat, x, y, angle)
    return state


register_game("volta", VoltaGame)
