"""The hall in a real browser (Playwright driving Debian's Chromium) on a real PostgreSQL:
every director page loads with confirmed, corrected, signed, partnership and synced tables,
with no script error and no Content-Security-Policy violation, and the director's features
work from the page: named login, tie-breaks, merging two player ids, the round clock, Swiss
pairing approved into tables, a knockout proposal, a penalty, a correction, the audit; the
public projector refreshes itself with nobody logged in. Screenshots (1280x800) go to tmp, and to
webui/hall/screenshots/ with GINTRAY_HALL_SCREENSHOTS=1 (for the README)."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import hall_helpers
import pytest
from hall_helpers import (
    PLAYER_A,
    PNG_DATA_URL,
    director_client,
    new_partnership,
    new_table,
    play_hand,
)

from webui.hall import create_hall_app
from webui.hall.directors import set_account
from webui.hall.sync import open_store, sync_once
from webui.store import commands

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures
ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "webui" / "hall" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 800}

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def seed(app, store, tmp_path: Path) -> dict[str, int]:
    """An event in play: confirmed, corrected, signed, partnership and synced tables."""
    client = director_client(app)  # the shared password, before the named accounts
    tables = {}
    tables["confirmed"] = new_table(store, "Confirmed", "Ann", "Bob")
    for winner in "BBAAA":  # Ann beats Bob 3-2 over 15 gins
        for _ in range(3):
            play_hand(store, tables["confirmed"], winner, gin=True)
    tables["corrected"] = new_table(store, "Corrected", "Cy", "Di")
    play_hand(store, tables["corrected"], "A")
    rev = store.state(tables["corrected"]).hand(1, 1).revision
    r = client.post(f"/tables/{tables['corrected']}/correct", json={
        "game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 20, "revision": rev},
        headers={"X-CSRFToken": client.csrf})
    assert r.status_code == 200
    tables["signed"] = new_table(store, "Signed", "Frank", "Flo")
    for _ in range(3):
        play_hand(store, tables["signed"], "A", gin=True)
    for p in "AB":
        store.execute(tables["signed"], commands.sign(1, p, PNG_DATA_URL), PLAYER_A)
    b1, b2 = new_partnership(client, store, ("Gus", "Hal"), ("Ida", "Jo"))
    play_hand(store, b1, "A")
    play_hand(store, b2, "B", gin=True)
    tables["board"] = b1
    tables["typo"] = new_table(store, "Late", "Franck", "Gil")  # Frank, typed otherwise
    play_hand(store, tables["typo"], "A")
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    play_hand(local, new_table(local, "Synced", "Kim", "Lou"), "B")
    sync_once(local, store)
    tables["synced"] = next(t.id for t in store.tables() if t.name == "Synced")
    set_account(store, "Alice Smith", "alice-pass-1")
    return tables


@pytest.fixture
def served(pg_url, tmp_path):
    """The hall served by waitress in this process, with an event in play."""
    waitress = pytest.importorskip("waitress")
    pytest.importorskip("playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make test installs it)")
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    store = app.extensions["gintray"].store
    tables = seed(app, store, tmp_path)
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield store, f"http://127.0.0.1:{server.effective_port}", tables
    finally:
        server.task_dispatcher.shutdown(timeout=15)
        from waitress import wasyncore

        server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
        thread.join(timeout=15)


class Watched:
    """A page whose script errors, console errors (CSP violations among them) and failed
    responses are collected."""

    def __init__(self, page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda exc: self.errors.append(f"script: {exc}"))
        page.on("console", lambda m: self.errors.append(f"console: {m.text}")
                if m.type == "error" else None)
        page.on("response", lambda r: self.errors.append(f"{r.status} {r.url}")
                if r.status >= 400 else None)

    def visit(self, url: str, *texts: str) -> None:
        r = self.page.goto(url)
        assert r is not None and r.status == 200, (url, r and r.status)
        body = self.page.inner_text("body")
        for text in texts:
            assert text in body, (url, text)
        assert not self.errors, (url, self.errors)


def shoot(page, name: str, tmp_path: Path) -> None:
    """A 1280x800 screenshot to tmp (and to webui/hall/screenshots/ when asked)."""
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot))
    if os.environ.get("GINTRAY_HALL_SCREENSHOTS") == "1":
        from PIL import Image

        SHOTS.mkdir(exist_ok=True)
        with Image.open(shot) as image:  # 256 colours: a third of the bytes, text stays sharp
            image.convert("RGB").quantize(256).save(SHOTS / f"{name}.png", optimize=True)


def test_every_director_page_in_a_browser(served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    _store, base, tables = served
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(20_000)
        w = Watched(page)
        w.visit(f"{base}/login", "Tournament director", "Your name")
        shoot(page, "login", tmp_path)
        page.fill("input[name=name]", "alice smith")
        page.fill("input[name=password]", "alice-pass-1")
        page.click("button.primary")
        expect(page.locator("#director-name")).to_have_text("Alice Smith")

        # tie-breaks: head-to-head first, then the point difference
        selects = page.locator("#tiebreaks select[name=tiebreak]")
        selects.nth(0).select_option("head_to_head")
        selects.nth(1).select_option("difference")
        for i in range(2, selects.count()):
            selects.nth(i).select_option("")
        page.click("#tiebreaks button")
        expect(page.locator(".flash")).to_contain_text(
            "Standings ranked by matches won, then head-to-head, then point difference, then name")
        expect(page.locator("#ranked-by")).to_contain_text("then head-to-head")

        # Franck (table Late) is Frank (table Signed): merge the two ids
        w.visit(f"{base}/players", "Players", "Franck", "Merge two players")
        for field, name in (("from_id", "Franck (#"), ("into_id", "Frank (#")):
            select = page.locator(f"#merge select[name={field}]")
            value = select.locator("option", has_text=name).get_attribute("value")
            select.select_option(value)
        page.fill("#merge input[name=reason]", "one person, typed two ways")
        page.click("#merge button")
        expect(page.locator(".flash")).to_contain_text("merged into Frank")
        expect(page.locator("#players-table")).to_contain_text("also entered as Franck")
        shoot(page, "players", tmp_path)
        page.goto(f"{base}/")

        # the round clock: start round 1 for 50 minutes; the page counts down
        page.fill("#round input[name=minutes]", "50")
        page.click("#round button")
        expect(page.locator(".flash")).to_contain_text("Round 1 started: 50 minutes")
        expect(page.locator("#round-clock .clock")).to_have_text(re.compile(r"^(49|50):\d\d left$"))
        expect(page.locator("#round-playing")).to_contain_text("table(s) still playing")

        # Swiss pairing: propose, check, approve into tables
        page.click("#pair-next button")
        expect(page.locator(".flash")).to_contain_text("Pairing for round 2 proposed")
        expect(page.locator("#pairing-table")).to_contain_text("Ann")
        page.click("#pairing button.primary")
        expect(page.locator(".flash")).to_contain_text("Round 2 approved: tables")

        # a penalty from the standings form
        page.select_option("#adjust select[name=kind]", "penalty")
        page.select_option("#adjust select[name=player_id]", label="Bob")
        page.fill("#adjust input[name=points]", "10")
        page.fill("#adjust input[name=reason]", "slow play")
        page.click("#adjust button")
        expect(page.locator(".flash")).to_contain_text("Penalty for Bob: -10 points")

        page.goto(f"{base}/")
        w.visit(f"{base}/", "Tables", "Confirmed", "Corrected", "Signed", "Board 1", "Synced",
                "Round 1", "Standings", "Aces v Kings", "Next round: Swiss or knockout",
                "Round 2 Table 2", "Blind draw")  # table 1 went to the synced app
        shoot(page, "director", tmp_path)
        page.locator("#pairing").scroll_into_view_if_needed()
        shoot(page, "pairing", tmp_path)
        page.locator("#standings").scroll_into_view_if_needed()
        shoot(page, "standings", tmp_path)
        page.wait_for_timeout(3500)  # the tables refresh (hall.js) runs without an error
        assert not w.errors, w.errors

        w.visit(f"{base}/board", "Table status board", "Round 1",
                "7 of 7 table(s) still playing", "Round 2 Table 2")
        shoot(page, "board", tmp_path)
        w.visit(f"{base}/standings/print", "Standings", "Ann")
        pid = page.request.get(f"{base}/api/event").json()["pairing"]["id"]
        w.visit(f"{base}/pairing/{pid}/print", "Round 2", "Ann")
        shoot(page, "pairing_print", tmp_path)

        # a correction from a table's page, then the audit names the director
        w.visit(f"{base}/tables/{tables['confirmed']}", "Ann v Bob", "Correct")
        row = page.locator("table.hall tbody tr").last
        row.locator("select[name=winner]").select_option("B")
        row.locator("input[name=points]").fill("25")
        row.locator("input[name=note]").fill("misread")
        row.locator("button").click()
        expect(page.locator(".flash")).to_contain_text("Correction applied")
        shoot(page, "table", tmp_path)
        for key, texts in (("corrected", ("Cy v Di", "director")),
                           ("signed", ("(signed)", "Reopen game 1")),
                           ("board", ("Gus v Hal",)),
                           ("synced", ("Synced from the table", "Kim v Lou"))):
            w.visit(f"{base}/tables/{tables[key]}", *texts)
        # a knockout of the best four, beside Swiss in the same form
        page.goto(f"{base}/")
        page.select_option("#pair-next select[name=system]", "knockout")
        page.fill("#pair-next input[name=top]", "4")
        page.click("#pair-next button")
        expect(page.locator(".flash")).to_contain_text(
            "Knockout pairing for round 3 (semi-finals) proposed (2 tables")
        expect(page.locator("#pairing")).to_contain_text("Knockout, semi-finals")
        page.locator("#pairing").scroll_into_view_if_needed()
        shoot(page, "knockout", tmp_path)

        w.visit(f"{base}/audit", "Audit", "Alice Smith", "corrected to B 25 (misread)",
                "Bob (player", "-10 points: slow play", "round 2 pairing approved",
                "round 1 started for 50 minutes", "partnership match Aces v Kings",
                "standings ranked by matches won, then head-to-head",
                "Franck (player", "merged into Frank", "knockout (semi-finals) pairing proposed")
        shoot(page, "audit", tmp_path)

        # the projector: nobody logged in, refreshed by hall.js every 10 s, no error
        room = browser.new_page(viewport=VIEWPORT)
        room.set_default_timeout(20_000)
        r = Watched(room)
        r.visit(f"{base}/projector", "Standings", "Round 1", "Frank", "still playing",
                "Confirmed")
        assert room.locator("form").count() == 0
        before = room.locator("#projector-round .clock").inner_text()
        assert re.fullmatch(r"(4\d|50):\d\d left", before), before
        with room.expect_response(f"{base}/projector/live", timeout=15_000):
            pass  # the refresh fetched the round and standings again
        expect(room.locator("#projector-standings")).to_contain_text("Ann")
        room.wait_for_timeout(1200)
        assert room.locator("#projector-round .clock").inner_text() != before  # counts
        assert not r.errors, r.errors
        shoot(room, "projector", tmp_path)
        browser.close()
    for name in ("login", "director", "pairing", "standings", "board", "pairing_print",
                 "table", "audit", "players", "knockout", "projector"):
        assert (tmp_path / f"{name}.png").stat().st_size > 5_000, name


def test_the_readme_shows_each_screenshot_it_names():
    readme = (ROOT / "webui" / "hall" / "README.md").read_text()
    named = re.findall(r"\]\((screenshots/[\w.-]+\.png)\)", readme)
    assert len(named) >= 6, named
    for path in named:
        shot = ROOT / "webui" / "hall" / path
        assert shot.exists() and shot.stat().st_size < 400_000, path
