"""A studio's identity provider: its JWKS served by a local HTTP server
(in a thread) whose keys rotate, tokens signed with them (RSA and EC keys
made by ``cryptography``, tokens encoded by PyJWT), and a meeple server
verifying them through real gRPC. A token of a key in the set is an
identity; after a rotation and the cache's refresh the new key id is
accepted and the old one refused; every bad token is UNAUTHENTICATED with
its reason; a JWKS that cannot be fetched is UNAVAILABLE; and made-up key
ids fetch the set at most about once per cooldown."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.settings import Settings
from tests.identities import bearer
from tests.services.conftest import Served, serving

CALL_SECONDS = 10
ISSUER = "https://id.studio.example"
AUDIENCE = "meeple-game"
REFUSED = "the bearer token was refused: "
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)


# --- the provider -----------------------------------------------------------------------


class Provider:
    """The studio's keys (kid -> private key), the JWKS it serves (the
    public keys of ``published``), and the requests it answered."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.published: list[str] = []
        self.fetches = 0
        self.failing = False  # answer 500 (the provider is down)
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with provider._lock:
                    provider.fetches += 1
                    failing = provider.failing
                    body = json.dumps(provider.jwks()).encode()
                if failing:
                    self.send_error(500)
                    return
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/.well-known/jwks.json"
        self._thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()

    def new_key(self, kid: str, kind: str = "rsa", publish: bool = True) -> str:
        if kind == "rsa":
            self.keys[kid] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            self.keys[kid] = ec.generate_private_key(ec.SECP256R1())
        if publish:
            with self._lock:
                self.published.append(kid)
        return kid

    def rotate(self, kid: str) -> None:
        """Publishes ``kid`` only (the old keys are withdrawn)."""
        with self._lock:
            self.published = [kid]

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid in self.published:
            public = self.keys[kid].public_key()
            if isinstance(public, rsa.RSAPublicKey):
                jwk = RSAAlgorithm.to_jwk(public, as_dict=True)
                jwk["alg"] = "RS256"
            else:
                jwk = ECAlgorithm.to_jwk(public, as_dict=True)
                jwk["alg"] = "ES256"
            keys.append({**jwk, "kid": kid, "use": "sig"})
        return {"keys": keys}

    def token(
        self,
        kid: str | None,
        sub: str = "studio-42",
        *,
        signing_kid: str | None = None,
        algorithm: str | None = None,
        headers: dict[str, Any] | None = None,
        drop: tuple[str, ...] = (),
        **claims: Any,
    ) -> str:
        """A token of the key ``signing_kid`` (default: ``kid``) naming ``kid``."""
        now = int(time.time())
        payload = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600}
        payload.update(claims)
        for name in drop:
            payload.pop(name, None)
        key = self.keys[signing_kid or kid]
        if algorithm is None:
            algorithm = "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256"
        extra = {**({"kid": kid} if kid is not None else {}), **(headers or {})}
        return jwt.encode(payload, key, algorithm, headers=extra)

    def public_pem(self, kid: str) -> bytes:
        return (
            self.keys[kid]
            .public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hand_made(header: dict[str, Any], payload: dict[str, Any], secret: bytes | None) -> str:
    """A JWT made by hand (PyJWT refuses to make these): HS256 under
    ``secret``, or with no signature."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"
    if secret is None:
        return signing_input + "."
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(mac)}"


def provider_settings(provider: Provider | str, **overrides: Any) -> Settings:
    url = provider if isinstance(provider, str) else provider.url
    options: dict[str, Any] = {
        "rate_per_second": None,
        "matches_per_minute": 10_000,
        "auth_jwks_url": url,
        "auth_issuer": ISSUER,
        "auth_audience": AUDIENCE,
        **overrides,
    }
    return Settings(**options)


def identity_of(served: Served, token: str) -> auth.Identity:
    stub = auth_grpc.AuthServiceStub(served.plain)
    request = auth.GetIdentityRequest()
    return stub.GetIdentity(request, metadata=bearer(token), timeout=CALL_SECONDS).identity


def failure(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


@pytest.fixture
def provider() -> Iterator[Provider]:
    studio = Provider()
    yield studio
    studio.stop()


@pytest.fixture(scope="module")
def studio() -> Iterator[Provider]:
    """A provider whose keys stay: an RSA key and an EC key."""
    studio = Provider()
    studio.new_key("rsa-1")
    studio.new_key("ec-1", "ec")
    studio.new_key("unpublished")
    studio.new_key("stranger", publish=False)
    yield studio
    studio.stop()


@pytest.fixture(scope="module")
def served(studio: Provider) -> Iterator[Served]:
    with serving(provider_settings(studio), workers=1) as server:
        yield server


# --- accepted ---------------------------------------------------------------------------


def test_a_providers_tokens_are_identities(served: Served, studio: Provider) -> None:
    got = identity_of(served, studio.token("rsa-1", name="Ann of the Studio"))
    assert (got.player_id, got.display_name, got.source) == (
        "studio-42",
        "Ann of the Studio",
        auth.IDENTITY_SOURCE_PROVIDER,
    )
    got = identity_of(served, studio.token("ec-1", sub="studio-7", preferred_username="bo"))
    assert (got.player_id, got.display_name) == ("studio-7", "bo")
    assert identity_of(served, studio.token("rsa-1", sub="studio-9")).display_name == "studio-9"
    # A name fit to show: printable, trimmed, 24 characters at most.
    named = studio.token("rsa-1", name="  Cy\x00\u202e the Very Long-Named Player  ")
    assert identity_of(served, named).display_name == "Cy the Very Long-Named P"
    # An audience among several, and a token within the leeway (10 s) of its end.
    many = studio.token("rsa-1", aud=["other", AUDIENCE], exp=int(time.time()) - 5)
    assert identity_of(served, many).player_id == "studio-42"


def test_a_providers_token_acts_for_its_player(served: Served, studio: Provider) -> None:
    token = studio.token("rsa-1", sub="studio-ann", name="Ann")
    matches = ms_grpc.MatchServiceStub(served.plain)
    created = matches.CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN]),
        metadata=bearer(token),
        timeout=CALL_SECONDS,
    )
    joined = matches.JoinMatch(
        ms.JoinMatchRequest(match_id=created.match.match_id),
        metadata=bearer(token),
        timeout=CALL_SECONDS,
    )
    seat = joined.match.seats[joined.seat]
    assert (seat.player_id, seat.display_name) == ("studio-ann", "Ann")


def test_guest_sign_in_still_works_beside_a_provider(served: Served) -> None:
    stub = auth_grpc.AuthServiceStub(served.plain)
    session = stub.SignInGuest(
        auth.SignInGuestRequest(display_name="Guest"), timeout=CALL_SECONDS
    ).session
    assert identity_of(served, session.access_token).source == auth.IDENTITY_SOURCE_GUEST


# --- refused ----------------------------------------------------------------------------


def bad_tokens(studio: Provider, served: Served) -> dict[str, tuple[str, str]]:
    """Each bad token by what is wrong with it, and the reason it gets."""
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "studio-42", "exp": now + 600}
    good = studio.token("rsa-1")
    head, _, signature = good.split(".")
    forged_claims = b64(json.dumps({**claims, "sub": "studio-admin"}).encode())
    own_kid = served.app.auth.signer.key.kid
    return {
        "expired": (studio.token("rsa-1", exp=now - 60), "token expired"),
        "not yet valid": (studio.token("rsa-1", nbf=now + 60), "token not yet valid"),
        "wrong audience": (studio.token("rsa-1", aud="another-game"), "wrong audience"),
        "wrong issuer": (studio.token("rsa-1", iss="https://evil.example"), "wrong issuer"),
        "alg none": (
            hand_made({"alg": "none", "kid": "rsa-1"}, claims, None),
            "algorithm not allowed",
        ),
        "HS256 with the public key as secret": (
            hand_made({"alg": "HS256", "kid": "rsa-1"}, claims, studio.public_pem("rsa-1")),
            "algorithm not allowed",
        ),
        "RS384 (not in auth_algorithms)": (
            studio.token("rsa-1", algorithm="RS384"),
            "algorithm not allowed",
        ),
        "tampered payload": (f"{head}.{forged_claims}.{signature}", "bad signature"),
        "signed by another key": (
            studio.token("rsa-1", signing_kid="stranger"),
            "bad signature",
        ),
        "signed by a published key under another's kid": (
            studio.token("rsa-1", signing_kid="unpublished"),
            "bad signature",
        ),
        "unknown kid": (studio.token("stranger"), "unknown key id"),
        "no kid": (studio.token(None, signing_kid="rsa-1"), "the token names no key id (kid)"),
        "a kid of the meeple- kind": (
            studio.token("meeple-0123456789abcdef", signing_kid="rsa-1"),
            "unknown key id",
        ),
        "the guest key's kid, RS256": (
            studio.token(own_kid, signing_kid="rsa-1"),
            "algorithm not allowed",
        ),
        "a guest- subject": (
            studio.token("rsa-1", sub="guest-0123456789abcdef0123"),
            "its subject is printable and does not start with 'guest-'",
        ),
        "a subject too long": (
            studio.token("rsa-1", sub="s" * 65),
            "its subject must be 1 to 64 characters",
        ),
        "an empty subject": (
            studio.token("rsa-1", sub=""),
            "its subject must be 1 to 64 characters",
        ),
        "no exp": (studio.token("rsa-1", drop=("exp",)), "the token lacks the 'exp' claim"),
        "no sub": (studio.token("rsa-1", drop=("sub",)), "the token lacks the 'sub' claim"),
        "no iss": (studio.token("rsa-1", drop=("iss",)), "the token lacks the 'iss' claim"),
        "no aud": (studio.token("rsa-1", drop=("aud",)), "the token lacks the 'aud' claim"),
    }


CASES = [
    "expired",
    "not yet valid",
    "wrong audience",
    "wrong issuer",
    "alg none",
    "HS256 with the public key as secret",
    "RS384 (not in auth_algorithms)",
    "tampered payload",
    "signed by another key",
    "signed by a published key under another's kid",
    "unknown kid",
    "no kid",
    "a kid of the meeple- kind",
    "the guest key's kid, RS256",
    "a guest- subject",
    "a subject too long",
    "an empty subject",
    "no exp",
    "no sub",
    "no iss",
    "no aud",
]


@pytest.mark.parametrize("case", CASES)
def test_a_bad_provider_token_is_unauthenticated_with_its_reason(
    served: Served, studio: Provider, case: str
) -> None:
    token, reason = bad_tokens(studio, served)[case]
    code, details = failure(lambda: identity_of(served, token))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + reason)
    # The calls that act for a player refuse it the same way.
    matches = ms_grpc.MatchServiceStub(served.plain)
    create = ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN])
    code, details = failure(
        lambda: matches.CreateMatch(create, metadata=bearer(token), timeout=CALL_SECONDS)
    )
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + reason)


@pytest.mark.parametrize(("kid", "algorithm"), [("rsa-1", "ES256"), ("ec-1", "RS256")])
def test_a_token_whose_algorithm_does_not_fit_its_key_is_unauthenticated(
    served: Served, studio: Provider, kid: str, algorithm: str
) -> None:
    """Anyone can name a published key id with another allowed algorithm
    (signed with any key of that algorithm): PyJWT then raises TypeError
    ("Expecting a PEM-formatted key."), not a token error. It must be a
    refusal, not INTERNAL (and an error logged with a traceback per call)."""
    signer = "ec-1" if algorithm == "ES256" else "rsa-1"
    token = studio.token(kid, signing_kid=signer, algorithm=algorithm)
    code, details = failure(lambda: identity_of(served, token))
    assert code == grpc.StatusCode.UNAUTHENTICATED, details
    assert details.startswith(REFUSED), details


def test_the_settings_refuse_symmetric_algorithms_and_a_provider_without_iss_or_aud() -> None:
    with pytest.raises(ValueError, match="asymmetric"):
        provider_settings("http://127.0.0.1:9/jwks", auth_algorithms="HS256")
    with pytest.raises(ValueError, match="asymmetric"):
        provider_settings("http://127.0.0.1:9/jwks", auth_algorithms="RS256,none")
    with pytest.raises(ValueError, match="auth_issuer and auth_audience"):
        Settings(auth_jwks_url="http://127.0.0.1:9/jwks", auth_audience=AUDIENCE)
    with pytest.raises(ValueError, match="auth_issuer and auth_audience"):
        Settings(auth_jwks_url="http://127.0.0.1:9/jwks", auth_issuer=ISSUER)
    with pytest.raises(ValueError, match="auth_jwks_url"):
        Settings(auth_guests="off")


# --- rotation ---------------------------------------------------------------------------


def test_a_rotated_key_is_accepted_and_the_old_one_refused_after_the_cooldown(
    serve: Callable[..., Served], provider: Provider
) -> None:
    provider.new_key("2026-01")
    served = serve(provider_settings(provider, auth_jwks_cooldown=0.3), workers=1)
    old = provider.token("2026-01")
    assert identity_of(served, old).player_id == "studio-42"
    assert provider.fetches == 1
    provider.new_key("2026-02", publish=False)
    provider.rotate("2026-02")
    new = provider.token("2026-02")
    assert identity_of(served, old).player_id == "studio-42"  # cached: no fetch
    assert provider.fetches == 1
    time.sleep(0.4)  # past the cooldown: an unknown key id fetches the set again
    assert identity_of(served, new).player_id == "studio-42"
    assert provider.fetches == 2
    code, details = failure(lambda: identity_of(served, old))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "unknown key id")
    time.sleep(0.4)
    code, details = failure(lambda: identity_of(served, old))  # fetched again: still gone
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "unknown key id")
    assert identity_of(served, new).player_id == "studio-42"


def test_a_withdrawn_key_is_refused_once_the_cached_set_expires(
    serve: Callable[..., Served], provider: Provider
) -> None:
    """With a long cooldown, the set's lifespan (auth_jwks_refresh) is what
    drops a withdrawn key."""
    provider.new_key("old")
    provider.new_key("new", publish=False)  # made ahead: a key takes a while to make
    settings = provider_settings(provider, auth_jwks_refresh=2.0, auth_jwks_cooldown=60)
    served = serve(settings, workers=1)
    old, new = provider.token("old"), provider.token("new")
    began = time.monotonic()
    assert identity_of(served, old).player_id == "studio-42"
    provider.rotate("new")
    assert identity_of(served, old).player_id == "studio-42"  # still cached
    assert time.monotonic() - began < 2.0, "too slow to see the cached set before it expired"
    time.sleep(max(0.0, began + 2.3 - time.monotonic()))
    code, details = failure(lambda: identity_of(served, old))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "unknown key id")
    assert identity_of(served, new).player_id == "studio-42"
    assert provider.fetches == 2


# --- the provider unreachable, and floods -----------------------------------------------


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_jwks_that_cannot_be_reached_is_unavailable(
    serve: Callable[..., Served], provider: Provider
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/jwks.json"
    served = serve(provider_settings(url), workers=1)
    provider.new_key("k")
    token = provider.token("k")
    code, details = failure(lambda: identity_of(served, token))
    assert code == grpc.StatusCode.UNAVAILABLE
    assert "cannot fetch the identity provider's keys" in details
    assert token not in details
    # Guests sign in all the same.
    stub = auth_grpc.AuthServiceStub(served.plain)
    session = stub.SignInGuest(auth.SignInGuestRequest(display_name="G"), timeout=CALL_SECONDS)
    assert identity_of(served, session.session.access_token).display_name == "G"


def test_a_failing_jwks_is_unavailable_and_a_cached_key_keeps_working(
    serve: Callable[..., Served], provider: Provider
) -> None:
    provider.new_key("k")
    provider.failing = True
    served = serve(provider_settings(provider, auth_jwks_cooldown=0.1), workers=1)
    code, _ = failure(lambda: identity_of(served, provider.token("k")))
    assert code == grpc.StatusCode.UNAVAILABLE
    provider.failing = False
    time.sleep(0.2)  # a failed fetch is tried again after the cooldown
    assert identity_of(served, provider.token("k")).player_id == "studio-42"
    provider.failing = True
    assert identity_of(served, provider.token("k")).player_id == "studio-42"  # from the cache


def flood(served: Served, provider: Provider, count: int, seconds: float) -> list[grpc.StatusCode]:
    """``count`` tokens of made-up key ids over about ``seconds``, from 4 threads."""
    provider.new_key("forger", publish=False)
    tokens = [provider.token(f"made-up-{n}", signing_kid="forger") for n in range(count)]
    pause = seconds / count * 4

    def send(batch: list[str]) -> list[grpc.StatusCode]:
        codes = []
        for token in batch:
            codes.append(failure(lambda token=token: identity_of(served, token))[0])
            time.sleep(pause)
        return codes

    with ThreadPoolExecutor(4) as pool:
        batches = pool.map(send, [tokens[n::4] for n in range(4)])
        return [code for batch in batches for code in batch]


def test_a_flood_of_unknown_key_ids_fetches_the_set_about_once_per_cooldown(
    serve: Callable[..., Served], provider: Provider
) -> None:
    provider.new_key("k")
    served = serve(provider_settings(provider, auth_jwks_cooldown=1.0), workers=1)
    assert identity_of(served, provider.token("k")).player_id == "studio-42"
    began = time.monotonic()
    codes = flood(served, provider, 60, 2.5)
    elapsed = time.monotonic() - began
    assert set(codes) == {grpc.StatusCode.UNAUTHENTICATED}
    # The first fetch, then at most one per cooldown (and one at its edge).
    assert provider.fetches <= 2 + int(elapsed / 1.0), (provider.fetches, elapsed)
    assert identity_of(served, provider.token("k")).player_id == "studio-42"


def test_a_flood_of_unknown_key_ids_while_the_provider_fails_is_held_to_the_cooldown(
    serve: Callable[..., Served], provider: Provider
) -> None:
    """The cooldown must also hold when the refresh fails: otherwise each
    made-up key id is a request to a provider that is already in trouble
    (and, at its timeout, holds every provider token's verification, which
    waits on the same lock)."""
    provider.new_key("k")
    served = serve(provider_settings(provider, auth_jwks_cooldown=1.0), workers=1)
    assert identity_of(served, provider.token("k")).player_id == "studio-42"
    provider.failing = True
    fetched = provider.fetches
    began = time.monotonic()
    codes = flood(served, provider, 40, 2.0)
    elapsed = time.monotonic() - began
    assert set(codes) <= {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.UNAVAILABLE}
    tried = provider.fetches - fetched
    assert tried <= 2 + int(elapsed / 1.0), f"{tried} fetches in {elapsed:.1f} s of a 1 s cooldown"
    assert identity_of(served, provider.token("k")).player_id == "studio-42"  # still cached
