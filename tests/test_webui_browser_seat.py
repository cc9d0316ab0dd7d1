"""Issue 35 item 5, seen in a browser: Ben's phone lost its cookie (a private tab, the QR
scanner's own browser). It asks for Ben's seat back with the PIN, the table screen shows the
request live and allows it, the phone then holds Ben's seat and the old tablet is signed out.
Screenshots in the test's folder."""

from __future__ import annotations

import pytest
import test_webui_browser
from test_webui_phone import SIZES, TABLE, join_page, open_browser
from webui_helpers import pin_of

pytestmark = [pytest.mark.slow, pytest.mark.browser]
served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)


def test_a_tablet_with_a_new_cookie_takes_its_seat_back_after_the_screen_allows(served,
                                                                                 tmp_path):
    from playwright.sync_api import expect, sync_playwright

    app, base, _table_id, _feed, _truth = served
    store = app.extensions["gintray"].store
    with sync_playwright() as p:
        browser = open_browser(p)
        ann = join_page(browser, base, app, "A", SIZES["tablet"])
        old_ben = join_page(browser, base, app, "B", SIZES["phone"])
        screen = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        screen.set_default_timeout(20_000)
        screen.goto(f"{base}/t/{TABLE}/screen")
        expect(screen.locator("#pin")).to_have_text(pin_of(app, TABLE))

        # Ben's phone again, with a new cookie: its seat is held by "tablet" (the old cookie)
        width, height = SIZES["phone"]
        phone = browser.new_context(viewport={"width": width, "height": height}).new_page()
        phone.set_default_timeout(20_000)
        phone.goto(f"{base}/t/{TABLE}/join")
        phone.fill("input[name=pin]", pin_of(app, TABLE))
        phone.check("input[name=seat][value=B]")
        phone.fill("input[name=label]", "Ben's phone")
        phone.click("form.join button.primary")
        expect(phone.locator("p.error")).to_contain_text("Ben's seat is held by the tablet")
        phone.click("#take-back button")
        phone.wait_for_url(f"{base}/t/{TABLE}/join/wait")
        expect(phone.locator("#seat-wait")).to_contain_text("tap Allow")
        phone.screenshot(path=str(tmp_path / "phone-waits.png"), full_page=True)

        # the request arrives live on the table screen and on Ann's tablet
        request = screen.locator("#seat-requests")
        expect(request).to_contain_text("A tablet named “Ben's phone” asks to take Ben's seat")
        expect(ann.locator("#seat-requests")).to_contain_text("Ben's phone")
        assert store.seat_holders(1)["B"].label == "tablet"  # nothing moved before Allow
        screen.screenshot(path=str(tmp_path / "screen-asks.png"), full_page=True)
        request.locator("button[value=allow]").click()

        # the phone's page moves on by itself: it holds Ben's seat; the old tablet is out
        phone.wait_for_url(f"{base}/t/{TABLE}")
        expect(phone.locator("body")).to_contain_text("This tablet now holds Ben's seat")
        expect(phone.locator("body")).to_contain_text("Leave Ben's seat")
        phone.screenshot(path=str(tmp_path / "seat-taken-back.png"), full_page=True)
        assert store.seat_holders(1)["B"].label == "Ben's phone"
        old_ben.reload()
        old_ben.wait_for_url(f"{base}/t/{TABLE}/join")
        expect(screen.locator("#seat-requests")).to_have_count(0)
        browser.close()
    assert (tmp_path / "seat-taken-back.png").stat().st_size > 0
