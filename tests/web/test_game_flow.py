"""Following a game through the page and its end: the last move marked,
flipped discs turning (and not under reduced motion), bot replies shown one
after another, Othello's pass in words, the state applied by ply (a late
SubmitAction answer never brings the turn back after the end), the Game
over card (scores, reason, Rematch with the colours swapped, New game,
Review), the tab's title and the sound on one's turn."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from playwright.sync_api import Locator, Page, Route, expect

from services.client import MeepleClient, SeatHandle
from tests.web.conftest import Site
from tests.web.pages import board_cells, create_match, server_cells, status, wait_for_turn
from tests.web.test_accessibility import violations

PLAYABLE = re.compile(r", playable")
# Othello: after these, Black has no move and passes (found by search).
TO_A_PASS = ("d3", "c3", "b3", "b2", "f5", "a3", "a1", "c1")
# Othello's shortest game: Black wins 13 to 0 on its 9th move.
WIPEOUT = ("d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4")
SUBMIT = "**/meeple.v1.MatchService/SubmitAction"


def square(name: str) -> pb.Action:
    return pb.Action(board=pb.BoardMove(square=(int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])))


def board_of(page: Page) -> Locator:
    return page.get_by_role("group", name=re.compile("^Board"))


def result_card(page: Page) -> Locator:
    return page.get_by_role("region", name="Game over")


def rival(site: Site) -> MeepleClient:
    """A second player for the tests' API side."""
    return MeepleClient(site.served.address, timeout=10, token=site.served.token("rival", "Rita"))


def page_seat(page: Page, match_id: str) -> SeatHandle:
    """The seat the page holds (its token from the tab's session)."""
    held = json.loads(page.evaluate(f"sessionStorage.getItem('meeple:seat:{match_id}')"))
    return SeatHandle(match_id, held["seat"], held["token"])


def ball_motion(square_button: Locator) -> list[str]:
    return square_button.locator(".ball").evaluate(  # type: ignore[no-any-return]
        "b => [getComputedStyle(b).transitionDuration, getComputedStyle(b).animationName]"
    )


def test_the_last_move_is_marked_and_flipped_discs_turn(new_page: Any, site: Site) -> None:
    for reduced in (False, True):
        page = new_page()
        if reduced:
            page.emulate_media(reduced_motion="reduce")
        match_id = create_match(page, "Othello", {"White": "Bot: random"})
        assert wait_for_turn(page)
        board = board_of(page)
        expect(board.get_by_role("button", name=re.compile(", last move"))).to_have_count(0)
        board.get_by_role("button", name=re.compile(r"^d3, ")).click()
        # Black's d3 is marked, then White's answer once it comes.
        expect(page.locator(".log li").first).to_have_text("Black: d3")
        expect(page.locator(".log li")).to_have_count(2)
        assert wait_for_turn(page)
        answer = page.locator(".log li").first.inner_text().removeprefix("White: ")
        marked = board.get_by_role("button", name=re.compile(", last move"))
        expect(marked).to_have_count(1)
        expect(marked).to_have_attribute(
            "aria-label", re.compile(rf"^{answer}, White \(W\), last move")
        )
        flipped = board.get_by_role("button", name=re.compile(", flipped"))
        assert flipped.count() >= 1
        duration, animation = ball_motion(flipped.first)
        if reduced:
            assert (duration, animation) == ("0s", "none"), (duration, animation)
        else:
            assert duration != "0s", duration
            assert animation == "meeple-flip", animation
            # A disc that did not change colour does not turn.
            still = board.get_by_role("button", name=re.compile(r", (Black|White) \(\w\)$"))
            assert ball_motion(still.first)[1] == "none"
        # The page's board is the server's.
        assert board_cells(page) == server_cells(site.client.get(match_id).match.view.grid)


def test_bot_replies_arrive_one_after_another(page: Page, site: Site) -> None:
    match_id = create_match(
        page,
        "Rolit",
        {"Yellow": "Bot: random", "Green": "Bot: random", "Blue": "Bot: random"},
        first="Red",
    )
    assert wait_for_turn(page)
    page.evaluate(
        """() => {
        window.logTimes = [];
        new MutationObserver(() => window.logTimes.push(performance.now()))
            .observe(document.querySelector('.log'), { childList: true });
    }"""
    )
    board_of(page).get_by_role("button", name=PLAYABLE).first.click()
    expect(page.locator(".log li")).to_have_count(4)
    assert wait_for_turn(page)
    times = page.evaluate("window.logTimes")
    assert len(times) == 4, times
    # Red's move, then Yellow's, Green's and Blue's, each 0.6 s after the one before.
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert all(gap >= 500 for gap in gaps), gaps
    assert times[-1] - times[0] >= 1000, times
    # The player's turn shows the true board.
    answer = site.client.get(match_id)
    assert answer.match.view.seat_to_act == 0
    assert board_cells(page) == server_cells(answer.match.view.grid)
    expect(status(page)).to_have_text("Your turn (Red).")
    assert page.title() == "Your turn — Rolit"


def test_an_othello_pass_is_announced(page: Page, site: Site) -> None:
    created = site.client.create_match("othello", ["human", "human"])
    match_id = created.match.match_id
    black = site.client.join(match_id, seat=0)
    other = rival(site)
    try:
        white = other.join(match_id, seat=1)
        page.goto(f"/#/watch/{match_id}")
        expect(status(page)).to_have_text("Black to play.")
        assert page.title() == "Othello — Black to play"
        for ply, move in enumerate(TO_A_PASS):
            client, seat = (site.client, black) if ply % 2 == 0 else (other, white)
            client.submit(seat, ply, [square(move)])
        pass_turn = pb.Action(board=pb.BoardMove(pass_turn=pb.PassTurn()))
        site.client.submit(black, len(TO_A_PASS), [pass_turn])
        expect(status(page)).to_have_text("Black has no move and passes. White to play.")
        expect(page.get_by_role("status")).to_have_text("Black has no move and passes.")
        expect(page.locator(".log li").first).to_have_text("Black: pass")
        # Opened afterwards, the page says it too (from the latest moves).
        page.reload()
        expect(status(page)).to_have_text("Black has no move and passes. White to play.")
        other.resign(white)
    finally:
        other.close()


def test_an_answer_after_the_end_brings_no_turn_back(page: Page, site: Site) -> None:
    """The race: the page's SubmitAction answer is held until the stream has
    ended the match (the player resigned from another device); once it
    arrives, the page still shows the end, with no Resign button."""
    match_id = create_match(page, "Othello", {"White": "Bot: random"})
    assert wait_for_turn(page)
    held: list[tuple[Route, Any]] = []

    def hold(route: Route) -> None:
        held.append((route, route.fetch()))

    page.route(SUBMIT, hold)
    board_of(page).get_by_role("button", name=PLAYABLE).first.click()
    expect(page.locator(".log li")).to_have_count(2)  # the server played it, and White answered
    assert held, "the SubmitAction call was not held"
    site.client.resign(page_seat(page, match_id))  # another device resigns
    expect(result_card(page)).to_be_visible()
    expect(status(page)).to_have_text("Black (you) resigned. White wins.")
    route, response = held[0]
    route.fulfill(response=response)
    expect(page.get_by_role("status")).to_have_text(re.compile("^You played "))  # the answer came
    page.wait_for_timeout(300)
    expect(page.get_by_role("button", name="Resign")).to_have_count(0)
    expect(page.get_by_role("heading", name="Your turn", exact=True)).to_have_count(0)
    expect(status(page)).to_have_text("Black (you) resigned. White wins.")
    expect(result_card(page)).to_contain_text("By resignation: Black (you) resigned. White wins.")
    assert page.title() == "Othello — game over"


def test_the_game_over_card_by_score_and_its_buttons(page: Page, site: Site) -> None:
    """Black (the page) and White (Rita, by the API) play Othello's shortest
    game; the page's last move, which ends it, is answered only after the
    stream's end. The card shows the scores and the reason; axe finds
    nothing; Review opens the replay, New game the form."""
    match_id = create_match(page, "Othello", {"White": "Someone you invite"})
    other = rival(site)
    try:
        white = other.join(match_id, seat=1)
        board = board_of(page)
        answered: list[tuple[Route, Any]] = []
        for ply, move in enumerate(WIPEOUT):
            if ply % 2 == 1:
                other.submit(white, ply, [square(move)])
                continue
            assert wait_for_turn(page)
            if ply == len(WIPEOUT) - 1:  # the last move's answer waits for the end
                page.route(SUBMIT, lambda route: answered.append((route, route.fetch())))
            board.get_by_role("button", name=re.compile(f"^{move}, ")).click()
            expect(page.locator(".log li").first).to_contain_text(f"Black: {move}")
        card = result_card(page)
        expect(card).to_be_visible()
        assert answered, "the last SubmitAction was not held"
        route, response = answered[0]
        route.fulfill(response=response)
        expect(page.get_by_role("status")).to_have_text(re.compile("^You played f4"))
        expect(card.get_by_text("By score: Black (you) wins.")).to_be_visible()
        scores = card.get_by_role("table", name="Final scores")
        expect(
            scores.get_by_role("row", name=re.compile(r"Black \(you\) you 13 won"))
        ).to_be_visible()
        expect(scores.get_by_role("row", name=re.compile(r"White Rita 0 lost"))).to_be_visible()
        expect(status(page)).to_have_text("Game over: Black (you) wins.")
        expect(page.get_by_role("button", name="Resign")).to_have_count(0)
        assert page.title() == "Othello — game over"
        assert violations(page) == []
        card.get_by_role("button", name="Review").click()
        expect(
            page.get_by_role("heading", name=f"Othello · match {match_id} · replay")
        ).to_be_visible()
        expect(page.locator(".replay-position")).to_have_text("Move 9 of 9: Black: f4")
        marked = board.get_by_role("button", name=re.compile(", last move"))
        expect(marked).to_have_attribute("aria-label", re.compile("^f4, Black"))
        page.go_back()
        # A finished match's link opens its replay: the card is the live page's.
        page.goto("/")
        assert page.title() == "meeple"
    finally:
        other.close()


def test_rematch_swaps_the_colours_and_new_game_goes_home(page: Page, site: Site) -> None:
    first = create_match(page, "Othello", {"White": "Bot: random"})
    assert wait_for_turn(page)
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    card = result_card(page)
    expect(card).to_contain_text("By resignation: Black (you) resigned. White wins.")
    scores = card.get_by_role("table", name="Final scores")
    expect(scores.get_by_role("row", name=re.compile(r"Black \(you\) you 2 lost"))).to_be_visible()
    expect(scores.get_by_role("row", name=re.compile(r"White bot: random 2 won"))).to_be_visible()
    expect(page.get_by_role("button", name="Resign")).to_have_count(0)
    card.get_by_role("button", name="Rematch").click()
    heading = page.get_by_role("heading", name=re.compile(r"^Othello · match "))
    expect(heading).not_to_have_text(f"Othello · match {first}")
    second = heading.inner_text().rsplit(" ", 1)[-1]
    players = page.get_by_role("list", name="Players")
    expect(players).to_contain_text("White (you)")
    expect(players).to_contain_text("Black (bot: random)")
    assert wait_for_turn(page)  # the bot opened as Black
    expect(status(page)).to_have_text("Your turn (White).")
    answer = site.client.get(second)
    assert [seat.kind for seat in answer.match.seats] == [ms.SEAT_KIND_BOT, ms.SEAT_KIND_HUMAN]
    assert answer.match.seats[0].bot_spec == "random"
    assert answer.match.seats[1].display_name == "Ada"
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    result_card(page).get_by_role("button", name="New game").click()
    expect(page.get_by_role("button", name="Create match")).to_be_visible()
    assert page.title() == "meeple"


def test_rematch_of_rolit_moves_everyone_one_colour_on(page: Page, site: Site) -> None:
    create_match(
        page,
        "Rolit",
        {"Yellow": "Bot: easy", "Green": "Bot: random", "Blue": "Bot: medium"},
        first="Red",
    )
    assert wait_for_turn(page)
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    result_card(page).get_by_role("button", name="Rematch").click()
    players = page.get_by_role("list", name="Players")
    expect(players).to_contain_text("Yellow (you)")
    expect(players).to_contain_text("Red (bot: medium)")
    expect(players).to_contain_text("Green (bot: easy)")
    expect(players).to_contain_text("Blue (bot: random)")
    wait_for_turn(page)
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(result_card(page)).to_be_visible()


def test_the_title_and_the_sound_on_ones_turn(new_page: Any, site: Site) -> None:
    page = new_page()
    page.add_init_script(
        """(() => {
        window.beeps = 0;
        const make = AudioContext.prototype.createOscillator;
        AudioContext.prototype.createOscillator = function () {
            window.beeps++;
            return make.call(this);
        };
    })()"""
    )
    page.goto("/")
    assert page.title() == "meeple"
    create_match(page, "Othello", {"White": "Bot: random"})
    assert wait_for_turn(page)
    assert page.title() == "Your turn — Othello"
    sound = page.get_by_role("checkbox", name="Sound on my turn")
    expect(sound).not_to_be_checked()
    board_of(page).get_by_role("button", name=PLAYABLE).first.click()
    assert wait_for_turn(page)
    assert page.evaluate("window.beeps") == 0  # off by default
    sound.check()
    page.reload()
    expect(page.get_by_role("checkbox", name="Sound on my turn")).to_be_checked()
    assert wait_for_turn(page)
    page.get_by_role("checkbox", name="Sound on my turn").click()  # a gesture starts audio
    page.get_by_role("checkbox", name="Sound on my turn").click()
    board_of(page).get_by_role("button", name=PLAYABLE).first.click()
    expect(page.locator(".log li").first).to_contain_text("White: ")
    assert wait_for_turn(page)
    page.wait_for_function("window.beeps >= 1")
    # Another browser starts with it off.
    other = new_page()
    create_match(other, "Othello", {"White": "Bot: random"})
    expect(other.get_by_role("checkbox", name="Sound on my turn")).not_to_be_checked()
