"""Issue 26 (at the table): a camera that stops is said plainly. The last picture is greyed
with the time it was seen, a banner gives the manual path and the page no longer promises a
proposal from the camera; when the camera is back the page says so."""

from __future__ import annotations

import numpy as np
import pytest
import test_webui_browser
from test_webui_phone import SIZES, TABLE, join_page, open_browser
from webui_helpers import Tablet, make_app

from vision.table.events import CameraBack, CameraLost, FrameRead
from webui.table.camera_feed import TableCamera

served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)


def camera_of(app, tmp_path, table: int = 1) -> TableCamera:
    """A table's camera with one picture taken (its thread is not started: the test tells it
    what the device does)."""
    feed = TableCamera(app.extensions["gintray"].store, table, "replay:test", tmp_path,
                       app.extensions["gintray"].notifier.publish)
    feed.picture.publish(np.full((120, 160, 3), 90, np.uint8), FrameRead(0))
    app.extensions["gintray"].cameras[table] = feed
    return feed


def test_a_lost_camera_is_said_plainly_and_its_return_too(tmp_path):
    app = make_app(tmp_path)
    feed = camera_of(app, tmp_path)
    tablet = Tablet(app)
    tablet.knock_card("9H")
    feed.handle(CameraLost("USB unplugged"))
    status = feed.status()
    assert status["state"] == "lost" and status["last_seen"] and status["lost_since"]
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert 'id="camera-lost"' in panel and "The camera has stopped" in panel
    assert "the picture is the last one, seen at" in panel
    assert "enter the result by hand" in panel and "proposes the result here" not in panel
    page = tablet.client.get("/t/1").get_data(as_text=True)
    assert 'class="stale"' in page and "last seen " in page
    feed.handle(CameraBack(downtime=12.0))
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert 'id="camera-lost"' not in panel and "Camera back since" in panel
    assert "proposes the result here" in panel
    assert 'class="stale"' not in tablet.client.get("/t/1").get_data(as_text=True)


@pytest.mark.slow
@pytest.mark.browser
def test_an_open_tablet_greys_the_picture_when_the_camera_stops(served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    app, base, _table, _feed, _truth = served
    feed = camera_of(app, tmp_path, TABLE)
    try:
        with sync_playwright() as p:
            browser = open_browser(p)
            ann = join_page(browser, base, app, "A", SIZES["tablet"])
            expect(ann.locator("#camera-view")).not_to_have_class("stale")
            feed.handle(CameraLost("USB unplugged"))  # the open page learns it live
            expect(ann.locator("#camera-lost")).to_contain_text("The camera has stopped")
            expect(ann.locator("#camera-view")).to_have_class("stale")
            expect(ann.locator("#camera-caption")).to_contain_text("last seen")
            ann.screenshot(path=str(tmp_path / "camera-lost.png"), full_page=True)
            feed.handle(CameraBack(downtime=12.0))
            expect(ann.locator("#camera-back")).to_contain_text("Camera back since")
            expect(ann.locator("#camera-view")).not_to_have_class("stale")
            ann.screenshot(path=str(tmp_path / "camera-back.png"), full_page=True)
            browser.close()
    finally:
        feed.stop()
