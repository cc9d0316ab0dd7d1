"""An open director page or projector while PostgreSQL is away (issue 27 item 10), on a real
PostgreSQL behind a TCP relay the test cuts.

Before, an open page's refresh got a 503 it ignored and the page went stale in silence. Now
the refresh (and the heartbeat ``/alive`` of pages without one) gets a clear 503 saying since
when the hall cannot reach its database, the same moment however often it asks; static/hall.js
turns it into "Hall offline since 14:02:07 UTC: ..." above the page's last view, and says
"Hall back online at ..." once an answer is good again. The outage's clock is the test's."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import hall_helpers
import pytest
from hall_helpers import TcpCut, director_client, new_table

from webui.hall import create_hall_app

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url
LIVE = {"X-Hall-Live": "1", "Accept": "text/html"}
CHROMIUM = "/usr/bin/chromium"


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def relayed_hall(pg_url: str, tmp_path: Path):
    host, port = pg_url.split("@", 1)[1].split("/", 1)[0].split(":")
    relay = TcpCut(host, int(port))
    app = create_hall_app({"DATABASE_URL": relay.url(pg_url), "TIMEZONE": "UTC",
                           "DATA_DIR": str(tmp_path / "hall")})
    clock = Clock(datetime(2026, 11, 25, 14, 2, 7, tzinfo=UTC))
    app.extensions["gintray"].offline.clock = clock
    new_table(app.extensions["gintray"].store, "Table 1")
    return app, relay, clock


def test_an_open_pages_refresh_gets_a_clear_503_since_the_first_failure(pg_url, tmp_path):
    app, relay, clock = relayed_hall(pg_url, tmp_path)
    director = director_client(app)
    room = app.test_client()  # the projector: nobody logged in
    r = director.get("/live", headers=LIVE)
    assert r.status_code == 200 and r.headers["X-Hall-Now"] == "14:02:07 UTC"
    assert room.get("/alive").get_json() == {"ok": True}
    relay.cut()
    answers = []
    for path, client in (("/live", director), ("/projector/live", room), ("/alive", room),
                         ("/live", director)):
        r = client.get(path, headers=LIVE)
        assert r.status_code == 503, (path, r.status_code)
        assert r.headers["Cache-Control"] == "no-store" and r.headers["Retry-After"] == "5"
        answers.append(r.get_json()["error"])
        clock.at += timedelta(seconds=20)  # later tries: the outage began at the first
    for error in answers:
        assert error["code"] == "database_unavailable"
        assert error["since_local"] == "14:02:07 UTC"
        assert error["since"].startswith("2026-11-25T14:02:07")
        assert "cannot be reached since 14:02:07 UTC" in error["message"]
        assert "psycopg" not in error["message"]
    for path in ("/hall-static/hall.js", "/hall-static/hall.css", "/static/style.css"):
        r = director.get(path)  # a page's script and styles need no database
        assert r.status_code == 200, (path, r.status_code)
        r.close()
    page = director.get("/")  # a page loaded now: the same words, and it tries again itself
    text = page.get_data(as_text=True)
    assert page.status_code == 503 and "since 14:02:07 UTC" in text
    assert '<meta http-equiv="refresh" content="5">' in text
    relay.connect()
    clock.at = datetime(2026, 11, 25, 14, 3, 10, tzinfo=UTC)
    r = director.get("/live", headers=LIVE)
    assert r.status_code == 200 and r.headers["X-Hall-Now"] == "14:03:10 UTC"
    watch = app.extensions["gintray"].offline
    assert watch.current is None
    assert watch.last.since == datetime(2026, 11, 25, 14, 2, 7, tzinfo=UTC)
    assert watch.last.back_at == clock.at
    relay.cut()  # a second outage has its own start
    clock.at += timedelta(minutes=5)
    r = room.get("/projector/live", headers=LIVE)
    assert r.status_code == 503 and r.get_json()["error"]["since_local"] == "14:08:10 UTC"
    relay.connect()


@pytest.mark.slow
@pytest.mark.browser
def test_the_open_projector_and_director_page_say_hall_offline_then_back(pg_url, tmp_path):
    """In Chromium: the projector and the director's page, open before PostgreSQL goes away,
    show the banner with the time of the first failure, keep their last view, and say when
    the hall is back; screenshots in tmp_path. No fixed sleep: each step waits for the page's
    words (the pages refresh every 3 s, the projector every 10 s)."""
    waitress = pytest.importorskip("waitress")
    pytest.importorskip("playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make test installs it)")
    from playwright.sync_api import expect, sync_playwright

    app, relay, clock = relayed_hall(pg_url, tmp_path)
    director_client(app)  # sets the password
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
            projector = browser.new_page(viewport={"width": 1280, "height": 800})
            projector.goto(f"{base}/projector")
            director = browser.new_page(viewport={"width": 1280, "height": 800})
            director.goto(f"{base}/login")
            director.fill("input[name=password]", hall_helpers.PASSWORD)
            director.click("button.primary")
            expect(director.locator("#tables")).to_contain_text("Table 1")
            for page in (director, projector):  # their script runs (it loads after the page)
                page.wait_for_load_state("load")
            relay.cut()
            for page in (director, projector):
                banner = page.locator("#hall-offline")
                expect(banner).to_contain_text("Hall offline since 14:02:07 UTC", timeout=30000)
                expect(banner).to_contain_text("the event database cannot be reached")
            expect(director.locator("#tables")).to_contain_text("Table 1")  # the last view
            director.screenshot(path=str(tmp_path / "director_offline.png"))
            projector.screenshot(path=str(tmp_path / "projector_offline.png"))
            clock.at = datetime(2026, 11, 25, 14, 3, 10, tzinfo=UTC)
            relay.connect()
            for page in (director, projector):
                expect(page.locator("#hall-offline")).to_contain_text(
                    "Hall back online at 14:03:10 UTC (offline since 14:02:07 UTC)",
                    timeout=30000)
            director.screenshot(path=str(tmp_path / "director_back.png"))
            browser.close()
    finally:
        server.task_dispatcher.shutdown(timeout=15)
        from waitress import wasyncore

        server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
        thread.join(timeout=15)
        relay.cut()
    for name in ("director_offline", "projector_offline", "director_back"):
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
