"""The home page as a game site's: Find a match (MatchmakingService: a
real matchmade match against a bot, or between two guests; Cancel; the
wait shown; errors in words), the leaderboard after a rated match, and the
live list's entries (the game, the players, the moves). Against a server
of this module's own whose matchmaker fills tables with bots after 2 s
(not 10), so a search with bots allowed ends quickly."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm
from playwright.sync_api import Locator, Page, expect

from services.client import MeepleClient, TicketHandle
from tests.services.conftest import serving
from tests.web.conftest import CLIENT_NAME, CLIENT_PLAYER, SITE_SETTINGS, Site
from tests.web.pages import sign_in, status, wait_for_turn
from tests.web.test_accessibility import violations

BOT_FILL_AFTER = 2.0
SEARCHING = re.compile(r"^Searching… \d:\d\d$")
MATCH_HEADING = re.compile(r"^Othello · match (\w+)$")
PLAYABLE = re.compile(r", playable")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """This module's server: bots fill a table after BOT_FILL_AFTER seconds,
    and it keeps an archive (the leaderboard's names come from it)."""
    settings = dataclasses.replace(
        SITE_SETTINGS,
        bot_fill_after=BOT_FILL_AFTER,
        data_dir=str(tmp_path_factory.mktemp("home-data")),
    )
    with serving(settings, workers=2, web_port=0) as served:
        client = MeepleClient(
            served.address, timeout=10, token=served.token(CLIENT_PLAYER, CLIENT_NAME)
        )
        yield Site(served, f"http://127.0.0.1:{served.app.web_port}/", client)
        client.close()


def panel(page: Page) -> Locator:
    return page.get_by_role("region", name="Find a match")


def player_id(page: Page) -> str:
    return str(page.evaluate("JSON.parse(localStorage.getItem('meeple:session')).playerId"))


def start_search(page: Page, game: str = "Othello", bots: bool = True) -> None:
    find = panel(page)
    find.get_by_label("Game to play").select_option(label=game)
    find.get_by_label("Allow bots").set_checked(bots)
    find.get_by_role("button", name="Find a match").click()
    expect(find.get_by_text(SEARCHING)).to_be_visible()


def opened_match(page: Page) -> str:
    """The matchmade match the page opened to play: its id."""
    heading = page.get_by_role("heading", name=MATCH_HEADING)
    expect(heading).to_be_visible()
    match_id = MATCH_HEADING.match(heading.text_content() or "")
    assert match_id, heading.text_content()
    assert page.url.endswith(f"#/play/{match_id.group(1)}")
    return match_id.group(1)


def players(page: Page) -> Locator:
    return page.get_by_role("list", name="Players")


def test_find_a_match_with_bots_against_a_bot(page: Page, site: Site) -> None:
    page.goto("/")
    sign_in(page, "Ada")
    find = panel(page)
    expect(find.get_by_label("Allow bots")).to_be_checked()  # on by default
    expect(find.get_by_role("group", name="Table sizes")).to_be_hidden()  # Rolit's only
    find.get_by_label("Game to play").select_option(label="Rolit")
    for size in (2, 3, 4):
        expect(find.get_by_label(f"{size} players")).to_be_checked()
    start_search(page, "Othello")
    expect(find.get_by_text("Othello, bots allowed")).to_be_visible()
    expect(find.get_by_text(re.compile(r"^Rating window: 25 ± [23]$"))).to_be_visible()
    expect(find.get_by_role("button", name="Cancel the search")).to_be_focused()

    # Alone in the queue, a bot fills the table after BOT_FILL_AFTER s.
    match_id = opened_match(page)
    me = player_id(page)
    match = site.client.get(match_id).match
    kinds = sorted(ms.SeatKind.Name(seat.kind) for seat in match.seats)
    assert kinds == ["SEAT_KIND_BOT", "SEAT_KIND_HUMAN"], match.seats
    (human,) = [seat for seat in match.seats if seat.kind == ms.SEAT_KIND_HUMAN]
    assert human.player_id == me
    colour = "Black" if human.index == 0 else "White"
    expect(players(page)).to_contain_text(f"{colour} (you)")
    # Seated with the assignment's seat token: the page plays.
    assert wait_for_turn(page)
    board = page.get_by_role("group", name=re.compile("^Board"))
    square = board.get_by_role("button", name=PLAYABLE).first
    name = (square.get_attribute("aria-label") or "").split(",")[0]
    square.click()
    expect(page.locator(".log")).to_contain_text(f"{colour}: {name}")


def search_ticket(page: Page) -> TicketHandle:
    """The ticket the page searches with (kept in the tab's sessionStorage)."""
    stored = page.evaluate("JSON.parse(sessionStorage.getItem('meeple:ticket'))")
    return TicketHandle(stored["ticketId"], stored["token"], "")


def test_cancel_ends_a_search(new_page: Any, site: Site) -> None:
    page = new_page()
    page.goto("/")
    sign_in(page, "Ada")
    start_search(page, bots=False)
    find = panel(page)
    expect(find.get_by_text("Othello, no bots")).to_be_visible()
    ticket = search_ticket(page)

    # A reload goes on with the same search.
    page.reload()
    expect(find.get_by_text(SEARCHING)).to_be_visible()
    assert search_ticket(page) == ticket

    # The same player in another tab: one queued ticket per queue.
    tab = new_page(tab_of=page)
    tab.goto("/")
    panel(tab).get_by_role("button", name="Find a match").click()
    expect(tab.get_by_role("alert")).to_have_text(
        re.compile(
            r"^Could not find a match: player '[\w-]+' has a queued ticket in this queue "
            r"already: .*\(FAILED_PRECONDITION: not allowed now\)\.$"
        )
    )
    expect(panel(tab).get_by_text(SEARCHING)).to_have_count(0)

    with page.expect_response(re.compile(r"/meeple\.v1\.MatchmakingService/CancelTicket$")) as got:
        find.get_by_role("button", name="Cancel the search").click()
    answer = mm.CancelTicketResponse.FromString(got.value.body())
    assert answer.ticket.status == mm.TICKET_STATUS_CANCELLED
    expect(find.get_by_text("Search cancelled.")).to_be_visible()
    expect(find.get_by_role("button", name="Find a match")).to_be_visible()
    expect(find.get_by_text(SEARCHING)).to_be_hidden()
    # The server's ticket ended so.
    request = mm.WatchTicketRequest(ticket_id=ticket.ticket_id)
    events = site.client.tickets.WatchTicket(request, metadata=ticket.metadata, timeout=10)
    snapshot = next(iter(events))
    assert snapshot.snapshot.status == mm.TICKET_STATUS_CANCELLED
    # Nothing stays queued: the other tab now finds a match.
    start_search(tab, bots=False)
    panel(tab).get_by_role("button", name="Cancel the search").click()
    expect(panel(tab).get_by_role("button", name="Find a match")).to_be_visible()


def two_guests_matched(new_page: Any, site: Site) -> tuple[Page, Page, str]:
    """Ada and Bob, two browsers, search Othello without bots: the same match."""
    ada, bob = new_page(), new_page()
    for page, name in ((ada, "Ada"), (bob, "Bob")):
        page.goto("/")
        sign_in(page, name)
    start_search(ada, bots=False)
    start_search(bob, bots=False)
    match_id = opened_match(ada)
    assert opened_match(bob) == match_id
    return ada, bob, match_id


def test_two_guests_searching_without_bots_are_matched(new_page: Any, site: Site) -> None:
    ada, bob, match_id = two_guests_matched(new_page, site)
    match = site.client.get(match_id).match
    assert all(seat.kind == ms.SEAT_KIND_HUMAN for seat in match.seats)
    assert sorted(seat.player_id for seat in match.seats) == sorted(
        [player_id(ada), player_id(bob)]
    )
    by_name = {seat.display_name: "Black" if seat.index == 0 else "White" for seat in match.seats}
    expect(players(ada)).to_contain_text(f"{by_name['Ada']} (you)")
    expect(players(ada)).to_contain_text(f"{by_name['Bob']} (Bob)")
    expect(players(bob)).to_contain_text(f"{by_name['Bob']} (you)")
    expect(players(bob)).to_contain_text(f"{by_name['Ada']} (Ada)")
    expect(status(ada)).to_have_text(re.compile(r"^(Your turn \(Black\)|Black to play)\.$"))


def leaderboard(page: Page) -> Locator:
    return page.get_by_role("region", name="Leaderboard")


def test_the_leaderboard_after_a_rated_match(new_page: Any, site: Site) -> None:
    ada, bob, _ = two_guests_matched(new_page, site)
    bob.get_by_role("button", name="Resign").click()
    bob.get_by_role("button", name="Yes, resign").click()
    expect(status(ada)).to_have_text(re.compile(r"resigned\. \w+ \(you\) wins\.$"))
    ada_id, bob_id = player_id(ada), player_id(bob)
    deadline = time.monotonic() + 10
    while not {ada_id, bob_id} <= {r.player_id for r in site.client.leaderboard("othello", None)}:
        assert time.monotonic() < deadline, "the match was not rated"
        time.sleep(0.1)

    ada.goto("/")
    board = leaderboard(ada)
    expect(board.get_by_label("Leaderboard for")).to_have_value(str(pb.GAME_KIND_OTHELLO))
    table = board.get_by_role("table", name="Othello leaderboard")
    expect(table.get_by_role("columnheader")).to_have_text(["Rank", "Player", "Rating", "Matches"])
    ada_row = table.get_by_role("row").filter(has_text=f"id {ada_id}")
    bob_row = table.get_by_role("row").filter(has_text=f"id {bob_id}")
    expect(ada_row).to_contain_text("Ada (you)")
    ada_cells = ada_row.get_by_role("cell").all_inner_texts()
    bob_cells = bob_row.get_by_role("cell").all_inner_texts()
    assert int(ada_cells[0]) < int(bob_cells[0]), (ada_cells, bob_cells)  # the winner ranks higher
    ratings = {r.player_id: r for r in site.client.leaderboard("othello", None)}
    assert ada_cells[2:] == [str(round(ratings[ada_id].ordinal)), "1"]
    assert bob_cells[2:] == [str(round(ratings[bob_id].ordinal)), "1"]
    # Bob's name, from his match in the archive (written a moment after its end).
    deadline = time.monotonic() + 10
    while "Bob" not in bob_row.inner_text():
        assert time.monotonic() < deadline, bob_row.inner_text()
        time.sleep(0.3)
        ada.reload()

    # A game nobody has played rated: the empty state.
    leaderboard(ada).get_by_label("Leaderboard for").select_option(label="Volta")
    expect(leaderboard(ada)).to_contain_text("No rated Volta players yet")
    expect(leaderboard(ada).get_by_role("table")).to_be_hidden()


def test_the_live_list_names_the_game_players_and_moves(new_page: Any, site: Site) -> None:
    created = site.client.create_match("othello", ["human", "human"]).match.match_id
    tess = site.client.join(created, seat=0)
    olga_client = MeepleClient(
        site.served.address, timeout=10, token=site.served.token("olga", "Olga")
    )
    try:
        olga = olga_client.join(created, seat=1)
        got = site.client.wait_for_turn(tess)
        assert got is not None
        move = site.client.legal_actions(got.record).actions[0].action
        site.client.submit(tess, 0, [move])

        page = new_page()
        page.goto("/")
        live = page.get_by_role("region", name="Live matches")
        live.get_by_label("Show").select_option(label="Othello")
        item = live.get_by_role("listitem").filter(has_text=f"match {created}")
        expect(item).to_contain_text("Othello")
        expect(item.locator(".live-players")).to_have_text(f"{CLIENT_NAME} and Olga")
        expect(item.locator(".live-moves")).to_have_text("1 move")
        expect(item.locator(".live-time")).to_have_text("under a minute")  # since it started
        label = f"Watch Othello for 2: {CLIENT_NAME} and Olga; 1 move played, for under a minute"
        expect(item.get_by_role("link", name=label)).to_be_visible()

        got = olga_client.wait_for_turn(olga)
        assert got is not None
        move = olga_client.legal_actions(got.record).actions[0].action
        olga_client.submit(olga, 1, [move])
        live.get_by_role("button", name="Refresh").click()
        expect(item.locator(".live-moves")).to_have_text("2 moves")
    finally:
        olga_client.close()


def rated_players(site: Site, game: str, count: int) -> list[str]:
    """``count`` new players, matched in pairs through tickets (by gRPC),
    the first seat of each match resigning: rated in ``game``."""

    def play(index: int) -> str:
        player = f"{game}-{index}-{time.monotonic_ns()}"
        token = site.served.token(player, f"P{index}")
        with MeepleClient(site.served.address, timeout=10, token=token) as client:
            seat = client.wait_for_match(client.create_ticket(game)).seat
            if seat.seat == 0:
                client.resign(seat)
        return player

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(play, range(count)))


def test_the_leaderboard_pages_with_more(page: Page, site: Site) -> None:
    rated = set(rated_players(site, "volleyball", 12))
    deadline = time.monotonic() + 10
    while not rated <= {r.player_id for r in site.client.leaderboard("volleyball", None)}:
        assert time.monotonic() < deadline, "the matches were not rated"
        time.sleep(0.1)
    total = len(site.client.leaderboard("volleyball", None))
    page.goto("/")
    board = leaderboard(page)
    board.get_by_label("Leaderboard for").select_option(label="Volleyball Returns")
    rows = board.get_by_role("table", name="Volleyball Returns leaderboard").get_by_role("row")
    expect(rows).to_have_count(1 + 10)  # the header, a page
    board.get_by_role("button", name="More of the leaderboard").click()
    expect(rows).to_have_count(1 + total)
    expect(board.get_by_role("button", name="More of the leaderboard")).to_have_count(0)
    ranks = [int(text) for text in rows.locator("td.rank").all_inner_texts()]
    assert ranks == list(range(1, total + 1))


@pytest.mark.parametrize("width", [1000, 375])
def test_the_home_panels_break_no_wcag_rule(new_page: Any, site: Site, width: int) -> None:
    page = new_page(width=width)
    page.goto("/")
    sign_in(page, "Ada")
    expect(panel(page).get_by_role("button", name="Find a match")).to_be_visible()
    board = leaderboard(page)
    expect(
        board.get_by_role("table").or_(board.get_by_text(re.compile("^No rated")))
    ).to_be_visible()
    broken = {"home, signed in": violations(page)}
    panel(page).get_by_label("Game to play").select_option(label="Rolit")
    broken["Rolit's table sizes"] = violations(page)
    start_search(page, "Othello", bots=False)
    broken["searching"] = violations(page)
    panel(page).get_by_role("button", name="Cancel the search").click()
    expect(panel(page).get_by_text("Search cancelled.")).to_be_visible()
    broken["cancelled"] = violations(page)
    if width == 375:
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert broken == {screen: [] for screen in broken}, broken
