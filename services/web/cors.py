"""Calls from pages of other origins (CORS), for web clients served from
elsewhere than the web port: the origins allowed (``*``: any) get the
preflight's answer and the headers that let their page read a response;
any other origin gets none, and its browser refuses the call. Tokens travel
in headers, never cookies, so no credentials are allowed or needed."""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

ANY = "*"
# What a Connect or gRPC-Web client sends, and the tokens of meeple's seats.
ALLOW_HEADERS = (
    b"content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, "
    b"x-grpc-web, x-user-agent, authorization, meeple-seat-token, meeple-owner-token, "
    b"meeple-ticket-token"
)
# gRPC-Web carries the status in headers when a call fails at once.
EXPOSE_HEADERS = b"grpc-status, grpc-message, grpc-status-details-bin"
MAX_AGE = b"7200"  # seconds a browser may keep a preflight's answer


def parse_origins(text: str) -> tuple[str, ...]:
    """``*``, or comma-separated origins (``https://games.example.com``,
    ``http://localhost:5173``): scheme, host and port, nothing more."""
    origins = tuple(part.strip().rstrip("/") for part in text.split(",") if part.strip())
    for origin in origins:
        if origin == ANY:
            continue
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path:
            raise ValueError(
                f"an origin is * or scheme://host[:port] (http or https), got {origin!r}"
            )
    return origins


class Cors:
    def __init__(self, origins: Iterable[str] = ()) -> None:
        self.origins = frozenset(origins)

    def allowed(self, scope: MutableMapping[str, Any]) -> bytes | None:
        """The request's origin when it may call, else None (no Origin
        header: not a cross-origin browser call)."""
        if not self.origins:
            return None
        origin: bytes | None = dict(scope["headers"]).get(b"origin")
        if origin is None:
            return None
        if ANY in self.origins or origin.decode("latin-1") in self.origins:
            return origin
        return None

    def headers(self, origin: bytes) -> list[tuple[bytes, bytes]]:
        """What every answer to an allowed origin carries."""
        if ANY in self.origins:
            return [(b"access-control-allow-origin", b"*")]
        return [(b"access-control-allow-origin", origin), (b"vary", b"origin")]

    def preflight(self, origin: bytes) -> list[tuple[bytes, bytes]]:
        return [
            *self.headers(origin),
            (b"access-control-allow-methods", b"POST, GET"),
            (b"access-control-allow-headers", ALLOW_HEADERS),
            (b"access-control-max-age", MAX_AGE),
        ]

    def exposing(self, origin: bytes) -> list[tuple[bytes, bytes]]:
        return [*self.headers(origin), (b"access-control-expose-headers", EXPOSE_HEADERS)]
