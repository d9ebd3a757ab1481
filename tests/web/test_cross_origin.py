"""A web client served from elsewhere (here a page of its own HTTP server,
opened as http://localhost:PORT) calls the services on the web port with a
seat token header, so its browser asks first (a CORS preflight): a server
that allows its origin answers it, one that does not is refused by the
browser itself."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import Browser

from services.settings import Settings
from tests.services.conftest import serving
from tests.web.conftest import TIMEOUT_MS, Site

CALL = """async (url) => {
  try {
    const answer = await fetch(url + "/meeple.v1.MatchService/GetMatch", {
      method: "POST",
      headers: {"content-type": "application/json", "meeple-seat-token": "not-a-token"},
      body: JSON.stringify({matchId: "no-such-match"}),
    });
    return {status: answer.status, body: await answer.json()};
  } catch (error) {
    return {refused: String(error)};
  }
}"""


class StudioPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>a studio's client</title>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def elsewhere() -> Iterator[str]:
    """The origin of another site's page (on a loopback address, as the
    web port is: Chromium asks the user before a public page calls a local
    address)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), StudioPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_page_of_an_allowed_origin_calls_and_another_is_refused(
    browser: Browser, site: Site, elsewhere: str
) -> None:
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(f"{elsewhere}/")
    settings = Settings(rate_per_second=None)
    try:
        with serving(settings, web_port=0, web_origins=(elsewhere,)) as allowing:
            answer: Any = page.evaluate(CALL, f"http://127.0.0.1:{allowing.app.web_port}")
        assert answer == {
            "status": 404,
            "body": {
                "code": "not_found",
                "message": "no match 'no-such-match' (it may have expired)",
            },
        }
        # The site's server allows no other origin: the browser refuses the call.
        answer = page.evaluate(CALL, site.url.rstrip("/"))
        assert answer == {"refused": "TypeError: Failed to fetch"}
    finally:
        context.close()
