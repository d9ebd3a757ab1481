import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from meeple.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SeatKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_KIND_UNSPECIFIED: _ClassVar[SeatKind]
    SEAT_KIND_HUMAN: _ClassVar[SeatKind]
    SEAT_KIND_BOT: _ClassVar[SeatKind]

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_WAITING: _ClassVar[MatchStatus]
    MATCH_STATUS_PLAYING: _ClassVar[MatchStatus]
    MATCH_STATUS_FINISHED: _ClassVar[MatchStatus]

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_RULES: _ClassVar[EndReason]
    END_REASON_RESIGNATION: _ClassVar[EndReason]
    END_REASON_TIMEOUT: _ClassVar[EndReason]
SEAT_KIND_UNSPECIFIED: SeatKind
SEAT_KIND_HUMAN: SeatKind
SEAT_KIND_BOT: SeatKind
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_WAITING: MatchStatus
MATCH_STATUS_PLAYING: MatchStatus
MATCH_STATUS_FINISHED: MatchStatus
END_REASON_UNSPECIFIED: EndReason
END_REASON_RULES: EndReason
END_REASON_RESIGNATION: EndReason
END_REASON_TIMEOUT: EndReason

class TimeControl(_message.Message):
    __slots__ = ("base", "increment")
    BASE_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_FIELD_NUMBER: _ClassVar[int]
    base: _duration_pb2.Duration
    increment: _duration_pb2.Duration
    def __init__(self, base: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., increment: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class SeatConfig(_message.Message):
    __slots__ = ("kind", "bot_spec", "player_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    BOT_SPEC_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    kind: SeatKind
    bot_spec: str
    player_id: str
    def __init__(self, kind: _Optional[_Union[SeatKind, str]] = ..., bot_spec: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("index", "kind", "bot_spec", "joined", "time_left", "player_id", "display_name")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    BOT_SPEC_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    index: int
    kind: SeatKind
    bot_spec: str
    joined: bool
    time_left: _duration_pb2.Duration
    player_id: str
    display_name: str
    def __init__(self, index: _Optional[int] = ..., kind: _Optional[_Union[SeatKind, str]] = ..., bot_spec: _Optional[str] = ..., joined: _Optional[bool] = ..., time_left: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("returns", "reason", "seat")
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    returns: _containers.RepeatedScalarFieldContainer[float]
    reason: EndReason
    seat: int
    def __init__(self, returns: _Optional[_Iterable[float]] = ..., reason: _Optional[_Union[EndReason, str]] = ..., seat: _Optional[int] = ...) -> None: ...

class Match(_message.Message):
    __slots__ = ("match_id", "config", "seats", "status", "view", "ended", "time_control", "turn_deadline", "expire_time", "first_seat_drawn", "start_time", "bot_pace")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_DRAWN_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    BOT_PACE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    config: _game_pb2.GameConfig
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    status: MatchStatus
    view: _game_pb2.GameView
    ended: MatchEnded
    time_control: TimeControl
    turn_deadline: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    first_seat_drawn: bool
    start_time: _timestamp_pb2.Timestamp
    bot_pace: _duration_pb2.Duration
    def __init__(self, match_id: _Optional[str] = ..., config: _Optional[_Union[_game_pb2.GameConfig, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ..., ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., turn_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., first_seat_drawn: _Optional[bool] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., bot_pace: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("config", "seats", "time_control", "bot_pace")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    BOT_PACE_FIELD_NUMBER: _ClassVar[int]
    config: _game_pb2.GameConfig
    seats: _containers.RepeatedCompositeFieldContainer[SeatConfig]
    time_control: TimeControl
    bot_pace: _duration_pb2.Duration
    def __init__(self, config: _Optional[_Union[_game_pb2.GameConfig, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatConfig, _Mapping]]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., bot_pace: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match", "owner_token")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    OWNER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match: Match
    owner_token: str
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ..., owner_token: _Optional[str] = ...) -> None: ...

class JoinMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinMatchResponse(_message.Message):
    __slots__ = ("seat", "seat_token", "match")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    match: Match
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., match: _Optional[_Union[Match, _Mapping]] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("match_id", "expected_ply", "actions")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_PLY_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    expected_ply: int
    actions: _containers.RepeatedCompositeFieldContainer[_game_pb2.Action]
    def __init__(self, match_id: _Optional[str] = ..., expected_ply: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[_game_pb2.Action, _Mapping]]] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("match", "applied")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    match: Match
    applied: _containers.RepeatedCompositeFieldContainer[_game_pb2.ActionInfo]
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ..., applied: _Optional[_Iterable[_Union[_game_pb2.ActionInfo, _Mapping]]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match", "record")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    match: Match
    record: _game_pb2.GameRecord
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ..., record: _Optional[_Union[_game_pb2.GameRecord, _Mapping]] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id", "from_ply")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_PLY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    from_ply: int
    def __init__(self, match_id: _Optional[str] = ..., from_ply: _Optional[int] = ...) -> None: ...

class ActionPlayed(_message.Message):
    __slots__ = ("seat", "action", "flick")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FLICK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: _game_pb2.ActionInfo
    flick: _game_pb2.FlickOutcome
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[_game_pb2.ActionInfo, _Mapping]] = ..., flick: _Optional[_Union[_game_pb2.FlickOutcome, _Mapping]] = ...) -> None: ...

class SeatJoined(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClockStarted(_message.Message):
    __slots__ = ("seat", "time_left", "deadline")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    time_left: _duration_pb2.Duration
    deadline: _timestamp_pb2.Timestamp
    def __init__(self, seat: _Optional[int] = ..., time_left: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WatchMatchResponse(_message.Message):
    __slots__ = ("ply", "snapshot", "seat_joined", "started", "action", "clock", "ended", "view", "time")
    PLY_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    SEAT_JOINED_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    ply: int
    snapshot: Match
    seat_joined: SeatJoined
    started: MatchStarted
    action: ActionPlayed
    clock: ClockStarted
    ended: MatchEnded
    view: _game_pb2.GameView
    time: _timestamp_pb2.Timestamp
    def __init__(self, ply: _Optional[int] = ..., snapshot: _Optional[_Union[Match, _Mapping]] = ..., seat_joined: _Optional[_Union[SeatJoined, _Mapping]] = ..., started: _Optional[_Union[MatchStarted, _Mapping]] = ..., action: _Optional[_Union[ActionPlayed, _Mapping]] = ..., clock: _Optional[_Union[ClockStarted, _Mapping]] = ..., ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: Match
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("kind", "page_size", "page_token")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kind: _game_pb2.GameKind
    page_size: int
    page_token: str
    def __init__(self, kind: _Optional[_Union[_game_pb2.GameKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[Match]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[Match, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
