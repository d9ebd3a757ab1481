"""The page around the games: errors in words, inviting and joining by
link, the clocks, resigning, and a phone-sized screen."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.web.conftest import Site
from tests.web.pages import (
    board_cells,
    create_match,
    server_cells,
    shoot,
    sign_in,
    status,
    wait_for_turn,
)

PLAYABLE = re.compile(r", playable")


def test_server_errors_are_shown_in_words(page: Page) -> None:
    page.goto("/#/watch/no-such-match")
    expect(page.get_by_role("heading", name="Match unavailable")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_text(
        re.compile(
            r"^Could not open the match: .*\(NOT_FOUND: no such match \(or it expired\)\)\.$"
        )
    )
    # Joining asks for a name first, then says the match is not there.
    page.goto("/#/join/no-such-match")
    expect(page.get_by_role("heading", name="Join match no-such-match")).to_be_visible()
    sign_in(page)
    expect(page.get_by_role("alert")).to_have_text(
        re.compile(r"^Could not join the match: .*NOT_FOUND")
    )

    page.goto("/")
    page.get_by_label("Game", exact=True).select_option(label="Othello")
    page.get_by_label("White is played by").select_option(label="Bot: custom spec")
    page.get_by_label("White's bot spec").fill("alphabeta:depth=99")
    page.get_by_role("button", name="Create match").click()
    expect(page.get_by_role("alert")).to_have_text(
        re.compile(
            r"^Could not create the match: seats\[1\]\.bot_spec: "
            r"depth must be at most 8 for othello, got .99. \(INVALID_ARGUMENT"
        )
    )


def clock_seconds(page: Page, seat: str) -> float:
    text = page.get_by_role("list", name="Players").inner_text()
    found = re.search(rf"{seat} \([^)]*\)\s*score \d+\s*clock (\d+):(\d\d(?:\.\d)?)", text)
    assert found, text
    return int(found.group(1)) * 60 + float(found.group(2))


def test_invite_join_by_link_clocks_and_resign(new_page: Any) -> None:
    host = new_page()
    create_match(host, "Othello", {"White": "Someone you invite"})
    expect(status(host)).to_have_text("Waiting for 1 more player to join.")
    link = host.get_by_label("Invite others with this link").input_value()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/#/join/\w+", link)

    guest = new_page()
    guest.goto(link)  # a new browser: a name first, then the seat
    sign_in(guest, "Bob")
    expect(status(guest)).to_have_text("Black to play.")
    expect(guest.get_by_role("list", name="Players")).to_contain_text("White (you)")
    expect(guest.get_by_role("list", name="Players")).to_contain_text("Black (Ada)")
    expect(status(host)).to_have_text("Your turn (Black).")
    expect(host.get_by_role("list", name="Players")).to_contain_text("White (Bob)")

    # Black's clock runs on both screens; White's waits at its full time.
    expect(host.get_by_role("list", name="Players")).to_contain_text(
        re.compile(r"Black \(you\)\s*score 2\s*clock \d:\d\d running")
    )
    first = clock_seconds(host, "Black")
    time.sleep(1.2)
    assert 0.5 < first - clock_seconds(host, "Black") < 3
    assert clock_seconds(guest, "White") == 300

    assert wait_for_turn(host)
    board = host.get_by_role("group", name=re.compile("^Board"))
    square = board.get_by_role("button", name=PLAYABLE).first
    name = (square.get_attribute("aria-label") or "").split(",")[0]
    square.click()
    expect(guest.locator(".log")).to_contain_text(f"Black: {name}")
    expect(status(guest)).to_have_text("Your turn (White).")

    guest.get_by_role("button", name="Resign").click()
    guest.get_by_role("button", name="Yes, resign").click()
    expect(status(guest)).to_have_text("White (you) resigned. Black wins.")
    expect(status(host)).to_have_text("White resigned. Black (you) wins.")


def test_a_phone_sized_screen_and_undo(new_page: Any, screenshots: Path) -> None:
    phone = new_page(width=375, height=740)
    phone.goto("/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    create_match(
        phone,
        "Volleyball Returns",
        {"Player 2": "Bot: random"},
        first="Player 1",
        checks=("Big Leagues",),
    )
    assert wait_for_turn(phone)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    court = phone.get_by_role("group", name="Court")
    square = court.get_by_role("button", name=re.compile("place a piece here")).first
    box = square.bounding_box()
    assert box is not None
    assert box["width"] >= 18, box
    name = (square.get_attribute("aria-label") or "").split(":")[0]
    square.click()  # a tap-sized square works
    expect(phone.get_by_text(re.compile("^Planned, not yet sent: place"))).to_be_visible()
    placed = court.get_by_role("button", name=re.compile(f"^{name}: Player 1 piece"))
    expect(placed).to_be_visible()
    shoot(phone, screenshots, "phone")
    phone.get_by_role("button", name="Undo last").click()
    expect(phone.get_by_text(re.compile("^Planned, not yet sent"))).to_have_count(0)
    expect(court.get_by_role("button", name=f"{name}: empty, place a piece here")).to_be_visible()
    expect(phone.get_by_role("heading", name="Your turn", exact=True)).to_be_visible()


def test_rolit_for_two_and_three_players(page: Page, site: Site) -> None:
    """Two players play red and green (sitting diagonally), three red,
    yellow and green; the unused colours' balls stay on the board."""
    for players, colours in ((2, ["Red", "Green"]), (3, ["Red", "Yellow", "Green"])):
        bots = dict.fromkeys(colours[1:], "Bot: random")
        match_id = create_match(page, "Rolit", bots, first="Red", players=players)
        listed = page.get_by_role("list", name="Players").get_by_role("listitem")
        expect(listed).to_have_count(players)
        for item, colour in zip(listed.all(), colours, strict=True):
            expect(item).to_contain_text(f"{colour} (")
        grid = site.client.get(match_id).match.view.grid
        assert [grid.colours[c].capitalize() for c in grid.seat_colours] == colours
        assert board_cells(page) == server_cells(grid)  # four balls, neutral ones included
        assert wait_for_turn(page)
        page.get_by_role("group", name=re.compile("^Board")).get_by_role(
            "button", name=PLAYABLE
        ).first.click()
        expect(page.locator(".log")).to_contain_text("Red: ")
