"""Issue 35 items 2 and 3, in Chromium: pages never go quietly stale, and a live change never
wipes a half-filled form. Ann on a tablet, Ben on a phone; screenshots in the test's tmp dir.
Reuses the browser test's server and Chromium (``test_webui_browser``): its table 2 has a
camera (not started), so its table page holds two live streams (events and the camera view)
as on the demo table."""

from __future__ import annotations

import pytest
import test_webui_browser
from test_webui_phone import SIZES, TABLE, join_page, open_browser, propose_knock

from scorer import parse_card
from webui.store import Actor, commands

pytestmark = [pytest.mark.slow, pytest.mark.browser]
served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)
# Waits are for something to show; these only guard against a hang, they are no speed limit.
SHOWS_MS = 60_000


def join_table(browser, base, app, table_id, seat, size):
    page = join_page(browser, base, app, seat, size, table_id, loaded="domcontentloaded")
    page.set_default_timeout(SHOWS_MS)
    return page


def test_tabs_flipped_a_second_apart_still_get_live_updates(served, tmp_path):
    """Score sheet, Hand, History tapped a second apart: the Hand page was refused its stream
    (the pages left still held the tablet's slots) and Ben's confirmation never reached it."""
    from playwright.sync_api import expect, sync_playwright

    app, base, table_id, _feed, _truth = served
    propose_knock(app.extensions["gintray"].store, table_id)
    with sync_playwright() as p:
        browser = open_browser(p)
        ann = join_table(browser, base, app, table_id, "A", SIZES["tablet"])
        ben = join_table(browser, base, app, table_id, "B", SIZES["phone"])
        expect(ann.locator("#camera-view")).to_be_visible()  # the page streams its camera too
        for tab in ("Score sheet", "Hand", "History", "Hand", "Score sheet", "Hand", "History",
                    "Hand"):
            ann.locator("nav.tabs a", has_text=tab).click()
            ann.wait_for_load_state("domcontentloaded")
            ann.wait_for_timeout(1000)  # the player's next tap, a second later
        expect(ann.locator("section.hand h1")).to_contain_text("Hand 1")
        ben.click("button.confirm[data-player=B]")
        expect(ann.locator(".confirms")).to_contain_text("Ben confirmed", timeout=SHOWS_MS)
        expect(ann.locator("#live-status")).to_be_hidden()
        ann.screenshot(path=str(tmp_path / "ann-after-flipping-tabs.png"), full_page=True)
        ann.click("button.confirm[data-player=A]")  # and Ann's tap reaches Ben's phone
        expect(ben.locator("#recorded")).to_contain_text("Hand 1 recorded", timeout=SHOWS_MS)
        ben.screenshot(path=str(tmp_path / "ben-hand-recorded.png"), full_page=True)
        browser.close()
    assert (tmp_path / "ann-after-flipping-tabs.png").stat().st_size > 0


def test_a_page_refused_its_stream_says_so_retries_and_catches_up(served, tmp_path):
    """The table's 12 slots all held by its screens' pages: Ann's page is refused (429). It
    said nothing and never tried again; now it says so, retries, and once a slot is free it
    shows what happened meanwhile."""
    from playwright.sync_api import expect, sync_playwright

    app, base, _table_id, _feed, _truth = served
    store = app.extensions["gintray"].store
    held = []
    for n in range(4):  # four screens on the table's own computer, three pages each
        viewer = app.test_client()
        viewer.environ_base["REMOTE_ADDR"] = f"127.0.0.{n + 2}"
        held += [viewer.get(f"/api/t/{TABLE}/events?max=600", buffered=False)
                 for _ in range(3)]
    assert [r.status_code for r in held] == [200] * 12
    try:
        with sync_playwright() as p:
            browser = open_browser(p)
            ann = join_page(browser, base, app, "A", SIZES["tablet"])
            status = ann.locator("#live-status")
            expect(status).to_contain_text("Live updates paused, retrying", timeout=SHOWS_MS)
            hand = store.state(TABLE).current_hand()  # meanwhile Ben's tablet sets the card
            store.execute(TABLE, commands.set_knock_card(hand.game, hand.number, parse_card("QC")),
                          Actor("device:tablet B"))
            ann.screenshot(path=str(tmp_path / "ann-live-updates-paused.png"), full_page=True)
            expect(ann.locator("#knock-card")).to_have_text("?")  # it could not know yet
            for response in held[:3]:  # one screen is closed
                response.close()
            held = held[3:]
            expect(ann.locator("#knock-card")).to_contain_text("Q", timeout=SHOWS_MS)
            expect(status).to_be_hidden()
            ann.screenshot(path=str(tmp_path / "ann-caught-up.png"), full_page=True)
            browser.close()
    finally:
        for response in held:
            response.close()


OUTCOME = "form:has(input[name=kind][value=manual])"  # "Enter outcome"


def outcome_values(page):
    form = page.locator(OUTCOME)
    return (form.locator("select[name=winner]").input_value(),
            form.locator("input[name=points]").input_value(),
            form.locator("input[name=note]").input_value())


def test_a_half_filled_outcome_form_survives_live_changes_and_is_sent(served, tmp_path):
    """Item 3: Ann fills "Enter outcome" while the camera sees the deal and Ben's tablet
    corrects the knock card. The page did not update while a field had focus, and a change
    then emptied the fields ("Please select an item in the list", nothing sent). Now the page
    updates around the form, which keeps what Ann typed and chose (and the focus), and sends."""
    from playwright.sync_api import expect, sync_playwright

    app, base, _table_id, _feed, _truth = served
    store = app.extensions["gintray"].store
    with sync_playwright() as p:
        browser = open_browser(p)
        ann = join_page(browser, base, app, "A", SIZES["tablet"])
        ben = join_page(browser, base, app, "B", SIZES["phone"])
        ann.click("details.correct summary")
        form = ann.locator(OUTCOME)
        form.locator("select[name=winner]").select_option("A")
        form.locator("input[name=points]").fill("22")
        form.locator("input[name=note]").click()
        ann.keyboard.type("camera missed ")
        hand = store.state(TABLE).current_hand()  # the camera sees the deal
        store.execute(TABLE, commands.set_knock_card(hand.game, hand.number, parse_card("9H"),
                                                     source="camera"), Actor("camera"))
        expect(ann.locator("#knock-card")).to_contain_text("9", timeout=SHOWS_MS)
        assert ann.evaluate("document.activeElement.name") == "note"  # the focus stayed
        ann.keyboard.type("the layoff")
        assert outcome_values(ann) == ("A", "22", "camera missed the layoff")
        ann.screenshot(path=str(tmp_path / "ann-form-kept-while-typing.png"), full_page=True)
        ann.locator("section.hand h1").click()  # Ann looks up: no field has focus
        ben.fill("form.knock-card-form input[name=card]", "9D")  # Ben's tablet taps
        ben.click("form.knock-card-form button")
        expect(ann.locator("#knock-card")).to_have_text("9♦", timeout=SHOWS_MS)
        assert outcome_values(ann) == ("A", "22", "camera missed the layoff")
        ann.screenshot(path=str(tmp_path / "ann-form-kept-after-bens-tap.png"), full_page=True)
        form.locator("button").click()  # "Enter outcome"
        for page in (ann, ben):
            expect(page.locator("#proposal .headline")).to_contain_text("Entered by hand",
                                                                        timeout=SHOWS_MS)
            expect(page.locator("#proposal .headline")).to_contain_text("Ann scores 22")
        ann.screenshot(path=str(tmp_path / "ann-outcome-sent.png"), full_page=True)
        # the form sent, it is drawn afresh: empty for the next correction
        expect(ann.locator(f"{OUTCOME} input[name=points]")).to_have_value("")
        browser.close()
    proposal = store.state(TABLE).current_hand().proposal
    assert proposal.kind.value == "manual"
    assert proposal.result.winner == "A" and proposal.result.points == 22
    assert proposal.result.note == "camera missed the layoff"


def test_a_newer_page_of_the_tablet_takes_the_stream_and_the_older_says_so(served, tmp_path):
    """Three pages of Ann's tablet open at once (two tabs left open; each page wants two of
    the tablet's 3 slots): the newest take the streams, the oldest says its live updates are
    paused and, when asked, takes the stream back from the page that is now the oldest (which
    says so in turn); Ben's tap reaches the pages that stream."""
    import numpy as np
    from playwright.sync_api import expect, sync_playwright

    from vision.table.events import FrameRead

    app, base, table_id, feed, _truth = served
    feed.picture.publish(np.full((120, 160, 3), 90, np.uint8), FrameRead(0))
    propose_knock(app.extensions["gintray"].store, table_id)
    with sync_playwright() as p:
        browser = open_browser(p)
        first = join_table(browser, base, app, table_id, "A", SIZES["tablet"])
        ben = join_table(browser, base, app, table_id, "B", SIZES["phone"])
        expect(first.locator("body")).to_have_attribute("data-live", "on")
        pages = [first]
        for _ in range(2):
            page = first.context.new_page()
            page.set_default_timeout(SHOWS_MS)
            page.goto(f"{base}/t/{table_id}", wait_until="domcontentloaded")
            expect(page.locator("body")).to_have_attribute("data-live", "on",
                                                           timeout=SHOWS_MS)
            pages.append(page)
        paused = "Live updates paused: this tablet opened the table in another page."
        expect(first.locator("#live-status")).to_contain_text(paused, timeout=SHOWS_MS)
        first.screenshot(path=str(tmp_path / "ann-older-page-paused.png"), full_page=True)
        first.get_by_role("button", name="Resume here").click()
        expect(first.locator("#live-status")).to_be_hidden(timeout=SHOWS_MS)
        expect(pages[1].locator("#live-status")).to_contain_text(paused, timeout=SHOWS_MS)
        ben.click("button.confirm[data-player=B]")
        for page in (first, pages[2]):
            expect(page.locator(".confirms")).to_contain_text("Ben confirmed", timeout=SHOWS_MS)
        expect(pages[1].locator(".confirms")).to_contain_text("waiting for Ben")  # paused
        first.screenshot(path=str(tmp_path / "ann-resumed-page.png"), full_page=True)
        browser.close()
