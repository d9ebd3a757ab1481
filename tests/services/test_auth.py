"""AuthService's guest sign-in through real gRPC and Connect (JSON on the
web port): the session's fields, GetIdentity, RefreshSession keeping the
player, each token kind refused where another is expected ("wrong
audience"), the display name rules, the sign-ins per address, calls that
act for a player refused without a token, identities off (MEEPLE_AUTH=off),
and a token never shown in an error, a log record or the metrics page."""

from __future__ import annotations

import json
import logging
import time
import urllib.request
from collections.abc import Callable, Iterator

import grpc
import jwt
import pytest
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.auth import guests
from services.settings import Settings
from tests.identities import bearer
from tests.services.conftest import Served, serving
from tests.services.test_web_port import Web

CALL_SECONDS = 10  # every call's deadline: a hang fails within seconds, saying which call
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
BOT = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
HOUR, DAYS_30 = 3600.0, 30 * 86400.0
REFUSED = "the bearer token was refused: "


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """Identities on (the default), a web port, limits far above these tests."""
    settings = Settings(
        rate_per_second=None, matches_per_minute=10_000, guest_signins_per_minute=1000
    )
    with serving(settings, workers=1, web_port=0) as server:
        yield server


@pytest.fixture(scope="module")
def stub(served: Served) -> auth_grpc.AuthServiceStub:
    return auth_grpc.AuthServiceStub(served.plain)


@pytest.fixture(scope="module")
def web(served: Served) -> Web:
    return Web(served, player=None)


def failure(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def sign_in(stub: auth_grpc.AuthServiceStub, name: str = "Ann") -> auth.Session:
    request = auth.SignInGuestRequest(display_name=name)
    return stub.SignInGuest(request, timeout=CALL_SECONDS).session


def identity_of(stub: auth_grpc.AuthServiceStub, token: str) -> auth.Identity:
    request = auth.GetIdentityRequest()
    return stub.GetIdentity(request, metadata=bearer(token), timeout=CALL_SECONDS).identity


# --- sign-in, identity, refresh ---------------------------------------------------------


def test_a_guest_sign_in_gives_a_session_of_a_new_player(stub: auth_grpc.AuthServiceStub) -> None:
    began = time.time()
    session = sign_in(stub, "Ann")
    assert session.identity.player_id.startswith("guest-")
    assert len(session.identity.player_id) == len("guest-") + 20  # 10 random bytes, in hex
    assert session.identity.display_name == "Ann"
    assert session.identity.source == auth.IDENTITY_SOURCE_GUEST
    assert session.access_token
    assert session.refresh_token
    assert session.access_token != session.refresh_token
    access = session.access_expire_time.ToMilliseconds() / 1000
    refresh = session.refresh_expire_time.ToMilliseconds() / 1000
    assert began + HOUR - 2 <= access <= time.time() + HOUR + 2
    assert began + DAYS_30 - 2 <= refresh <= time.time() + DAYS_30 + 2
    header = jwt.get_unverified_header(session.access_token)
    assert header["alg"] == "HS256"
    assert header["kid"].startswith("meeple-")
    claims = jwt.decode(session.access_token, options={"verify_signature": False})
    assert (claims["sub"], claims["aud"], claims["iss"]) == (
        session.identity.player_id,
        "meeple",
        "meeple",
    )
    assert claims["exp"] == round(access)
    # Another sign-in is another player, even with the same name.
    assert sign_in(stub, "Ann").identity.player_id != session.identity.player_id


def test_get_identity_names_the_tokens_player(stub: auth_grpc.AuthServiceStub) -> None:
    session = sign_in(stub, "Bo Dee")
    assert identity_of(stub, session.access_token) == session.identity
    # The scheme's case and the space around the token do not matter.
    metadata = (("authorization", f"bEaReR   {session.access_token}  "),)
    got = stub.GetIdentity(auth.GetIdentityRequest(), metadata=metadata, timeout=CALL_SECONDS)
    assert got.identity == session.identity


def test_refresh_gives_a_new_session_of_the_same_player(stub: auth_grpc.AuthServiceStub) -> None:
    first = sign_in(stub, "Cy")
    time.sleep(1.1)  # a later second: new expiry times, so new tokens
    request = auth.RefreshSessionRequest(refresh_token=first.refresh_token)
    second = stub.RefreshSession(request, timeout=CALL_SECONDS).session
    assert second.identity == first.identity
    assert second.access_token != first.access_token
    assert second.refresh_token != first.refresh_token
    assert second.access_expire_time.ToMilliseconds() > first.access_expire_time.ToMilliseconds()
    assert identity_of(stub, second.access_token) == first.identity
    # The first session's tokens keep working until they expire.
    assert identity_of(stub, first.access_token) == first.identity
    again = auth.RefreshSessionRequest(refresh_token=second.refresh_token)
    third = stub.RefreshSession(again, timeout=CALL_SECONDS).session
    assert third.identity == first.identity


def test_a_refresh_token_is_no_access_token_and_the_reverse(
    served: Served, stub: auth_grpc.AuthServiceStub
) -> None:
    session = sign_in(stub, "Dee")
    code, details = failure(lambda: identity_of(stub, session.refresh_token))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "wrong audience")
    matches = ms_grpc.MatchServiceStub(served.plain)
    create = ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, BOT])
    code, details = failure(
        lambda: matches.CreateMatch(
            create, metadata=bearer(session.refresh_token), timeout=CALL_SECONDS
        )
    )
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "wrong audience")
    refresh = auth.RefreshSessionRequest(refresh_token=session.access_token)
    code, details = failure(lambda: stub.RefreshSession(refresh, timeout=CALL_SECONDS))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "wrong audience")
    # A party pass is neither.
    request = auth.CreatePartyPassRequest(leader_player_id="leader")
    party_pass = stub.CreatePartyPass(
        request, metadata=bearer(session.access_token), timeout=CALL_SECONDS
    ).party_pass
    code, details = failure(lambda: identity_of(stub, party_pass))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "wrong audience")
    refresh = auth.RefreshSessionRequest(refresh_token=party_pass)
    code, details = failure(lambda: stub.RefreshSession(refresh, timeout=CALL_SECONDS))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "wrong audience")


def test_expired_and_tampered_own_tokens_are_refused_with_the_reason(
    served: Served, stub: auth_grpc.AuthServiceStub
) -> None:
    signer = served.app.auth.signer
    expired = signer.sign(guests.ACCESS_AUDIENCE, "guest-old", -60, name="Old").token
    code, details = failure(lambda: identity_of(stub, expired))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "token expired")
    old_refresh = signer.sign(guests.REFRESH_AUDIENCE, "guest-old", -60, name="Old").token
    refresh = auth.RefreshSessionRequest(refresh_token=old_refresh)
    code, details = failure(lambda: stub.RefreshSession(refresh, timeout=CALL_SECONDS))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "token expired")
    session = sign_in(stub, "Eve")
    head, _body, signature = session.access_token.split(".")
    claims = jwt.decode(session.access_token, options={"verify_signature": False})
    forged = jwt.utils.base64url_encode(json.dumps({**claims, "sub": "guest-victim"}).encode())
    tampered = f"{head}.{forged.decode()}.{signature}"
    code, details = failure(lambda: identity_of(stub, tampered))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "bad signature")
    # Signed with another key of the same kid: the signature is what counts.
    other = jwt.encode(claims, b"k" * 32, "HS256", headers={"kid": signer.key.kid})
    code, details = failure(lambda: identity_of(stub, other))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "bad signature")
    unknown = jwt.encode(claims, b"k" * 32, "HS256", headers={"kid": "meeple-0123456789abcdef"})
    code, details = failure(lambda: identity_of(stub, unknown))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, REFUSED + "unknown key id")
    for junk in ("", "not-a-jwt", "a.b.c", "e30.e30.", "x" * 8000):
        code, details = failure(lambda junk=junk: identity_of(stub, junk))
        assert code == grpc.StatusCode.UNAUTHENTICATED, junk[:20]
        assert details.startswith(REFUSED), details


def test_a_token_longer_than_8192_characters_is_refused_unread(
    stub: auth_grpc.AuthServiceStub, web: Web
) -> None:
    session = sign_in(stub, "Long")
    token = session.access_token + "." + "A" * 8200
    status, error = web.call("AuthService/GetIdentity", {}, authorization=f"Bearer {token}")
    assert (status, error) == (
        401,
        {"code": "unauthenticated", "message": REFUSED + "longer than 8192 characters"},
    )
    # Every time: gRPC's own default would refuse a random share of such
    # calls (metadata between 8 and 16 KiB) as RESOURCE_EXHAUSTED.
    for _ in range(30):
        code, details = failure(lambda: identity_of(stub, token))
        assert (code, details) == (
            grpc.StatusCode.UNAUTHENTICATED,
            REFUSED + "longer than 8192 characters",
        )


def test_metadata_over_16_kib_is_refused_as_over_the_limit(
    stub: auth_grpc.AuthServiceStub,
) -> None:
    for _ in range(5):  # each refusal takes the client about 0.3 s
        code, _details = failure(lambda: identity_of(stub, "x" * (16 * 1024 + 1)))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    # The server still answers after them.
    assert identity_of(stub, sign_in(stub, "After").access_token).display_name == "After"


def test_an_authorization_that_is_no_bearer_token_is_refused(
    stub: auth_grpc.AuthServiceStub,
) -> None:
    session = sign_in(stub, "Fay")
    for value in (f"Basic {session.access_token}", session.access_token, "Bearer"):
        metadata = (("authorization", value),)
        code, details = failure(
            lambda metadata=metadata: stub.GetIdentity(
                auth.GetIdentityRequest(), metadata=metadata, timeout=CALL_SECONDS
            )
        )
        assert code == grpc.StatusCode.UNAUTHENTICATED, value
        assert session.access_token not in details


def test_sign_in_over_connect_json(web: Web) -> None:
    status, body = web.call("AuthService/SignInGuest", {"displayName": "Gil"})
    assert status == 200, body
    session = body["session"]
    assert session["identity"]["displayName"] == "Gil"
    assert session["identity"]["playerId"].startswith("guest-")
    assert session["identity"]["source"] == "IDENTITY_SOURCE_GUEST"
    assert session["accessExpireTime"].endswith("Z")
    headers = {"authorization": f"Bearer {session['accessToken']}"}
    status, got = web.call("AuthService/GetIdentity", {}, **headers)
    assert (status, got) == (200, {"identity": session["identity"]})
    status, refreshed = web.call(
        "AuthService/RefreshSession", {"refreshToken": session["refreshToken"]}
    )
    assert status == 200, refreshed
    assert refreshed["session"]["identity"] == session["identity"]
    status, error = web.call("AuthService/GetIdentity", {})
    assert (status, error["code"]) == (401, "unauthenticated"), error
    assert "bearer token is needed" in error["message"]
    bad = {"authorization": f"Bearer {session['refreshToken']}"}
    status, error = web.call("AuthService/GetIdentity", {}, **bad)
    assert (status, error) == (
        401,
        {"code": "unauthenticated", "message": REFUSED + "wrong audience"},
    )
    status, error = web.call("AuthService/SignInGuest", {"displayName": " Gil"})
    assert (status, error["code"]) == (400, "invalid_argument"), error
    # A Connect session acts on the gRPC port too (one key, one identity).
    match = web.call(
        "MatchService/CreateMatch",
        {"config": {"kind": "GAME_KIND_OTHELLO"}, "seats": [{"kind": "SEAT_KIND_HUMAN"}] * 2},
        **headers,
    )
    assert match[0] == 200, match


def test_a_connect_token_acts_on_the_grpc_port(served: Served, web: Web) -> None:
    status, body = web.call("AuthService/SignInGuest", {"displayName": "Hal"})
    assert status == 200, body
    token = body["session"]["accessToken"]
    got = auth_grpc.AuthServiceStub(served.plain).GetIdentity(
        auth.GetIdentityRequest(), metadata=bearer(token), timeout=CALL_SECONDS
    )
    assert got.identity.display_name == "Hal"


# --- display names ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "",
        " Ann",
        "Ann ",
        " ",
        "a" * 25,
        "Ann!",
        "Ann\nBo",
        "Ann\tBo",
        "Ann\u200bBo",  # a zero-width space
        "Ann\u202eoB",  # a right-to-left override
        "<script>",
        "Ann😀",
        "a@b.c",
        "Ann\x00",
    ],
)
def test_bad_display_names_are_invalid_argument(stub: auth_grpc.AuthServiceStub, name: str) -> None:
    code, details = failure(lambda: sign_in(stub, name))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, name
    assert details.startswith("display_name: 1 to 24 letters, digits, spaces and - _ . '"), details


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("a" * 24, "a" * 24),
        ("Jean-Luc O'Neil", "Jean-Luc O'Neil"),
        ("x_y.z 42", "x_y.z 42"),
        ("Zoë", "Zoë"),
        ("Zoe\u0308", "Zoë"),  # NFC: the composed letter, one character
        ("名前", "名前"),
        ("Ünïcødé", "Ünïcødé"),
    ],
)
def test_good_display_names_are_kept_in_nfc(
    stub: auth_grpc.AuthServiceStub, name: str, shown: str
) -> None:
    session = sign_in(stub, name)
    assert session.identity.display_name == shown
    assert identity_of(stub, session.access_token).display_name == shown


# --- the sign-in limit ------------------------------------------------------------------


def test_sign_ins_per_address_are_limited_on_both_ports(serve: Callable[..., Served]) -> None:
    served = serve(Settings(rate_per_second=None, guest_signins_per_minute=3), web_port=0)
    stub = auth_grpc.AuthServiceStub(served.plain)
    web = Web(served, player=None)
    # A refused name spends nothing.
    assert failure(lambda: sign_in(stub, "!"))[0] == grpc.StatusCode.INVALID_ARGUMENT
    sessions = [sign_in(stub, f"Guest {n}") for n in range(2)]
    status, body = web.call("AuthService/SignInGuest", {"displayName": "Web guest"})
    assert status == 200, body
    code, details = failure(lambda: sign_in(stub, "One too many"))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "guest sign-ins per client address" in details
    status, body = web.call("AuthService/SignInGuest", {"displayName": "Web too many"})
    assert (status, body["code"]) == (429, "resource_exhausted"), body
    # Sessions made keep working, and refreshing is no sign-in.
    refresh = auth.RefreshSessionRequest(refresh_token=sessions[0].refresh_token)
    assert stub.RefreshSession(refresh, timeout=CALL_SECONDS).session.identity == (
        sessions[0].identity
    )


# --- calls that act for a player --------------------------------------------------------


def test_calls_that_act_for_a_player_need_a_token(served: Served) -> None:
    matches = ms_grpc.MatchServiceStub(served.plain)
    tickets = mm_grpc.MatchmakingServiceStub(served.plain)
    auths = auth_grpc.AuthServiceStub(served.plain)
    created = ms_grpc.MatchServiceStub(served.channel).CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN]), timeout=CALL_SECONDS
    )
    match_id = created.match.match_id
    calls: dict[str, Callable[[], object]] = {
        "CreateMatch": lambda: matches.CreateMatch(
            ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, BOT]), timeout=CALL_SECONDS
        ),
        "JoinMatch": lambda: matches.JoinMatch(
            ms.JoinMatchRequest(match_id=match_id), timeout=CALL_SECONDS
        ),
        "JoinMatch with the owner token": lambda: matches.JoinMatch(
            ms.JoinMatchRequest(match_id=match_id, seat=0),
            metadata=(("meeple-owner-token", created.owner_token),),
            timeout=CALL_SECONDS,
        ),
        "CreateTicket": lambda: tickets.CreateTicket(
            mm.CreateTicketRequest(config=OTHELLO, player_ids=["someone"]), timeout=CALL_SECONDS
        ),
        "GetRating of oneself": lambda: tickets.GetRating(
            mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO), timeout=CALL_SECONDS
        ),
        "GetIdentity": lambda: auths.GetIdentity(auth.GetIdentityRequest(), timeout=CALL_SECONDS),
        "CreatePartyPass": lambda: auths.CreatePartyPass(
            auth.CreatePartyPassRequest(leader_player_id="leader"), timeout=CALL_SECONDS
        ),
    }
    for name, call in calls.items():
        code, details = failure(call)
        assert code == grpc.StatusCode.UNAUTHENTICATED, (name, details)
        assert "a bearer token is needed in the 'authorization' metadata" in details, name
    # Nothing was taken: the match still has both seats free.
    got = matches.GetMatch(ms.GetMatchRequest(match_id=match_id), timeout=CALL_SECONDS).match
    assert [seat.joined for seat in got.seats] == [False, False]
    # What acts for no player needs no token.
    rating = tickets.GetRating(
        mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO, player_id="anyone"), timeout=CALL_SECONDS
    )
    assert rating.rating.matches == 0


# --- identities off ---------------------------------------------------------------------


def test_identities_off_keep_the_old_behaviour_and_refuse_sign_in(
    serve: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    assert Settings.from_env({"MEEPLE_AUTH": " off "}).auth == "off"
    with pytest.raises(ValueError, match="auth is 'on' or 'off'"):
        Settings(auth="maybe")
    with caplog.at_level(logging.WARNING):
        served = serve(Settings(auth="off", rate_per_second=None), web_port=0)
    assert any("MEEPLE_AUTH=off" in r.getMessage() for r in caplog.records), caplog.text
    auths = auth_grpc.AuthServiceStub(served.plain)
    refusals: dict[str, Callable[[], object]] = {
        "SignInGuest": lambda: sign_in(auths, "Ann"),
        "RefreshSession": lambda: auths.RefreshSession(
            auth.RefreshSessionRequest(refresh_token="x"), timeout=CALL_SECONDS
        ),
        "GetIdentity": lambda: auths.GetIdentity(auth.GetIdentityRequest(), timeout=CALL_SECONDS),
        "CreatePartyPass": lambda: auths.CreatePartyPass(
            auth.CreatePartyPassRequest(leader_player_id="bo"), timeout=CALL_SECONDS
        ),
    }
    for name, call in refusals.items():
        code, details = failure(call)
        assert code == grpc.StatusCode.FAILED_PRECONDITION, name
        assert "identities are off on this server (MEEPLE_AUTH=off)" in details, name
    status, body = Web(served, player=None).call("AuthService/SignInGuest", {"displayName": "Ann"})
    assert (status, body["code"]) == (400, "failed_precondition"), body
    # No token needed; a token sent is not even read.
    matches = ms_grpc.MatchServiceStub(served.plain)
    created = matches.CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN]), timeout=CALL_SECONDS
    )
    match_id = created.match.match_id
    first = matches.JoinMatch(ms.JoinMatchRequest(match_id=match_id), timeout=CALL_SECONDS)
    second = matches.JoinMatch(
        ms.JoinMatchRequest(match_id=match_id),
        metadata=bearer("not-even-a-jwt"),
        timeout=CALL_SECONDS,
    )
    assert (first.seat, second.seat) == (0, 1)
    assert first.seat_token != second.seat_token
    assert [(s.player_id, s.display_name) for s in second.match.seats] == [("", ""), ("", "")]
    reserved = ms.CreateMatchRequest(
        config=OTHELLO, seats=[ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN, player_id="ann"), HUMAN]
    )
    code, details = failure(lambda: matches.CreateMatch(reserved, timeout=CALL_SECONDS))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "MEEPLE_AUTH=off" in details
    tickets = mm_grpc.MatchmakingServiceStub(served.plain)
    ticket = tickets.CreateTicket(
        mm.CreateTicketRequest(config=OTHELLO, player_ids=["ann", "bo"]), timeout=CALL_SECONDS
    )
    assert list(ticket.ticket.player_ids) == ["ann", "bo"]
    with_passes = mm.CreateTicketRequest(config=OTHELLO, player_ids=["cy"], party_passes=["x"])
    code, details = failure(lambda: tickets.CreateTicket(with_passes, timeout=CALL_SECONDS))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "party_passes" in details
    nobody = mm.CreateTicketRequest(config=OTHELLO)
    code, details = failure(lambda: tickets.CreateTicket(nobody, timeout=CALL_SECONDS))
    assert (code, "at least one player" in details) == (grpc.StatusCode.INVALID_ARGUMENT, True)
    own = mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO)
    code, details = failure(lambda: tickets.GetRating(own, timeout=CALL_SECONDS))
    assert code == grpc.StatusCode.INVALID_ARGUMENT


# --- tokens stay secret -----------------------------------------------------------------


def test_a_token_never_appears_in_errors_logs_or_metrics(
    served: Served, stub: auth_grpc.AuthServiceStub, web: Web, caplog: pytest.LogCaptureFixture
) -> None:
    """Every refusal of a token names the reason only: the token (nor its
    signature, the part that makes it a credential) is in no error's
    details, no log record, and not on the metrics page."""
    caplog.set_level(logging.DEBUG)
    session = sign_in(stub, "Ivy")
    signer = served.app.auth.signer
    expired = signer.sign(guests.ACCESS_AUDIENCE, "guest-secretive", -60, name="S").token
    head, body, signature = session.access_token.split(".")
    secrets_sent = {
        "access": session.access_token,
        "refresh": session.refresh_token,
        "expired": expired,
        "tampered": f"{head}.{body}x.{signature}",
        "long": session.access_token + "A" * 7000,
    }
    details: list[str] = []
    matches = ms_grpc.MatchServiceStub(served.plain)
    tickets = mm_grpc.MatchmakingServiceStub(served.plain)
    for name, token in secrets_sent.items():
        if name == "access":
            continue
        calls = [
            lambda token=token: identity_of(stub, token),
            lambda token=token: matches.CreateMatch(
                ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, BOT]),
                metadata=bearer(token),
                timeout=CALL_SECONDS,
            ),
            lambda token=token: tickets.CreateTicket(
                mm.CreateTicketRequest(config=OTHELLO),
                metadata=bearer(token),
                timeout=CALL_SECONDS,
            ),
            lambda token=token: stub.RefreshSession(
                auth.RefreshSessionRequest(refresh_token=token + "x"), timeout=CALL_SECONDS
            ),
            lambda token=token: stub.CreatePartyPass(
                auth.CreatePartyPassRequest(leader_player_id=token[:64]),
                metadata=bearer(session.access_token),
                timeout=CALL_SECONDS,
            ),
        ]
        for call in calls:
            try:
                call()
            except grpc.RpcError as error:
                details.append(error.details() or "")
        _status, answer = web.call("AuthService/GetIdentity", {}, authorization=f"Bearer {token}")
        details.append(json.dumps(answer))
    # A party pass sent as another's, and one whose player is a stranger.
    own_pass = stub.CreatePartyPass(
        auth.CreatePartyPassRequest(leader_player_id="someone-else"),
        metadata=bearer(session.access_token),
        timeout=CALL_SECONDS,
    ).party_pass
    secrets_sent["pass"] = own_pass
    for passes in ([own_pass], [own_pass + "x"], [session.access_token]):
        try:
            tickets.CreateTicket(
                mm.CreateTicketRequest(config=OTHELLO, party_passes=passes),
                metadata=bearer(session.access_token),
                timeout=CALL_SECONDS,
            )
        except grpc.RpcError as error:
            details.append(error.details() or "")
    assert len(details) >= 20
    with urllib.request.urlopen(served.metrics_url, timeout=CALL_SECONDS) as page:
        metrics = page.read().decode()
    logged = caplog.text + "\n".join(
        f"{record.getMessage()} {record.args!r} {getattr(record, 'fields', '')!r}"
        for record in caplog.records
    )
    for name, token in secrets_sent.items():
        signature_part = token.split(".")[-1][:20]
        for where, text in (
            ("an error", "\n".join(details)),
            ("a log", logged),
            ("/metrics", metrics),
        ):
            assert token not in text, f"the {name} token is in {where}"
            assert signature_part not in text, f"the {name} token's signature is in {where}"
