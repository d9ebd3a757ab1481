"""gRPC as Locust's users need it: synchronous stubs that wait with gevent
(``grpc.experimental.gevent``, set up before any channel is made, as
Locust's docs on testing other protocols say), over a channel to the target
that ``--host`` names."""

from __future__ import annotations

import grpc
import grpc.experimental.gevent as grpc_gevent

SCHEME = "grpc://"
_patched = False


def patch() -> None:
    """Makes gRPC's waits gevent's; once, before any channel (Locust has
    already patched the standard library when a locustfile is loaded)."""
    global _patched
    if not _patched:
        grpc_gevent.init_gevent()
        _patched = True


def address(host: str | None) -> str:
    """``HOST:PORT`` of ``--host`` (an optional ``grpc://`` prefix and a
    trailing slash are dropped); ValueError when there is none."""
    value = (host or "").strip()
    if value.startswith(SCHEME):
        value = value[len(SCHEME) :]
    value = value.rstrip("/")
    if not value or "/" in value or ":" not in value:
        raise ValueError(f"--host is the target's gRPC address, HOST:PORT, got {host!r}")
    return value


def open_channel(host: str | None) -> grpc.Channel:
    patch()
    return grpc.insecure_channel(address(host))
