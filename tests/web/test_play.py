"""Whole games through the page against the server's random bots: Rolit for
four, Othello, Volleyball Returns with both variants and Volta; the board on
screen is checked against the server's own state."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from meeple.v1 import match_service_pb2 as ms
from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import Site
from tests.web.pages import (
    board_cells,
    create_match,
    play_hint,
    seat_score,
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
    while wait_for_turn(page, hurry=True):
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
    while wait_for_turn(page, hurry=True):
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
    expect(page.get_by_role("list", name="Players")).to_contain_text(
        f"White (bot: random)score {white}"
    )
    shoot(page, screenshots, "othello")


# Six squares of which no two touch: no three in a line, so no return.
NO_LINE = ("1,1", "1,4", "3,2", "3,5", "5,1", "5,4")


def test_volleyball_with_big_leagues_and_underdog_boost(
    page: Page, site: Site, screenshots: Path
) -> None:
    """The bot serves first. Player 1 gives two points away (placing with no
    line, ending its receive at once), then places and receives as hints
    say: returning the ball while behind, it chooses to roll (Underdog
    Boost), then serving while behind it lands the ball where it likes; as
    the hitter it takes its Big League step once. Each receive is planned
    step by step and sent whole with its `end`. (The dice and the bot are
    random: when the bot wins first, which two receives in a row that fail
    to return allow, another match goes on from what was played.)"""
    submitted: list[ms.SubmitActionRequest] = []

    def record_submission(request: Any) -> None:
        if request.url.endswith("/meeple.v1.MatchService/SubmitAction"):
            submitted.append(ms.SubmitActionRequest.FromString(request.post_data_buffer))

    page.on("request", record_submission)
    court = page.get_by_role("group", name="Court")
    phase = page.locator(".phase")

    def square(name: str) -> Locator:
        return court.get_by_role("button", name=re.compile(name))

    played: dict[str, int] = {}

    def did(kind: str) -> None:
        played[kind] = played.get(kind, 0) + 1

    def play_a_match() -> str:
        """Plays one match to its end; its id."""
        match_id = create_match(
            page,
            "Volleyball Returns",
            {"Player 2": "Bot: random"},
            first="Player 2",
            checks=("Big Leagues", "Underdog Boost"),
        )
        for _ in range(200):
            if not wait_for_turn(page, hurry=True):
                break
            text = phase.inner_text()
            giving = seat_score(page, "Player 2") < 2 and "roll" not in played
            done = "land" in played  # every kind of action played: quick moves to the end
            if "places a piece" in text:
                if giving:
                    free = [
                        s for s in NO_LINE if square(rf"^Player 1 side {s}: empty, place").count()
                    ]
                    square(rf"^Player 1 side {free[0]}: ").click()
                elif done:
                    square("place a piece here").first.click()
                else:
                    play_hint(page)
                did("place")
            elif "serves" in text:
                square("serve this piece").first.click()
                did("serve")
            elif "hits: choose" in text:
                if "roll" not in played:
                    page.get_by_role("button", name="Roll the dice").click()
                    did("roll")
                else:
                    square("land the ball here").first.click()
                    did("land")
            elif "may step one piece first" in text:
                if "hitter step" not in played:
                    square("can step").first.click()
                    square("step here").first.click()
                    did("hitter step")
                else:
                    page.get_by_role("button", name="Skip your step").click()
            elif "receives" in text:
                if giving or done:
                    page.get_by_role("button", name="End turn").click()
                    did("miss")
                else:
                    move = play_hint(page)
                    did("receive end" if move == "end" else "receive step")
                    if played.get("receive step") == 1 and move != "end":
                        expect(
                            page.get_by_text(re.compile("^Planned, not yet sent: step"))
                        ).to_be_visible()
                        shoot(page, screenshots, "volleyball")
            else:
                raise AssertionError(f"unexpected phase on our turn: {text!r}")
        else:
            raise AssertionError(f"the game did not end; played {played}")
        return match_id

    everything = {
        "place",
        "serve",
        "miss",
        "receive step",
        "receive end",
        "roll",
        "land",
        "hitter step",
    }
    for _ in range(3):
        match_id = play_a_match()
        if everything <= set(played):
            break
    answer = site.client.get(match_id)
    assert answer.match.status == ms.MATCH_STATUS_FINISHED
    assert everything <= set(played), played
    # Each turn went in one SubmitAction: a receive's steps with its `end`
    # (and what the same seat did next, such as its hit).
    kinds = [[a.volleyball.WhichOneof("move") for a in r.actions] for r in submitted]
    assert any("end" in k and k[: k.index("end")][-1:] == ["step"] for k in kinds), kinds
    # The court on screen is the server's.
    shown = set()
    for label in court.get_by_role("button").evaluate_all(
        "buttons => buttons.map(b => b.getAttribute('aria-label'))"
    ):
        found = re.match(r"^Player (\d) side (\d),(\d): Player (\d) piece", label)
        if found:
            shown.add((int(found.group(4)) - 1, int(found.group(2)), int(found.group(3))))
    pieces = {(p.seat, p.square.column, p.square.row) for p in answer.match.view.court.pieces}
    assert shown == pieces
    me, them = answer.match.view.scores
    assert (seat_score(page, "Player 1"), seat_score(page, "Player 2")) == (me, them)


SHOWN_RADII = 1.3  # the canvas shows the arena to 1.3 of its radius (web/src/boards/arena.ts)


def test_volta_aimed_by_the_form_and_by_dragging(page: Page, site: Site, screenshots: Path) -> None:
    """The first flick is the form's hardest, set from the keyboard: it
    throws one's own rider, and the loser of a point flicks next. The second
    is aimed by dragging on the steed and played back from the server's
    frames. Then every flick is the hardest again, until the match ends."""
    match_id = create_match(page, "Volta", {"Player 2": "Bot: random"}, first="Player 1")
    assert wait_for_turn(page)

    def hardest_flick() -> None:
        page.get_by_label("Strength (N s)").focus()
        page.keyboard.press("End")
        expect(page.locator(".aim-readout")).to_have_text(re.compile(r", 0\.100 N s$"))
        page.get_by_role("button", name="Flick", exact=True).click()

    hardest_flick()
    expect(page.get_by_text(re.compile(r"^Last flick: .*Player 1's rider fell"))).to_be_visible()
    assert wait_for_turn(page)
    assert (seat_score(page, "Player 1"), seat_score(page, "Player 2")) == (0, 1)

    arena = site.client.get(match_id).match.view.arena
    canvas = page.get_by_role("img", name=re.compile("^Player 1's steed"))
    box = canvas.bounding_box()
    assert box is not None
    scale = box["width"] / 2 / (arena.arena_radius_m * SHOWN_RADII)
    centre_x = box["x"] + box["width"] / 2 + arena.steeds[0].x_m * scale
    centre_y = box["y"] + box["height"] / 2 - arena.steeds[0].y_m * scale
    half = arena.steed_side_m / 2 * scale
    # Press near the left side's middle, drag right and a little down: a
    # gentle flick, which keeps the rider.
    page.mouse.move(centre_x - half * 0.9, centre_y)
    page.mouse.down()
    page.mouse.move(centre_x - half * 0.9 + 16, centre_y + 4, steps=5)
    page.mouse.up()
    expect(page.get_by_label("Side to push")).to_have_value("2")
    expect(page.locator(".aim-readout")).to_have_text(
        re.compile(r"^side 2, offset -?0\.\d\d, angle -?\d+°, 0\.0[1-3]\d N s$")
    )
    _, offset, angle = page.locator(".aim-readout").inner_text().split(", ")[:3]
    assert int(angle.removeprefix("angle ").removesuffix("°")) < 0  # turned clockwise, as dragged
    shoot(page, screenshots, "volta")
    page.get_by_role("button", name="Flick", exact=True).click()
    expect(page.get_by_text(re.compile(r"^Playing the flick back: "))).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Last flick: \d\.\d\d s"))).to_be_visible()
    first, dragged = site.client.get(match_id).record.history[:2]
    assert first.flick.impulse_ns == 0.1
    assert dragged.flick.side == 2
    assert f"offset {dragged.flick.offset:.2f}" == offset

    page.get_by_label("Flick playback").select_option(label="off")
    flicks = 2
    while wait_for_turn(page, hurry=True):
        hardest_flick()
        flicks += 1
        assert flicks < 60, "the match did not end"
    answer = site.client.get(match_id)
    assert answer.match.status == ms.MATCH_STATUS_FINISHED
    me, them = answer.match.view.scores
    assert (seat_score(page, "Player 1"), seat_score(page, "Player 2")) == (me, them)
    expect(status(page)).to_have_text(re.compile(r"^Game over: Player \d( \(you\))? wins\.$"))
    # The steeds as the page describes them are where the server has them.
    for seat, steed in enumerate(answer.match.view.arena.steeds):
        expect(canvas).to_have_attribute(
            "aria-label",
            re.compile(
                rf"Player {seat + 1}'s steed \([^)]*\) "
                rf"at {steed.x_m * 100:.1f}, {steed.y_m * 100:.1f} cm"
            ),
        )
