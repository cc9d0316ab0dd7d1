"""Issue 35 item 1 in a browser: the camera reads the demo hand's knock card as 4C, Ann fixes
it to 4S with two taps on her tablet, and the camera's reading of the spreads (still carrying
its 4C) then proposes the hand on both players' pages, scored with the 4S: Ann +22, Ben's 8H
laid off on its own line and the count spelt out (item 6). Screenshots of both pages are kept
in the test's tmp dir (``knock_fixed_*.png``). Reuses the browser test's server and Chromium
(``test_webui_browser``)."""

from __future__ import annotations

import pytest
import test_webui_browser
from test_webui_knock_fix import camera_of
from test_webui_phone import SIZES, TABLE, join_page, open_browser
from test_webui_proposal_reasons import ANN, BEN

from scorer import parse_card
from vision.table.events import HandDealt, TableRead

pytestmark = [pytest.mark.slow, pytest.mark.browser]
served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)
# each wait is for a condition (a page updated); this is only a guard against a hang
HANG_GUARD_MS = 60_000


def shows(page, selector: str, text: str, exact: bool = False) -> None:
    """Wait until ``page`` shows ``text`` in ``selector`` (all of it when ``exact``)."""
    from playwright.sync_api import expect

    seen = expect(page.locator(selector))
    if exact:
        seen.to_have_text(text, timeout=HANG_GUARD_MS)
    else:
        seen.to_contain_text(text, timeout=HANG_GUARD_MS)


def test_a_fixed_knock_card_keeps_the_cameras_proposal_coming(served, tmp_path):
    from playwright.sync_api import sync_playwright

    app, base, _table_id, _feed, _truth = served
    camera = camera_of(app, tmp_path, TABLE)
    with sync_playwright() as p:
        browser = open_browser(p)
        ann = join_page(browser, base, app, "A", SIZES["tablet"])
        ben = join_page(browser, base, app, "B", SIZES["phone"])
        camera.handle(HandDealt(up_card=parse_card("4C"), confidence=0.9))
        for page in (ann, ben):
            shows(page, "#knock-card", "4♣", exact=True)
        ann.locator("#knock-card").click()  # read wrong: tap it, then the card it really is
        ann.locator('#knock-fix-chooser button[data-other="4S"]').click()
        for page in (ann, ben):
            shows(page, "#knock-card", "4♠", exact=True)
            shows(page, ".waiting-result", "the camera reads")
        # the camera still sees its own 4C
        camera.handle(TableRead(up_card=parse_card("4C"), spreads={"A": ANN, "B": BEN}, problems=[],
                                confidence=0.95, knocker="A"))
        for page, name in ((ann, "tablet"), (ben, "phone")):
            shows(page, "#proposal .headline", "Ann")
            shows(page, "#proposal .points", "22", exact=True)
            shows(page, "#proposal", "proposed by the camera")
            shows(page, "#knock-card", "4♠", exact=True)
            shows(page, "#layoffs", "Ben lays off 8♥ onto Ann's")
            shows(page, "#count-sum", "Ben's count 23 - Ann's count 1 = 22 for Ann", exact=True)
            page.screenshot(path=str(tmp_path / f"knock_fixed_{name}.png"), full_page=True)
        browser.close()
    hand = app.extensions["gintray"].store.state(TABLE).current_hand()
    assert hand.up_card.code == "4S" and hand.proposal is not None
    assert hand.proposal.source == "camera" and hand.proposal.result.points == 22
    assert (tmp_path / "knock_fixed_tablet.png").stat().st_size > 0
