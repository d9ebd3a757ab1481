"""My games and the replay, on a server with an archive (SQLite in a data
dir): a match the page's player resigns is listed with its result (in a
tab already open too), its replay steps through every position by button
and arrow key and downloads the match; a bot match's link opens its
replay, from the archive once its live copy expired; axe finds nothing on
either screen."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from meeple.v1 import archive_service_pb2 as ar
from meeple.v1 import archive_service_pb2_grpc as ar_grpc
from meeple.v1 import match_service_pb2 as ms
from playwright.sync_api import Browser, Locator, Page, expect

from services.client import MeepleClient
from tests.services.conftest import serving
from tests.web.conftest import CLIENT_NAME, CLIENT_PLAYER, SITE_SETTINGS, Site, open_page
from tests.web.pages import (
    board_cells,
    create_match,
    server_cells,
    sign_in,
    status,
    wait_for_turn,
)
from tests.web.test_accessibility import violations
from tests.web.test_watch import notation

PLAYABLE = re.compile(r", playable")
START: list[str | None] = [None] * 64
for square, colour in {27: "white", 28: "black", 35: "black", 36: "white"}.items():
    START[square] = colour  # d4 and e5 white, e4 and d5 black


def my_games(page: Page) -> Locator:
    return page.get_by_role("region", name="My games")


def position(page: Page) -> Locator:
    return page.locator(".replay-position")


def discs(page: Page) -> int:
    return sum(cell is not None for cell in board_cells(page))


def resigned_after_moves(page: Page, moves: int) -> str:
    """An Othello match of the page's player (Black) against a random bot:
    ``moves`` of Black's moves, then Black resigns; the match's id."""
    match_id = create_match(page, "Othello", {"White": "Bot: random"})
    board = page.get_by_role("group", name=re.compile("^Board"))
    for _ in range(moves):
        assert wait_for_turn(page)
        board.get_by_role("button", name=PLAYABLE).first.click()
    assert wait_for_turn(page)
    expect(page.locator(".log li")).to_have_count(2 * moves)
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(status(page)).to_have_text("Black (you) resigned. White wins.")
    return match_id


def test_my_games_lists_a_resigned_match_and_its_replay_steps_through_it(
    new_page: Any, site: Site, tmp_path: Path
) -> None:
    page = new_page()
    sign_in(page)
    home = new_page(tab_of=page)  # another tab of the same player, on the home page
    home.goto("/")
    expect(my_games(home).get_by_role("listitem")).to_have_text(["No finished games yet."])
    page.bring_to_front()  # a background tab draws no frames: clicks there wait for one
    match_id = resigned_after_moves(page, 3)
    answer = site.client.get(match_id)
    plies = len(answer.record.history)
    assert plies == 6  # Black's three moves, White's three answers
    entry = f"Loss (you resigned): Othello against bot random, {plies} moves"
    # The open home tab hears of the end and finds the match once archived.
    expect(my_games(home).get_by_role("listitem").first).to_contain_text(entry)
    expect(my_games(home).get_by_role("listitem")).to_have_count(1)

    # The match's page offers its replay once over; My games links to it.
    expect(page.get_by_role("link", name="Replay this match")).to_be_visible()
    page.goto("/")
    link = my_games(page).get_by_role(
        "link", name=re.compile(f"^Replay {re.escape(entry)}, ended ")
    )
    link.click()
    expect(page.get_by_role("heading", name=f"Othello · match {match_id} · replay")).to_be_visible()
    assert page.url.endswith(f"#/replay/{match_id}")
    expect(status(page)).to_have_text("Black (you) resigned. White wins.")
    moves = [notation(action) for action in answer.record.history]
    last = f"Move {plies} of {plies}: White: {moves[-1]}"
    expect(position(page)).to_have_text(last)
    assert board_cells(page) == server_cells(answer.match.view.grid)
    replay = page.get_by_role("region", name="Replay")
    first, previous, next_, end = (
        replay.get_by_role("button", name=name, exact=True)
        for name in ("First", "Previous", "Next", "Last")
    )
    expect(next_).to_be_disabled()
    expect(end).to_be_disabled()

    first.click()
    expect(position(page)).to_have_text(f"Move 0 of {plies}: the start")
    assert board_cells(page) == START
    expect(first).to_be_disabled()
    expect(previous).to_be_disabled()
    next_.click()
    expect(position(page)).to_have_text(f"Move 1 of {plies}: Black: {moves[0]}")
    after_one = board_cells(page)
    assert after_one != START
    assert discs(page) == 5
    assert after_one[int(moves[0][1]) * 8 - 8 + "abcdefgh".index(moves[0][0])] == "black"
    expect(page.get_by_role("list", name="Players")).to_contain_text("Black (you)score 4")
    next_.click()
    expect(position(page)).to_have_text(f"Move 2 of {plies}: White: {moves[1]}")
    assert discs(page) == 6
    previous.click()
    expect(position(page)).to_have_text(f"Move 1 of {plies}: Black: {moves[0]}")
    assert board_cells(page) == after_one

    # The arrow keys step too (not while the board has the focus: they move on it).
    page.keyboard.press("ArrowRight")
    expect(position(page)).to_have_text(f"Move 2 of {plies}: White: {moves[1]}")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(position(page)).to_have_text(f"Move 0 of {plies}: the start")
    end.click()
    expect(position(page)).to_have_text(last)
    page.keyboard.press("ArrowLeft")
    expect(position(page)).to_have_text(f"Move {plies - 1} of {plies}: Black: {moves[-2]}")
    # A move in the list jumps to it.
    page.get_by_role("list", name="Moves").get_by_role("button", name=f"Black: {moves[4]}").click()
    expect(position(page)).to_have_text(f"Move 5 of {plies}: Black: {moves[4]}")

    # Downloads: the match document, and Othello's GGF.
    with page.expect_download() as got:
        replay.get_by_role("button", name="Download JSON").click()
    download = got.value
    assert download.suggested_filename == f"{match_id}.json"
    document = json.loads(Path(download.path()).read_text())
    assert document["format"] == "meeple.match/1"
    assert document["match_id"] == match_id
    with page.expect_download() as got:
        replay.get_by_role("button", name="Download GGF").click()
    ggf = got.value
    assert ggf.suggested_filename == f"{match_id}.ggf"
    assert Path(ggf.path()).read_text().startswith("(;GM[Othello]")


def test_my_games_pages_with_more(new_page: Any, site: Site) -> None:
    page = new_page()
    sign_in(page)
    # The page's player resigns 11 matches at once, through gRPC with its token.
    token = page.evaluate("JSON.parse(localStorage.getItem('meeple:session')).accessToken")
    with MeepleClient(site.served.address, timeout=10, token=token) as player:
        ids = []
        for _ in range(11):
            ids.append(player.create_match("othello", ["human", "random"]).match.match_id)
            player.resign(player.join(ids[-1], seat=0))
    player_id = page.evaluate("JSON.parse(localStorage.getItem('meeple:session')).playerId")
    archive = ar_grpc.ArchiveServiceStub(site.served.channel)
    deadline = time.monotonic() + 10
    while (
        len(
            archive.ListPlayerMatches(
                ar.ListPlayerMatchesRequest(player_id=player_id, page_size=20)
            ).matches
        )
        < 11
    ):
        assert time.monotonic() < deadline, "the archive did not get the 11 matches"
        time.sleep(0.1)
    page.reload()
    items = my_games(page).get_by_role("listitem")
    expect(items).to_have_count(10)
    expect(items.first).to_contain_text("Loss (you resigned): Othello against bot random, 0 moves")
    assert items.first.get_attribute("data-match") == ids[-1]  # the latest first
    my_games(page).get_by_role("button", name="More of my games").click()
    expect(items).to_have_count(11)
    assert items.last.get_attribute("data-match") == ids[0]
    expect(my_games(page).get_by_role("button", name="More of my games")).to_have_count(0)


def finished_bot_match(client: MeepleClient) -> str:
    match_id = client.create_match("othello", ["random", "random"]).match.match_id
    for _ in client.watch(match_id):  # to its end
        pass
    return match_id


def check_replay_of_bot_match(page: Page, client: MeepleClient, match_id: str) -> None:
    answer = client.get(match_id)
    assert answer.match.status == ms.MATCH_STATUS_FINISHED
    plies = len(answer.record.history)
    expect(page.get_by_role("heading", name=f"Othello · match {match_id} · replay")).to_be_visible()
    assert page.url.endswith(f"#/replay/{match_id}")
    expect(status(page)).to_have_text(re.compile(r"^Game over: (Black wins|White wins|a draw)\.$"))
    expect(position(page)).to_have_text(re.compile(rf"^Move {plies} of {plies}: (Black|White): "))
    assert board_cells(page) == server_cells(answer.match.view.grid)
    page.get_by_role("button", name="First", exact=True).click()
    expect(position(page)).to_have_text(f"Move 0 of {plies}: the start")
    assert board_cells(page) == START
    page.get_by_role("button", name="Next", exact=True).click()
    expect(position(page)).to_have_text(
        f"Move 1 of {plies}: Black: {notation(answer.record.history[0])}"
    )
    assert discs(page) == 5


def test_a_finished_matchs_link_opens_its_replay(new_page: Any, site: Site) -> None:
    match_id = finished_bot_match(site.client)
    for route in ("watch", "play", "replay"):
        page = new_page()  # a fresh browser, signed in as no one
        page.goto(f"/#/{route}/{match_id}")
        check_replay_of_bot_match(page, site.client, match_id)
    # A live match's replay link watches it instead.
    live = site.client.create_match("othello", ["human", "human"]).match.match_id
    page = new_page()
    page.goto(f"/#/replay/{live}")
    expect(page.get_by_role("heading", name=f"Othello · match {live}")).to_be_visible()
    assert page.url.endswith(f"#/watch/{live}")


@pytest.mark.parametrize("game", ["rolit", "volleyball", "volta"])
def test_a_replay_of_each_kind_of_board(page: Page, site: Site, game: str) -> None:
    seats = ["random"] * (4 if game == "rolit" else 2)
    match_id = site.client.create_match(game, seats).match.match_id
    for _ in site.client.watch(match_id):  # to its end
        pass
    history = site.client.get(match_id).record.history
    plies = len(history)
    page.goto(f"/#/watch/{match_id}")
    expect(position(page)).to_have_text(re.compile(rf"^Move {plies} of {plies}: "))
    replay = page.get_by_role("region", name="Replay")
    replay.get_by_role("button", name="First", exact=True).click()
    expect(position(page)).to_have_text(f"Move 0 of {plies}: the start")
    replay.get_by_role("button", name="Next", exact=True).click()
    expect(position(page)).to_have_text(re.compile(rf"^Move 1 of {plies}: \w+( \d)?: \S"))
    if game == "volta":  # a step forward plays its flick back
        expect(page.locator(".playback")).to_have_text(
            re.compile(r"^(Playing the flick back|Last flick)")
        )
    expect(replay.get_by_role("button", name="Download GGF")).to_have_count(0)  # Othello's only


@pytest.fixture(scope="module")
def short_lived(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A server that keeps a finished match's live copy for a second only:
    after that, GetMatch and WatchMatch read it from the archive."""
    settings = dataclasses.replace(
        SITE_SETTINGS,
        finished_retention=1.0,
        data_dir=str(tmp_path_factory.mktemp("short-lived-data")),
    )
    with serving(settings, workers=1, web_port=0) as served:
        client = MeepleClient(
            served.address, timeout=10, token=served.token(CLIENT_PLAYER, CLIENT_NAME)
        )
        yield Site(served, f"http://127.0.0.1:{served.app.web_port}/", client)
        client.close()


def test_a_replay_from_the_archive_once_the_live_copy_expired(
    browser: Browser, short_lived: Site
) -> None:
    match_id = finished_bot_match(short_lived.client)
    served = short_lived.served
    deadline = time.monotonic() + 15
    while served.run(served.app.coordination.load(match_id)) is not None:
        assert time.monotonic() < deadline, "the live copy did not expire"
        time.sleep(0.2)
    page, errors = open_page(browser, short_lived)
    try:
        page.goto(f"/#/watch/{match_id}")
        check_replay_of_bot_match(page, short_lived.client, match_id)
        page.get_by_role("button", name="Last", exact=True).click()
        assert board_cells(page) == server_cells(short_lived.client.get(match_id).match.view.grid)
        with page.expect_download() as got:
            page.get_by_role("button", name="Download GGF").click()
        assert got.value.suggested_filename == f"{match_id}.ggf"
    finally:
        page.context.close()
    assert not errors, errors


@pytest.mark.parametrize("width", [1000, 375])
def test_my_games_and_the_replay_break_no_wcag_rule(new_page: Any, site: Site, width: int) -> None:
    page = new_page(width=width)
    match_id = resigned_after_moves(page, 1)
    page.goto("/")
    expect(my_games(page).get_by_role("link", name=re.compile("^Replay Loss"))).to_be_visible()
    broken = {"home, with My games": violations(page)}
    my_games(page).get_by_role("link", name=re.compile("^Replay Loss")).click()
    expect(page.get_by_role("heading", name=f"Othello · match {match_id} · replay")).to_be_visible()
    expect(position(page)).to_have_text(re.compile(r"^Move 2 of 2"))
    broken["a replay, at its end"] = violations(page)
    page.get_by_role("button", name="First", exact=True).click()
    expect(position(page)).to_have_text("Move 0 of 2: the start")
    broken["a replay, at its start"] = violations(page)
    assert broken == {screen: [] for screen in broken}, broken
