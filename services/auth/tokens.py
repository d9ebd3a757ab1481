"""Who a caller is: the ``sub`` of a verified bearer token.

One verifier for two sources. A token whose key id is this server's
(``meeple-...``) is checked with HS256 under the shared guest key; any
other against the studio provider's JWKS, with the algorithms of the
settings (asymmetric ones only). The algorithm is never taken from the
token: PyJWT refuses a header ``alg`` outside the list it is given. Both
check ``exp`` and ``nbf`` with a small leeway, and ``iss`` and ``aud``.
Errors name the reason, never the token."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import jwt

from services.auth import guests
from services.auth.guests import GuestKey, Signer
from services.auth.identity import (
    GUEST_PREFIX,
    MAX_PLAYER_ID_CHARS,
    MAX_TOKEN_CHARS,
    Identity,
    Metadata,
    Source,
    bearer_of,
    is_player_id,
    shown_name,
)
from services.auth.provider import REFUSED_PREFIX, ProviderKeys, refused
from services.errors import PermissionDenied, Unauthenticated
from services.settings import Settings

log = logging.getLogger(__name__)

# A replica that sees a token of another guest key id reads the shared key
# again (another replica made a new one), at most this often.
KEY_RELOAD_SECONDS = 5.0
NEEDED = (
    "a bearer token is needed in the 'authorization' metadata "
    "('Bearer <token>'; AuthService.SignInGuest gives one)"
)

# Most specific first (InvalidSignatureError is a DecodeError).
REASONS: tuple[tuple[type[Exception], str], ...] = (
    (jwt.ExpiredSignatureError, "token expired"),
    (jwt.ImmatureSignatureError, "token not yet valid"),
    (jwt.InvalidAudienceError, "wrong audience"),
    (jwt.InvalidIssuerError, "wrong issuer"),
    (jwt.InvalidSignatureError, "bad signature"),
    (jwt.InvalidAlgorithmError, "algorithm not allowed"),
    (jwt.InvalidKeyError, "the key does not fit the token's algorithm"),
    (jwt.DecodeError, "malformed token"),
)


def reason_of(error: Exception) -> str:
    if isinstance(error, jwt.MissingRequiredClaimError):
        return f"the token lacks the {error.claim!r} claim"
    for kind, reason in REASONS:
        if isinstance(error, kind):
            return reason
    return "invalid token"


KeyLoader = Callable[[bytes], Awaitable[bytes]]


class Authenticator:
    """``load_key`` returns the shared guest key, offering a new one (the
    store keeps the first one offered)."""

    def __init__(
        self, settings: Settings, load_key: KeyLoader, clock: Callable[[], float] = time.time
    ) -> None:
        self.settings = settings
        self.enabled = settings.auth == "on"
        self.guests = self.enabled and settings.auth_guests == "on"
        self._load_key = load_key
        self._clock = clock
        self._key: GuestKey | None = None
        self._key_loaded = 0.0
        self.provider: ProviderKeys | None = None
        if self.enabled and settings.auth_jwks_url:
            self.provider = ProviderKeys(
                settings.auth_jwks_url, settings.auth_jwks_refresh, settings.auth_jwks_cooldown
            )
        self.algorithms = [a.strip() for a in settings.auth_algorithms.split(",") if a.strip()]

    async def start(self) -> None:
        if not self.enabled:
            log.warning(
                "MEEPLE_AUTH=off: identities are NOT verified; player ids in requests are "
                "trusted as sent, so anyone can play and be rated as anyone (for experiments only)"
            )
            return
        await self._reload_key()

    async def _reload_key(self) -> None:
        self._key = GuestKey(await self._load_key(guests.new_secret()))
        self._key_loaded = time.monotonic()

    @property
    def signer(self) -> Signer:
        if self._key is None:
            raise RuntimeError("the authenticator is not started")
        return Signer(self._key, self._clock)

    async def require(self, metadata: Metadata | None) -> Identity | None:
        """The caller's identity; None when identities are off;
        Unauthenticated without a good token."""
        if not self.enabled:
            return None
        token = bearer_of(metadata)
        if token is None:
            raise Unauthenticated(NEEDED)
        return await self.verify(token)

    async def verify(self, token: str) -> Identity:
        """The identity of an access token (ours or the provider's)."""
        kid = self._kid_of(token)
        if isinstance(kid, str) and kid.startswith(guests.KID_PREFIX):
            claims = await self.own_claims(token, guests.ACCESS_AUDIENCE)
            name = shown_name(claims.get("name"), claims["sub"])
            return Identity(claims["sub"], name, Source.GUEST)
        if self.provider is None:
            raise refused("unknown key id")
        key = await self.provider.key(kid)
        claims = self._decode(
            token,
            key,
            self.algorithms,
            self.settings.auth_audience,
            self.settings.auth_issuer,
            ("exp", "sub", "iss", "aud"),
        )
        subject = claims["sub"]
        if not isinstance(subject, str) or not 1 <= len(subject) <= MAX_PLAYER_ID_CHARS:
            raise refused(f"its subject must be 1 to {MAX_PLAYER_ID_CHARS} characters")
        if not is_player_id(subject) or subject.startswith(GUEST_PREFIX):
            raise refused(f"its subject is printable and does not start with {GUEST_PREFIX!r}")
        name = shown_name(claims.get("name") or claims.get("preferred_username"), subject)
        return Identity(subject, name, Source.PROVIDER)

    async def party_members(self, passes: Sequence[str], leader: Identity) -> list[Identity]:
        """The players whose party passes let ``leader`` name them in a
        ticket; PERMISSION_DENIED for a pass refused or made for another
        leader (its player did not agree to this party)."""
        members: list[Identity] = []
        for index, party_pass in enumerate(passes):
            try:
                claims = await self.own_claims(party_pass, guests.PARTY_AUDIENCE)
            except Unauthenticated as error:
                reason = str(error).removeprefix(REFUSED_PREFIX)
                raise PermissionDenied(
                    f"party_passes[{index}] was refused ({reason}): ask its player for a new pass"
                ) from None
            if claims.get("leader") != leader.player_id:
                raise PermissionDenied(f"party_passes[{index}] lets another leader name its player")
            name = shown_name(claims.get("name"), claims["sub"])
            source = Source.PROVIDER if claims.get("src") == Source.PROVIDER else Source.GUEST
            members.append(Identity(claims["sub"], name, source))
        return members

    async def own_claims(self, token: str, audience: str) -> dict[str, Any]:
        """The claims of a token this server signed for ``audience``."""
        kid = self._kid_of(token)
        if self._key is None:
            raise RuntimeError("the authenticator is not started")
        if kid != self._key.kid and time.monotonic() - self._key_loaded >= KEY_RELOAD_SECONDS:
            await self._reload_key()
        if kid != self._key.kid:
            raise refused("unknown key id")
        return self._decode(
            token,
            self._key.secret,
            [guests.ALGORITHM],
            audience,
            guests.ISSUER,
            ("exp", "nbf", "sub", "iss", "aud"),
        )

    def _kid_of(self, token: str) -> object:
        if len(token) > MAX_TOKEN_CHARS:
            raise refused(f"longer than {MAX_TOKEN_CHARS} characters")
        try:
            return jwt.get_unverified_header(token).get("kid")
        except jwt.InvalidTokenError as error:
            raise refused(reason_of(error)) from None

    def _decode(
        self,
        token: str,
        key: Any,
        algorithms: list[str],
        audience: str | None,
        issuer: str | None,
        required: tuple[str, ...],
    ) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=algorithms,
                audience=audience,
                issuer=issuer,
                leeway=self.settings.auth_leeway,
                options={"require": list(required)},
            )
        except (jwt.PyJWTError, ValueError, TypeError) as error:
            # (a key that does not fit the token's algorithm is not an
            # InvalidTokenError, nor are the cryptography library's refusals)
            raise refused(reason_of(error)) from None
        return claims
