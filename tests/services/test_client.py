"""The Python client helper and the example that uses it, against the server:
sign-in (a guest's session, kept and refreshed; a given token), matches, and
matchmaking tickets (two clients seated together, a party, cancel, a
retried CreateTicket)."""

from __future__ import annotations

import dataclasses
import importlib.util
import time
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm

from services.client import (
    MeepleClient,
    SeatHandle,
    TicketAssignment,
    TicketEnded,
    TicketHandle,
    game_config,
)
from tests.services.conftest import SUITE_SETTINGS, Served

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "play_vs_ai.py"


def test_game_config_builds_options() -> None:
    config = game_config("volta", dents=["large", "small"], swap_every=5)
    assert config.kind == pb.GAME_KIND_VOLTA
    assert list(config.volta.dents) == [pb.DENT_SIZE_LARGE, pb.DENT_SIZE_SMALL]
    assert game_config("rolit", players=3).rolit.players == 3
    with pytest.raises(ValueError, match="unknown game"):
        game_config("chess")
    with pytest.raises(ValueError, match="takes no options"):
        game_config("othello", players=2)


def test_the_example_plays_a_whole_game_of_each_kind(
    server: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("play_vs_ai", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    results = example.main(["--address", server.address, "--bot", "easy", "--hint", "greedy"])
    assert set(results) == {"rolit", "othello", "volleyball", "volta"}
    for game, returns in results.items():
        assert sum(returns) == pytest.approx(0.0), game
        assert any(returns), game  # every game was played to a result
    out = capsys.readouterr().out
    assert "end: returns" in out


def test_watch_resumes_without_gaps(server: Served) -> None:
    with MeepleClient(server.address, token=server.token("watcher")) as client:
        match = client.create_match("othello", ["random", "random"]).match
        events = list(client.watch(match.match_id))
        tail = list(client.watch(match.match_id, from_ply=10))
    assert events[0].HasField("snapshot")
    actions = [e for e in events if e.HasField("action")]
    assert [e.ply for e in actions] == list(range(len(actions)))
    assert tail[0].HasField("snapshot")
    assert tail[1:] == [e for e in events[1:] if e.ply >= 10]


def test_meeple_watch_prints_a_match(server: Served) -> None:
    from typer.testing import CliRunner

    from services.cli import app

    address = server.address
    with MeepleClient(address, token=server.token("watcher")) as client:
        match = client.create_match("othello", ["random", "random"]).match
    result = CliRunner().invoke(app, ["watch", match.match_id, "--address", address])
    assert result.exit_code == 0, result.output
    assert "    0  seat 0: " in result.output
    assert "match over at ply" in result.output
    missing = CliRunner().invoke(app, ["watch", "0123456789abcdef", "--address", address])
    assert missing.exit_code == 1
    assert "NOT_FOUND" in missing.output


# --- matchmaking: tickets ------------------------------------------------------------


def play_first_legal_actions(client: MeepleClient, seat: SeatHandle) -> int:
    """Plays ``seat`` to the match's end, each turn its first legal action:
    the number of actions it played."""
    played = 0
    while (turn := client.wait_for_turn(seat, poll=0.01)) is not None:
        legal = client.legal_actions(turn.record)
        client.submit(seat, turn.match.view.ply, [legal.actions[0].action])
        played += 1
    return played


def read_ticket(
    stream: Generator[mm.WatchTicketResponse, None, TicketAssignment],
) -> tuple[list[mm.WatchTicketResponse], TicketAssignment]:
    """Every event of a watch_ticket stream, and the assignment it returns."""
    events = []
    while True:
        try:
            events.append(next(stream))
        except StopIteration as done:
            return events, done.value


def test_two_clients_tickets_meet_and_both_play_the_match_to_its_end(
    serve: Callable[..., Served],
) -> None:
    """Two clients, each with its own ticket: ann reads her ticket's events,
    bo only waits for his match; both are seated in one match, and each
    plays his seat with the assignment's seat token to the end. The match
    is rated: both ratings count it, and the leaderboard lists them."""
    served = serve(SUITE_SETTINGS, workers=1)

    def ann() -> tuple[list[mm.WatchTicketResponse], TicketAssignment, int]:
        with MeepleClient(served.address, token=served.token("ann")) as client:
            events, assignment = read_ticket(client.watch_ticket(client.create_ticket("othello")))
            return events, assignment, play_first_legal_actions(client, assignment.seat)

    def bo() -> tuple[list[mm.WatchTicketResponse], TicketAssignment, int]:
        with MeepleClient(served.address, token=served.token("bo")) as client:
            assignment = client.wait_for_match(client.create_ticket("othello", ["bo"]))
            return [], assignment, play_first_legal_actions(client, assignment.seat)

    with ThreadPoolExecutor(2) as pool:
        (events, first, played_first), (_, second, played_second) = (
            future.result(timeout=60) for future in [pool.submit(ann), pool.submit(bo)]
        )
    assert events[0].HasField("snapshot")
    # Queued, or seated already if bo's ticket waited and a pass ran before ann's watch.
    assert events[0].snapshot.status in (mm.TICKET_STATUS_QUEUED, mm.TICKET_STATUS_ASSIGNED)
    assert events[0].snapshot.player_ids == ["ann"]
    assert events[-1].HasField("assigned")
    assert all(e.HasField("widened") for e in events[1:-1])
    assert TicketAssignment.of(events[-1].assigned) == first
    assert first.match_id == second.match_id
    assert (first.bot_seats, second.bot_seats) == (0, 0)
    assert set(first.seats) == {"ann"}
    assert set(second.seats) == {"bo"}
    assert sorted([first.seat.seat, second.seat.seat]) == [0, 1]
    with MeepleClient(served.address) as client:
        match = client.get(first.match_id).match
        assert match.status == ms.MATCH_STATUS_FINISHED
        assert played_first + played_second == match.view.ply  # no bot, no dice
        assert sum(match.view.returns) == pytest.approx(0.0)
        deadline = time.monotonic() + 10
        while client.get_rating("othello", "bo").matches == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        ratings = {name: client.get_rating(pb.GAME_KIND_OTHELLO, name) for name in ("ann", "bo")}
        assert [r.matches for r in ratings.values()] == [1, 1]
        board = client.leaderboard("othello", limit=None)
        assert {r.player_id for r in board} == {"ann", "bo"}
        assert board[0].ordinal >= board[1].ordinal
        assert client.leaderboard("othello", limit=1) == board[:1]
        newcomer = client.get_rating("othello", "newcomer")
        assert (newcomer.mu, newcomer.matches) == (pytest.approx(25.0), 0)


def test_a_cancelled_ticket_ends_the_wait_for_its_match(serve: Callable[..., Served]) -> None:
    served = serve(SUITE_SETTINGS, workers=1)
    alone = served.token("alone")
    with MeepleClient(served.address, token=alone) as client, ThreadPoolExecutor(1) as pool:
        ticket = client.create_ticket("othello", max_wait=60)
        assert ticket.ticket_id
        assert ticket.token
        waiting = pool.submit(client.wait_for_match, ticket)
        time.sleep(0.3)  # the wait is watching by now; nobody else queues
        assert not waiting.done()
        forged = TicketHandle(ticket.ticket_id, "forged", ticket.request_id)
        with pytest.raises(grpc.RpcError) as refused:
            client.cancel_ticket(forged)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert client.cancel_ticket(ticket).status == mm.TICKET_STATUS_CANCELLED
        with pytest.raises(TicketEnded, match="cancelled") as ended:
            waiting.result(timeout=10)
        assert ended.value.ticket.status == mm.TICKET_STATUS_CANCELLED
        # Watched after its end: its snapshot, then its end.
        events: list[mm.WatchTicketResponse] = []
        with pytest.raises(TicketEnded):
            events.extend(client.watch_ticket(ticket))  # kept: those read before the raise
        assert [e.WhichOneof("event") for e in events] == ["snapshot", "ended"]


class LostAnswer(grpc.RpcError):
    """What a client sees when the connection drops before the server's
    answer arrives."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE


def test_a_ticket_whose_answer_was_lost_is_retried_with_its_request_id(
    serve: Callable[..., Served],
) -> None:
    """The first CreateTicket is stored but its answer lost: the client
    retries with the same request_id and gets that same ticket, which
    then meets another player's; a request the server refuses is not
    retried."""
    served = serve(SUITE_SETTINGS, workers=1)
    with (
        MeepleClient(served.address, token=served.token("ann")) as client,
        MeepleClient(served.address, token=served.token("bo")) as other,
    ):
        real = client.tickets.CreateTicket
        sent: list[str] = []  # the request_id of each call
        answers: list[mm.CreateTicketResponse] = []

        def lossy(request: mm.CreateTicketRequest, **options: Any) -> mm.CreateTicketResponse:
            sent.append(request.request_id)
            answers.append(real(request, **options))
            if len(sent) == 1:
                raise LostAnswer()
            return answers[-1]

        client.tickets.CreateTicket = lossy  # type: ignore[method-assign]
        ticket = client.create_ticket("othello", "ann")
        assert len(sent) == 2
        assert sent[0] == sent[1] == ticket.request_id
        assert len(ticket.request_id) >= 16
        assert ticket.ticket_id == answers[0].ticket.ticket_id  # the stored one, not another
        assert ticket.token == answers[0].ticket_token
        # The same request_id in a later call (as a restarted client would send): the same ticket.
        assert client.create_ticket("othello", "ann", request_id=ticket.request_id) == ticket
        bo = other.create_ticket("othello")
        with ThreadPoolExecutor(2) as pool:
            seated = [pool.submit(c.wait_for_match, t) for c, t in ((client, ticket), (other, bo))]
            first, second = (future.result(timeout=30) for future in seated)
        assert first.match_id == second.match_id
        assert {first.seat.seat, second.seat.seat} == {0, 1}
        sent.clear()
        with pytest.raises(grpc.RpcError) as refused:
            client.create_ticket("othello", ["ann", "ann"])
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert len(sent) == 1


def test_a_dropped_ticket_watch_is_reopened(serve: Callable[..., Served]) -> None:
    """The connection drops after the first event: watch_ticket opens the
    stream again and passes on the rest, without the second snapshot; the
    ticket is seated (a bot fills the table) all the same."""
    served = serve(dataclasses.replace(SUITE_SETTINGS, bot_fill_after=0.3), workers=1)
    with MeepleClient(served.address, token=served.token("solo")) as client:
        real = client.tickets.WatchTicket
        calls: list[int] = []

        def dropping(request: mm.WatchTicketRequest, **options: Any) -> Any:
            calls.append(1)
            stream = real(request, **options)
            if len(calls) == 1:
                yield next(stream)
                stream.cancel()
                raise LostAnswer()
            yield from stream

        client.tickets.WatchTicket = dropping  # type: ignore[method-assign]
        ticket = client.create_ticket("othello", allow_bots=True)
        events, assignment = read_ticket(client.watch_ticket(ticket))
    assert len(calls) == 2
    assert [e.HasField("snapshot") for e in events].count(True) == 1
    assert events[0].HasField("snapshot")
    assert events[-1].HasField("assigned")
    assert assignment.bot_seats == 1
    assert set(assignment.seats) == {"solo"}


# --- identities ----------------------------------------------------------------------


def test_a_signed_in_guest_acts_as_itself(server: Served) -> None:
    """The session names a new guest; the client sends its token on the
    acting calls: the seat it joins is its player's, with its name, and
    its own rating is its player's. Without a token, acting is refused."""
    with MeepleClient(server.address) as client:
        session = client.sign_in_guest("Ann the First")
        me = session.identity.player_id
        assert me.startswith("guest-")
        assert client.player_id == me
        assert client.token == session.access_token
        assert session.refresh_token
        identity = client.identity()
        assert (identity.player_id, identity.display_name) == (me, "Ann the First")
        match = client.create_match("othello", ["human", "random"]).match
        seat = client.join(match.match_id)
        again = client.join(match.match_id)  # its own seat, from any device: the same token
        assert again == seat
        seated = client.get(match.match_id).match.seats[seat.seat]
        assert (seated.player_id, seated.display_name) == (me, "Ann the First")
        assert client.get_rating("othello").player_id == me
        client.resign(seat)
    with MeepleClient(server.address) as anonymous:
        with pytest.raises(grpc.RpcError) as refused:
            anonymous.create_match("othello", ["random", "random"])
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(ValueError, match="sign_in_guest first"):
            anonymous.refresh_session()


def test_the_session_is_refreshed_before_its_access_token_expires(
    serve: Callable[..., Served],
) -> None:
    """Access tokens of 2 seconds: past half of that, the next acting call
    refreshes the session first (the same guest, a new token); a given
    token is sent as it is."""
    served = serve(dataclasses.replace(SUITE_SETTINGS, auth_access_ttl=2.0), workers=1)
    with MeepleClient(served.address) as client:
        first = client.sign_in_guest("refresher")
        refreshes: list[object] = []
        real = client.auth.RefreshSession

        def counted(request: Any, **options: Any) -> Any:
            refreshes.append(request)
            return real(request, **options)

        client.auth.RefreshSession = counted  # type: ignore[method-assign]
        client.create_match("othello", ["random", "random"])
        assert refreshes == []  # not due yet
        time.sleep(1.2)
        client.create_match("othello", ["random", "random"])
        assert len(refreshes) == 1
        assert client.token != first.access_token
        assert client.session is not None
        assert client.session.identity.player_id == first.identity.player_id
        assert client.identity().player_id == first.identity.player_id
        assert len(refreshes) == 1  # fresh again: the next calls send it as it is
    token = served.token("given")
    with MeepleClient(served.address, token=token) as given:
        assert given.identity().player_id == "given"
        assert given.player_id is None  # no session: identity() says whom the token names
        assert given.bearer() == (("authorization", f"Bearer {token}"),)


def test_a_party_ticket_needs_each_members_pass(serve: Callable[..., Served]) -> None:
    """bo agrees to sit with ann (a pass naming her as leader): ann's ticket
    seats both at one table; naming bo without his pass is refused, and so
    is a pass made for another leader."""
    served = serve(SUITE_SETTINGS, workers=1)
    with (
        MeepleClient(served.address, token=served.token("ann")) as ann,
        MeepleClient(served.address, token=served.token("bo")) as bo,
    ):
        with pytest.raises(grpc.RpcError) as refused:
            ann.create_ticket("othello", ["ann", "bo"])
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as refused:
            ann.create_ticket("othello", party_passes=[bo.party_pass("cy")])
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        ticket = ann.create_ticket("othello", party_passes=[bo.party_pass("ann")])
        assignment = ann.wait_for_match(ticket)
        assert set(assignment.seats) == {"ann", "bo"}
        assert assignment.bot_seats == 0
        match = ann.get(assignment.match_id).match
        assert sorted(seat.player_id for seat in match.seats) == ["ann", "bo"]
        ann.resign(assignment.seats["bo"])  # the party holds both seat tokens


def test_without_identities_the_client_names_its_players(serve: Callable[..., Served]) -> None:
    """MEEPLE_AUTH=off: sign-in is refused (FAILED_PRECONDITION); tickets
    name their players, and matches need no token."""
    served = serve(dataclasses.replace(SUITE_SETTINGS, auth="off"), workers=1)
    with MeepleClient(served.address) as client:
        with pytest.raises(grpc.RpcError) as refused:
            client.sign_in_guest("nobody")
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert client.token is None
        match = client.create_match("othello", ["human", "random"]).match
        client.resign(client.join(match.match_id))
        ticket = client.create_ticket("othello", "ann")
        assert client.cancel_ticket(ticket).player_ids == ["ann"]
