"""The tokens this server signs: guest sessions (an access token and a
refresh token) and party passes, HS256 under one key that every replica
shares (kept by the coordination store, or in a file under the data
directory when the store is in memory). The token kinds differ by audience,
so no kind passes for another."""

from __future__ import annotations

import hashlib
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from services.auth.identity import GUEST_PREFIX

ISSUER = "meeple"
ACCESS_AUDIENCE = "meeple"
REFRESH_AUDIENCE = "meeple-refresh"
PARTY_AUDIENCE = "meeple-party"
ALGORITHM = "HS256"
KEY_BYTES = 32
KID_PREFIX = "meeple-"
PARTY_PASS_SECONDS = 300.0
KEY_FILE = "auth-key"


@dataclass(frozen=True)
class GuestKey:
    """The signing key; its id (``kid``) is a digest of it, so that a
    replica that sees another id knows the key changed."""

    secret: bytes

    @property
    def kid(self) -> str:
        return KID_PREFIX + hashlib.sha256(b"meeple-kid" + self.secret).hexdigest()[:16]


def new_secret() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


def key_file_secret(data_dir: str) -> bytes:
    """The key kept in ``data_dir/auth-key`` (made, readable by its owner
    only, on first use)."""
    path = Path(data_dir) / KEY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fd = -1
    if fd < 0:
        try:
            secret = bytes.fromhex(path.read_text().strip())
        except ValueError:
            secret = b""
        if len(secret) < KEY_BYTES:
            raise ValueError(f"{path}: not a meeple auth key (delete it to make a new one)")
        return secret
    secret = new_secret()
    with os.fdopen(fd, "w") as out:
        out.write(secret.hex() + "\n")
    return secret


def new_player_id() -> str:
    return GUEST_PREFIX + secrets.token_hex(10)


@dataclass(frozen=True)
class Signed:
    token: str
    expires: float  # seconds since the epoch


class Signer:
    """Signs this server's tokens with ``key``."""

    def __init__(self, key: GuestKey, clock: Callable[[], float] = time.time) -> None:
        self.key = key
        self.clock = clock

    def sign(self, audience: str, subject: str, seconds: float, **claims: Any) -> Signed:
        now = int(self.clock())
        expires = now + round(seconds)
        payload = {
            "iss": ISSUER,
            "aud": audience,
            "sub": subject,
            "iat": now,
            "nbf": now,
            "exp": expires,
            **claims,
        }
        token = jwt.encode(payload, self.key.secret, ALGORITHM, headers={"kid": self.key.kid})
        return Signed(token, float(expires))
