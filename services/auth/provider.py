"""A studio's identity provider: the signing keys of its JWKS, fetched off
the event loop and cached by PyJWT's ``PyJWKClient`` (the whole set for
``lifespan`` seconds; an unknown key id fetches it again at most once per
``cooldown`` seconds, so tokens with made-up key ids cannot hammer the
provider)."""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import jwt
from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError

from services.errors import Unauthenticated, Unavailable

FETCH_TIMEOUT_SECONDS = 5.0
UNREACHABLE = "cannot fetch the identity provider's keys (MEEPLE_AUTH_JWKS_URL); retry later"
MAX_KID_CHARS = 256


REFUSED_PREFIX = "the bearer token was refused: "


def refused(reason: str) -> Unauthenticated:
    return Unauthenticated(REFUSED_PREFIX + reason)


class _Client(jwt.PyJWKClient):
    """PyJWKClient's cooldown starts only with a fetch that succeeded, so a
    provider that is down would be asked again for every token: after a
    failed fetch, this one fails at once until the cooldown has passed
    (keys already cached keep working)."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._failed_at = -math.inf

    def fetch_data(self) -> Any:
        if time.monotonic() - self._failed_at < self.cooldown_duration:
            raise PyJWKClientConnectionError("the last fetch failed; waiting out the cooldown")
        try:
            return super().fetch_data()
        except PyJWKClientConnectionError:
            self._failed_at = time.monotonic()
            raise


class ProviderKeys:
    def __init__(self, url: str, lifespan: float, cooldown: float) -> None:
        self.url = url
        self._client = _Client(
            url,
            cache_jwk_set=True,
            lifespan=lifespan,
            cooldown_duration=cooldown,
            timeout=FETCH_TIMEOUT_SECONDS,
        )

    async def key(self, kid: object) -> Any:
        """The public key of ``kid``; Unauthenticated ("unknown key id") when
        the provider has none, Unavailable when its JWKS cannot be fetched."""
        if not isinstance(kid, str) or not kid:
            raise refused("the token names no key id (kid)")
        if len(kid) > MAX_KID_CHARS:
            raise refused("unknown key id")
        try:
            found = await asyncio.to_thread(self._client.get_signing_key, kid)
        except PyJWKClientConnectionError:
            raise Unavailable(UNREACHABLE) from None
        except PyJWKClientError:
            raise refused("unknown key id") from None
        return found.key
