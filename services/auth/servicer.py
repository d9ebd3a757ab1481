"""The AuthService servicer: guest sign-in and refresh, the caller's
identity, and party passes."""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc

from services.auth import guests
from services.auth.identity import (
    MAX_PLAYER_ID_CHARS,
    Identity,
    Source,
    checked_display_name,
    is_player_id,
)
from services.auth.tokens import Authenticator
from services.errors import BadRequest, FailedPrecondition
from services.limits import client_of, per_minute
from services.server import Context, Service, Servicer, rpc

OFF = "identities are off on this server (MEEPLE_AUTH=off): no sign-in is needed or possible"


def timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromMilliseconds(round(seconds * 1000))
    return stamp


def identity_message(identity: Identity) -> auth.Identity:
    return auth.Identity(
        player_id=identity.player_id,
        display_name=identity.display_name,
        source=int(identity.source),  # type: ignore[arg-type]
    )


class AuthServicer(Servicer, auth_grpc.AuthServiceServicer):
    service_name = "meeple.v1.AuthService"

    def __init__(self, authenticator: Authenticator) -> None:
        self.auth = authenticator
        self.sign_ins = per_minute(authenticator.settings.guest_signins_per_minute)

    def _session(self, player_id: str, name: str) -> auth.Session:
        signer, settings = self.auth.signer, self.auth.settings
        access = signer.sign(guests.ACCESS_AUDIENCE, player_id, settings.auth_access_ttl, name=name)
        refresh = signer.sign(
            guests.REFRESH_AUDIENCE, player_id, settings.auth_refresh_ttl, name=name
        )
        return auth.Session(
            access_token=access.token,
            access_expire_time=timestamp(access.expires),
            refresh_token=refresh.token,
            refresh_expire_time=timestamp(refresh.expires),
            identity=identity_message(Identity(player_id, name, Source.GUEST)),
        )

    def _guests_only(self) -> None:
        if not self.auth.enabled:
            raise FailedPrecondition(OFF)
        if not self.auth.guests:
            raise FailedPrecondition(
                "guest sign-in is off on this server: sign in with the studio's provider"
            )

    @rpc
    async def SignInGuest(  # noqa: N802 (gRPC method names)
        self, request: auth.SignInGuestRequest, context: Context
    ) -> auth.SignInGuestResponse:
        self._guests_only()
        name = checked_display_name(request.display_name)
        self.sign_ins.check(client_of(context.peer()), "guest sign-ins per client address")
        return auth.SignInGuestResponse(session=self._session(guests.new_player_id(), name))

    @rpc
    async def RefreshSession(  # noqa: N802
        self, request: auth.RefreshSessionRequest, context: Context
    ) -> auth.RefreshSessionResponse:
        self._guests_only()
        if not request.refresh_token:
            raise BadRequest("refresh_token: the refresh_token of a Session")
        claims = await self.auth.own_claims(request.refresh_token, guests.REFRESH_AUDIENCE)
        name = claims.get("name")
        if not isinstance(name, str):
            name = claims["sub"]
        return auth.RefreshSessionResponse(session=self._session(claims["sub"], name))

    @rpc
    async def GetIdentity(  # noqa: N802
        self, request: auth.GetIdentityRequest, context: Context
    ) -> auth.GetIdentityResponse:
        if not self.auth.enabled:
            raise FailedPrecondition(OFF)
        identity = await self.auth.require(context.invocation_metadata())
        assert identity is not None  # identities are on
        return auth.GetIdentityResponse(identity=identity_message(identity))

    @rpc
    async def CreatePartyPass(  # noqa: N802
        self, request: auth.CreatePartyPassRequest, context: Context
    ) -> auth.CreatePartyPassResponse:
        if not self.auth.enabled:
            raise FailedPrecondition(OFF)
        leader = request.leader_player_id
        if not is_player_id(leader):
            raise BadRequest(
                f"leader_player_id: the leader's player id (1 to {MAX_PLAYER_ID_CHARS} characters)"
            )
        member = await self.auth.require(context.invocation_metadata())
        assert member is not None
        if leader == member.player_id:
            raise BadRequest("leader_player_id: a leader needs no pass of its own")
        signed = self.auth.signer.sign(
            guests.PARTY_AUDIENCE,
            member.player_id,
            guests.PARTY_PASS_SECONDS,
            name=member.display_name,
            src=int(member.source),
            leader=leader,
        )
        return auth.CreatePartyPassResponse(
            party_pass=signed.token, expire_time=timestamp(signed.expires)
        )


def service(authenticator: Authenticator) -> Service:
    descriptor = auth.DESCRIPTOR.services_by_name["AuthService"]
    return Service(AuthServicer(authenticator), descriptor)
