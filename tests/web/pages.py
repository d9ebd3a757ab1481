"""What a person does and reads on the page, for the browser tests: sign in
with a name, create a match with the form, wait for one's turn, read the
board and the result."""

from __future__ import annotations

import re
from pathlib import Path

from meeple.v1 import game_pb2 as pb
from playwright.sync_api import Locator, Page, expect

OVER = re.compile(r"^(Game over|.* resigned|.* ran out of time)")
SQUARE_NAME = re.compile(r"^([a-h][1-8]), (?:empty|(\w+) \((\w)\))")
# The name the pages sign in with unless a test chooses one.
PLAYER_NAME = "Ada"


def signed_in_as(page: Page) -> Locator:
    """The header's line naming the signed-in player."""
    return page.locator("#identity")


def sign_in(page: Page, name: str = PLAYER_NAME) -> None:
    """Signs in with the "Your name" form on the page shown (the home page
    when it shows none), and waits for the header to name the player."""
    form = page.get_by_role("form", name="Your name")
    if not form.count():
        page.goto("/")
    form.get_by_label("Your name").fill(name)
    form.get_by_role("button", name=re.compile("^Sign in")).click()
    expect(signed_in_as(page)).to_have_text(f"Playing as {name} Change name")


def create_match(
    page: Page,
    game: str,
    seats: dict[str, str],
    first: str | None = None,
    players: int | None = None,
    checks: tuple[str, ...] = (),
) -> str:
    """Fills the New match form: the game, who plays each seat (by the seat's
    name, e.g. {"Yellow": "Bot: random"}), who starts, and options to tick;
    returns the new match's id once its page shows. A page not yet signed
    in signs in first, as ``PLAYER_NAME``."""
    page.goto("/")
    expect(page.get_by_role("button", name="Create match")).to_be_visible()
    if page.get_by_role("form", name="Your name").count():
        sign_in(page)
    page.get_by_label("Game", exact=True).select_option(label=game)
    if players is not None:
        page.get_by_label("Players", exact=True).select_option(str(players))
    for seat, choice in seats.items():
        page.get_by_label(f"{seat} is played by").select_option(label=choice)
    if first is not None:
        page.get_by_label("Who starts").select_option(label=first)
    for option in checks:
        page.get_by_label(re.compile(f"^{re.escape(option)}")).check()
    page.get_by_role("button", name="Create match").click()
    heading = page.get_by_role("heading", name=re.compile(r"· match "))
    expect(heading).to_be_visible()
    return (heading.text_content() or "").rsplit(" ", 1)[-1]


def status(page: Page) -> Locator:
    return page.locator(".match-status")


def wait_for_turn(page: Page, hurry: bool = False) -> bool:
    """Waits until it is the viewer's turn (True) or the match is over (False).
    With ``hurry`` it reaches for the board meanwhile, as an impatient player
    does, so that the page shows the bots' paced replies at once (the tests
    of the pace leave it off)."""
    turn = page.get_by_role("heading", name="Your turn", exact=True)
    over = status(page).filter(has_text=OVER)
    shown = turn.or_(over)
    board = page.locator(".board").first
    for _ in range(20 if hurry else 0):
        if board.count():
            board.dispatch_event("pointerdown")
        try:
            expect(shown).to_be_visible(timeout=250)
            break
        except AssertionError:
            continue
    expect(shown).to_be_visible()
    return over.count() == 0


def board_cells(page: Page) -> list[str | None]:
    """The 64 squares a1..h8 as the board's buttons name them: a colour or None."""
    board = page.get_by_role("group", name=re.compile("^Board"))
    cells: list[str | None] = [None] * 64
    for label in board.get_by_role("button").evaluate_all(
        "buttons => buttons.map(b => b.getAttribute('aria-label'))"
    ):
        found = SQUARE_NAME.match(label)
        assert found, f"unexpected square name {label!r}"
        square, colour = found.group(1), found.group(2)
        cells[(int(square[1]) - 1) * 8 + "abcdefgh".index(square[0])] = (
            colour.lower() if colour else None
        )
    return cells


def server_cells(grid: pb.GridPosition) -> list[str | None]:
    return [grid.colours[cell] if cell >= 0 else None for cell in grid.cells]


def shoot(page: Page, folder: Path, name: str) -> None:
    """A screenshot of the match as it stands: its heading, players and
    board, without the list of moves (small files for the README)."""
    top = page.locator("main").bounding_box()
    bottom = page.locator(".play-area").bounding_box()
    assert top is not None
    assert bottom is not None
    scroll_x, scroll_y = page.evaluate("[scrollX, scrollY]")  # boxes are in the viewport
    clip = {
        "x": top["x"] + scroll_x,
        "y": top["y"] + scroll_y,
        "width": top["width"],
        "height": bottom["y"] + bottom["height"] - top["y"],
    }
    page.screenshot(path=str(folder / f"{name}.png"), clip=clip, full_page=True)


def seat_score(page: Page, seat: str) -> int:
    """A seat's score as the list of players shows it."""
    text = page.get_by_role("list", name="Players").inner_text()
    found = re.search(rf"{re.escape(seat)} \([^)]*\)\s*score (\d+)", text)
    assert found, f"no score for {seat} in {text!r}"
    return int(found.group(1))


def play_hint(page: Page) -> str:
    """Asks for a hint and plays the move it names from the legal moves."""
    turn = page.get_by_role("region", name="Your turn")
    turn.get_by_role("button", name="Hint", exact=True).click()
    hint = turn.get_by_text(re.compile(r"^Hint \(\w+\): "))
    expect(hint).to_be_visible()
    found = re.match(r"^Hint \(\w+\): (.*) \(thought", hint.inner_text())
    assert found, hint.inner_text()
    page.get_by_label("Legal moves").select_option(label=found.group(1))
    page.get_by_role("button", name="Play", exact=True).click()
    return found.group(1)
