"""The load test's simulated players, each an identity of its own, as real
players are: made once, up front, and reused across matches (a player is in
one match at a time), so that the server verifies a token on every acting
call and keeps ratings, limits and one-ticket-per-queue per player.

Identities come from:

- guest sign-in (the default): one AuthService.SignInGuest per player, and
  RefreshSession when an access token nears its end. The server limits
  sign-ins per address (MEEPLE_GUEST_SIGNINS_PER_MINUTE, 30 by default):
  a refusal stops the run before any load, saying what to change.
- tokens minted here for the studio's provider in test mode
  (``--jwt-key``): JWTs signed with the provider's test key, whose public
  half the server's JWKS (MEEPLE_AUTH_JWKS_URL) serves under ``--jwt-kid``.
- none, against a server with identities off (MEEPLE_AUTH=off): its
  SignInGuest is FAILED_PRECONDITION; the players are then named in the
  requests, unverified.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import jwt
from cryptography.hazmat.primitives import serialization
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc

from services.loadtest.recorder import Recorder

GUEST = "guest"
PROVIDER = "provider"
NONE = "none"
AUTHORIZATION = "authorization"
SIGN_INS_AT_ONCE = 8
MINTED_SECONDS = 3600.0  # a minted token's lifetime
# A token is renewed, when its player is next taken for a match, once less
# than this (or half its lifetime, for short ones) is left: matches in
# flight never outlive it, and a clock a little off the server's is fine.
RENEW_MARGIN_SECONDS = 600.0
SETUP_TIMEOUT_SECONDS = 30.0
KEY_TYPES = (
    "the algorithm and the key's type must match "
    "(RS*, PS*: RSA; ES256, ES384, ES512: EC P-256, P-384, P-521; EdDSA: Ed25519)"
)
JWT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
                  "EdDSA")  # fmt: skip


class SetupError(Exception):
    """The load test's identities could not be made; the message says why
    and what to change."""


@dataclass(frozen=True)
class JwtKey:
    """The studio provider's test key, and what its tokens name."""

    path: str  # a PEM private key
    kid: str
    issuer: str
    audience: str
    algorithm: str = "RS256"


@dataclass
class Player:
    """One simulated player: its id, and the access token it acts with
    (None: identities are off)."""

    player_id: str
    name: str
    token: str | None = None
    renew_at: float = float("inf")  # time.monotonic()
    refresh_token: str | None = None

    @property
    def metadata(self) -> tuple[tuple[str, str], ...] | None:
        """The metadata of its acting calls."""
        return ((AUTHORIZATION, f"Bearer {self.token}"),) if self.token else None

    def keep(self, token: str, lifetime: float, refresh_token: str | None = None) -> None:
        margin = min(RENEW_MARGIN_SECONDS, max(lifetime, 0.0) / 2)
        self.token = token
        self.renew_at = time.monotonic() + lifetime - margin
        self.refresh_token = refresh_token


Renew = Callable[[Player], Awaitable[None]]


class Players:
    """The run's players: matches take some for their seats and give them
    back when they end, so a player plays one match at a time. A player
    whose token is due is renewed as it is taken."""

    def __init__(self, players: list[Player], source: str, detail: str, renew: Renew) -> None:
        self.all = players
        self.source = source
        self.detail = detail
        self._renew = renew
        self._free = list(players)
        self._changed = asyncio.Condition()

    @contextlib.asynccontextmanager
    async def taken(self, count: int) -> AsyncIterator[list[Player]]:
        """``count`` players free for one match, given back after it."""
        async with self._changed:
            await self._changed.wait_for(lambda: len(self._free) >= count)
            players, self._free = self._free[:count], self._free[count:]
        try:
            now = time.monotonic()
            for player in players:
                if player.token is not None and now >= player.renew_at:
                    await self._renew(player)
            yield players
        finally:
            async with self._changed:
                self._free.extend(players)
                self._changed.notify_all()

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "players": len(self.all), "detail": self.detail}


def timestamp_seconds(stamp: Any) -> float:
    return float(stamp.ToMilliseconds()) / 1000


async def timed(recorder: Recorder, name: str, call: Awaitable[Any]) -> Any:
    """``call``'s answer, its latency recorded under ``name``; an error is
    raised without being counted (the caller decides what it means)."""
    began = time.perf_counter()
    result = await call
    recorder.record(name, time.perf_counter() - began)
    return result


async def players_for(
    channel: grpc.aio.Channel, count: int, recorder: Recorder, key: JwtKey | None
) -> Players:
    """``count`` players with identities of their own: guests signed in,
    or tokens minted with ``key``; without tokens when the server has
    identities off. SetupError when the server refuses them."""
    stub: auth_grpc.AuthServiceAsyncStub = auth_grpc.AuthServiceStub(channel)
    tag = secrets.token_hex(4)  # this run's players are new players
    if key is not None:
        return await minted(stub, count, key, tag)
    return await guests(stub, count, recorder, tag)


def unidentified(count: int, tag: str, why: str) -> Players:
    players = [Player(f"loadtest-{tag}-{n}", f"loadtest {n}") for n in range(count)]

    async def never(player: Player) -> None:
        raise AssertionError("players without tokens are never renewed")

    detail = f"none: {why}; the {count} players are named in requests, unverified"
    return Players(players, NONE, detail, never)


async def identities_off(stub: auth_grpc.AuthServiceAsyncStub) -> bool:
    """Whether the server runs with identities off: its GetIdentity without
    a token is FAILED_PRECONDITION then (UNAUTHENTICATED with them on)."""
    try:
        await stub.GetIdentity(auth.GetIdentityRequest(), timeout=SETUP_TIMEOUT_SECONDS)
    except grpc.aio.AioRpcError as error:
        return error.code() == grpc.StatusCode.FAILED_PRECONDITION
    return False


async def guests(
    stub: auth_grpc.AuthServiceAsyncStub, count: int, recorder: Recorder, tag: str
) -> Players:
    def session_of(player: Player, session: auth.Session) -> None:
        lifetime = timestamp_seconds(session.access_expire_time) - time.time()
        player.keep(session.access_token, lifetime, session.refresh_token)

    async def sign_in(n: int) -> Player:
        request = auth.SignInGuestRequest(display_name=f"loadtest {n}")
        call = stub.SignInGuest(request, timeout=SETUP_TIMEOUT_SECONDS)
        session = (await timed(recorder, "SignInGuest", call)).session
        player = Player(session.identity.player_id, session.identity.display_name)
        session_of(player, session)
        return player

    async def renew(player: Player) -> None:
        request = auth.RefreshSessionRequest(refresh_token=player.refresh_token or "")
        call = stub.RefreshSession(request)
        session = (await recorder.timed("RefreshSession", call)).session
        session_of(player, session)

    try:
        first = await sign_in(0)
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.FAILED_PRECONDITION and await identities_off(stub):
            why = "the server runs with identities off (MEEPLE_AUTH=off: SignInGuest is refused)"
            return unidentified(count, tag, why)
        raise refusal(error, 1, count) from None
    players = [first]
    at_once = asyncio.Semaphore(SIGN_INS_AT_ONCE)

    async def next_one(n: int) -> Player:
        async with at_once:
            return await sign_in(n)

    tasks = [asyncio.ensure_future(next_one(n)) for n in range(1, count)]
    try:
        for n, task in enumerate(tasks, start=2):
            try:
                players.append(await task)
            except grpc.aio.AioRpcError as error:
                raise refusal(error, n, count) from None
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    detail = (
        f"{count} guests signed in up front (AuthService.SignInGuest), each in one match "
        "at a time; sessions refreshed (RefreshSession) before they expire"
    )
    return Players(players, GUEST, detail, renew)


def refusal(error: grpc.aio.AioRpcError, n: int, count: int) -> SetupError:
    said = f"{error.code().name}: {error.details()}"
    if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return SetupError(
            f"the server refused guest sign-in {n} of the {count} this run needs ({said}). "
            "It allows a few sign-ins a minute per address (MEEPLE_GUEST_SIGNINS_PER_MINUTE, "
            "30 by default): raise that on the server, ask for fewer players (--players, or a "
            "lower --concurrency), wait a minute and retry, or mint tokens of the studio's "
            "provider in test mode (--jwt-key ...)"
        )
    if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
        return SetupError(
            f"the server refuses guest sign-in ({said}): give the studio provider's test key "
            "(--jwt-key, --jwt-kid, --jwt-issuer, --jwt-audience) to mint its players' tokens"
        )
    return SetupError(f"cannot sign in the load test's guests ({said})")


class Minter:
    """Tokens of the studio's provider, signed with its test key."""

    def __init__(self, key: JwtKey) -> None:
        self.key = key
        try:
            pem = Path(key.path).read_bytes()
        except OSError as error:
            raise SetupError(f"--jwt-key {key.path}: {error.strerror}") from None
        try:
            self.private: Any = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as error:
            raise SetupError(
                f"--jwt-key {key.path}: not an unencrypted PEM private key ({error})"
            ) from None

    def mint(self, subject: str, name: str, seconds: float = MINTED_SECONDS) -> str:
        now = int(time.time())
        claims = {
            "iss": self.key.issuer,
            "aud": self.key.audience,
            "sub": subject,
            "name": name,
            "iat": now,
            "nbf": now,
            "exp": now + round(seconds),
        }
        try:
            return jwt.encode(
                claims, self.private, algorithm=self.key.algorithm, headers={"kid": self.key.kid}
            )
        except (jwt.PyJWTError, NotImplementedError, TypeError, ValueError) as error:
            raise SetupError(
                f"cannot sign {self.key.algorithm} with --jwt-key {self.key.path} "
                f"({type(error).__name__}: {error}): {KEY_TYPES}"
            ) from None

    def jwks(self) -> dict[str, Any]:
        """The key's public half as a JWKS, for the server's MEEPLE_AUTH_JWKS_URL."""
        try:
            algorithm = jwt.get_algorithm_by_name(self.key.algorithm)
            jwk = json.loads(algorithm.to_jwk(self.private.public_key()))
        except (jwt.PyJWTError, NotImplementedError, AttributeError, TypeError) as error:
            raise SetupError(
                f"no {self.key.algorithm} JWK of --jwt-key {self.key.path} "
                f"({type(error).__name__}: {error}): {KEY_TYPES}"
            ) from None
        jwk.update({"kid": self.key.kid, "use": "sig", "alg": self.key.algorithm})
        return {"keys": [jwk]}


async def minted(
    stub: auth_grpc.AuthServiceAsyncStub, count: int, key: JwtKey, tag: str
) -> Players:
    minter = Minter(key)
    players = [Player(f"loadtest-{tag}-{n}", f"loadtest {n}") for n in range(count)]

    async def renew(player: Player) -> None:
        player.keep(minter.mint(player.player_id, player.name), MINTED_SECONDS)

    for player in players:
        await renew(player)
    # The server checks one token now: a key it does not know fails here,
    # with its reason, not as every match's error.
    first = players[0]
    try:
        request = auth.GetIdentityRequest()
        answer = await stub.GetIdentity(
            request, metadata=first.metadata, timeout=SETUP_TIMEOUT_SECONDS
        )
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
            why = "the server runs with identities off (MEEPLE_AUTH=off): minted tokens unused"
            return unidentified(count, tag, why)
        raise SetupError(
            f"the server refused the load test's minted token ({error.code().name}: "
            f"{error.details()}): its MEEPLE_AUTH_JWKS_URL must serve the public key of "
            f"--jwt-key under kid {key.kid!r} (meeple loadtest --jwt-print-jwks prints it), "
            f"with MEEPLE_AUTH_ISSUER={key.issuer} and MEEPLE_AUTH_AUDIENCE={key.audience}, "
            f"and {key.algorithm} in MEEPLE_AUTH_ALGORITHMS"
        ) from None
    if answer.identity.player_id != first.player_id:
        raise SetupError(
            f"the server took the minted token of {first.player_id} for "
            f"{answer.identity.player_id!r}"
        )
    detail = (
        f"{count} tokens of the studio's provider minted with {key.path} (kid {key.kid}, "
        f"issuer {key.issuer}, audience {key.audience}, {key.algorithm}), subjects "
        f"loadtest-{tag}-N, renewed before they expire"
    )
    return Players(players, PROVIDER, detail, renew)
