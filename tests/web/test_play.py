"""Whole games through the page against the server's random bots: Rolit for
four, Othello, Volleyball Returns with both variants and Volta; the board on
screen is checked against the server's own state."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from meeple.v1 import match_service_pb2 as ms
from playwright.sync_api import Page, expect

from tests.web.conftest import Site
from tests.web.pages import (
    board_cells,
    create_match,
    server_cells,
    shoot,
    status,
    wait_for_turn,
)

PLAYABLE = re.compile(r", playable")


def test_rolit_for_four_against_random_bots(page: Page, site: Site, screenshots: Path) -> None:
    match_id = create_match(
        page,
        "Rolit",
        {"Yellow": "Bot: random", "Green": "Bot: random", "Blue": "Bot: random"},
        first="Red",
    )
    expect(status(page)).to_have_text("Your turn (Red).")
    players = page.get_by_role("list", name="Players")
    expect(players).to_contain_text("Red (you)")
    expect(players).to_contain_text(re.compile(r"Red \(you\)\s*score 1\s*clock \d:\d\d running"))
    expect(players).to_contain_text("Blue (bot: random)")
    board = page.get_by_role("group", name=re.compile("^Board"))

    # The first move by keyboard: Tab reaches the board (one tab stop), the
    # arrows move between squares, Enter plays.
    for _ in range(10):
        page.keyboard.press("Tab")
        if board.locator(":focus").count():
            break
    else:
        raise AssertionError("Tab never reached the board")
    expect(board.locator("button[tabindex='0']")).to_have_count(1)
    names = board.get_by_role("button").evaluate_all(
        "buttons => buttons.map(b => b.getAttribute('aria-label'))"
    )
    target = next(i for i, name in enumerate(names) if PLAYABLE.search(name))
    for _ in range(target // 8):
        page.keyboard.press("ArrowDown")
    for _ in range(target % 8):
        page.keyboard.press("ArrowRight")
    expect(board.locator(":focus")).to_have_attribute("aria-label", names[target])
    page.keyboard.press("Enter")
    square = names[target].split(",")[0]
    expect(page.locator(".log")).to_contain_text(f"Red: {square}")

    # A hint points at a playable square.
    assert wait_for_turn(page)
    page.get_by_role("button", name="Hint", exact=True).click()
    turn = page.get_by_role("region", name="Your turn")
    expect(turn.get_by_text(re.compile(r"^Hint \(medium\): [a-h][1-8] \(thought"))).to_be_visible()
    expect(board.get_by_role("button", name=re.compile(", playable, hinted$"))).to_have_count(1)

    # What the screen shows is the server's board, while it waits for us.
    shown = board_cells(page)
    answer = site.client.get(match_id)
    assert answer.match.view.seat_to_act == 0
    assert shown == server_cells(answer.match.view.grid)

    moves = 1
    while wait_for_turn(page):
        board.get_by_role("button", name=PLAYABLE).first.click()
        moves += 1
        assert moves <= 15, "Red placed more than its 15 balls"
    answer = site.client.get(match_id)
    assert answer.match.status == ms.MATCH_STATUS_FINISHED
    assert len(answer.record.history) == 60
    assert board_cells(page) == server_cells(answer.match.view.grid)
    expect(status(page)).to_have_text(re.compile(r"^Game over: .* (wins|share the win)\.$"))
    scores = list(answer.match.view.scores)
    expect(players).to_contain_text(f"Red (you)score {scores[0]}")
    shoot(page, screenshots, "rolit")


def test_othello_against_a_random_bot(page: Page, site: Site, screenshots: Path) -> None:
    match_id = create_match(page, "Othello", {"White": "Bot: random"})
    board = page.get_by_role("group", name=re.compile("^Board"))
    passes = 0
    while wait_for_turn(page):
        playable = board.get_by_role("button", name=PLAYABLE)
        if playable.count():
            playable.first.click()
        else:  # no capture: the only legal move is the pass
            expect(page.get_by_label("Legal moves")).to_have_text("pass")
            page.get_by_role("button", name="Play", exact=True).click()
            passes += 1
    answer = site.client.get(match_id)
    assert answer.match.status == ms.MATCH_STATUS_FINISHED
    assert board_cells(page) == server_cells(answer.match.view.grid)
    black, white = answer.match.view.scores
    expect(page.get_by_role("list", name="Players")).to_contain_text(f"Black (you)score {black}")
    expect(page.get_by_role("list", name="Players")).to_contain_text(f"White (bot: random)score {white}")
    shoot(page, screenshots, "othello")
