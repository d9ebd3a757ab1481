import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class IdentitySource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IDENTITY_SOURCE_UNSPECIFIED: _ClassVar[IdentitySource]
    IDENTITY_SOURCE_GUEST: _ClassVar[IdentitySource]
    IDENTITY_SOURCE_PROVIDER: _ClassVar[IdentitySource]
IDENTITY_SOURCE_UNSPECIFIED: IdentitySource
IDENTITY_SOURCE_GUEST: IdentitySource
IDENTITY_SOURCE_PROVIDER: IdentitySource

class Identity(_message.Message):
    __slots__ = ("player_id", "display_name", "source")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    source: IdentitySource
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., source: _Optional[_Union[IdentitySource, str]] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ("access_token", "access_expire_time", "refresh_token", "refresh_expire_time", "identity")
    ACCESS_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCESS_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    access_token: str
    access_expire_time: _timestamp_pb2.Timestamp
    refresh_token: str
    refresh_expire_time: _timestamp_pb2.Timestamp
    identity: Identity
    def __init__(self, access_token: _Optional[str] = ..., access_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., refresh_token: _Optional[str] = ..., refresh_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., identity: _Optional[_Union[Identity, _Mapping]] = ...) -> None: ...

class SignInGuestRequest(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class SignInGuestResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class RefreshSessionRequest(_message.Message):
    __slots__ = ("refresh_token",)
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    refresh_token: str
    def __init__(self, refresh_token: _Optional[str] = ...) -> None: ...

class RefreshSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class GetIdentityRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetIdentityResponse(_message.Message):
    __slots__ = ("identity",)
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    identity: Identity
    def __init__(self, identity: _Optional[_Union[Identity, _Mapping]] = ...) -> None: ...

class CreatePartyPassRequest(_message.Message):
    __slots__ = ("leader_player_id",)
    LEADER_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    leader_player_id: str
    def __init__(self, leader_player_id: _Optional[str] = ...) -> None: ...

class CreatePartyPassResponse(_message.Message):
    __slots__ = ("party_pass", "expire_time")
    PARTY_PASS_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    party_pass: str
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, party_pass: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
