"""A user's players, each an identity of its own as in ``meeple loadtest``
(services/loadtest/identities.py, whose Player this reuses): guests signed
in with AuthService.SignInGuest when the user starts, and refreshed with
RefreshSession when an access token nears its end; against a server with
identities off (MEEPLE_AUTH=off: SignInGuest and GetIdentity are
FAILED_PRECONDITION) players without tokens, named in the requests.

The server limits guest sign-ins per client address
(MEEPLE_GUEST_SIGNINS_PER_MINUTE, 30 a minute by default): a load from few
machines needs it raised to the users' players."""

from __future__ import annotations

import secrets
import time

import grpc
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc

from services.loadtest.identities import Player, timestamp_seconds
from services.loadtest.locust.reporting import GRPC, Failure, Reporter, warn_once

OFF = (grpc.StatusCode.FAILED_PRECONDITION,)
HINTS = {
    "RESOURCE_EXHAUSTED": "raise MEEPLE_GUEST_SIGNINS_PER_MINUTE on the target to the players "
    "the users sign in (one per server-bots user, one per seat otherwise) each minute",
    "FAILED_PRECONDITION": "the target has guest sign-in off: turn it on (MEEPLE_AUTH_GUESTS)",
}


def keep(player: Player, session: auth.Session) -> None:
    lifetime = timestamp_seconds(session.access_expire_time) - time.time()
    player.keep(session.access_token, lifetime, session.refresh_token)


def identities_off(stub: auth_grpc.AuthServiceStub, timeout: float) -> bool:
    try:
        stub.GetIdentity(auth.GetIdentityRequest(), timeout=timeout)
    except grpc.RpcError as error:
        return isinstance(error, grpc.Call) and error.code() == grpc.StatusCode.FAILED_PRECONDITION
    return False


def sign_in(
    stub: auth_grpc.AuthServiceStub, reporter: Reporter, count: int, timeout: float
) -> list[Player]:
    """``count`` new players; Failure (reported, with a hint in its detail)
    when the server refuses one."""
    players: list[Player] = []
    for n in range(count):
        request = auth.SignInGuestRequest(display_name=f"locust {n}")
        try:
            answer = reporter.call(
                "SignInGuest", stub.SignInGuest, request, quiet=OFF, timeout=timeout
            )
        except Failure as failure:
            if failure.code == "FAILED_PRECONDITION" and identities_off(stub, timeout):
                tag = secrets.token_hex(4)
                return [Player(f"locust-{tag}-{m}", f"locust {m}") for m in range(count)]
            if failure.code == "FAILED_PRECONDITION":  # quiet above: reported here
                reporter.report(GRPC, "SignInGuest", 0.0, failure=failure)
            if failure.code in HINTS:
                warn_once(("hint SignInGuest", failure.code), HINTS[failure.code])
            raise
        session = answer.session
        player = Player(session.identity.player_id, session.identity.display_name)
        keep(player, session)
        players.append(player)
    return players


def renew_due(
    stub: auth_grpc.AuthServiceStub, reporter: Reporter, players: list[Player], timeout: float
) -> None:
    """Refreshes each player whose access token is due (Failure if refused)."""
    now = time.monotonic()
    for player in players:
        if player.token is None or now < player.renew_at:
            continue
        request = auth.RefreshSessionRequest(refresh_token=player.refresh_token or "")
        answer = reporter.call("RefreshSession", stub.RefreshSession, request, timeout=timeout)
        keep(player, answer.session)
