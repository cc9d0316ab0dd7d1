"""Issue 26 item 9: text people type is kept as typed or refused plainly: ``note: null`` is no
note (it was saved as "None"); names and labels with NUL, CR or other control characters, or
longer than their limit, are refused with a clear 400 (they were kept, or cut without a word);
a 40-letter name does not widen the history page on a 390 px phone."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_webui_browser import stop_server
from webui_helpers import Tablet, csrf_token, director_client, join, make_app

from webui.common.validate import plain_text

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def test_a_null_note_is_no_note(tablet):
    assert tablet.knock_card("9H").status_code == 200
    r = tablet.propose(kind="manual", winner="A", points=20, note=None)
    assert r.status_code == 200
    assert tablet.hand()["proposal"]["result"]["note"] == ""
    r = tablet.propose(kind="manual", winner="A", points=21, note=7)
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "bad_note"
    r = tablet.propose(kind="manual", winner="A", points=21, note="x" * 201)
    assert r.status_code == 400 and "at most 200" in r.get_json()["error"]["message"]
    assert tablet.hand()["proposal"]["result"]["points"] == 20  # nothing lost, nothing changed


def settings_form(director, **fields):
    token = csrf_token(director, "/director/")
    form = {"csrf_token": token, "name": "Table 1", "player_A": "Ann", "player_B": "Ben",
            "rules": "tournament", **fields}
    return director.post("/director/tables/1/settings", data=form)


@pytest.mark.parametrize("bad", ["Ann\x00", "Ann\rBen", "Ann\nBen", "Ann\x1b[31m", "A" * 41])
def test_names_with_control_characters_or_too_long_are_refused(app, bad):
    director = director_client(app)
    r = settings_form(director, player_A=bad)
    assert r.status_code == 400
    page = r.get_data(as_text=True)
    assert "player_A" in page and ("control characters" in page or "at most 40" in page)
    assert app.extensions["gintray"].store.state(1).players["A"] == "Ann"  # kept as it was


def test_a_new_table_with_a_long_name_is_refused_not_cut(app):
    director = director_client(app)
    token = csrf_token(director, "/director/")
    r = director.post("/director/tables", data={"csrf_token": token, "name": "T" * 61,
                                                "player_A": "Cy", "player_B": "Di",
                                                "rules": "tournament"})
    assert r.status_code == 400 and "at most 60" in r.get_data(as_text=True)
    assert len(app.extensions["gintray"].store.tables()) == 1


def test_a_tablet_label_with_a_control_character_is_refused(app):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "192.168.1.20"
    r = join(client, app, seat="A", label="kitchen\x00")
    assert r.status_code == 400 and "Name of this tablet" in r.get_data(as_text=True)
    assert join(client, app, seat="A", label="kitchen").status_code == 302


def test_plain_text():
    assert plain_text("  Ann  ", "name", 40) == "Ann"
    assert plain_text("", "name", 40, "Player A") == "Player A"
    assert plain_text(None, "note", 200) == ""
    assert plain_text("Zoë 😀", "name", 40) == "Zoë 😀"


@pytest.mark.slow
@pytest.mark.browser
def test_a_forty_letter_name_fits_the_history_page_on_a_phone(tmp_path):
    waitress = pytest.importorskip("waitress")
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make test installs it)")
    app = make_app(tmp_path)
    long_name = "Wolfeschlegelsteinhausenbergerdorffvoral"  # 40 letters, no space
    director = director_client(app)
    assert settings_form(director, player_A=long_name, name="T" * 60).status_code == 302
    Tablet(app, seat="A", remote="192.168.1.20")  # Ann's tablet joins: a history line names it
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.goto(f"{base}/t/1/history")  # the table's own computer may read it
            assert long_name in page.content()
            width = page.evaluate("document.documentElement.scrollWidth")
            page.screenshot(path=str(tmp_path / "history-long-name.png"), full_page=True)
            browser.close()
        assert width <= 390, f"the history page is {width} px wide on a 390 px phone"
    finally:
        stop_server(app, server, thread)
