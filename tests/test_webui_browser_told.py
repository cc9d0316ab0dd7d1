"""Issue 26 (at the table), seen in a browser: a tablet is told "the camera read the hand again,
and this changed" only about versions it showed. The camera's quick re-reads before the tablet
showed a result are not news; a change after it did is. Screenshots in the test's folder."""

from __future__ import annotations

import pytest
import test_webui_browser
from test_webui_phone import SIZES, TABLE, join_page, open_browser
from webui_helpers import KNOCK_A, KNOCK_B

from scorer import parse_card, parse_cards
from webui.store import Actor, commands
from webui.store.proposal import Kind, Proposal

pytestmark = [pytest.mark.slow, pytest.mark.browser]
served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)
CAMERA = Actor("camera")


def camera_proposes(store, cards_b: list[str]) -> None:
    hand = store.state(TABLE).current_hand()
    proposal = Proposal(Kind.SCORE, knocker="A",
                        cards={"A": parse_cards(KNOCK_A), "B": parse_cards(cards_b)})
    store.execute(TABLE, commands.propose(hand.game, hand.number, proposal, source="camera",
                                          strict=False), CAMERA)


def test_a_tablet_is_told_only_what_changed_after_it_showed_the_hand(served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    app, base, _table_id, _feed, _truth = served
    store = app.extensions["gintray"].store
    hand = store.state(TABLE).current_hand()
    store.execute(TABLE, commands.set_knock_card(hand.game, hand.number, parse_card("9H"),
                                                 source="camera"), CAMERA)
    misread = ["8H" if c == "8D" else c for c in KNOCK_B]
    with sync_playwright() as p:
        browser = open_browser(p)
        ann = join_page(browser, base, app, "A", SIZES["tablet"])
        expect(ann.locator("#knock-card")).to_have_text("9♥")
        ann.route("**/panel*", lambda route: route.abort())  # the tablet misses this version
        camera_proposes(store, misread)
        ann.wait_for_timeout(300)
        ann.unroute("**/panel*")
        camera_proposes(store, list(KNOCK_B))  # re-read at once: the first the tablet shows
        expect(ann.locator("#proposal .headline")).to_contain_text("Ann knocks")
        expect(ann.locator("#proposal-changes")).to_have_count(0)
        ann.screenshot(path=str(tmp_path / "first-proposal.png"), full_page=True)
        camera_proposes(store, misread)  # a change after Ann saw the hand: she is told
        expect(ann.locator("#proposal-changes")).to_contain_text("Ben's cards: 8H instead of 8D")
        ann.screenshot(path=str(tmp_path / "changed-after-seen.png"), full_page=True)
        browser.close()
    assert (tmp_path / "first-proposal.png").stat().st_size > 0
