from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GameKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_KIND_UNSPECIFIED: _ClassVar[GameKind]
    GAME_KIND_ROLIT: _ClassVar[GameKind]
    GAME_KIND_OTHELLO: _ClassVar[GameKind]
    GAME_KIND_VOLLEYBALL: _ClassVar[GameKind]
    GAME_KIND_VOLTA: _ClassVar[GameKind]

class DentSize(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DENT_SIZE_UNSPECIFIED: _ClassVar[DentSize]
    DENT_SIZE_LARGE: _ClassVar[DentSize]
    DENT_SIZE_SMALL: _ClassVar[DentSize]

class GamePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_PHASE_UNSPECIFIED: _ClassVar[GamePhase]
    GAME_PHASE_SEAT_TO_ACT: _ClassVar[GamePhase]
    GAME_PHASE_CHANCE: _ClassVar[GamePhase]
    GAME_PHASE_TERMINAL: _ClassVar[GamePhase]

class CourtPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COURT_PHASE_UNSPECIFIED: _ClassVar[CourtPhase]
    COURT_PHASE_PLACE: _ClassVar[CourtPhase]
    COURT_PHASE_SERVE: _ClassVar[CourtPhase]
    COURT_PHASE_HIT: _ClassVar[CourtPhase]
    COURT_PHASE_ROLL: _ClassVar[CourtPhase]
    COURT_PHASE_HITTER_STEP: _ClassVar[CourtPhase]
    COURT_PHASE_RECEIVE: _ClassVar[CourtPhase]
    COURT_PHASE_OVER: _ClassVar[CourtPhase]

class RiderState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RIDER_STATE_UNSPECIFIED: _ClassVar[RiderState]
    RIDER_STATE_SEATED: _ClassVar[RiderState]
    RIDER_STATE_ROLLING: _ClassVar[RiderState]
    RIDER_STATE_FALLEN: _ClassVar[RiderState]

class FlickEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FLICK_EVENT_KIND_UNSPECIFIED: _ClassVar[FlickEventKind]
    FLICK_EVENT_KIND_COLLISION: _ClassVar[FlickEventKind]
    FLICK_EVENT_KIND_RIDER_FALL: _ClassVar[FlickEventKind]
    FLICK_EVENT_KIND_STEED_FALL: _ClassVar[FlickEventKind]
GAME_KIND_UNSPECIFIED: GameKind
GAME_KIND_ROLIT: GameKind
GAME_KIND_OTHELLO: GameKind
GAME_KIND_VOLLEYBALL: GameKind
GAME_KIND_VOLTA: GameKind
DENT_SIZE_UNSPECIFIED: DentSize
DENT_SIZE_LARGE: DentSize
DENT_SIZE_SMALL: DentSize
GAME_PHASE_UNSPECIFIED: GamePhase
GAME_PHASE_SEAT_TO_ACT: GamePhase
GAME_PHASE_CHANCE: GamePhase
GAME_PHASE_TERMINAL: GamePhase
COURT_PHASE_UNSPECIFIED: CourtPhase
COURT_PHASE_PLACE: CourtPhase
COURT_PHASE_SERVE: CourtPhase
COURT_PHASE_HIT: CourtPhase
COURT_PHASE_ROLL: CourtPhase
COURT_PHASE_HITTER_STEP: CourtPhase
COURT_PHASE_RECEIVE: CourtPhase
COURT_PHASE_OVER: CourtPhase
RIDER_STATE_UNSPECIFIED: RiderState
RIDER_STATE_SEATED: RiderState
RIDER_STATE_ROLLING: RiderState
RIDER_STATE_FALLEN: RiderState
FLICK_EVENT_KIND_UNSPECIFIED: FlickEventKind
FLICK_EVENT_KIND_COLLISION: FlickEventKind
FLICK_EVENT_KIND_RIDER_FALL: FlickEventKind
FLICK_EVENT_KIND_STEED_FALL: FlickEventKind

class GameConfig(_message.Message):
    __slots__ = ("kind", "rolit", "volleyball", "volta")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ROLIT_FIELD_NUMBER: _ClassVar[int]
    VOLLEYBALL_FIELD_NUMBER: _ClassVar[int]
    VOLTA_FIELD_NUMBER: _ClassVar[int]
    kind: GameKind
    rolit: RolitOptions
    volleyball: VolleyballOptions
    volta: VoltaOptions
    def __init__(self, kind: _Optional[_Union[GameKind, str]] = ..., rolit: _Optional[_Union[RolitOptions, _Mapping]] = ..., volleyball: _Optional[_Union[VolleyballOptions, _Mapping]] = ..., volta: _Optional[_Union[VoltaOptions, _Mapping]] = ...) -> None: ...

class RolitOptions(_message.Message):
    __slots__ = ("players", "first_seat")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    players: int
    first_seat: int
    def __init__(self, players: _Optional[int] = ..., first_seat: _Optional[int] = ...) -> None: ...

class VolleyballOptions(_message.Message):
    __slots__ = ("big_leagues", "underdog_boost", "first_seat")
    BIG_LEAGUES_FIELD_NUMBER: _ClassVar[int]
    UNDERDOG_BOOST_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    big_leagues: bool
    underdog_boost: bool
    first_seat: int
    def __init__(self, big_leagues: _Optional[bool] = ..., underdog_boost: _Optional[bool] = ..., first_seat: _Optional[int] = ...) -> None: ...

class VoltaOptions(_message.Message):
    __slots__ = ("dents", "rider_masses_kg", "swap_every", "first_seat")
    DENTS_FIELD_NUMBER: _ClassVar[int]
    RIDER_MASSES_KG_FIELD_NUMBER: _ClassVar[int]
    SWAP_EVERY_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    dents: _containers.RepeatedScalarFieldContainer[DentSize]
    rider_masses_kg: _containers.RepeatedScalarFieldContainer[float]
    swap_every: int
    first_seat: int
    def __init__(self, dents: _Optional[_Iterable[_Union[DentSize, str]]] = ..., rider_masses_kg: _Optional[_Iterable[float]] = ..., swap_every: _Optional[int] = ..., first_seat: _Optional[int] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("board", "volleyball", "flick")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    VOLLEYBALL_FIELD_NUMBER: _ClassVar[int]
    FLICK_FIELD_NUMBER: _ClassVar[int]
    board: BoardMove
    volleyball: VolleyballMove
    flick: Flick
    def __init__(self, board: _Optional[_Union[BoardMove, _Mapping]] = ..., volleyball: _Optional[_Union[VolleyballMove, _Mapping]] = ..., flick: _Optional[_Union[Flick, _Mapping]] = ...) -> None: ...

class PassTurn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BoardMove(_message.Message):
    __slots__ = ("square", "pass_turn")
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    PASS_TURN_FIELD_NUMBER: _ClassVar[int]
    square: int
    pass_turn: PassTurn
    def __init__(self, square: _Optional[int] = ..., pass_turn: _Optional[_Union[PassTurn, _Mapping]] = ...) -> None: ...

class CourtSquare(_message.Message):
    __slots__ = ("column", "row")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    column: int
    row: int
    def __init__(self, column: _Optional[int] = ..., row: _Optional[int] = ...) -> None: ...

class VolleyballStep(_message.Message):
    __slots__ = ("origin", "target")
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    origin: CourtSquare
    target: CourtSquare
    def __init__(self, origin: _Optional[_Union[CourtSquare, _Mapping]] = ..., target: _Optional[_Union[CourtSquare, _Mapping]] = ...) -> None: ...

class EndTurn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RollDice(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class VolleyballMove(_message.Message):
    __slots__ = ("place", "serve", "step", "end", "land", "roll", "dice")
    PLACE_FIELD_NUMBER: _ClassVar[int]
    SERVE_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    LAND_FIELD_NUMBER: _ClassVar[int]
    ROLL_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    place: CourtSquare
    serve: CourtSquare
    step: VolleyballStep
    end: EndTurn
    land: CourtSquare
    roll: RollDice
    dice: Dice
    def __init__(self, place: _Optional[_Union[CourtSquare, _Mapping]] = ..., serve: _Optional[_Union[CourtSquare, _Mapping]] = ..., step: _Optional[_Union[VolleyballStep, _Mapping]] = ..., end: _Optional[_Union[EndTurn, _Mapping]] = ..., land: _Optional[_Union[CourtSquare, _Mapping]] = ..., roll: _Optional[_Union[RollDice, _Mapping]] = ..., dice: _Optional[_Union[Dice, _Mapping]] = ...) -> None: ...

class Dice(_message.Message):
    __slots__ = ("die1", "die2")
    DIE1_FIELD_NUMBER: _ClassVar[int]
    DIE2_FIELD_NUMBER: _ClassVar[int]
    die1: int
    die2: int
    def __init__(self, die1: _Optional[int] = ..., die2: _Optional[int] = ...) -> None: ...

class Flick(_message.Message):
    __slots__ = ("side", "offset", "angle_rad", "impulse_ns")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    ANGLE_RAD_FIELD_NUMBER: _ClassVar[int]
    IMPULSE_NS_FIELD_NUMBER: _ClassVar[int]
    side: int
    offset: float
    angle_rad: float
    impulse_ns: float
    def __init__(self, side: _Optional[int] = ..., offset: _Optional[float] = ..., angle_rad: _Optional[float] = ..., impulse_ns: _Optional[float] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("config", "history", "rules_version")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    config: GameConfig
    history: _containers.RepeatedCompositeFieldContainer[Action]
    rules_version: int
    def __init__(self, config: _Optional[_Union[GameConfig, _Mapping]] = ..., history: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., rules_version: _Optional[int] = ...) -> None: ...

class ActionInfo(_message.Message):
    __slots__ = ("action", "notation")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    action: Action
    notation: str
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., notation: _Optional[str] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("phase", "seat_to_act", "returns", "scores", "text", "ply", "grid", "court", "arena")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SEAT_TO_ACT_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    GRID_FIELD_NUMBER: _ClassVar[int]
    COURT_FIELD_NUMBER: _ClassVar[int]
    ARENA_FIELD_NUMBER: _ClassVar[int]
    phase: GamePhase
    seat_to_act: int
    returns: _containers.RepeatedScalarFieldContainer[float]
    scores: _containers.RepeatedScalarFieldContainer[int]
    text: str
    ply: int
    grid: GridPosition
    court: CourtPosition
    arena: ArenaPosition
    def __init__(self, phase: _Optional[_Union[GamePhase, str]] = ..., seat_to_act: _Optional[int] = ..., returns: _Optional[_Iterable[float]] = ..., scores: _Optional[_Iterable[int]] = ..., text: _Optional[str] = ..., ply: _Optional[int] = ..., grid: _Optional[_Union[GridPosition, _Mapping]] = ..., court: _Optional[_Union[CourtPosition, _Mapping]] = ..., arena: _Optional[_Union[ArenaPosition, _Mapping]] = ...) -> None: ...

class GridPosition(_message.Message):
    __slots__ = ("size", "cells", "colours", "seat_colours")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    COLOURS_FIELD_NUMBER: _ClassVar[int]
    SEAT_COLOURS_FIELD_NUMBER: _ClassVar[int]
    size: int
    cells: _containers.RepeatedScalarFieldContainer[int]
    colours: _containers.RepeatedScalarFieldContainer[str]
    seat_colours: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, size: _Optional[int] = ..., cells: _Optional[_Iterable[int]] = ..., colours: _Optional[_Iterable[str]] = ..., seat_colours: _Optional[_Iterable[int]] = ...) -> None: ...

class CourtPiece(_message.Message):
    __slots__ = ("seat", "square")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    square: CourtSquare
    def __init__(self, seat: _Optional[int] = ..., square: _Optional[_Union[CourtSquare, _Mapping]] = ...) -> None: ...

class CourtPosition(_message.Message):
    __slots__ = ("pieces", "phase", "serving_seat", "hitter", "landing", "last_dice", "hits", "rows", "points_to_win")
    PIECES_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SERVING_SEAT_FIELD_NUMBER: _ClassVar[int]
    HITTER_FIELD_NUMBER: _ClassVar[int]
    LANDING_FIELD_NUMBER: _ClassVar[int]
    LAST_DICE_FIELD_NUMBER: _ClassVar[int]
    HITS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    POINTS_TO_WIN_FIELD_NUMBER: _ClassVar[int]
    pieces: _containers.RepeatedCompositeFieldContainer[CourtPiece]
    phase: CourtPhase
    serving_seat: int
    hitter: int
    landing: CourtSquare
    last_dice: Dice
    hits: int
    rows: int
    points_to_win: int
    def __init__(self, pieces: _Optional[_Iterable[_Union[CourtPiece, _Mapping]]] = ..., phase: _Optional[_Union[CourtPhase, str]] = ..., serving_seat: _Optional[int] = ..., hitter: _Optional[int] = ..., landing: _Optional[_Union[CourtSquare, _Mapping]] = ..., last_dice: _Optional[_Union[Dice, _Mapping]] = ..., hits: _Optional[int] = ..., rows: _Optional[int] = ..., points_to_win: _Optional[int] = ...) -> None: ...

class ArenaPosition(_message.Message):
    __slots__ = ("steeds", "arena_radius_m", "steed_side_m", "dents", "rider_masses_g")
    STEEDS_FIELD_NUMBER: _ClassVar[int]
    ARENA_RADIUS_M_FIELD_NUMBER: _ClassVar[int]
    STEED_SIDE_M_FIELD_NUMBER: _ClassVar[int]
    DENTS_FIELD_NUMBER: _ClassVar[int]
    RIDER_MASSES_G_FIELD_NUMBER: _ClassVar[int]
    steeds: _containers.RepeatedCompositeFieldContainer[SteedPose]
    arena_radius_m: float
    steed_side_m: float
    dents: _containers.RepeatedScalarFieldContainer[DentSize]
    rider_masses_g: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, steeds: _Optional[_Iterable[_Union[SteedPose, _Mapping]]] = ..., arena_radius_m: _Optional[float] = ..., steed_side_m: _Optional[float] = ..., dents: _Optional[_Iterable[_Union[DentSize, str]]] = ..., rider_masses_g: _Optional[_Iterable[float]] = ...) -> None: ...

class SteedPose(_message.Message):
    __slots__ = ("x_m", "y_m", "angle_rad", "on_arena", "rider_x_m", "rider_y_m", "rider")
    X_M_FIELD_NUMBER: _ClassVar[int]
    Y_M_FIELD_NUMBER: _ClassVar[int]
    ANGLE_RAD_FIELD_NUMBER: _ClassVar[int]
    ON_ARENA_FIELD_NUMBER: _ClassVar[int]
    RIDER_X_M_FIELD_NUMBER: _ClassVar[int]
    RIDER_Y_M_FIELD_NUMBER: _ClassVar[int]
    RIDER_FIELD_NUMBER: _ClassVar[int]
    x_m: float
    y_m: float
    angle_rad: float
    on_arena: bool
    rider_x_m: float
    rider_y_m: float
    rider: RiderState
    def __init__(self, x_m: _Optional[float] = ..., y_m: _Optional[float] = ..., angle_rad: _Optional[float] = ..., on_arena: _Optional[bool] = ..., rider_x_m: _Optional[float] = ..., rider_y_m: _Optional[float] = ..., rider: _Optional[_Union[RiderState, str]] = ...) -> None: ...

class Frame(_message.Message):
    __slots__ = ("time_s", "steeds")
    TIME_S_FIELD_NUMBER: _ClassVar[int]
    STEEDS_FIELD_NUMBER: _ClassVar[int]
    time_s: float
    steeds: _containers.RepeatedCompositeFieldContainer[SteedPose]
    def __init__(self, time_s: _Optional[float] = ..., steeds: _Optional[_Iterable[_Union[SteedPose, _Mapping]]] = ...) -> None: ...

class FlickEvent(_message.Message):
    __slots__ = ("time_s", "kind", "seat")
    TIME_S_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    time_s: float
    kind: FlickEventKind
    seat: int
    def __init__(self, time_s: _Optional[float] = ..., kind: _Optional[_Union[FlickEventKind, str]] = ..., seat: _Optional[int] = ...) -> None: ...

class FlickOutcome(_message.Message):
    __slots__ = ("frames", "events", "point_to", "duration_s")
    FRAMES_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    POINT_TO_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    frames: _containers.RepeatedCompositeFieldContainer[Frame]
    events: _containers.RepeatedCompositeFieldContainer[FlickEvent]
    point_to: int
    duration_s: float
    def __init__(self, frames: _Optional[_Iterable[_Union[Frame, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[FlickEvent, _Mapping]]] = ..., point_to: _Optional[int] = ..., duration_s: _Optional[float] = ...) -> None: ...
