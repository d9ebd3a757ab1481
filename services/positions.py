"""Each game's position in structured form, for GameView.position: what a
client draws without parsing the engine's text. ``convert.WIRES`` declares
which function describes each game's states."""

from __future__ import annotations

from meeple.v1 import game_pb2 as pb

from engine_core import State
from engine_core.rolit import FlipState
from engine_core.volleyball import VolleyballState
from engine_core.volleyball import actions as court
from engine_core.volta import Pose, VoltaState

BOARD_SIDE = 8
COURT_PHASES = {
    "place": pb.COURT_PHASE_PLACE,
    "serve": pb.COURT_PHASE_SERVE,
    "hit": pb.COURT_PHASE_HIT,
    "roll": pb.COURT_PHASE_ROLL,
    "hitter step": pb.COURT_PHASE_HITTER_STEP,
    "receive": pb.COURT_PHASE_RECEIVE,
    "over": pb.COURT_PHASE_OVER,
}
RIDER_STATES = {
    "seated": pb.RIDER_STATE_SEATED,
    "rolling": pb.RIDER_STATE_ROLLING,
    "fallen": pb.RIDER_STATE_FALLEN,
}
DENT_SIZES = {"large": pb.DENT_SIZE_LARGE, "small": pb.DENT_SIZE_SMALL}


def grid(state: State, view: pb.GameView) -> None:
    """A Rolit or Othello board: colour indices from a1, and whose they are."""
    assert isinstance(state, FlipState)
    game = state.game
    grid = view.grid
    grid.size = BOARD_SIDE
    grid.cells.extend(state.board())
    grid.colours.extend(game.colour_names)
    grid.seat_colours.extend(game.seat_colours)


def _square(square: int) -> pb.CourtSquare:
    return pb.CourtSquare(column=court.column_of(square), row=court.row_of(square))


def volleyball_court(state: State, view: pb.GameView) -> None:
    """A Volleyball Returns court: the pieces, the ball and the rally."""
    assert isinstance(state, VolleyballState)
    position = pb.CourtPosition(
        phase=COURT_PHASES[state.phase()],
        serving_seat=state.server(),
        hitter=state.hitter(),
        hits=state.hits(),
        rows=state.height(),
        points_to_win=court.WINNING_SCORE,
    )
    for seat in range(2):
        for column, row in state.squares(seat):
            square = pb.CourtSquare(column=column, row=row)
            position.pieces.append(pb.CourtPiece(seat=seat, square=square))
    landing = state.landing()
    if landing is not None:
        position.landing.CopyFrom(_square(landing))
    dice = state.last_dice()
    if dice is not None:
        position.last_dice.CopyFrom(pb.Dice(die1=dice[0], die2=dice[1]))
    view.court.CopyFrom(position)


def steed_pose(pose: Pose) -> pb.SteedPose:
    """A steed and its rider at one instant, as in a flick's frames."""
    return pb.SteedPose(
        x_m=pose.x,
        y_m=pose.y,
        angle_rad=pose.angle,
        on_arena=pose.on_arena,
        rider_x_m=pose.rider_x,
        rider_y_m=pose.rider_y,
        rider=RIDER_STATES[pose.rider],
    )


def volta_arena(state: State, view: pb.GameView) -> None:
    """The Volta arena: both steeds and riders, and what they are made of."""
    assert isinstance(state, VoltaState)
    game = state.game
    view.arena.CopyFrom(
        pb.ArenaPosition(
            steeds=[steed_pose(pose) for pose in state.poses()],
            arena_radius_m=game.physics.arena_radius,
            steed_side_m=game.physics.steed_side,
            dents=[DENT_SIZES[dent] for dent in game.dents],
            rider_masses_g=[state.rider_mass(seat) * 1000 for seat in range(2)],
        )
    )
