from meeple.v1 import game_pb2 as _game_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SuggestActionRequest(_message.Message):
    __slots__ = ("record", "bot_spec", "seed")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    BOT_SPEC_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    record: _game_pb2.GameRecord
    bot_spec: str
    seed: int
    def __init__(self, record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ..., bot_spec: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class SuggestActionResponse(_message.Message):
    __slots__ = ("action", "think_seconds")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    THINK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    action: _game_pb2.ActionInfo
    think_seconds: float
    def __init__(self, action: _Optional[_Union[_game_pb2.ActionInfo, _Mapping]] = ..., think_seconds: _Optional[float] = ...) -> None: ...
