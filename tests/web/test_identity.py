"""Who plays from a browser: a guest signed in with the "Your name" form,
shared by every tab of the browser (its session in localStorage) and
refreshed as its access token expires; names on seats and in the live
list; a seat that follows its player to another device and another tab."""

from __future__ import annotations

import re
import time
from typing import Any

from meeple.v1 import match_service_pb2 as ms
from playwright.sync_api import Page, Request, expect

from tests.identities import token_for
from tests.web.conftest import CLIENT_NAME, Site
from tests.web.pages import create_match, sign_in, signed_in_as, status, wait_for_turn

PLAYABLE = re.compile(r", playable")
SESSION_KEY = "meeple:session"
NAME_RULE = "display_name: 1 to 24 letters, digits, spaces and - _ . ' (no space at either end)"


def stored_session(page: Page) -> Any:
    return page.evaluate(f"JSON.parse(localStorage.getItem('{SESSION_KEY}'))")


def store_session(page: Page, session: Any) -> None:
    page.evaluate(
        "([key, session]) => localStorage.setItem(key, JSON.stringify(session))",
        [SESSION_KEY, session],
    )


def players(page: Page) -> Any:
    return page.get_by_role("list", name="Players")


def play_a_square(page: Page) -> str:
    """Plays the first playable square on the viewer's turn; its name."""
    assert wait_for_turn(page)
    board = page.get_by_role("group", name=re.compile("^Board"))
    square = board.get_by_role("button", name=PLAYABLE).first
    name = (square.get_attribute("aria-label") or "").split(",")[0]
    square.click()
    expect(page.locator(".log")).to_contain_text(f"White: {name}")
    return name


def calls(requests: list[Request], method: str) -> list[Request]:
    return [r for r in requests if r.url.endswith(f"/meeple.v1.{method}")]


def statuses(requests: list[Request]) -> list[int | None]:
    """Each request's HTTP status (401 for UNAUTHENTICATED), None if unanswered."""
    return [answer.status if (answer := r.response()) else None for r in requests]


def test_a_seat_follows_its_player_to_another_device_and_tab(new_page: Any, site: Site) -> None:
    """Tess (the tests' gRPC client) takes Black; Ada joins White by the
    link in one browser. The same player on another device (a copy of the
    browser's storage: its session, not the tab's seat token) and in a
    second tab of the first browser is "you" on White, gets the seat's
    token again (JoinMatch, no owner token) and plays."""
    match_id = site.client.create_match("othello", ["human", "human"]).match.match_id
    black = site.client.join(match_id, seat=0)
    first = new_page()
    first.goto(f"/#/join/{match_id}")
    expect(first.get_by_role("heading", name=f"Join match {match_id}")).to_be_visible()
    sign_in(first, "Ada")
    expect(players(first)).to_contain_text("White (you)")
    expect(players(first)).to_contain_text(f"Black ({CLIENT_NAME})")
    expect(status(first)).to_have_text("Black to play.")

    def tess_plays() -> None:
        got = site.client.wait_for_turn(black)
        assert got is not None
        move = site.client.legal_actions(got.record).actions[0].action
        site.client.submit(black, len(got.record.history), [move])

    tess_plays()
    device = new_page(storage_state=first.context.storage_state())
    sent: list[Request] = []
    device.on("request", lambda request: sent.append(request))
    device.goto(f"/#/watch/{match_id}")  # from the live list, say: one's own match is played
    expect(players(device)).to_contain_text("White (you)")
    expect(status(device)).to_have_text("Your turn (White).")
    assert device.url.endswith(f"#/play/{match_id}")
    played = [play_a_square(device)]
    (join,) = calls(sent, "MatchService/JoinMatch")
    headers = join.all_headers()
    assert headers["authorization"].startswith("Bearer ")
    assert "meeple-owner-token" not in headers
    assert ms.JoinMatchRequest.FromString(join.post_data_buffer or b"").seat == 1

    tess_plays()
    tab = new_page(tab_of=first)
    tab.goto(f"/#/play/{match_id}")
    expect(players(tab)).to_contain_text("White (you)")
    expect(status(tab)).to_have_text("Your turn (White).")
    played.append(play_a_square(tab))

    # The first tab saw it all, still "you".
    for name in played:
        expect(first.locator(".log")).to_contain_text(f"White: {name}")
    expect(players(first)).to_contain_text("White (you)")
    answer = site.client.get(match_id)
    assert len(answer.record.history) == 4
    assert [seat.display_name for seat in answer.match.seats] == [CLIENT_NAME, "Ada"]


def test_names_on_seats_and_in_the_live_list(new_page: Any) -> None:
    host = new_page()
    host.goto("/")
    sign_in(host, "Ada Lovelace")
    match_id = create_match(host, "Othello", {"White": "Someone you invite"})
    guest = new_page()
    guest.goto(host.get_by_label("Invite others with this link").input_value())
    sign_in(guest, "Bob O'Neil")
    expect(players(guest)).to_contain_text("Black (Ada Lovelace)")
    expect(players(guest)).to_contain_text("White (you)")
    expect(players(host)).to_contain_text("Black (you)")
    expect(players(host)).to_contain_text("White (Bob O'Neil)")

    # A spectator needs no name, and reads the players' names.
    watcher = new_page()
    watcher.goto("/")
    expect(signed_in_as(watcher)).to_have_text("Not signed in Sign in")
    watcher.get_by_label("Show").select_option(label="Othello")
    listed = "Othello for 2: Ada Lovelace and Bob O'Neil; 0 moves played"
    watch = watcher.get_by_role("link", name=f"Watch {listed}")
    expect(watch).to_be_visible()
    watch.click()
    expect(watcher.get_by_role("heading", name=f"Othello · match {match_id}")).to_be_visible()
    expect(players(watcher)).to_contain_text("Black (Ada Lovelace)")
    expect(players(watcher)).to_contain_text("White (Bob O'Neil)")

    # The player's own match is listed as its, to play.
    host.goto("/")
    host.get_by_label("Show").select_option(label="Othello")
    mine = "Othello for 2: Ada Lovelace (you) and Bob O'Neil; 0 moves played"
    host.get_by_role("link", name=f"Play {mine}").click()
    expect(status(host)).to_have_text("Your turn (Black).")
    expect(players(host)).to_contain_text("Black (you)")


def test_every_tab_is_the_same_player_and_a_new_name_a_new_guest(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    sign_in(page, "Ada")
    before = stored_session(page)["playerId"]
    tab = new_page(tab_of=page)
    tab.goto("/")
    expect(signed_in_as(tab)).to_have_text("Playing as Ada Change name")
    expect(tab.get_by_role("form", name="Your name")).to_have_count(0)

    page.get_by_role("link", name="Change name").click()
    expect(page.get_by_role("heading", name="Change your name")).to_be_visible()
    name = page.get_by_role("textbox", name="Your name")
    expect(name).to_have_value("Ada")
    name.fill("Bea")
    page.get_by_role("button", name="Sign in").click()
    expect(signed_in_as(page)).to_have_text("Playing as Bea Change name")
    expect(page.get_by_role("button", name="Create match")).to_be_visible()  # back home
    expect(signed_in_as(tab)).to_have_text("Playing as Bea Change name")  # the other tab too
    assert stored_session(page)["playerId"] != before


def test_an_expired_access_token_is_refreshed(page: Page, site: Site) -> None:
    page.goto("/")
    sign_in(page, "Ada")
    session = stored_session(page)
    player = session["playerId"]
    expired = token_for(site.served.app, player, "Ada", seconds=-120)
    now_ms = time.time() * 1000
    sent: list[Request] = []
    page.on("request", lambda request: sent.append(request))

    # Known to be expired: refreshed before the call.
    store_session(page, {**session, "accessToken": expired, "accessExpires": now_ms - 120_000})
    create_match(page, "Othello", {"White": "Bot: random"})
    assert [r.url.rsplit("/", 1)[1] for r in sent if "/meeple.v1.AuthService/" in r.url] == [
        "RefreshSession"
    ]
    assert statuses(calls(sent, "MatchService/CreateMatch")) == [200]
    renewed = stored_session(page)
    assert renewed["playerId"] == player
    assert renewed["accessToken"] != expired
    assert renewed["accessExpires"] > time.time() * 1000 + 30 * 60_000
    expect(players(page)).to_contain_text("Black (you)")

    # Expired though the page thinks not (a clock off the server's): the
    # server refuses it, the page refreshes once and calls again (here the
    # home page's first call for the player, My games' ListPlayerMatches).
    sent.clear()
    store_session(page, {**renewed, "accessToken": expired})
    page.goto("/")
    expect(page.get_by_role("region", name="My games").get_by_role("listitem")).to_have_text(
        ["No finished games yet."]
    )
    create_match(page, "Othello", {"White": "Bot: random"})
    assert statuses(calls(sent, "ArchiveService/ListPlayerMatches")) == [401, 200, 200]
    assert statuses(calls(sent, "MatchService/CreateMatch")) == [200]
    assert len(calls(sent, "AuthService/RefreshSession")) == 1
    assert stored_session(page)["accessToken"] != expired

    # In the background, a little before it expires, with no call to make.
    sent.clear()
    soon = {**stored_session(page), "accessExpires": time.time() * 1000 + 5_000}
    store_session(page, soon)
    page.reload()
    page.wait_for_function(
        "([key, soon]) => JSON.parse(localStorage.getItem(key)).accessExpires > soon + 60000",
        arg=[SESSION_KEY, soon["accessExpires"]],
    )
    assert len(calls(sent, "AuthService/RefreshSession")) == 1
    assert stored_session(page)["playerId"] == player


def test_a_refused_refresh_token_asks_for_a_name_again(page: Page) -> None:
    page.goto("/")
    sign_in(page, "Ada")
    session = stored_session(page)
    store_session(page, {**session, "refreshToken": "not.a.token", "accessExpires": 0})
    page.reload()
    expect(signed_in_as(page)).to_have_text("Not signed in Sign in")
    form = page.get_by_role("form", name="Your name")
    expect(form.get_by_label("Your name")).to_have_value("Ada")  # offered again
    assert stored_session(page) is None
    # An expired refresh token is not even sent.
    sign_in(page, "Ada")
    again = stored_session(page)
    assert again["playerId"] != session["playerId"]  # a new guest
    store_session(page, {**again, "refreshExpires": 0, "accessExpires": 0})
    page.get_by_role("button", name="Create match").click()
    expect(page.get_by_role("alert")).to_have_text(
        "Could not create the match: your sign-in has expired: choose your name to sign in "
        "(UNAUTHENTICATED: not signed in, or no seat held here)."
    )
    expect(signed_in_as(page)).to_have_text("Not signed in Sign in")


def test_a_bad_display_name_shows_the_servers_rule(page: Page) -> None:
    page.goto("/")
    form = page.get_by_role("form", name="Your name")
    form.get_by_label("Your name").fill("Ada <3")
    form.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text(
        f"Could not sign in: {NAME_RULE} (INVALID_ARGUMENT: the request was malformed)."
    )
    expect(form.get_by_label("Your name")).to_be_focused()
    expect(signed_in_as(page)).to_have_text("Not signed in Sign in")
    assert stored_session(page) is None
    sign_in(page, "Ada")  # a good one works
