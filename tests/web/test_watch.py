"""Spectating through the page: a bot-vs-bot match picked from the live
matches, followed to its end across a dropped connection; a finished one
opened afterwards."""

from __future__ import annotations

import re

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from playwright.sync_api import Page, Request, expect

from services.web.server import WebServer
from tests.web.conftest import Site
from tests.web.pages import board_cells, server_cells, status

# A bot slow enough (about 0.1 s a move) for the match to be live while the
# test opens it, and a spec no other test uses, to find it in the list.
SLOW_BOT = "mcts:time=0.1:c=1.5"


def drop_connections(site: Site) -> None:
    """Stops the web port, cutting its open streams, and opens it again on
    the same port, as a network drop or a restarted proxy would."""
    old = site.served.app.web
    assert old is not None
    site.served.run(old.stop(0))
    again = WebServer([], "127.0.0.1", old.port, files={})
    again.app = old.app
    site.served.run(again.start())
    site.served.app.web = again


def test_watch_a_bot_match_from_the_live_list_across_a_dropped_connection(
    page: Page, site: Site
) -> None:
    created = site.client.create_match("othello", [SLOW_BOT, SLOW_BOT])
    match_id = created.match.match_id
    page.goto("/")
    page.get_by_label("Show").select_option(label="Othello")
    page.get_by_role(
        "link", name=re.compile(f"^Watch Othello for 2: bots {re.escape(SLOW_BOT)}")
    ).click()
    expect(page.get_by_role("heading", name=f"Othello · match {match_id}")).to_be_visible()
    expect(page.locator(".connection")).to_have_text("Connection: live")
    expect(page.get_by_role("region", name="Your turn")).to_be_empty()  # a spectator plays nothing
    log = page.locator(".log li")
    expect(log.nth(1)).to_be_visible()  # moves arrive as they are played

    drop_connections(site)
    expect(page.locator(".connection")).to_have_text(
        re.compile(r"^Connection: live again, resumed at ply \d+$")
    )
    expect(status(page)).to_have_text(re.compile(r"^Game over: "), timeout=30_000)
    answer = site.client.get(match_id)
    assert answer.match.status == ms.MATCH_STATUS_FINISHED
    assert board_cells(page) == server_cells(answer.match.view.grid)
    # The moves came once each and in order, across the drop.
    numbers = [int(n) for n in log.evaluate_all("items => items.map(i => i.value)")]
    plies = len(answer.record.history)
    assert numbers == list(range(plies, plies - len(numbers), -1))
    played = [notation(action) for action in reversed(answer.record.history)]
    assert [text.split(": ")[1] for text in log.all_inner_texts()] == played[: len(numbers)]


def notation(action: pb.Action) -> str:
    if action.board.HasField("pass_turn"):
        return "pass"
    square = action.board.square
    return f"{'abcdefgh'[square % 8]}{square // 8 + 1}"


def test_a_finished_match_opens_with_its_result(page: Page, site: Site) -> None:
    created = site.client.create_match("othello", ["random", "random"])
    match_id = created.match.match_id
    for _ in site.client.watch(match_id):  # to its end
        pass
    deadlines: dict[str, str | None] = {}  # method: its connect-timeout-ms header

    def note_deadline(request: Request) -> None:
        deadlines.setdefault(
            request.url.rsplit("/", 1)[-1], request.headers.get("connect-timeout-ms")
        )

    page.on("request", note_deadline)
    answer = site.client.get(match_id)
    assert answer.match.status == ms.MATCH_STATUS_FINISHED
    page.goto(f"/#/watch/{match_id}")
    expect(status(page)).to_have_text(re.compile(r"^Game over: (Black wins|White wins|a draw)\.$"))
    # It opens as its replay (tests/web/test_archive_page.py), at the end.
    plies = len(answer.record.history)
    expect(page.locator(".replay-position")).to_have_text(re.compile(f"^Move {plies} of {plies}: "))
    assert board_cells(page) == server_cells(answer.match.view.grid)
    # A unary call gives up after 15 s (the server sees that deadline too);
    # the match's stream, which lasts as long as a live match, has none.
    assert deadlines["GetMatch"] == "15000"
    assert deadlines["WatchMatch"] is None
