"""Between the public messages (package meeple.v1) and the engine: game
configs, actions, records (a config and a history, replayed) and views.

Each game's wire form is declared once in ``WIRES``: its GameKind, its
options message, how its actions travel and the longest record a client may
send. Everything a client sends is checked here or by the engine: a
malformed message is a ``BadRequest`` (INVALID_ARGUMENT), an action the rules
refuse an ``engine_core.IllegalAction`` (FAILED_PRECONDITION).
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, cast

from meeple.v1 import game_pb2 as pb

import engine_core
from engine_core import Game, IllegalAction, MalformedAction, State
from engine_core.rolit import PASS
from engine_core.volta import Flick, FlickResult
from services import positions
from services.errors import BadRequest, FailedPrecondition, ResourceExhausted

# --- actions ----------------------------------------------------------------------


class ActionCodec:
    """How one game family's actions travel: ``Action.<field>``."""

    field: str

    def to_engine(self, state: State, message: pb.Action) -> Any:
        raise NotImplementedError

    def to_proto(self, state: State, action: Any) -> pb.Action:
        raise NotImplementedError


@dataclass(frozen=True)
class BoardCodec(ActionCodec):
    """Rolit and Othello: a square index 0..63, or (Othello only) a pass."""

    passes: bool
    field: str = "board"

    def to_engine(self, state: State, message: pb.Action) -> Any:
        move = message.board.WhichOneof("move")
        if move == "square":
            if message.board.square > 63:
                raise BadRequest(
                    f"board.square is 0..63 (a1 = 0, h8 = 63), got {message.board.square}"
                )
            return message.board.square
        if move == "pass_turn":
            if not self.passes:
                raise BadRequest(f"{state.game.name} has no pass: every turn is a placement")
            return PASS
        raise BadRequest("board: set square or pass_turn")

    def to_proto(self, state: State, action: Any) -> pb.Action:
        if self.passes and action == PASS:
            return pb.Action(board=pb.BoardMove(pass_turn=pb.PassTurn()))
        return pb.Action(board=pb.BoardMove(square=action))


_SQUARE = r"(\d+),(\d+)"
_VOLLEYBALL_TEXT = re.compile(
    rf"^(?:(place|serve|land) {_SQUARE}|step {_SQUARE}->{_SQUARE}|(end)|(roll)|dice (\d),(\d))$"
)


@dataclass(frozen=True)
class VolleyballCodec(ActionCodec):
    """Volleyball Returns: each message stands for the engine's notation."""

    field: str = "volleyball"

    def to_engine(self, state: State, message: pb.Action) -> Any:
        return state.string_to_action(self._notation(message.volleyball))

    @staticmethod
    def _notation(move: pb.VolleyballMove) -> str:
        kind: str | None = move.WhichOneof("move")
        if kind in ("place", "serve", "land"):
            square = getattr(move, kind)
            return f"{kind} {square.column},{square.row}"
        if kind == "step":
            start, end = move.step.origin, move.step.target
            return f"step {start.column},{start.row}->{end.column},{end.row}"
        if kind == "dice":
            return f"dice {move.dice.die1},{move.dice.die2}"
        if kind == "end" or kind == "roll":
            return kind
        raise BadRequest("VolleyballMove needs one of place, serve, step, end, land, roll, dice")

    def to_proto(self, state: State, action: Any) -> pb.Action:
        notation = state.action_to_string(action)
        match = _VOLLEYBALL_TEXT.match(notation)
        if match is None:  # the engine wrote it: a mismatch is a bug here
            raise AssertionError(f"unexpected volleyball notation {notation!r}")
        kind, c, r, c1, r1, c2, r2, end, roll, d1, d2 = match.groups()
        if kind:
            move = pb.VolleyballMove()
            getattr(move, kind).CopyFrom(pb.CourtSquare(column=int(c), row=int(r)))
        elif c1:
            step = pb.VolleyballStep(
                origin=pb.CourtSquare(column=int(c1), row=int(r1)),
                target=pb.CourtSquare(column=int(c2), row=int(r2)),
            )
            move = pb.VolleyballMove(step=step)
        elif end:
            move = pb.VolleyballMove(end=pb.EndTurn())
        elif roll:
            move = pb.VolleyballMove(roll=pb.RollDice())
        else:
            move = pb.VolleyballMove(dice=pb.Dice(die1=int(d1), die2=int(d2)))
        return pb.Action(volleyball=move)


@dataclass(frozen=True)
class FlickCodec(ActionCodec):
    """Volta: a flick's four numbers (the engine checks their bounds)."""

    field: str = "flick"

    def to_engine(self, state: State, message: pb.Action) -> Any:
        return flick_from_proto(message.flick)

    def to_proto(self, state: State, action: Any) -> pb.Action:
        flick = pb.Flick(
            side=action.side,
            offset=action.offset,
            angle_rad=action.angle,
            impulse_ns=action.impulse,
        )
        return pb.Action(flick=flick)


class SimulatingState(State, Protocol):
    """A state of a game whose wire form declares ``trajectories``."""

    def simulate(self, action: Any, record: bool = True) -> FlickResult: ...


def simulating(state: State) -> SimulatingState:
    """``state`` with ``simulate``: its game's wire form declares trajectories."""
    assert wire_of(state.game).trajectories, f"{state.game.name} has no trajectories"
    return cast(SimulatingState, state)


def flick_from_proto(flick: pb.Flick) -> Flick:
    """The engine's flick (it checks the values: NaN, infinities, bounds)."""
    return Flick(
        side=flick.side, offset=flick.offset, angle=flick.angle_rad, impulse=flick.impulse_ns
    )


# --- options ------------------------------------------------------------------

DENTS = {
    pb.DENT_SIZE_UNSPECIFIED: "large",
    pb.DENT_SIZE_LARGE: "large",
    pb.DENT_SIZE_SMALL: "small",
}


def _rolit_options(message: pb.RolitOptions) -> dict[str, Any]:
    return {f: getattr(message, f) for f in ("players", "first_seat") if message.HasField(f)}


def _volleyball_options(message: pb.VolleyballOptions) -> dict[str, Any]:
    options: dict[str, Any] = {
        "big_leagues": message.big_leagues,
        "underdog_boost": message.underdog_boost,
    }
    if message.HasField("first_seat"):
        options["first_seat"] = message.first_seat
    return options


def _volta_options(message: pb.VoltaOptions) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if message.dents:
        if len(message.dents) != 2 or any(d not in DENTS for d in message.dents):
            raise BadRequest("config.volta.dents: one DentSize per seat, two in all")
        options["dents"] = tuple(DENTS[d] for d in message.dents)
    if message.rider_masses_kg:
        masses = tuple(message.rider_masses_kg)
        if len(masses) != 2 or not all(math.isfinite(m) for m in masses):
            raise BadRequest("config.volta.rider_masses_kg: two finite masses, one per seat")
        options["rider_masses"] = masses
    for field in ("swap_every", "first_seat"):
        if message.HasField(field):
            options[field] = getattr(message, field)
    return options


def _volta_message(options: dict[str, Any]) -> pb.VoltaOptions:
    return pb.VoltaOptions(
        dents=[positions.DENT_SIZES[d] for d in options["dents"]],
        rider_masses_kg=list(options["rider_masses"]),
        swap_every=options["swap_every"],
        first_seat=options["first_seat"],
    )


def _volleyball_message(options: dict[str, Any]) -> pb.VolleyballOptions:
    names = ("big_leagues", "underdog_boost", "first_seat")
    return pb.VolleyballOptions(**{name: options[name] for name in names})


# --- the games on the wire ------------------------------------------------------


@dataclass(frozen=True)
class Wire:
    """One game's wire form."""

    name: str
    kind: pb.GameKind
    actions: ActionCodec
    # GameConfig.options: the field, and its reading and writing (None: no options).
    options_field: str | None
    read_options: Callable[[Any], dict[str, Any]] | None
    write_options: Callable[[dict[str, Any]], Any] | None
    # The most actions a client's record may hold: replaying is work for the
    # server, and real games are far shorter (Rolit is exactly 60 placements).
    max_record: int
    # Fills GameView.position with a state's position (services.positions).
    position: Callable[[State, pb.GameView], None]
    # Its actions run a simulation whose trajectory clients animate
    # (``state.simulate(action, record=True)``; SimulateFlick).
    trajectories: bool = False
    # The option that sets the number of seats, if the game has one.
    seats_option: str | None = None


WIRES = {
    wire.name: wire
    for wire in (
        Wire(
            "rolit",
            pb.GAME_KIND_ROLIT,
            BoardCodec(passes=False),
            "rolit",
            _rolit_options,
            lambda options: pb.RolitOptions(**options),
            60,
            positions.grid,
            seats_option="players",
        ),
        Wire(
            "othello",
            pb.GAME_KIND_OTHELLO,
            BoardCodec(passes=True),
            None,
            None,
            None,
            120,
            positions.grid,
        ),
        Wire(
            "volleyball",
            pb.GAME_KIND_VOLLEYBALL,
            VolleyballCodec(),
            "volleyball",
            _volleyball_options,
            _volleyball_message,
            2000,
            positions.volleyball_court,
        ),
        Wire(
            "volta",
            pb.GAME_KIND_VOLTA,
            FlickCodec(),
            "volta",
            _volta_options,
            _volta_message,
            2000,
            positions.volta_arena,
            trajectories=True,
        ),
    )
}
WIRE_OF_KIND = {wire.kind: wire for wire in WIRES.values()}


def game_name(kind: int) -> str:
    """The engine's name of a request's GameKind (BadRequest for another value)."""
    wire: Wire | None = WIRE_OF_KIND.get(kind)  # type: ignore[call-overload]
    if wire is None:
        raise BadRequest("game must name a game (GAME_KIND_ROLIT, _OTHELLO, ...)")
    return wire.name


def wire_of(game: Game) -> Wire:
    return WIRES[game.name]


def game_from_config(config: pb.GameConfig) -> Game:
    """The engine's game for ``config``, or BadRequest saying what is wrong."""
    wire = WIRE_OF_KIND.get(config.kind)
    if wire is None:
        raise BadRequest("config.kind must name a game (GAME_KIND_ROLIT, _OTHELLO, ...)")
    given = config.WhichOneof("options")
    if given is not None and given != wire.options_field:
        raise BadRequest(f"config.{given} options do not belong to {wire.name}")
    options = {}
    if given is not None and wire.read_options is not None:
        options = wire.read_options(getattr(config, given))
    try:
        return engine_core.load_game(wire.name, **options)
    except ValueError as error:
        raise BadRequest(f"config: {error}") from None


def config_of(game: Game) -> pb.GameConfig:
    """The config message that loads ``game`` again (every option set)."""
    wire = wire_of(game)
    config = pb.GameConfig(kind=wire.kind)
    if wire.options_field is not None and wire.write_options is not None:
        getattr(config, wire.options_field).CopyFrom(wire.write_options(game.options()))
    return config


def draws_first_seat(config: pb.GameConfig) -> bool:
    """Whether a match on ``config`` has its first seat drawn: the game has a
    first-seat option and the config leaves it unset."""
    wire = WIRE_OF_KIND[config.kind]
    if wire.options_field is None:
        return False
    given = config.WhichOneof("options")
    return given is None or not getattr(config, given).HasField("first_seat")


def with_first_seat(config: pb.GameConfig, seat: int) -> pb.GameConfig:
    """A copy of ``config`` with the first seat set."""
    wire = WIRE_OF_KIND[config.kind]
    assert wire.options_field is not None, f"{wire.name} has no first seat"
    fixed = pb.GameConfig()
    fixed.CopyFrom(config)
    getattr(fixed, wire.options_field).first_seat = seat
    return fixed


def action_from_proto(state: State, message: pb.Action) -> Any:
    """The engine action ``message`` stands for in ``state``'s game; a
    message of the wrong game or shape is BadRequest (the engine refuses
    values out of range with MalformedAction)."""
    codec = wire_of(state.game).actions
    given = message.WhichOneof("kind")
    if given != codec.field:
        raise BadRequest(f"{state.game.name} takes Action.{codec.field}, got {given or 'nothing'}")
    return codec.to_engine(state, message)


def action_to_proto(state: State, action: Any) -> pb.ActionInfo:
    """``action`` of ``state``'s game as a message, with its notation."""
    message = wire_of(state.game).actions.to_proto(state, action)
    return pb.ActionInfo(action=message, notation=state.action_to_string(action))


# --- records and views ------------------------------------------------------------


def check_record_length(game: Game, length: int) -> None:
    """ResourceExhausted when a record of ``length`` actions is longer than
    ``game``'s limit."""
    limit = wire_of(game).max_record
    if length > limit:
        raise ResourceExhausted(
            f"record.history: {game.name} records hold at most {limit} actions, got {length}"
        )


def check_rules_version(game: Game, version: int) -> None:
    """A record replays only under the rules it was played under (0: current)."""
    current = game.game_type.rules_version
    if version not in (0, current):
        raise FailedPrecondition(
            f"record.rules_version: the record was played under {game.name} rules "
            f"version {version}; this server plays version {current} and would "
            "replay it differently"
        )


def replay(record: pb.GameRecord) -> State:
    """The state ``record`` describes: its game, with its history applied.
    CPU work in proportion to the record: call it off the event loop."""
    game = game_from_config(record.config)
    check_record_length(game, len(record.history))
    check_rules_version(game, record.rules_version)
    return replay_actions(game.new_initial_state(), record.history)


def replay_actions(state: State, messages: Iterable[pb.Action], start: int = 0) -> State:
    """Applies ``messages`` (the record's history from index ``start``) to ``state``."""
    for index, message in enumerate(messages, start):
        try:
            state.apply_action(action_from_proto(state, message))
        except (BadRequest, IllegalAction) as error:
            raise BadRequest(f"record.history[{index}]: {error}") from None
    return state


class Step(NamedTuple):
    """One applied action: the state before it, the engine's action, and the
    action as a message with its notation."""

    before: State
    action: Any
    info: pb.ActionInfo


def apply_all(state: State, messages: Sequence[pb.Action]) -> tuple[State, list[Step]]:
    """A copy of ``state`` with every message applied, and the steps; an
    illegal one raises (naming its index) and ``state`` is untouched."""
    after = state.clone()
    steps = []
    for index, message in enumerate(messages):
        action = action_from_proto(after, message)
        before = after.clone()
        try:
            after.apply_action(action)
        except MalformedAction as error:
            raise BadRequest(f"actions[{index}]: {error}") from None
        except IllegalAction as error:
            notation = after.action_to_string(action)
            raise IllegalAction(f"actions[{index}] {notation}: {error}") from None
        steps.append(Step(before, action, action_to_proto(before, action)))
    return after, steps


FLICK_EVENT_KINDS = {
    "collision": pb.FLICK_EVENT_KIND_COLLISION,
    "rider_fall": pb.FLICK_EVENT_KIND_RIDER_FALL,
    "steed_fall": pb.FLICK_EVENT_KIND_STEED_FALL,
}


def flick_outcome(result: FlickResult) -> pb.FlickOutcome:
    """A Volta FlickResult (frames, events, who scores) as a message."""
    outcome = pb.FlickOutcome(duration_s=result.duration)
    if result.point_to is not None:
        outcome.point_to = result.point_to
    for frame in result.frames:
        steeds = [positions.steed_pose(pose) for pose in frame.steeds]
        outcome.frames.append(pb.Frame(time_s=frame.time, steeds=steeds))
    for event in result.events:
        message = pb.FlickEvent(time_s=event.time, kind=FLICK_EVENT_KINDS[event.kind])
        if event.seat is not None:
            message.seat = event.seat
        outcome.events.append(message)
    return outcome


def record_of(state: State) -> pb.GameRecord:
    """The record that replays to ``state``, under the current rules version."""
    history = [action_to_proto(state, action).action for action in state.history()]
    return pb.GameRecord(
        config=config_of(state.game),
        history=history,
        rules_version=state.game.game_type.rules_version,
    )


_VIEWS: OrderedDict[tuple[int, int], tuple[State, pb.GameView]] = OrderedDict()
VIEWS_KEPT = 256
_VIEWS_LOCK = threading.Lock()


def view_of(state: State) -> pb.GameView:
    """The state's view (a fresh message). A turn asks for the same state's
    view for its event, the clock's event and its answer: the last few are
    kept, by state and ply (an applied action changes the ply)."""
    key = (id(state), len(state.history()))
    with _VIEWS_LOCK:  # replays in threads ask too
        kept = _VIEWS.get(key)
    if kept is None or kept[0] is not state:
        kept = (state, _view_of(state))
        with _VIEWS_LOCK:
            _VIEWS[key] = kept
            while len(_VIEWS) > VIEWS_KEPT:
                _VIEWS.popitem(last=False)
    fresh = pb.GameView()
    fresh.CopyFrom(kept[1])
    return fresh


def _view_of(state: State) -> pb.GameView:
    view = pb.GameView(
        returns=state.returns(),
        scores=state.scores(),
        text=str(state),
        ply=len(state.history()),
    )
    if state.is_terminal():
        view.phase = pb.GAME_PHASE_TERMINAL
    elif state.is_chance_node():
        view.phase = pb.GAME_PHASE_CHANCE
    else:
        view.phase = pb.GAME_PHASE_SEAT_TO_ACT
        view.seat_to_act = state.current_player()
    wire_of(state.game).position(state, view)
    return view
