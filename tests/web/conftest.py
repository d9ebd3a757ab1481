"""The web page in a real browser: Debian's chromium driven by Playwright,
against an in-process server (every service, bots, the web port on a free
port), read as a person reads it (by role, label and text).

Without playwright or /usr/bin/chromium the tests are skipped with a
message saying so, unless MEEPLE_REQUIRE_BROWSER=1 (as CI sets), which makes
their absence a failure. Playwright's own browser download is not used.
Screenshots go to pytest's temporary folder, or to MEEPLE_SCREENSHOTS (as
``make screenshots`` sets, for the README).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from services.client import MeepleClient
from services.settings import Settings
from tests.services.conftest import Served, serving

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Every wait is short: a broken page fails in seconds, saying what it waited for.
TIMEOUT_MS = 5_000


def require_browser() -> None:
    """Skips the test (or fails it, under MEEPLE_REQUIRE_BROWSER=1) without a browser."""
    missing = []
    if importlib.util.find_spec("playwright") is None:
        missing.append("the playwright package (pip install -e '.[test]')")
    if not CHROMIUM.exists():
        missing.append(f"chromium at {CHROMIUM} (apt-get install chromium)")
    if not missing:
        return
    message = "browser tests need " + " and ".join(missing)
    if os.environ.get("MEEPLE_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def offline_file(path: Path, width: int = 1200, height: int = 900) -> Iterator[Page]:
    """A local HTML file open in chromium with every other request refused:
    the block reads the page, and then any request but the file's own, any
    page error and any console error fails the test."""
    require_browser()
    from playwright.sync_api import sync_playwright

    url = path.as_uri()
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.set_default_timeout(TIMEOUT_MS)
            context.route(
                "**/*",
                lambda route: route.continue_() if route.request.url == url else route.abort(),
            )
            page = context.new_page()
            page.on(
                "request",
                lambda request: None if request.url == url else problems.append(request.url),
            )
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.on(
                "console",
                lambda message: problems.append(message.text) if message.type == "error" else None,
            )
            page.goto(url)
            yield page
        finally:
            browser.close()
    assert problems == []


def expect_chart(page: Page, title: str) -> None:
    """A chart (an image named by its title) is drawn at a readable size."""
    from playwright.sync_api import expect

    chart = page.get_by_role("img", name=title, exact=True)
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box is not None
    assert box["width"] > 100
    assert box["height"] > 50


# The player the tests' gRPC client acts as, and its name on seats.
CLIENT_PLAYER = "tester"
CLIENT_NAME = "Tess"


@dataclass
class Site:
    """The server under test: its page's address and a gRPC client to it
    (acting as the player ``CLIENT_PLAYER``, named ``CLIENT_NAME``)."""

    served: Served
    url: str
    client: MeepleClient


# The browser and the server live as long as the tests of this package run,
# not the whole session: playwright's sync API keeps its event loop running
# in the main thread from its start to its stop (the loop runs in a greenlet
# of that thread), and while it does, any other test's asyncio.run() fails
# with "cannot be called from a running event loop". Package scope stops
# them when the run leaves tests/web, whatever the order (a test order that
# comes back starts them again).


# Everything comes from one address: limits far above what the tests send.
SITE_SETTINGS = Settings(
    rate_per_second=None,
    matches_per_minute=100_000,
    watch_streams=1_000,
    ai_calls_per_client=16,
    guest_signins_per_minute=100_000,
    # Bot-only matches paced, as on a real site, but briefly.
    bot_pace=0.05,
)


@pytest.fixture(scope="package")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    # A data dir: the server keeps its archive of finished matches (SQLite).
    data_dir = tmp_path_factory.mktemp("site-data")
    settings = dataclasses.replace(SITE_SETTINGS, data_dir=str(data_dir))
    with serving(settings, workers=2, web_port=0) as served:
        token = served.token(CLIENT_PLAYER, CLIENT_NAME)
        client = MeepleClient(served.address, timeout=10, token=token)
        yield Site(served, f"http://127.0.0.1:{served.app.web_port}/", client)
        client.close()


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    require_browser()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(autouse=True)
def no_event_loop_left_running() -> None:
    """The suite's check (tests/conftest.py) is not for these tests: they
    run inside playwright's loop, on purpose."""


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("MEEPLE_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[FAILED] = report.failed


FAILED = pytest.StashKey[bool]()


class PageErrors(list[str]):
    """Uncaught errors the page threw, and what its Content Security Policy
    refused: any fails the test."""


def open_page(
    browser: Browser,
    site: Site,
    width: int = 1000,
    height: int = 900,
    storage_state: Any = None,
) -> tuple[Page, PageErrors]:
    """A page in a new browser context (a browser of its own: its own
    localStorage, so its own signed-in player, unless ``storage_state``
    copies another context's)."""
    context = browser.new_context(
        viewport={"width": width, "height": height},
        base_url=site.url,
        storage_state=storage_state,
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    return page, watch_errors(page)


def watch_errors(page: Page) -> PageErrors:
    errors = PageErrors()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return errors


@pytest.fixture
def new_page(
    browser: Browser, site: Site, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Any]:
    """Opens pages (``new_page(width=375)``), each in a browser context of
    its own, or another context's copy (``storage_state=page.context.
    storage_state()``: the same signed-in player on another device), or a
    new tab of a page's context (``tab_of=page``); on failure each one's
    last screen is saved; an uncaught page error, or anything the page's
    Content Security Policy refused, fails the test."""
    opened: list[tuple[Page, PageErrors]] = []

    def make(
        width: int = 1000,
        height: int = 900,
        storage_state: Any = None,
        tab_of: Page | None = None,
    ) -> Page:
        if tab_of is not None:
            page = tab_of.context.new_page()
            errors = watch_errors(page)
        else:
            page, errors = open_page(browser, site, width, height, storage_state)
        opened.append((page, errors))
        return page

    yield make
    for index, (page, _) in enumerate(opened):
        if request.node.stash.get(FAILED, False):
            shot = tmp_path / f"failure-{index}.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"the page's last screen: {shot}")
    for context in {id(shown.context): shown.context for shown, _ in opened}.values():
        context.close()
    for _, errors in opened:
        assert not errors, f"the page threw or broke its CSP: {errors}"


@pytest.fixture
def page(new_page: Any) -> Page:
    return new_page()  # type: ignore[no-any-return]
