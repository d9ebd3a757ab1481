from meeple.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NewGameRequest(_message.Message):
    __slots__ = ("config",)
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: _game_pb2.GameConfig
    def __init__(self, config: _Optional[_Union[_game_pb2.GameConfig, _Mapping]] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("record", "view")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    record: _game_pb2.GameRecord
    view: _game_pb2.GameView
    def __init__(self, record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: _game_pb2.GameRecord
    def __init__(self, record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ...) -> None: ...

class ChanceOutcome(_message.Message):
    __slots__ = ("outcome", "probability")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    outcome: _game_pb2.ActionInfo
    probability: float
    def __init__(self, outcome: _Optional[_Union[_game_pb2.ActionInfo, _Mapping]] = ..., probability: _Optional[float] = ...) -> None: ...

class FlickBounds(_message.Message):
    __slots__ = ("offset_min", "offset_max", "angle_min_rad", "angle_max_rad", "impulse_max_ns")
    OFFSET_MIN_FIELD_NUMBER: _ClassVar[int]
    OFFSET_MAX_FIELD_NUMBER: _ClassVar[int]
    ANGLE_MIN_RAD_FIELD_NUMBER: _ClassVar[int]
    ANGLE_MAX_RAD_FIELD_NUMBER: _ClassVar[int]
    IMPULSE_MAX_NS_FIELD_NUMBER: _ClassVar[int]
    offset_min: float
    offset_max: float
    angle_min_rad: float
    angle_max_rad: float
    impulse_max_ns: float
    def __init__(self, offset_min: _Optional[float] = ..., offset_max: _Optional[float] = ..., angle_min_rad: _Optional[float] = ..., angle_max_rad: _Optional[float] = ..., impulse_max_ns: _Optional[float] = ...) -> None: ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ("actions", "chance_outcomes", "flick_bounds", "view")
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CHANCE_OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    FLICK_BOUNDS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[_game_pb2.ActionInfo]
    chance_outcomes: _containers.RepeatedCompositeFieldContainer[ChanceOutcome]
    flick_bounds: FlickBounds
    view: _game_pb2.GameView
    def __init__(self, actions: _Optional[_Iterable[_Union[_game_pb2.ActionInfo, _Mapping]]] = ..., chance_outcomes: _Optional[_Iterable[_Union[ChanceOutcome, _Mapping]]] = ..., flick_bounds: _Optional[_Union[FlickBounds, _Mapping]] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class ApplyActionRequest(_message.Message):
    __slots__ = ("record", "actions")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    record: _game_pb2.GameRecord
    actions: _containers.RepeatedCompositeFieldContainer[_game_pb2.Action]
    def __init__(self, record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ..., actions: _Optional[_Iterable[_Union[_game_pb2.Action, _Mapping]]] = ...) -> None: ...

class ApplyActionResponse(_message.Message):
    __slots__ = ("record", "view", "applied")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    record: _game_pb2.GameRecord
    view: _game_pb2.GameView
    applied: _containers.RepeatedCompositeFieldContainer[_game_pb2.ActionInfo]
    def __init__(self, record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ..., applied: _Optional[_Iterable[_Union[_game_pb2.ActionInfo, _Mapping]]] = ...) -> None: ...

class SimulateFlickRequest(_message.Message):
    __slots__ = ("record", "flick", "record_frames")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    FLICK_FIELD_NUMBER: _ClassVar[int]
    RECORD_FRAMES_FIELD_NUMBER: _ClassVar[int]
    record: _game_pb2.GameRecord
    flick: _game_pb2.Flick
    record_frames: bool
    def __init__(self, record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ..., flick: _Optional[_Union[_game_pb2.Flick, _Mapping]] = ..., record_frames: _Optional[bool] = ...) -> None: ...

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
    rider: str
    def __init__(self, x_m: _Optional[float] = ..., y_m: _Optional[float] = ..., angle_rad: _Optional[float] = ..., on_arena: _Optional[bool] = ..., rider_x_m: _Optional[float] = ..., rider_y_m: _Optional[float] = ..., rider: _Optional[str] = ...) -> None: ...

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
    kind: str
    seat: int
    def __init__(self, time_s: _Optional[float] = ..., kind: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class SimulateFlickResponse(_message.Message):
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
