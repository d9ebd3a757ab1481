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

class TicketStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_STATUS_UNSPECIFIED: _ClassVar[TicketStatus]
    TICKET_STATUS_QUEUED: _ClassVar[TicketStatus]
    TICKET_STATUS_ASSIGNED: _ClassVar[TicketStatus]
    TICKET_STATUS_EXPIRED: _ClassVar[TicketStatus]
    TICKET_STATUS_CANCELLED: _ClassVar[TicketStatus]
TICKET_STATUS_UNSPECIFIED: TicketStatus
TICKET_STATUS_QUEUED: TicketStatus
TICKET_STATUS_ASSIGNED: TicketStatus
TICKET_STATUS_EXPIRED: TicketStatus
TICKET_STATUS_CANCELLED: TicketStatus

class CreateTicketRequest(_message.Message):
    __slots__ = ("config", "seat_counts", "player_ids", "allow_bots", "max_wait", "request_id", "party_passes")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNTS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    ALLOW_BOTS_FIELD_NUMBER: _ClassVar[int]
    MAX_WAIT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    PARTY_PASSES_FIELD_NUMBER: _ClassVar[int]
    config: _game_pb2.GameConfig
    seat_counts: _containers.RepeatedScalarFieldContainer[int]
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    allow_bots: bool
    max_wait: _duration_pb2.Duration
    request_id: str
    party_passes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, config: _Optional[_Union[_game_pb2.GameConfig, _Mapping]] = ..., seat_counts: _Optional[_Iterable[int]] = ..., player_ids: _Optional[_Iterable[str]] = ..., allow_bots: _Optional[bool] = ..., max_wait: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., request_id: _Optional[str] = ..., party_passes: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateTicketResponse(_message.Message):
    __slots__ = ("ticket", "ticket_token")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    TICKET_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket
    ticket_token: str
    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]] = ..., ticket_token: _Optional[str] = ...) -> None: ...

class SeatAssignment(_message.Message):
    __slots__ = ("player_id", "seat", "seat_token")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    seat_token: str
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ...) -> None: ...

class Assignment(_message.Message):
    __slots__ = ("match_id", "seats", "bot_seats")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    BOT_SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatAssignment]
    bot_seats: int
    def __init__(self, match_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatAssignment, _Mapping]]] = ..., bot_seats: _Optional[int] = ...) -> None: ...

class Ticket(_message.Message):
    __slots__ = ("ticket_id", "status", "config", "seat_counts", "player_ids", "allow_bots", "create_time", "expire_time", "rating", "window", "assignment")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNTS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    ALLOW_BOTS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    ASSIGNMENT_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    status: TicketStatus
    config: _game_pb2.GameConfig
    seat_counts: _containers.RepeatedScalarFieldContainer[int]
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    allow_bots: bool
    create_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    rating: float
    window: float
    assignment: Assignment
    def __init__(self, ticket_id: _Optional[str] = ..., status: _Optional[_Union[TicketStatus, str]] = ..., config: _Optional[_Union[_game_pb2.GameConfig, _Mapping]] = ..., seat_counts: _Optional[_Iterable[int]] = ..., player_ids: _Optional[_Iterable[str]] = ..., allow_bots: _Optional[bool] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rating: _Optional[float] = ..., window: _Optional[float] = ..., assignment: _Optional[_Union[Assignment, _Mapping]] = ...) -> None: ...

class WatchTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class WindowWidened(_message.Message):
    __slots__ = ("window",)
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    window: float
    def __init__(self, window: _Optional[float] = ...) -> None: ...

class WatchTicketResponse(_message.Message):
    __slots__ = ("snapshot", "widened", "assigned", "ended")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    WIDENED_FIELD_NUMBER: _ClassVar[int]
    ASSIGNED_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    snapshot: Ticket
    widened: WindowWidened
    assigned: Assignment
    ended: Ticket
    def __init__(self, snapshot: _Optional[_Union[Ticket, _Mapping]] = ..., widened: _Optional[_Union[WindowWidened, _Mapping]] = ..., assigned: _Optional[_Union[Assignment, _Mapping]] = ..., ended: _Optional[_Union[Ticket, _Mapping]] = ...) -> None: ...

class CancelTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class CancelTicketResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket
    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("player_id", "mu", "sigma", "ordinal", "matches", "display_name")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    mu: float
    sigma: float
    ordinal: float
    matches: int
    display_name: str
    def __init__(self, player_id: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., matches: _Optional[int] = ..., display_name: _Optional[str] = ...) -> None: ...

class GetRatingRequest(_message.Message):
    __slots__ = ("game", "player_id")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.GameKind
    player_id: str
    def __init__(self, game: _Optional[_Union[_game_pb2.GameKind, str]] = ..., player_id: _Optional[str] = ...) -> None: ...

class GetRatingResponse(_message.Message):
    __slots__ = ("rating",)
    RATING_FIELD_NUMBER: _ClassVar[int]
    rating: Rating
    def __init__(self, rating: _Optional[_Union[Rating, _Mapping]] = ...) -> None: ...

class ListLeaderboardRequest(_message.Message):
    __slots__ = ("game", "page_size", "page_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.GameKind
    page_size: int
    page_token: str
    def __init__(self, game: _Optional[_Union[_game_pb2.GameKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListLeaderboardResponse(_message.Message):
    __slots__ = ("ratings", "next_page_token")
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    next_page_token: str
    def __init__(self, ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
