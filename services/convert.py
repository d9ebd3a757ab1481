"""Between the public messages (package meeple.v1) and the engine: game
configs, actions, records (a config and a history, replayed) and views.

Everything a client sends is checked here or by the engine: a malformed
message is a ``BadRequest`` (INVALID_ARGUMENT), an action the rules refuse an
``engine_core.IllegalAction`` (FAILED_PRECONDITION).
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules

import engine_core
from engine_core import Game, IllegalAction, MalformedAction, State
from engine_core.rolit import PASS
from engine_core.volta import Flick
from services.errors import BadRequest

MAX_HISTORY = 100_000  # actions in a record; far beyond any real game

KIND_NAMES = {
    pb.GAME_KIND_ROLIT: "rolit",
    pb.GAME_KIND_OTHELLO: "othello",
    pb.GAME_KIND_VOLLEYBALL: "volleyball",
    pb.GAME_KIND_VOLTA: "volta",
}
# Which options message (config.options) and action (Action.kind) each game takes.
OPTIONS_FIELD = {"rolit": "rolit", "othello": None, "volleyball": "volleyball", "volta": "volta"}
ACTION_FIELD = {"rolit": "board", "othello": "board", "volleyball": "volleyball", "volta": "flick"}
DENTS = {
    pb.DENT_SIZE_UNSPECIFIED: "large",
    pb.DENT_SIZE_LARGE: "large",
    pb.DENT_SIZE_SMALL: "small",
}


def game_from_config(config: pb.GameConfig) -> Game:
    """The engine's game for ``config``, or BadRequest saying what is wrong."""
    name = KIND_NAMES.get(config.kind)
    if name is None:
        raise BadRequest("config.kind must name a game (GAME_KIND_ROLIT, _OTHELLO, ...)")
    given = config.WhichOneof("options")
    if given is not None and given != OPTIONS_FIELD[name]:
        raise BadRequest(f"config.{given} options do not belong to {name}")
    options: dict[str, Any] = {}
    if given == "rolit":
        for field in ("players", "first_seat"):
            if config.rolit.HasField(field):
                options[field] = getattr(config.rolit, field)
    elif given == "volleyball":
        options["big_leagues"] = config.volleyball.big_leagues
        options["underdog_boost"] = config.volleyball.underdog_boost
        if config.volleyball.HasField("first_seat"):
            options["first_seat"] = config.volleyball.first_seat
    elif given == "volta":
        options.update(_volta_options(config.volta))
    try:
        return engine_core.load_game(name, **options)
    except ValueError as error:
        raise BadRequest(f"config: {error}") from None


def _volta_options(volta: pb.VoltaOptions) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if volta.dents:
        if len(volta.dents) != 2 or any(d not in DENTS for d in volta.dents):
            raise BadRequest("config.volta.dents: one DentSize per seat, two in all")
        options["dents"] = tuple(DENTS[d] for d in volta.dents)
    if volta.rider_masses_kg:
        masses = tuple(volta.rider_masses_kg)
        if len(masses) != 2 or not all(math.isfinite(m) for m in masses):
            raise BadRequest("config.volta.rider_masses_kg: two finite masses, one per seat")
        options["rider_masses"] = masses
    if volta.HasField("swap_every"):
        options["swap_every"] = volta.swap_every
    if volta.HasField("first_player"):
        options["first_seat"] = volta.first_player
    return options


def config_of(game: Game) -> pb.GameConfig:
    """The config message that loads ``game`` again."""
    kind = next(kind for kind, name in KIND_NAMES.items() if name == game.name)
    config = pb.GameConfig(kind=kind)
    options = game.options()
    if game.name == "rolit":
        config.rolit.CopyFrom(pb.RolitOptions(**options))
    elif game.name == "volleyball":
        config.volleyball.CopyFrom(
            pb.VolleyballOptions(
                big_leagues=options["big_leagues"],
                underdog_boost=options["underdog_boost"],
                first_seat=options["first_seat"],
            )
        )
    elif game.name == "volta":
        dents = {"large": pb.DENT_SIZE_LARGE, "small": pb.DENT_SIZE_SMALL}
        config.volta.CopyFrom(
            pb.VoltaOptions(
                dents=[dents[d] for d in options["dents"]],
                rider_masses_kg=list(options["rider_masses"]),
                swap_every=options["swap_every"],
                first_player=options["first_seat"],
            )
        )
    return config


# --- actions ----------------------------------------------------------------------

_SQUARE = r"(\d+),(\d+)"
_VOLLEYBALL_TEXT = re.compile(
    rf"^(?:(place|serve|land) {_SQUARE}|step {_SQUARE}->{_SQUARE}|(end)|(roll)|dice (\d),(\d))$"
)


def action_from_proto(state: State, message: pb.Action) -> Any:
    """The engine action ``message`` stands for in ``state``'s game; a
    message of the wrong game or shape is BadRequest (the engine refuses
    values out of range with MalformedAction)."""
    name = state.game.name  # type: ignore[attr-defined]
    given = message.WhichOneof("kind")
    if given != ACTION_FIELD[name]:
        raise BadRequest(f"{name} takes Action.{ACTION_FIELD[name]}, got {given or 'nothing'}")
    if given == "board":
        return PASS if message.board.pass_turn else message.board.square
    if given == "flick":
        return flick_from_proto(message.flick)
    return state.string_to_action(_volleyball_text(message.volleyball))


def flick_from_proto(flick: pb.Flick) -> Flick:
    """The engine's flick (it checks the values: NaN, infinities, bounds)."""
    return Flick(
        side=flick.side, offset=flick.offset, angle=flick.angle_rad, impulse=flick.impulse_ns
    )


def _volleyball_text(move: pb.VolleyballMove) -> str:
    kind = move.WhichOneof("move")
    if kind in ("place", "serve", "land"):
        square = getattr(move, kind)
        return f"{kind} {square.column},{square.row}"
    if kind == "step":
        start, end = move.step.origin, move.step.target
        return f"step {start.column},{start.row}->{end.column},{end.row}"
    if kind == "dice":
        return f"dice {move.dice.die1},{move.dice.die2}"
    if kind in ("end", "roll"):
        return kind
    raise BadRequest("VolleyballMove needs one of place, serve, step, end, land, roll, dice")


def action_to_proto(state: State, action: Any) -> pb.ActionInfo:
    """``action`` of ``state``'s game as a message, with its notation."""
    notation = state.action_to_string(action)
    name = state.game.name  # type: ignore[attr-defined]
    if name in ("rolit", "othello"):
        board = pb.BoardMove(pass_turn=True) if action == PASS else pb.BoardMove(square=action)
        return pb.ActionInfo(action=pb.Action(board=board), notation=notation)
    if name == "volta":
        flick = pb.Flick(
            side=action.side,
            offset=action.offset,
            angle_rad=action.angle,
            impulse_ns=action.impulse,
        )
        return pb.ActionInfo(action=pb.Action(flick=flick), notation=notation)
    return pb.ActionInfo(action=pb.Action(volleyball=_volleyball_move(notation)), notation=notation)


def _volleyball_move(notation: str) -> pb.VolleyballMove:
    match = _VOLLEYBALL_TEXT.match(notation)
    if match is None:  # the engine wrote it: a mismatch is a bug here
        raise AssertionError(f"unexpected volleyball notation {notation!r}")
    kind, c, r, c1, r1, c2, r2, end, roll, d1, d2 = match.groups()
    if kind:
        return pb.VolleyballMove(**{kind: pb.CourtSquare(column=int(c), row=int(r))})
    if c1:
        step = pb.VolleyballStep(
            origin=pb.CourtSquare(column=int(c1), row=int(r1)),
            target=pb.CourtSquare(column=int(c2), row=int(r2)),
        )
        return pb.VolleyballMove(step=step)
    if end:
        return pb.VolleyballMove(end=True)
    if roll:
        return pb.VolleyballMove(roll=True)
    return pb.VolleyballMove(dice=pb.Dice(die1=int(d1), die2=int(d2)))


# --- records and views ------------------------------------------------------------


def replay(record: pb.GameRecord) -> State:
    """The state ``record`` describes: its game, with its history applied."""
    if len(record.history) > MAX_HISTORY:
        raise BadRequest(f"record.history: at most {MAX_HISTORY} actions")
    state = game_from_config(record.config).new_initial_state()
    for index, message in enumerate(record.history):
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


def apply_all(state: State, messages: Any) -> tuple[State, list[Step]]:
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


def flick_result_to_proto(result: Any) -> rules.SimulateFlickResponse:
    """A Volta FlickResult (frames, events, who scores) as a message."""
    response = rules.SimulateFlickResponse(
        point_to=-1 if result.point_to is None else result.point_to,
        duration_s=result.duration,
    )
    for frame in result.frames:
        steeds = [
            rules.SteedPose(
                x_m=pose.x,
                y_m=pose.y,
                angle_rad=pose.angle,
                on_arena=pose.on_arena,
                rider_x_m=pose.rider_x,
                rider_y_m=pose.rider_y,
                rider=pose.rider,
            )
            for pose in frame.steeds
        ]
        response.frames.append(rules.Frame(time_s=frame.time, steeds=steeds))
    for event in result.events:
        seat = -1 if event.seat is None else event.seat
        response.events.append(rules.FlickEvent(time_s=event.time, kind=event.kind, seat=seat))
    return response


def record_of(state: State) -> pb.GameRecord:
    """The record that replays to ``state``."""
    history = [action_to_proto(state, action).action for action in state.history()]
    return pb.GameRecord(config=config_of(state.game), history=history)  # type: ignore[attr-defined]


def view_of(state: State) -> pb.GameView:
    # Volta keeps its score as a list; the board games have a scores() method.
    scores = getattr(state, "scores", [])
    if callable(scores):
        scores = scores()
    return pb.GameView(
        current_player=state.current_player(),
        terminal=state.is_terminal(),
        returns=state.returns(),
        scores=list(scores),
        text=str(state),
        ply=len(state.history()),
    )
