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
GAME_KIND_UNSPECIFIED: GameKind
GAME_KIND_ROLIT: GameKind
GAME_KIND_OTHELLO: GameKind
GAME_KIND_VOLLEYBALL: GameKind
GAME_KIND_VOLTA: GameKind
DENT_SIZE_UNSPECIFIED: DentSize
DENT_SIZE_LARGE: DentSize
DENT_SIZE_SMALL: DentSize

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
    __slots__ = ("dents", "rider_masses_kg", "swap_every", "first_player")
    DENTS_FIELD_NUMBER: _ClassVar[int]
    RIDER_MASSES_KG_FIELD_NUMBER: _ClassVar[int]
    SWAP_EVERY_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    dents: _containers.RepeatedScalarFieldContainer[DentSize]
    rider_masses_kg: _containers.RepeatedScalarFieldContainer[float]
    swap_every: int
    first_player: int
    def __init__(self, dents: _Optional[_Iterable[_Union[DentSize, str]]] = ..., rider_masses_kg: _Optional[_Iterable[float]] = ..., swap_every: _Optional[int] = ..., first_player: _Optional[int] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("board", "volleyball", "flick")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    VOLLEYBALL_FIELD_NUMBER: _ClassVar[int]
    FLICK_FIELD_NUMBER: _ClassVar[int]
    board: BoardMove
    volleyball: VolleyballMove
    flick: Flick
    def __init__(self, board: _Optional[_Union[BoardMove, _Mapping]] = ..., volleyball: _Optional[_Union[VolleyballMove, _Mapping]] = ..., flick: _Optional[_Union[Flick, _Mapping]] = ...) -> None: ...

class BoardMove(_message.Message):
    __slots__ = ("square", "pass_turn")
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    PASS_TURN_FIELD_NUMBER: _ClassVar[int]
    square: int
    pass_turn: bool
    def __init__(self, square: _Optional[int] = ..., pass_turn: _Optional[bool] = ...) -> None: ...

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
    end: bool
    land: CourtSquare
    roll: bool
    dice: Dice
    def __init__(self, place: _Optional[_Union[CourtSquare, _Mapping]] = ..., serve: _Optional[_Union[CourtSquare, _Mapping]] = ..., step: _Optional[_Union[VolleyballStep, _Mapping]] = ..., end: _Optional[bool] = ..., land: _Optional[_Union[CourtSquare, _Mapping]] = ..., roll: _Optional[bool] = ..., dice: _Optional[_Union[Dice, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("config", "history")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    config: GameConfig
    history: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, config: _Optional[_Union[GameConfig, _Mapping]] = ..., history: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class ActionInfo(_message.Message):
    __slots__ = ("action", "notation")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    action: Action
    notation: str
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., notation: _Optional[str] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("current_player", "terminal", "returns", "scores", "text", "ply")
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    current_player: int
    terminal: bool
    returns: _containers.RepeatedScalarFieldContainer[float]
    scores: _containers.RepeatedScalarFieldContainer[int]
    text: str
    ply: int
    def __init__(self, current_player: _Optional[int] = ..., terminal: _Optional[bool] = ..., returns: _Optional[_Iterable[float]] = ..., scores: _Optional[_Iterable[int]] = ..., text: _Optional[str] = ..., ply: _Optional[int] = ...) -> None: ...
