"""A verified player, how a request carries its token, and the checks of
names a player chooses."""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from services.errors import BadRequest
from services.limits import client_of

# A call's metadata: (key, value) pairs, as gRPC and the web port give them.
Metadata = Iterable[tuple[str, Any]]
AUTHORIZATION = "authorization"
BEARER = "bearer "
MAX_PLAYER_ID_CHARS = 64
MAX_TOKEN_CHARS = 8192  # a JWT with a few claims is well under 1 KiB
DISPLAY_NAME_CHARS = 24
DISPLAY_NAME_PUNCTUATION = frozenset(" -_.'")
# Guest player ids start with this; a provider's subjects may not.
GUEST_PREFIX = "guest-"


class Source(enum.IntEnum):
    """Who vouches for an identity (the values of meeple.v1.IdentitySource)."""

    GUEST = 1
    PROVIDER = 2


@dataclass(frozen=True)
class Identity:
    player_id: str
    display_name: str
    source: Source

    @property
    def client(self) -> str:
        """The client the limits count this identity as."""
        return f"player:{self.player_id}"


def is_player_id(text: str) -> bool:
    """Whether ``text`` may be a player id: 1 to 64 printable characters."""
    return 1 <= len(text) <= MAX_PLAYER_ID_CHARS and text.isprintable()


def client_key(who: Identity | None, peer: str) -> str:
    """The client a call's limits count: its identity, or without one its
    address (a player behind a shared address is not limited by its
    neighbours; one identity is one client from any address)."""
    return who.client if who is not None else client_of(peer)


def bearer_of(metadata: Metadata | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` entry, or None."""
    for name, value in metadata or ():
        if name.lower() == AUTHORIZATION:
            text = str(value)
            if text[: len(BEARER)].lower() == BEARER:
                return text[len(BEARER) :].strip()
            return ""  # present but not a bearer token: refused as malformed
    return None


def checked_display_name(raw: str) -> str:
    """``raw`` in NFC if it is a good display name; BadRequest saying the rule."""
    name = unicodedata.normalize("NFC", raw)
    rule = (
        f"display_name: 1 to {DISPLAY_NAME_CHARS} letters, digits, spaces and - _ . ' "
        "(no space at either end)"
    )
    if not 1 <= len(name) <= DISPLAY_NAME_CHARS or name != name.strip():
        raise BadRequest(rule)
    if any(not (ch.isalnum() or ch in DISPLAY_NAME_PUNCTUATION) for ch in name):
        raise BadRequest(rule)
    return name


def shown_name(raw: object, fallback: str) -> str:
    """A provider's name claim made fit to show: printable, at most
    ``DISPLAY_NAME_CHARS`` characters; ``fallback`` when there is none."""
    if not isinstance(raw, str):
        return fallback[:DISPLAY_NAME_CHARS]
    text = "".join(ch for ch in unicodedata.normalize("NFC", raw) if ch.isprintable()).strip()
    return text[:DISPLAY_NAME_CHARS] or fallback[:DISPLAY_NAME_CHARS]
