"""Issue 35 item 4: a 35-letter surname pushed the other player's column off the page: the
sheet was 607 px wide on a 390 px phone and 1341 px on the table screen. Now a long name
breaks inside its column (no wider than 9em) and every page with the sheet fits its screen,
in Chromium. Reuses the browser test's server and Chromium (``test_webui_browser``)."""

from __future__ import annotations

import pytest
import test_webui_browser
from test_webui_phone import assert_fits, open_browser
from webui_helpers import pin_of

from scorer import parse_card
from webui.common.seating import Seating, open_seated_table
from webui.store import Actor, commands

pytestmark = [pytest.mark.slow, pytest.mark.browser]
served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)

SURNAME = "Wolfeschlegelsteinhausenbergerdorff"  # 35 letters
LONG_NAME = f"Ann {SURNAME}"


def seated_table_with_hands(store, count: int) -> int:
    """A table the hall seated for round 2 (its screen then titles the match with both
    names), with ``count`` hands entered by hand and confirmed by both players."""
    table_id = open_seated_table(store, Seating("long-names", 2, 3, LONG_NAME, "Ben"),
                                 "tournament", None, Actor("hall"))
    actor = Actor("device:test")
    for number in range(count):
        hand = store.state(table_id).current_hand()
        store.execute(table_id, commands.set_knock_card(hand.game, hand.number,
                                                        parse_card("9H")), actor)
        winner = "AB"[number % 2]
        store.execute(table_id, commands.propose(hand.game, hand.number, {
            "kind": "manual", "result": {"winner": winner, "points": 12, "outcome": "manual",
                                         "note": "entered at the table"}}), actor)
        revision = store.state(table_id).current_hand().revision
        for player in ("A", "B"):
            store.execute(table_id, commands.confirm(hand.game, hand.number, player,
                                                     revision), actor)
    return table_id


def test_the_sheet_with_a_35_letter_surname_fits_the_phone_and_the_table_screen(
        served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    assert len(SURNAME) == 35
    app, base, _table, _feed, _truth = served
    table_id = seated_table_with_hands(app.extensions["gintray"].store, 3)
    with sync_playwright() as p:
        browser = open_browser(p)
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.set_default_timeout(20_000)
        phone.goto(f"{base}/t/{table_id}/join")
        phone.fill("input[name=pin]", pin_of(app, table_id))
        phone.check("input[name=seat][value=B]")
        phone.click("button.primary")
        phone.wait_for_url(f"{base}/t/{table_id}")
        for path, label in ((f"/t/{table_id}/sheet", "phone-sheet"),
                            (f"/t/{table_id}", "phone-table")):
            phone.goto(base + path)
            expect(phone.locator("table.scores thead")).to_contain_text(SURNAME[:8])
            phone.screenshot(path=str(tmp_path / f"{label}.png"), full_page=True)
            assert_fits(phone, label)
        # the other player's column is on the screen, beside the long name's
        columns = phone.locator("table.scores thead th")
        ben = columns.nth(4).bounding_box()
        assert columns.nth(4).inner_text() == "Ben"
        assert ben["x"] + ben["width"] <= 390
        screen = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        screen.set_default_timeout(20_000)
        screen.goto(f"{base}/t/{table_id}/screen")  # the table's own screen (this machine)
        expect(screen.locator("#seating")).to_contain_text(SURNAME)
        expect(screen.locator("table.scores thead")).to_contain_text(SURNAME[:8])
        screen.screenshot(path=str(tmp_path / "table-screen.png"), full_page=True)
        assert_fits(screen, "table screen")
        browser.close()
