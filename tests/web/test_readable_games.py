"""Volta and Volleyball Returns read and played as people do: at a desktop
(1280x800) and a phone (375x812) size the arena and the Flick button are in
one view, before and after a flick (no jump scrolls the arena away); flicks
are written in words (side, offset in %, angle in degrees, impulse in
mN·s) in the move log and hints, and a Volta hint is drawn as an arrow on
the arena; a Volleyball point says why it ended, a step hint marks the
piece and its target, and a phone's court squares are at least 40 px."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import Site
from tests.web.pages import create_match, play_hint, wait_for_turn
from tests.web.test_accessibility import violations

VIEWPORTS = [(1280, 800), (375, 812)]
# A flick as people read it, e.g. "flick +x side, offset +12%, angle -5°, 45 mN·s".
FLICK = r"flick [+-][xy] side, offset [+-]\d+%, angle [+-]?\d+°, \d+ mN·s"
LONG_FLOAT = re.compile(r"\d\.\d{4,}")
# Six squares of a 6x3 side of which no two touch: no line of three, so no return.
NO_LINE = ("1,1", "1,3", "3,1", "3,3", "5,1", "5,3")
# A hint from a bot may think for a while.
HINT_TIMEOUT_MS = 30_000


def viewport_box(page: Page) -> tuple[float, float]:
    width, height = page.evaluate("[innerWidth, innerHeight]")
    return float(width), float(height)


def in_view(page: Page, *locators: Locator) -> list[str]:
    """What of each locator lies outside the viewport (empty: all in view)."""
    width, height = viewport_box(page)
    outside = []
    for locator in locators:
        box = locator.bounding_box()
        assert box is not None, f"{locator} is not shown"
        if box["x"] < -0.5 or box["y"] < -0.5:
            outside.append(f"{locator}: starts at {box['x']:.0f},{box['y']:.0f}")
        if box["x"] + box["width"] > width + 0.5 or box["y"] + box["height"] > height + 0.5:
            outside.append(
                f"{locator}: ends at {box['x'] + box['width']:.0f},{box['y'] + box['height']:.0f}"
            )
    return outside


def scroll_to(page: Page, locator: Locator) -> None:
    """Scrolls the page as a person would, so the locator's top is at the window's top."""
    locator.evaluate(
        "element => window.scrollTo(0, element.getBoundingClientRect().top + scrollY - 4)"
    )


@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_volta_arena_and_flick_button_in_one_view_flicks_in_words(
    new_page: Any, site: Site, width: int, height: int
) -> None:
    page: Page = new_page(width=width, height=height)
    create_match(page, "Volta", {"Player 2": "Bot: random"}, first="Player 1")
    assert wait_for_turn(page)
    canvas = page.get_by_role("img", name=re.compile("^Player 1's steed"))
    flick = page.get_by_role("button", name="Flick", exact=True)
    expect(flick).to_be_enabled()
    if width < 500:
        scroll_to(page, canvas)  # on a phone one scrolls down to the arena
    else:
        assert page.evaluate("scrollY") == 0  # on a desktop without scrolling
    assert in_view(page, canvas, flick) == []

    # A hint: its words in the turn panel and by the arena, its arrow drawn
    # on the arena (an SVG path over the canvas), and the aim set to it.
    turn = page.get_by_role("region", name="Your turn")
    turn.get_by_label("Hint from bot").select_option("easy")
    turn.get_by_role("button", name="Hint", exact=True).click()
    hint = turn.get_by_text(re.compile(rf"^Hint \(easy\): {FLICK} \(thought"))
    expect(hint).to_be_visible(timeout=HINT_TIMEOUT_MS)
    assert not LONG_FLOAT.search(hint.inner_text()), hint.inner_text()
    expect(
        page.get_by_text(re.compile(r"^Hint: push the [+-][xy] side, offset [+-]\d+%"))
    ).to_be_visible()
    arrow = page.locator(".arena-overlay .hint-arrow")
    expect(arrow.locator("path")).to_have_count(2)
    arrow_box, canvas_box = arrow.bounding_box(), canvas.bounding_box()
    assert arrow_box is not None
    assert canvas_box is not None
    assert arrow_box["width"] > 8 or arrow_box["height"] > 8, arrow_box  # an arrow, not a dot
    assert canvas_box["x"] <= arrow_box["x"]
    assert arrow_box["x"] + arrow_box["width"] <= canvas_box["x"] + canvas_box["width"]
    assert canvas_box["y"] <= arrow_box["y"]
    assert arrow_box["y"] + arrow_box["height"] <= canvas_box["y"] + canvas_box["height"]
    expect(canvas).to_have_attribute(
        "aria-label", re.compile(r"Hint drawn: push the [+-][xy] side")
    )
    assert violations(page) == []

    # Flicking (the hint): the arena stays where it was, in view with the
    # button, while the flick plays back and after.
    scroll_to(page, canvas) if width < 500 else None
    assert in_view(page, canvas, flick) == []
    scroll_y = page.evaluate("scrollY")
    flick.click()
    expect(page.get_by_text(re.compile(r"^(Playing the flick back|Last flick): "))).to_be_visible()
    assert in_view(page, canvas, flick) == []
    assert page.evaluate("scrollY") == scroll_y
    expect(arrow).to_have_count(0)  # the hint was for the position before
    expect(page.get_by_text(re.compile(r"^Last flick: \d\.\d\d s"))).to_be_visible()
    assert in_view(page, canvas, flick) == []
    assert page.evaluate("scrollY") == scroll_y

    # The move log writes the flick (and the bot's) in words.
    log = page.get_by_role("list", name="Moves")
    expect(log).to_contain_text(re.compile(rf"Player 1: {FLICK}"))
    expect(
        page.get_by_text(re.compile(rf"^Player 1 flicked the {FLICK.removeprefix('flick ')}\.$"))
    ).to_be_visible()
    assert not LONG_FLOAT.search(log.inner_text()), log.inner_text()
    assert wait_for_turn(page)
    assert in_view(page, canvas, flick) == [] or width < 500  # a phone may have moved on
    if width < 500:
        scroll_to(page, canvas)
        assert in_view(page, canvas, flick) == []


def court_square(page: Page, name: str) -> Locator:
    return page.get_by_role("group", name="Court").get_by_role("button", name=re.compile(name))


def test_volleyball_points_explained_and_step_hints_marked(page: Page, site: Site) -> None:
    """The bot serves; Player 1 places with no line of three and ends its
    receive at once: the point's reason is said in words (live region and
    move log). Then Player 1 places and receives as hints say, until a hint
    is a step: it marks the piece and its target."""
    create_match(page, "Volleyball Returns", {"Player 2": "Bot: random"}, first="Player 2")
    phase = page.locator(".phase")

    log = page.get_by_role("list", name="Moves")
    missed = False
    for _ in range(120):
        if not wait_for_turn(page):
            break
        text = phase.inner_text()
        if "places a piece" in text:
            if not missed:
                free = [
                    s
                    for s in NO_LINE
                    if court_square(page, rf"^Player 1 side {s}: empty, place").count()
                ]
                court_square(page, rf"^Player 1 side {free[0]}: ").click()
            else:
                play_hint(page)
        elif "serves" in text:
            court_square(page, "serve this piece").first.click()
        elif "receives" in text and not missed:
            page.get_by_role("button", name="End turn").click()
            reason = re.compile(
                r"^The ball landed on \d,\d of Player 1's side: no line of three with one end on it"
                r" — point to Player 2 \(\d\u2013\d\)\."  # an en dash between the points
            )
            expect(page.locator(".rally")).to_have_text(reason)
            expect(page.locator(".rally")).to_have_attribute("role", "status")
            expect(log).to_contain_text(
                re.compile(
                    r"Player 1: end — The ball landed on \d,\d of Player 1's side: no line of three"
                )
            )
            missed = True
        elif "receives" in text:
            turn = page.get_by_role("region", name="Your turn")
            turn.get_by_role("button", name="Hint", exact=True).click()
            hint = turn.get_by_text(re.compile(r"^Hint \(\w+\): "))
            expect(hint).to_be_visible(timeout=HINT_TIMEOUT_MS)
            found = re.match(r"^Hint \(\w+\): step (\d,\d)->(\d,\d) \(thought", hint.inner_text())
            if not found:
                play_hint(page)  # "end": the ball is caught as placed, or cannot be
                continue
            origin, target = found.groups()
            marked = page.get_by_role("group", name="Court").get_by_role(
                "button", name=re.compile("hinted")
            )
            expect(marked).to_have_count(2)
            expect(
                court_square(
                    page, rf"^Player 1 side {origin}: Player 1 piece.*hinted piece to step"
                )
            ).to_have_count(1)
            expect(court_square(page, rf"^Player 1 side {target}: .*hinted target")).to_have_count(
                1
            )
            expect(page.locator(".court .square.hinted")).to_have_count(2)
            expect(page.locator(".court .square.hint-from")).to_have_count(1)
            assert violations(page) == []
            # Played to its end as hints say, the receive says how it went.
            for _ in range(4):
                if play_hint(page) == "end":
                    break
            expect(page.locator(".rally")).to_have_text(
                re.compile(r"^(Blocked: Player 1's line of three|The ball landed on)")
            )
            return
        elif "hits" in text:
            page.get_by_role("button", name="Roll the dice").click()
        elif "may step one piece first" in text:
            page.get_by_role("button", name="Skip your step").click()
        else:
            raise AssertionError(f"unexpected phase on our turn: {text!r}")
    assert missed, "Player 1 never received"
    pytest.skip("no hint was a step before the match ended (placement caught every ball)")


def test_volleyball_court_squares_fit_a_finger_on_a_phone(new_page: Any, site: Site) -> None:
    page: Page = new_page(width=375, height=812)
    create_match(page, "Volleyball Returns", {"Player 2": "Bot: random"}, first="Player 1")
    assert wait_for_turn(page)
    squares = page.get_by_role("group", name="Court").get_by_role("button")
    expect(squares).to_have_count(42)
    sizes = squares.evaluate_all(
        "buttons => buttons.map(b => {"
        " const r = b.getBoundingClientRect(); return [r.width, r.height]; })"
    )
    small = [size for size in sizes if size[0] < 40 or size[1] < 40]
    assert small == [], small
    # The court scrolls sideways in its own box; the page does not.
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    assert page.locator(".court-scroll").evaluate("box => box.scrollWidth > box.clientWidth")
    # Player 1's own side, where it places, is the one in view.
    place = court_square(page, r"^Player 1 side 1,1: ")
    assert in_view(page, place) == [] or place.evaluate(
        "b => { const r = b.getBoundingClientRect(); return r.right <= innerWidth && r.left >= 0; }"
    )
    place.click()
    expect(court_square(page, r"^Player 1 side 1,1: Player 1 piece")).to_have_count(1)
    assert violations(page) == []
