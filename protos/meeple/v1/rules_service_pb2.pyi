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
    __slots__ = ("offset_min", "offset_max", "angle_min_rad", "angle_max_rad", "impulse_max_ns", "side_min", "side_max", "impulse_min_ns")
    OFFSET_MIN_FIELD_NUMBER: _ClassVar[int]
    OFFSET_MAX_FIELD_NUMBER: _ClassVar[int]
    ANGLE_MIN_RAD_FIELD_NUMBER: _ClassVar[int]
    ANGLE_MAX_RAD_FIELD_NUMBER: _ClassVar[int]
    IMPULSE_MAX_NS_FIELD_NUMBER: _ClassVar[int]
    SIDE_MIN_FIELD_NUMBER: _ClassVar[int]
    SIDE_MAX_FIELD_NUMBER: _ClassVar[int]
    IMPULSE_MIN_NS_FIELD_NUMBER: _ClassVar[int]
    offset_min: float
    offset_max: float
    angle_min_rad: float
    angle_max_rad: float
    impulse_max_ns: float
    side_min: int
    side_max: int
    impulse_min_ns: float
    def __init__(self, offset_min: _Optional[float] = ..., offset_max: _Optional[float] = ..., angle_min_rad: _Optional[float] = ..., angle_max_rad: _Optional[float] = ..., impulse_max_ns: _Optional[float] = ..., side_min: _Optional[int] = ..., side_max: _Optional[int] = ..., impulse_min_ns: _Optional[float] = ...) -> None: ...

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

class SimulateFlickResponse(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: _game_pb2.FlickOutcome
    def __init__(self, outcome: _Optional[_Union[_game_pb2.FlickOutcome, _Mapping]] = ...) -> None: ...
