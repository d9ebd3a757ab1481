"""Identities for tests: real access tokens, signed by a running server's
own guest key (``App.auth.signer``) for any player id, and a gRPC channel
that sends one on every call that carries no ``authorization`` of its own.
For servers in other processes: guests signed in through a channel to an
AuthService (``sign_in``, ``guest_sessions``, ``guest_tokens``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc

from services.app import App
from services.auth import guests

AUTHORIZATION = "authorization"
SIGN_INS_AT_ONCE = 32  # guest_sessions' calls in flight
SIGN_IN_SECONDS = 30.0


def token_for(app: App, player_id: str, name: str | None = None, seconds: float = 3600) -> str:
    """An access token of ``player_id`` that ``app`` (and every replica
    sharing its store) accepts."""
    signed = app.auth.signer.sign(
        guests.ACCESS_AUDIENCE, player_id, seconds, name=name or player_id
    )
    return signed.token


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    """The metadata that carries ``token``."""
    return ((AUTHORIZATION, f"Bearer {token}"),)


class _Details(grpc.ClientCallDetails):  # type: ignore[misc]
    def __init__(self, details: Any, metadata: list[tuple[str, str]]) -> None:
        self.method = details.method
        self.timeout = details.timeout
        self.metadata = metadata
        self.credentials = details.credentials
        self.wait_for_ready = getattr(details, "wait_for_ready", None)
        self.compression = getattr(details, "compression", None)


class DefaultToken(
    grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
    grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
):
    """Adds ``authorization: Bearer <token()>`` to calls that have none."""

    def __init__(self, token: Callable[[], str]) -> None:
        self.token = token

    def _details(self, details: Any) -> Any:
        metadata = list(details.metadata or ())
        if not any(key == AUTHORIZATION for key, _ in metadata):
            metadata.append((AUTHORIZATION, f"Bearer {self.token()}"))
        return _Details(details, metadata)

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)


def signed_in_channel(channel: grpc.Channel, token: Callable[[], str]) -> grpc.Channel:
    """``channel`` sending ``token()`` on every call without a token of its own."""
    return grpc.intercept_channel(channel, DefaultToken(token))


def sign_in(channel: grpc.Channel, name: str = "tester") -> str:
    """A new guest's access token, from the server's AuthService."""
    from meeple.v1 import auth_service_pb2 as auth
    from meeple.v1 import auth_service_pb2_grpc as auth_grpc

    stub = auth_grpc.AuthServiceStub(channel)
    return str(
        stub.SignInGuest(
            auth.SignInGuestRequest(display_name=name), timeout=10
        ).session.access_token
    )


def guest_session(channel: grpc.Channel, name: str = "tester") -> auth.Session:
    """A new guest, signed in by ``AuthService.SignInGuest`` on ``channel``:
    its session (``access_token``, ``identity.player_id``, ...)."""
    stub = auth_grpc.AuthServiceStub(channel)
    request = auth.SignInGuestRequest(display_name=name)
    session: auth.Session = stub.SignInGuest(request, timeout=SIGN_IN_SECONDS).session
    return session


def guest_sessions(channel: grpc.Channel, count: int, prefix: str = "player") -> list[auth.Session]:
    """``count`` new guests ("<prefix> 0", "<prefix> 1", ...), signed in on
    ``channel`` a few at a time; their sessions, in order. The server
    limits sign-ins per address (MEEPLE_GUEST_SIGNINS_PER_MINUTE): raise it
    for many."""
    stub = auth_grpc.AuthServiceStub(channel)
    sessions: list[auth.Session] = []
    for start in range(0, count, SIGN_INS_AT_ONCE):
        calls = [
            stub.SignInGuest.future(
                auth.SignInGuestRequest(display_name=f"{prefix} {n}"), timeout=SIGN_IN_SECONDS
            )
            for n in range(start, min(count, start + SIGN_INS_AT_ONCE))
        ]
        sessions += [call.result().session for call in calls]
    return sessions


def guest_tokens(channel: grpc.Channel, count: int, prefix: str = "player") -> list[str]:
    """The access tokens of ``count`` new guests signed in on ``channel``."""
    return [session.access_token for session in guest_sessions(channel, count, prefix)]
