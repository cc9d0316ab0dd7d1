"""Issue 25: on the demo table (as `make run` plays it: the shipped detector, the demo layout, the
footage at 2 frames a second) a tablet sees the knock card soon after the deal frame and the
proposal soon after the last spread frame.

The test reports the times it saw; it asserts only generous bounds (a machine ten times slower
than this one passes), the figures belong to `benchmarks/bench_latency.py`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest
from test_webui_browser import CHROMIUM, CHROMIUM_ARGS, DEMO, stop_server
from webui_helpers import make_app, pin_of

import webui.table.camera_feed as camera_feed
from webui.table.camera_feed import TableCamera

pytestmark = [pytest.mark.slow, pytest.mark.browser]
KNOCK_CARD_BOUND = 20.0  # seconds after the deal frame (2 s on this project's machine)
PROPOSAL_BOUND = 60.0  # seconds after the last spread frame (5 s on this project's machine)


def _frame_of_final_spreads(truth: dict, hand: int) -> int:
    """The first frame of the hand's last unbroken run of the same labelled cards."""
    frames = [i for i, f in enumerate(truth["frames"]) if f["hand"] == hand]
    cards = [frozenset(d["card"] for d in truth["frames"][i]["detections"]) for i in frames]
    at = len(frames) - 1
    while at > 0 and cards[at - 1] == cards[-1]:
        at -= 1
    return frames[at]


def _cards_added_by(truth: dict, frame: int) -> set[str]:
    """The cards a frame shows that the frame before it did not."""
    def cards(i: int) -> set[str]:
        return {d["card"] for d in truth["frames"][i]["detections"]}
    return cards(frame) - cards(frame - 1)


def test_a_tablet_sees_the_knock_card_and_the_proposal_soon_after_the_frames(
        tmp_path, monkeypatch, capsys):
    waitress = pytest.importorskip("waitress")
    from playwright.sync_api import expect, sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make test installs it)")
    truth = json.loads((DEMO / "ground_truth.json").read_text())
    hand = truth["hands"][0]
    deal_frame = next(i for i, f in enumerate(truth["frames"])
                      if hand["up_card"] in {d["card"] for d in f["detections"]})
    spread_frame = _frame_of_final_spreads(truth, hand["hand"])
    seen_at: dict[int, float] = {}
    read_frame = camera_feed.read_frame

    def timed_read(reader, frame):
        seen_at.setdefault(frame.index, time.monotonic())  # the frame leaves the camera
        return read_frame(reader, frame)

    monkeypatch.setattr(camera_feed, "read_frame", timed_read)
    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    table_id = store.tables()[0].id
    feed = TableCamera(store, table_id, f"replay:{DEMO / 'hand'}?fps=2", tmp_path,
                       app.extensions["gintray"].notifier.publish,
                       layout=str(DEMO / "layout.json"))
    app.extensions["gintray"].cameras[table_id] = feed
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 820, "height": 1180})
            page.set_default_timeout(int(1000 * (PROPOSAL_BOUND + 60)))
            page.goto(f"{base}/t/{table_id}/join")
            page.fill("input[name=pin]", pin_of(app, table_id))
            page.check("input[name=seat][value=A]")
            page.click("button.primary")
            expect(page.locator("#panel")).to_contain_text("Waiting for the deal")
            feed.start()
            up = hand["up_card"]
            wait = int(1000 * (PROPOSAL_BOUND + 60))  # the bounds are asserted below
            expect(page.locator("#knock-card")).to_have_text(re.compile(rf"{up[0]}\s*\S"),
                                                             timeout=wait)
            knock_seen = time.monotonic()
            proposal = page.locator("#proposal")
            expect(proposal).to_contain_text("proposed by the camera", timeout=wait)
            # the final proposal: with the card the last spread frame added (Ben's layoff,
            # 8H; an earlier proposal showed the spreads before it)
            last = _cards_added_by(truth, spread_frame)
            assert last == {"8H"}
            expect(proposal).to_contain_text(re.compile(r"8\s*♥"), timeout=wait)
            proposal_seen = time.monotonic()
            browser.close()
    finally:
        feed.stop()
        stop_server(app, server, thread)
    knock_after = knock_seen - seen_at[deal_frame]
    proposal_after = proposal_seen - seen_at[spread_frame]
    with capsys.disabled():
        print(f"\n[issue 25] the tablet saw the knock card {knock_after:.1f} s after the deal "
              f"frame and the proposal {proposal_after:.1f} s after the last spread frame")
    # (the labels mark a card from the frame its corners are 60 % visible: the camera may read
    # it a frame sooner, so only the upper bounds are asserted)
    assert knock_after <= KNOCK_CARD_BOUND
    assert proposal_after <= PROPOSAL_BOUND
