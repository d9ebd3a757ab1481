"""Volleyball Returns as the project reads the rulebook (see RULES.md here).

The Game is thin; the State is ``VolleyCore`` (the C position and the hot
methods) plus what a person reads: action strings, the reasons an action is
refused, the board drawing, atomic multi-action turns and seeded dice.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any

from engine_core.api import (
    ActionKind,
    GameType,
    IllegalAction,
    MalformedAction,
    register_game,
    returns_for_winners,
)
from engine_core.volleyball import actions as act
from engine_core.volleyball._analysis import Analysis
from engine_core.volleyball._core import VolleyCore
from engine_core.volleyball.actions import Action, column_of, row_of, square_name

NUM_PLAYERS = 2
PIECE_SYMBOLS = "XO"


def _bool_option(name: str, value: Any) -> bool:
    if type(value) is not bool:
        raise ValueError(f"volleyball: {name} must be True or False, got {value!r}")
    return value


class VolleyballGame:
    """``load_game("volleyball", big_leagues=False, underdog_boost=False,
    first_seat=0, seed=None)``.

    ``seed`` seeds the dice that ``VolleyballState.sample_chance_outcome``
    draws for a caller that lets the state roll; every state of a game with a
    seed starts the same stream, and clones continue their parent's.
    """

    name = "volleyball"
    game_type = GameType(
        name="volleyball",
        min_players=2,
        max_players=2,
        chance=True,
        actions=ActionKind.DISCRETE,
        position_hash=False,
        turn_override=False,
        batch_playouts=True,
        rules_version=1,
    )

    def __init__(
        self,
        big_leagues: bool = False,
        underdog_boost: bool = False,
        first_seat: int = 0,
        seed: int | None = None,
    ) -> None:
        self.big_leagues = _bool_option("big_leagues", big_leagues)
        self.underdog_boost = _bool_option("underdog_boost", underdog_boost)
        if type(first_seat) is not int or first_seat not in (0, 1):
            raise ValueError(f"volleyball: first_seat must be 0 or 1, got {first_seat!r}")
        if seed is not None and type(seed) is not int:
            raise ValueError(f"volleyball: seed must be an int or None, got {seed!r}")
        self.first_seat = first_seat
        self.seed = seed
        self.height = act.BIG_LEAGUES_HEIGHT if big_leagues else act.HEIGHT
        self.analysis = Analysis(big_leagues)

    def num_players(self) -> int:
        return NUM_PLAYERS

    def num_distinct_actions(self) -> int:
        return act.NUM_DISTINCT_ACTIONS

    def max_chance_outcomes(self) -> int:
        """Two dice. (There is no maximum game length: a rally can go on as
        long as both sides keep intercepting.)"""
        return 36

    def options(self) -> dict[str, Any]:
        return {
            "big_leagues": self.big_leagues,
            "underdog_boost": self.underdog_boost,
            "first_seat": self.first_seat,
            "seed": self.seed,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its options: the compiled analysis tables do not pickle.
        return (VolleyballGame, tuple(self.options().values()))

    def new_initial_state(self) -> VolleyballState:
        state = VolleyballState()
        seed = secrets.randbits(64) if self.seed is None else self.seed
        state._setup(
            self, self.height, self.big_leagues, self.underdog_boost, self.first_seat, seed
        )
        return state

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={value!r}" for key, value in self.options().items())
        return f"load_game({self.name!r}, {options})"


class VolleyballState(VolleyCore):
    """A Volleyball Returns position: the Game API plus views and strings."""

    __slots__ = ()

    game: VolleyballGame

    def returns(self) -> list[float]:
        """+1 for the seat that reached 4 points, -1 for the other; zeros until then."""
        winner = self.winner()
        if winner is None:
            return [0.0] * NUM_PLAYERS
        return returns_for_winners([winner], NUM_PLAYERS)

    def action_to_string(self, action: Action) -> str:
        return act.action_to_string(action, self.height())

    def string_to_action(self, text: str) -> Action:
        return act.string_to_action(text, self.height())

    def squares(self, seat: int) -> list[tuple[int, int]]:
        """``seat``'s pieces as (column, row) on its own side, sorted."""
        return sorted((column_of(sq), row_of(sq)) for sq in act.squares_of(self.pieces(seat)))

    # --- dice -----------------------------------------------------------------

    def sample_chance_outcome(self, rng: random.Random | None = None) -> Action:
        """A dice outcome drawn with its probability, from ``rng`` if given,
        else from the state's own stream (seeded by the game's ``seed``)."""
        if not self.is_chance_node():
            raise IllegalAction(f"no dice are rolling now (the state waits for: {self.phase()})")
        if rng is not None:
            return act.DICE_BASE + rng.randrange(36)
        outcome: Action = self._sample_dice()
        return outcome

    # --- whole turns ------------------------------------------------------------

    def apply_actions(self, actions: Sequence[Action], player: int | None = None) -> None:
        """Applies ``actions`` in order, all or none: if one is illegal (or,
        with ``player`` given, is not that seat's to make) the state is left
        unchanged and the error names the action's index and the reason."""
        trial = self.clone()
        for index, action in enumerate(actions):
            try:
                if player is not None and trial.current_player() != player:
                    raise IllegalAction(f"it is not seat {player}'s turn ({trial._whose_turn()})")
                trial.apply_action(action)
            except IllegalAction as error:
                kind = MalformedAction if isinstance(error, MalformedAction) else IllegalAction
                raise kind(f"action {index} ({self._describe(action)}): {error}") from error
        self._assign(trial)

    def _describe(self, action: object) -> str:
        try:
            return self.action_to_string(action)  # type: ignore[arg-type]
        except MalformedAction:
            return repr(action)

    # --- analysis ----------------------------------------------------------------

    def intercept_plan(self) -> list[Action] | None:
        """While receiving: the fewest further steps that intercept the ball
        (``[]`` if it is intercepted already), or None if no legal steps do."""
        if self.phase() != "receive":
            raise IllegalAction(f"no receive turn under way (the state waits for: {self.phase()})")
        receiver = self.current_player()
        landing = self.landing()
        assert landing is not None
        movers, once, done = self.receive_progress()
        plan: list[Action] | None = self.game.analysis.intercept_plan(
            self.pieces(receiver), landing, once, done, movers
        )
        return plan

    # --- why an action is refused -----------------------------------------------

    def _why_illegal(self, action: Action) -> str:
        phase = self.phase()
        name = self.action_to_string(action)
        if phase == "over":
            return f"{name}: the game is over"
        if phase == "roll" and action < act.DICE_BASE:
            return f"{name}: the dice are rolling; only a dice outcome (e.g. 'dice 4,5') applies"
        if action >= act.DICE_BASE:
            return f"{name}: no dice are rolling now ({self._whose_turn()})"
        if action < act.SERVE_BASE:
            return self._why_not_place(action - act.PLACE_BASE, phase)
        if action < act.STEP_BASE:
            return self._why_not_serve(action - act.SERVE_BASE, phase)
        if action < act.END:
            return self._why_not_step(action, phase)
        if action == act.END:
            return f"end: there is no step turn to end now ({self._whose_turn()})"
        return self._why_not_choose(action, phase)

    def _why_not_place(self, sq: int, phase: str) -> str:
        if phase != "place":
            return f"place: pieces are placed only at the start of a point ({self._whose_turn()})"
        if column_of(sq) == act.SERVING_COLUMN:
            return "place: pieces are placed on columns 1-6; column 7 is the serving zone"
        return f"place: {square_name(sq)} already holds one of your pieces"

    def _why_not_serve(self, sq: int, phase: str) -> str:
        if phase != "serve":
            return f"serve: a piece goes to column 7 only before the serve ({self._whose_turn()})"
        own = act.squares_of(self.pieces(self.current_player()))
        if sq not in own:
            return f"serve: no piece of yours on {square_name(sq)}"
        rearmost = max(column_of(s) for s in own)
        choices = " or ".join(square_name(s) for s in own if column_of(s) == rearmost)
        return f"serve: the serving piece is one nearest column 6, here {choices}"

    def _why_not_step(self, action: Action, phase: str) -> str:
        start, direction = divmod(action - act.STEP_BASE, 8)
        column, row = act.step_target(start, direction)
        here = f"step {square_name(start)}"
        if phase not in ("receive", "hitter step"):
            return f"{here}: pieces step only while receiving ({self._whose_turn()})"
        seat = self.current_player()
        own = self.pieces(seat)
        if not own >> start & 1:
            return f"{here}: no piece of yours there"
        if column == act.SERVING_COLUMN:
            return f"{here}: pieces never step into column 7 (only back out of it)"
        if own >> act.square(column, row) & 1:
            return f"{here}: no stacking, {column},{row} already holds one of your pieces"
        movers, once, done = self.receive_progress()
        if done >> start & 1:
            if self.game.big_leagues:
                return f"{here}: that piece has taken its 2 steps this turn"
            return f"{here}: that piece has already moved this turn"
        if movers >= act.MAX_MOVERS and not once >> start & 1:
            return f"{here}: {act.MAX_MOVERS} pieces have moved this turn already"
        return f"{here}: not a legal step now"

    def _why_not_choose(self, action: Action, phase: str) -> str:
        name = self.action_to_string(action)
        if not self.game.underdog_boost:
            return f"{name}: the landing is chosen only with the Underdog Boost option"
        if phase != "hit":
            return f"{name}: only a hitter who is behind on points chooses ({self._whose_turn()})"
        return f"{name}: the ball lands on columns 1-6 of the court"

    def _whose_turn(self) -> str:
        player = self.current_player()
        phase = self.phase()
        if phase == "over":
            return "the game is over"
        if phase == "roll":
            return "the dice are rolling"
        return f"seat {player} to {phase}"

    # --- drawing -----------------------------------------------------------------

    def __str__(self) -> str:
        height = self.height()
        landing = self.landing()
        receiver = 1 - self.hitter()
        header = "     7   6 5 4 3 2 1 | 1 2 3 4 5 6   7"
        lines = [self._title(), header]
        for row in range(height, 0, -1):
            cells = []
            for seat, columns in ((0, range(7, 0, -1)), (1, range(1, 8))):
                own = self.pieces(seat)
                side = []
                for column in columns:
                    sq = act.square(column, row)
                    cell = PIECE_SYMBOLS[seat] if own >> sq & 1 else "."
                    if seat == receiver and sq == landing:
                        cell = "@" if cell != "." else "*"
                    side.append(cell)
                if seat == 0:
                    cells.append(f"{side[0]}   {' '.join(side[1:])}")
                else:
                    cells.append(f"{' '.join(side[:-1])}   {side[-1]}")
            lines.append(f"  {row}  {cells[0]} | {cells[1]}  {row}")
        lines.append(header)
        lines.append(self._ball_line())
        lines.append(self._turn_line())
        return "\n".join(lines)

    def _title(self) -> str:
        scores = self.scores()
        variants = [
            name
            for name, on in (
                ("Big Leagues", self.game.big_leagues),
                ("Underdog Boost", self.game.underdog_boost),
            )
            if on
        ]
        extra = f" | {', '.join(variants)}" if variants else ""
        return (
            f"seat 0 (X) {scores[0]} : {scores[1]} seat 1 (O) | first to "
            f"{act.WINNING_SCORE}{extra} | serving: seat {self.server()}"
        )

    def _ball_line(self) -> str:
        landing = self.landing()
        phase = self.phase()
        if phase in ("place", "serve"):
            return "ball: with the server (column 7 is the serving zone)"
        if phase == "over":
            return f"ball: dead; seat {self.winner()} wins"
        if landing is None:
            return f"ball: seat {self.hitter()} hits (hit {self.hits()} of the rally)"
        dice = self.last_dice()
        how = f" (dice {dice[0]},{dice[1]})" if dice and self._rolled() else " (chosen)"
        return (
            f"ball: lands on seat {1 - self.hitter()}'s side at {square_name(landing)}{how}, "
            f"hit {self.hits()} of the rally (* empty landing square, @ a piece on it)"
        )

    def _rolled(self) -> bool:
        """Whether the ball in the air was rolled (not chosen by Underdog Boost)."""
        for action in reversed(self.history()):
            if action >= act.DICE_BASE:
                return True
            if act.LAND_BASE <= action < act.ROLL:
                return False
        return False

    def _turn_line(self) -> str:
        phase = self.phase()
        player = self.current_player()
        if phase == "over":
            return "game over"
        if phase == "roll":
            return f"to move: chance (the dice for seat {self.hitter()}'s hit)"
        what = {
            "place": "place a piece on columns 1-6",
            "serve": "choose the serving piece (nearest column 6)",
            "hit": "behind on points: choose the landing square, or roll",
            "hitter step": "may step one piece one square, or end",
            "receive": self._receive_hint(),
        }[phase]
        return f"to move: seat {player} ({PIECE_SYMBOLS[player]}): {what}"

    def _receive_hint(self) -> str:
        movers, _once, _done = self.receive_progress()
        steps = "up to 2 squares" if self.game.big_leagues else "one square"
        return f"move up to 3 pieces {steps} each ({movers} moved), then end"

    def __repr__(self) -> str:
        moves = ", ".join(self.action_to_string(a) for a in self.history())
        return f"<{self.game!r} after [{moves}]>"


register_game("volleyball", VolleyballGame)
