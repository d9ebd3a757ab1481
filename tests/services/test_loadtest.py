"""``meeple loadtest`` against a real server, as a user runs it: every match
completes, the report's counts add up against each other and against what
the server counted (during the run only: the server has served traffic
before it), and there are no errors; its players are identities of their
own, as the server sees them (seats, ratings): guests signed in, tokens
minted for a studio provider whose JWKS the server fetches, or none on a
server with identities off; and the report's figures on known samples:
exact percentiles, the server's change between its scrapes."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc
from typer.testing import CliRunner

from services.cli import app
from services.loadtest import LoadConfig, run
from services.loadtest.identities import Player, Players
from services.loadtest.recorder import histogram, microseconds
from services.loadtest.report import summary
from services.loadtest.scrape import Samples, figures, quantile
from services.settings import Settings
from tests.services.conftest import Served

LOAD = Settings(rate_per_second=None, matches_per_minute=100_000)
KEYS = {
    "schema",
    "started_at",
    "ended_at",
    "versions",
    "target",
    "config",
    "duration_s",
    "matches",
    "actions",
    "rpcs",
    "turn",
    "assignment",
    "spectator_lag",
    "errors",
    "histograms",
    "per_game",
    "interval_s",
    "intervals",
    "generator",
    "server",
    "identities",
    "warnings",
    "slos",
}


def load(served: Served | None, tmp_path: Path, *options: str) -> dict:  # type: ignore[type-arg]
    """Runs a load test against ``served`` (None: the in-process meeple up)
    and checks what every report must hold: its players signed in as guests
    unless the options or the server say otherwise."""
    out = tmp_path / "report.json"
    arguments = ["loadtest"]
    if served is not None:
        arguments += ["--target", served.address, "--metrics", served.metrics_url]
    result = CliRunner().invoke(app, [*arguments, *options, "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert set(report) == KEYS
    assert report["schema"] == "meeple.loadtest/1"
    assert report["errors"] == {}
    matches = report["matches"]
    assert matches["started"] == matches["completed"] + matches["failed"]
    assert matches["failed"] == 0
    identities = report["identities"]
    assert identities["players"] >= 1
    if "--jwt-key" not in options and (served is None or served.app.auth.enabled):
        assert identities["source"] == "guest"
        assert "guests signed in" in identities["detail"]
        assert f"{identities['players']} guests" in result.output
    return report  # type: ignore[no-any-return]


def leaderboard(served: Served, game: pb.GameKind, rated: int) -> list[mm.Rating]:
    """The game's leaderboard once ``rated`` player results are counted
    (ratings are written shortly after a match ends)."""
    stub = mm_grpc.MatchmakingServiceStub(served.channel)
    deadline = time.monotonic() + 15
    while True:
        request = mm.ListLeaderboardRequest(game=game, page_size=500)
        ratings = list(stub.ListLeaderboard(request).ratings)
        if sum(r.matches for r in ratings) >= rated or time.monotonic() > deadline:
            return ratings
        time.sleep(0.05)


def test_server_bots_with_spectators(serve: Callable[..., Served], tmp_path: Path) -> None:
    served = serve(LOAD, workers=2)
    # Traffic before the run: the server's counters are not zero when the
    # run begins, so a report of totals, not changes, would count it too.
    load(served, tmp_path, "--game", "othello", "--matches", "3", "--concurrency", "3")
    report = load(served, tmp_path, "--game", "all", "--matches", "8", "--concurrency", "4",
                  "--spectators", "2")  # fmt: skip
    assert report["matches"]["completed"] == 8
    assert report["server"]["matches_finished"] == 8  # the server saw the same matches end
    assert report["rpcs"]["CreateMatch"]["count"] == 8
    assert report["rpcs"]["WatchMatch"]["count"] == 8
    # Each spectator saw each match's events: at least one per action.
    assert report["spectator_lag"]["count"] >= 2 * report["actions"]["total"]
    assert report["server"]["rpcs_by_code"] == {"OK": 8 + 8 + 2 * 8}  # creates and streams
    assert report["server"]["ai_queue_depth"] == 0  # read once the gauges caught up
    # Server bots' moves are turns too (those made before a stream opened are not).
    assert 0 < report["turn"]["count"] <= report["actions"]["total"]
    per_game = report["per_game"]
    assert set(per_game) == {"rolit", "othello", "volleyball", "volta"}
    assert sum(g["matches"]["completed"] for g in per_game.values()) == 8
    assert sum(g["actions"]["total"] for g in per_game.values()) == report["actions"]["total"]
    assert report["actions"]["per_second"] == pytest.approx(
        report["actions"]["total"] / report["duration_s"], rel=0.01
    )


def test_client_bots_play_every_action(serve: Callable[..., Served], tmp_path: Path) -> None:
    served = serve(LOAD, workers=1)
    report = load(served, tmp_path, "--game", "rolit,othello", "--matches", "4",
                  "--bots", "client", "--concurrency", "2")  # fmt: skip
    assert report["config"]["games"] == ["rolit", "othello"]
    assert report["matches"]["completed"] == 4
    # No dice and no server bots: every action is one of our submissions.
    assert report["rpcs"]["SubmitAction"]["count"] == report["actions"]["total"]
    assert report["rpcs"]["JoinMatch"]["count"] == 2 * 4 + 2 * 2  # two matches of each
    assert report["turn"]["count"] == report["actions"]["total"]  # from submission to its event
    assert report["server"]["matches_finished"] == 4


def test_matchmaking_seats_the_players(serve: Callable[..., Served], tmp_path: Path) -> None:
    """Six matches, three at a time: six guests signed in once, each with
    its own tickets; the server rates each of them, two matches each."""
    served = serve(LOAD, workers=1)
    report = load(served, tmp_path, "--game", "othello", "--matches", "6", "--bots", "client",
                  "--matchmaking", "--concurrency", "3")  # fmt: skip
    assert report["matches"]["completed"] == 6
    assert report["rpcs"]["CreateTicket"]["count"] == 12
    assert report["assignment"]["count"] == 12
    assert report["rpcs"]["SubmitAction"]["count"] == report["actions"]["total"]
    # One stream per match, whichever of the run's tickets its seats went to.
    assert report["rpcs"]["WatchMatch"]["count"] == 6
    assert report["turn"]["count"] == report["actions"]["total"]  # every move is a turn
    assert report["identities"]["players"] == 6
    assert report["rpcs"]["SignInGuest"]["count"] == 6  # up front, once each
    assert report["server"]["rpcs_by_code"]["OK"] >= 12  # the sign-ins are not the run's
    ratings = leaderboard(served, pb.GAME_KIND_OTHELLO, rated=12)
    assert len(ratings) == 6  # six players, each rated as itself
    assert all(r.player_id.startswith("guest-") for r in ratings)
    assert sorted(r.matches for r in ratings) == [2] * 6  # reused across the six matches


def test_each_player_sits_as_its_own_identity(serve: Callable[..., Served]) -> None:
    """Client bots, two Rolit matches at a time over five matches: eight
    guests, each match's four seats held by four distinct ones (as the
    server's seats show them), the same eight reused in every match."""
    served = serve(LOAD, workers=1)
    config = LoadConfig(target=served.address, metrics=None, games=("rolit",), matches=5,
                        concurrency=2, rate=None, duration=None, bots="client",
                        bot_spec="random", matchmaking=False, spectators=0, seed=0)  # fmt: skip
    report = asyncio.run(run(config))
    assert report.recorder.total.matches_completed == 5
    assert report.identities is not None
    assert report.identities["source"] == "guest"
    assert report.identities["players"] == 8
    stub = ms_grpc.MatchServiceStub(served.channel)
    seen: set[str] = set()
    for match_id in report.recorder.plies_by_match:
        match = stub.GetMatch(match_service_pb2.GetMatchRequest(match_id=match_id)).match
        players = [seat.player_id for seat in match.seats]
        assert len(set(players)) == 4, players
        assert all(p.startswith("guest-") for p in players)
        assert all(seat.display_name.startswith("loadtest ") for seat in match.seats)
        seen.update(players)
    assert len(seen) == 8


class Studio:
    """A studio's identity provider in test mode: an RSA key, and its JWKS
    served over HTTP (counting the fetches)."""

    ISSUER = "https://studio.test"
    AUDIENCE = "meeple-loadtest"
    KID = "studio-test-1"

    def __init__(self, tmp_path: Path) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.pem = tmp_path / "studio-key.pem"
        self.pem.write_bytes(
            self.key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = {"keys": [{**jwk, "kid": self.KID, "use": "sig", "alg": "RS256"}]}
        self.fetches = 0
        self.url = ""

    def options(self, kid: str | None = None) -> list[str]:
        return ["--jwt-key", str(self.pem), "--jwt-kid", kid or self.KID,
                "--jwt-issuer", self.ISSUER, "--jwt-audience", self.AUDIENCE]  # fmt: skip


@contextlib.contextmanager
def studio_serving(tmp_path: Path) -> Iterator[Studio]:
    studio = Studio(tmp_path)

    class JwksPage(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            studio.fetches += 1
            body = json.dumps(studio.jwks).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), JwksPage)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    studio.url = f"http://127.0.0.1:{http.server_address[1]}/.well-known/jwks.json"
    try:
        yield studio
    finally:
        http.shutdown()
        http.server_close()
        thread.join(timeout=5)


def test_players_with_tokens_minted_for_the_studios_provider(
    serve: Callable[..., Served], tmp_path: Path
) -> None:
    """The server trusts the studio's JWKS; the load test mints its
    players' tokens with the studio's test key: they play matchmade
    matches as provider identities (rated as their subjects), no guest
    signs in, and the JWKS it prints for the key is the one served."""
    with studio_serving(tmp_path) as studio:
        settings = dataclasses.replace(
            LOAD,
            auth_jwks_url=studio.url,
            auth_issuer=Studio.ISSUER,
            auth_audience=Studio.AUDIENCE,
            guest_signins_per_minute=1,  # the load test needs none
        )
        served = serve(settings, workers=1)
        report = load(served, tmp_path, "--game", "othello", "--matches", "4", "--bots", "client",
                      "--matchmaking", "--concurrency", "2", *studio.options())  # fmt: skip
        assert studio.fetches >= 1  # the server checked the tokens against the served keys
        identities = report["identities"]
        assert identities["source"] == "provider"
        assert identities["players"] == 4
        assert "studio-test-1" in identities["detail"]
        assert "SignInGuest" not in report["rpcs"]
        assert report["config"]["jwt_kid"] == Studio.KID
        ratings = leaderboard(served, pb.GAME_KIND_OTHELLO, rated=8)
        assert len(ratings) == 4
        assert all(r.player_id.startswith("loadtest-") for r in ratings)
        assert sum(r.matches for r in ratings) == 8
        # A token of the kind it mints names a provider identity.
        from services.loadtest import JwtKey, Minter

        key = JwtKey(str(studio.pem), Studio.KID, Studio.ISSUER, Studio.AUDIENCE)
        token = Minter(key).mint("loadtest-probe", "probe")
        stub = auth_grpc.AuthServiceStub(served.plain)
        who = stub.GetIdentity(
            auth.GetIdentityRequest(), metadata=(("authorization", f"Bearer {token}"),)
        ).identity
        assert (who.player_id, who.source) == ("loadtest-probe", auth.IDENTITY_SOURCE_PROVIDER)
        # A key id the provider does not serve: refused before any load, saying why.
        unknown = ["--target", served.address, "--matches", "1", *studio.options("another-key")]
        refused = CliRunner().invoke(app, ["loadtest", *unknown])
        assert refused.exit_code == 2, refused.output
        assert "refused the load test's minted token" in refused.stderr
        assert "unknown key id" in refused.stderr
        printed = CliRunner().invoke(app, ["loadtest", "--jwt-print-jwks", *studio.options()[:4]])
        assert printed.exit_code == 0, printed.output
        assert json.loads(printed.stdout) == studio.jwks


def test_without_identities_the_players_are_named(
    serve: Callable[..., Served], tmp_path: Path
) -> None:
    """MEEPLE_AUTH=off: SignInGuest is FAILED_PRECONDITION; the load test
    goes on without tokens, naming its players in the tickets, and its
    report says so."""
    served = serve(dataclasses.replace(LOAD, auth="off"), workers=1)
    report = load(served, tmp_path, "--game", "othello", "--matches", "2", "--bots", "client",
                  "--matchmaking", "--concurrency", "1")  # fmt: skip
    identities = report["identities"]
    assert identities["source"] == "none"
    assert "MEEPLE_AUTH=off" in identities["detail"]
    assert report["matches"]["completed"] == 2
    ratings = leaderboard(served, pb.GAME_KIND_OTHELLO, rated=4)
    assert len(ratings) == 2
    assert all(r.player_id.startswith("loadtest-") for r in ratings)
    # Server bots and joined seats too: matches are created without tokens.
    load(served, tmp_path, "--game", "volta", "--matches", "1", "--bots", "client")
    load(served, tmp_path, "--game", "othello", "--matches", "1")


def test_a_refused_sign_in_stops_the_run_before_any_load(
    serve: Callable[..., Served], tmp_path: Path
) -> None:
    """Three sign-ins a minute allowed, four players needed: the run stops
    at the fourth, saying what to change, and starts no match."""
    served = serve(dataclasses.replace(LOAD, guest_signins_per_minute=3), workers=1)
    options = ["--target", served.address, "--game", "othello", "--matches", "2",
               "--bots", "client", "--concurrency", "2"]  # fmt: skip
    result = CliRunner().invoke(app, ["loadtest", *options])
    assert result.exit_code == 2, result.output
    assert "refused guest sign-in 4 of the 4 this run needs" in result.stderr
    assert "RESOURCE_EXHAUSTED" in result.stderr
    assert "MEEPLE_GUEST_SIGNINS_PER_MINUTE" in result.stderr
    assert "--jwt-key" in result.stderr
    assert "CreateMatch" not in result.output


def test_a_player_is_in_one_match_at_a_time_and_renewed_when_due() -> None:
    """Two players, matches of two: the second match waits for the first
    to give them back; a player whose token is due is renewed as it is
    taken, one that is not is left alone."""
    renewed: list[str] = []

    async def renew(player: Player) -> None:
        renewed.append(player.player_id)
        player.keep("new", 3600)

    async def scenario() -> list[str]:
        due, fresh = Player("due", "due"), Player("fresh", "fresh")
        due.keep("old", 0)  # expired
        fresh.keep("old", 3600)
        players = Players([due, fresh], "guest", "two", renew)
        order: list[str] = []

        async def match(name: str) -> None:
            async with players.taken(2) as taken:
                order.append(f"{name} takes {len(taken)}")
                await asyncio.sleep(0.05)
                order.append(f"{name} ends")

        await asyncio.gather(match("first"), match("second"))
        assert (due.token, fresh.token) == ("new", "old")
        assert fresh.metadata == (("authorization", "Bearer old"),)
        return order

    order = asyncio.run(scenario())
    assert order == ["first takes 2", "first ends", "second takes 2", "second ends"]
    assert renewed == ["due"]


def test_a_timed_run_against_its_own_meeple_up(tmp_path: Path) -> None:
    report = load(None, tmp_path, "--game", "othello", "--duration", "2", "--concurrency", "4")
    assert report["config"]["target"] is None
    completed = report["matches"]["completed"]
    assert completed >= 1
    assert report["server"]["matches_finished"] == completed  # scraped from its own /metrics
    assert report["rpcs"]["CreateMatch"]["count"] == completed


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    for options, expected in [
        (["--game", "chess", "--matches", "1"], "games are some of"),
        (["--matchmaking", "--matches", "1"], "--bots client"),
        (["--rate", "0", "--matches", "1"], "rate must be > 0"),
        (["--bots", "client", "--game", "rolit", "--players", "3", "--matches", "1"],
         "a match of these games takes 4"),
        (["--jwt-kid", "k", "--matches", "1"], "go with --jwt-key"),
        (["--target", "x:1", "--jwt-key", "k.pem", "--matches", "1"], "--jwt-kid, --jwt-issuer"),
        (["--jwt-key", "k.pem", "--jwt-kid", "k", "--jwt-issuer", "i", "--jwt-audience", "a",
          "--matches", "1"], "--jwt-key needs --target"),
        (["--target", "x:1", "--jwt-key", "k.pem", "--jwt-kid", "k", "--jwt-issuer", "i",
          "--jwt-audience", "a", "--jwt-algorithm", "HS256", "--matches", "1"],
         "--jwt-algorithm is one of"),
    ]:  # fmt: skip
        result = runner.invoke(app, ["loadtest", *options], env={"COLUMNS": "300"})
        assert result.exit_code != 0
        assert expected in result.output


def test_latency_percentiles_are_exact_on_known_samples() -> None:
    """1, 2, ..., 1000 ms: each percentile is that many milliseconds, to
    the histogram's three significant digits."""
    values = histogram()
    for ms in range(1000, 0, -1):
        values.record_value(microseconds(ms / 1000))
    figures = summary(values)
    assert figures["count"] == 1000
    for key, ms in [("p50_ms", 500), ("p95_ms", 950), ("p99_ms", 990), ("max_ms", 1000)]:
        assert figures[key] == pytest.approx(ms, rel=1e-3), (key, figures)
    # A tail of 1 in 100: the p99 is still the bulk, the max is the tail.
    skewed = histogram()
    for _ in range(990):
        skewed.record_value(microseconds(0.002))
    for _ in range(10):
        skewed.record_value(microseconds(2.0))
    tail = summary(skewed)
    assert tail["p50_ms"] == pytest.approx(2, rel=1e-3)
    assert tail["p99_ms"] == pytest.approx(2, rel=1e-3)
    assert tail["max_ms"] == pytest.approx(2000, rel=1e-3)


def test_histogram_quantile_is_prometheuss() -> None:
    """Cumulative buckets of 10 each up to 1 s: linear within a bucket."""
    buckets = {b / 10: 10.0 * b for b in range(1, 11)} | {float("inf"): 100.0}
    assert quantile(buckets, 0.5) == pytest.approx(0.5)
    assert quantile(buckets, 0.99) == pytest.approx(0.99)
    assert quantile(buckets, 0.25) == pytest.approx(0.25)
    assert quantile({float("inf"): 0.0}, 0.5) is None


def metrics_page(
    ok: float, submit_buckets: dict[float, float], finished: float, dead: float
) -> Samples:
    """The samples of a /metrics page with these totals."""
    return {
        "grpc_server_handled_total": [
            ({"grpc_method": "SubmitAction", "grpc_code": "OK"}, ok),
            ({"grpc_method": "CreateMatch", "grpc_code": "OK"}, ok / 2),
        ],
        "grpc_server_handling_seconds_bucket": [
            ({"grpc_method": "SubmitAction", "le": str(le)}, n) for le, n in submit_buckets.items()
        ],
        "meeple_match_finished_total": [({"game": "othello"}, finished)],
        "meeple_ai_dead_letters_total": [({"game": "othello"}, dead)],
        "meeple_ai_queue_depth": [({"kind": "bot_seat"}, 0.0), ({"kind": "hint"}, 0.0)],
    }


def test_the_server_figures_are_what_changed_during_the_run() -> None:
    """Before the run the server had answered 1000 slow submissions (all
    between 0.9 and 1 s); the run added 100 fast ones, 10 in each 10 ms
    bucket up to 0.1 s. The figures are the run's alone."""
    bounds = [b / 100 for b in range(1, 11)] + [b / 10 for b in range(2, 11)]
    before = {le: (1000.0 if le >= 1.0 else 0.0) for le in bounds} | {float("inf"): 1000.0}
    run = {le: 10.0 * min(10, round(le * 100)) for le in bounds} | {float("inf"): 100.0}
    after = {le: before[le] + run[le] for le in before}
    change = figures(
        metrics_page(1000, before, finished=7, dead=1),
        metrics_page(1100, after, finished=12, dead=1),
    )
    assert change["rpcs_by_code"] == {"OK": 150}
    assert change["matches_finished"] == 5
    assert change["ai_dead_letters"] == 0
    assert change["submit_action"] == {"p50_ms": pytest.approx(50), "p99_ms": pytest.approx(99)}


def test_the_minter_signs_with_the_keys_algorithm(tmp_path: Path) -> None:
    """An EC P-256 key signs ES256 tokens that its printed JWKS verifies
    (iss, aud, kid, sub, name); asked for RS256, it is refused, saying the
    key's type must match; a file that is no key is refused too."""
    from cryptography.hazmat.primitives.asymmetric import ec

    from services.loadtest import JwtKey, Minter, SetupError

    pem = tmp_path / "ec.pem"
    private = ec.generate_private_key(ec.SECP256R1())
    pem.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    minter = Minter(JwtKey(str(pem), "ec-1", "https://iss.test", "aud-1", "ES256"))
    token = minter.mint("loadtest-x", "loadtest 1")
    (jwk,) = minter.jwks()["keys"]
    assert (jwk["kid"], jwk["alg"], jwk["kty"]) == ("ec-1", "ES256", "EC")
    assert jwt.get_unverified_header(token)["kid"] == "ec-1"
    claims = jwt.decode(
        token, jwt.PyJWK(jwk).key, ["ES256"], audience="aud-1", issuer="https://iss.test"
    )
    assert (claims["sub"], claims["name"]) == ("loadtest-x", "loadtest 1")
    assert claims["exp"] - claims["iat"] == 3600
    wrong = Minter(JwtKey(str(pem), "ec-1", "https://iss.test", "aud-1", "RS256"))
    with pytest.raises(SetupError, match="the algorithm and the key's type must match"):
        wrong.mint("loadtest-x", "x")
    with pytest.raises(SetupError, match="the algorithm and the key's type must match"):
        wrong.jwks()
    (tmp_path / "junk.pem").write_text("not a key\n")
    with pytest.raises(SetupError, match="not an unencrypted PEM private key"):
        Minter(JwtKey(str(tmp_path / "junk.pem"), "k", "i", "a"))
    with pytest.raises(SetupError, match="No such file"):
        Minter(JwtKey(str(tmp_path / "missing.pem"), "k", "i", "a"))
