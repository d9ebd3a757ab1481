"""The page audited by axe-core (the engine browsers' accessibility tools
use, bundled by axe-playwright-python) against the WCAG 2.1 A and AA rules:
the home page (signed out, with the Your name form and a refused name),
the sign-in and name pages, and a match of each game, on a desktop and a
phone-sized screen. Keyboard play, names and patterns are tested where they are used
(test_play.py, test_page.py); this catches what those do not look for:
contrast, names of every control, landmarks, lists, ARIA misuse."""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.web.conftest import Site
from tests.web.pages import OVER, create_match, sign_in, status, wait_for_turn

AXE = Axe()
WCAG_21_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
GAMES = {
    "Rolit": {"Yellow": "Bot: random", "Green": "Bot: random", "Blue": "Bot: random"},
    "Othello": {"White": "Bot: random"},
    "Volleyball Returns": {"Player 2": "Bot: random"},
    "Volta": {"Player 2": "Bot: random"},
}


def violations(page: Page) -> list[str]:
    """Each rule broken, with the first elements that break it."""
    found = AXE.run(page, options=WCAG_21_AA).response["violations"]
    return [
        f"{rule['id']} ({rule['impact']}): {rule['help']}: "
        + "; ".join(str(node["target"]) for node in rule["nodes"][:5])
        for rule in found
    ]


@pytest.mark.parametrize("width", [1000, 375])
def test_no_screen_breaks_a_wcag_rule(new_page: Any, site: Site, width: int) -> None:
    page = new_page(width=width)
    page.goto("/")
    expect(page.get_by_role("button", name="Create match")).to_be_visible()
    broken = {"home, with the Your name form": violations(page)}
    name = page.get_by_role("textbox", name="Your name")
    name.fill("no <good>")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Could not sign in")
    broken["a refused name"] = violations(page)
    page.goto("/#/join/some-match")
    expect(page.get_by_role("heading", name="Join match some-match")).to_be_visible()
    broken["joining, with the Your name form"] = violations(page)
    sign_in(page)
    page.goto("/#/name")
    expect(page.get_by_role("heading", name="Change your name")).to_be_visible()
    broken["changing one's name"] = violations(page)
    for game, seats in GAMES.items():
        create_match(page, game, seats)
        wait_for_turn(page)
        broken[game] = violations(page)
    watched = site.client.create_match("othello", ["random", "random"]).match.match_id
    for _ in site.client.watch(watched):  # to its end
        pass
    page.goto(f"/#/watch/{watched}")
    expect(status(page)).to_have_text(OVER)
    broken["a finished match, watched"] = violations(page)
    assert broken == {screen: [] for screen in broken}, broken
