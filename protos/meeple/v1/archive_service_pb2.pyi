import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from meeple.v1 import game_pb2 as _game_pb2
from meeple.v1 import match_service_pb2 as _match_service_pb2
from meeple.v1 import matchmaking_service_pb2 as _matchmaking_service_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_OUTCOME_UNSPECIFIED: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_WIN: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_LOSS: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_DRAW: _ClassVar[MatchOutcome]

class ExportFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPORT_FORMAT_UNSPECIFIED: _ClassVar[ExportFormat]
    EXPORT_FORMAT_MATCH_JSON: _ClassVar[ExportFormat]
    EXPORT_FORMAT_GAME_RECORD_JSON: _ClassVar[ExportFormat]
    EXPORT_FORMAT_GGF: _ClassVar[ExportFormat]
    EXPORT_FORMAT_SGF: _ClassVar[ExportFormat]
MATCH_OUTCOME_UNSPECIFIED: MatchOutcome
MATCH_OUTCOME_WIN: MatchOutcome
MATCH_OUTCOME_LOSS: MatchOutcome
MATCH_OUTCOME_DRAW: MatchOutcome
EXPORT_FORMAT_UNSPECIFIED: ExportFormat
EXPORT_FORMAT_MATCH_JSON: ExportFormat
EXPORT_FORMAT_GAME_RECORD_JSON: ExportFormat
EXPORT_FORMAT_GGF: ExportFormat
EXPORT_FORMAT_SGF: ExportFormat

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "config", "seats", "returns", "reason", "end_seat", "start_time", "end_time", "rated", "plies", "outcome")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    END_SEAT_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    PLIES_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    config: _game_pb2.GameConfig
    seats: _containers.RepeatedCompositeFieldContainer[_match_service_pb2.Seat]
    returns: _containers.RepeatedScalarFieldContainer[float]
    reason: _match_service_pb2.EndReason
    end_seat: int
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    rated: bool
    plies: int
    outcome: MatchOutcome
    def __init__(self, match_id: _Optional[str] = ..., config: _Optional[_Union[_game_pb2.GameConfig, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[_match_service_pb2.Seat, _Mapping]]] = ..., returns: _Optional[_Iterable[float]] = ..., reason: _Optional[_Union[_match_service_pb2.EndReason, str]] = ..., end_seat: _Optional[int] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rated: _Optional[bool] = ..., plies: _Optional[int] = ..., outcome: _Optional[_Union[MatchOutcome, str]] = ...) -> None: ...

class ListPlayerMatchesRequest(_message.Message):
    __slots__ = ("player_id", "game", "outcome", "ended_after", "ended_before", "page_size", "page_token")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ENDED_AFTER_FIELD_NUMBER: _ClassVar[int]
    ENDED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    game: _game_pb2.GameKind
    outcome: MatchOutcome
    ended_after: _timestamp_pb2.Timestamp
    ended_before: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, player_id: _Optional[str] = ..., game: _Optional[_Union[_game_pb2.GameKind, str]] = ..., outcome: _Optional[_Union[MatchOutcome, str]] = ..., ended_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListPlayerMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("match_id", "game", "before", "after", "time")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: _game_pb2.GameKind
    before: _matchmaking_service_pb2.Rating
    after: _matchmaking_service_pb2.Rating
    time: _timestamp_pb2.Timestamp
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[_Union[_game_pb2.GameKind, str]] = ..., before: _Optional[_Union[_matchmaking_service_pb2.Rating, _Mapping]] = ..., after: _Optional[_Union[_matchmaking_service_pb2.Rating, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetRatingHistoryRequest(_message.Message):
    __slots__ = ("player_id", "game", "page_size", "page_token")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    game: _game_pb2.GameKind
    page_size: int
    page_token: str
    def __init__(self, player_id: _Optional[str] = ..., game: _Optional[_Union[_game_pb2.GameKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetRatingHistoryResponse(_message.Message):
    __slots__ = ("changes", "next_page_token")
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[RatingChange]
    next_page_token: str
    def __init__(self, changes: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetHeadToHeadRequest(_message.Message):
    __slots__ = ("player_id", "opponent_id", "game", "page_size", "page_token")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    opponent_id: str
    game: _game_pb2.GameKind
    page_size: int
    page_token: str
    def __init__(self, player_id: _Optional[str] = ..., opponent_id: _Optional[str] = ..., game: _Optional[_Union[_game_pb2.GameKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetHeadToHeadResponse(_message.Message):
    __slots__ = ("wins", "losses", "draws", "matches", "next_page_token")
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    wins: int
    losses: int
    draws: int
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, wins: _Optional[int] = ..., losses: _Optional[int] = ..., draws: _Optional[int] = ..., matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ExportMatchRequest(_message.Message):
    __slots__ = ("match_id", "format")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    format: ExportFormat
    def __init__(self, match_id: _Optional[str] = ..., format: _Optional[_Union[ExportFormat, str]] = ...) -> None: ...

class ExportMatchResponse(_message.Message):
    __slots__ = ("content", "media_type", "file_name")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    content: str
    media_type: str
    file_name: str
    def __init__(self, content: _Optional[str] = ..., media_type: _Optional[str] = ..., file_name: _Optional[str] = ...) -> None: ...

class ExportPlayerMatchesRequest(_message.Message):
    __slots__ = ("player_id", "game")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    game: _game_pb2.GameKind
    def __init__(self, player_id: _Optional[str] = ..., game: _Optional[_Union[_game_pb2.GameKind, str]] = ...) -> None: ...

class ExportPlayerMatchesResponse(_message.Message):
    __slots__ = ("line",)
    LINE_FIELD_NUMBER: _ClassVar[int]
    line: str
    def __init__(self, line: _Optional[str] = ...) -> None: ...
