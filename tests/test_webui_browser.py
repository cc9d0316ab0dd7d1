"""End to end in a real browser (Playwright driving Debian's Chromium).

The demo footage plays through the table reader (with its labelled corners standing in for the
detector, so the test does not depend on a trained model), the page shows the knock card and
the proposed result, both players confirm, sign on the signature pads, and download the signed
PDF, whose digital signature must validate and must fail once one byte of the sheet changes.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from pathlib import Path

import pytest
from webui_helpers import frame_level_demo_layout, make_app, pin_of

from scorer import parse_card
from webui.common.signing import verify_pdf
from webui.store import Actor
from webui.table.camera_feed import TableCamera

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "vision" / "demo"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture
def served(tmp_path):
    """The app served by waitress in this process, with the demo footage on table 2."""
    waitress = pytest.importorskip("waitress")
    verify = pytest.importorskip("vision.demo.verify")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make test installs it)")
    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    # a short game (to 10) so one demo hand ends it and the players sign
    table_id = store.create_table("Demo", {"name": "Demo", "players": {"A": "Ann", "B": "Ben"},
                                           "rules": {"preset": "tournament", "game_target": 10},
                                           "camera": None}, Actor("test"))
    truth = json.loads((DEMO / "ground_truth.json").read_text())
    feed = TableCamera(store, table_id, f"replay:{DEMO / 'hand'}?fps=16", tmp_path,
                       app.extensions["gintray"].notifier.publish,
                       layout=frame_level_demo_layout(tmp_path),
                       detector=verify.TruthDetector(truth["frames"]))
    app.extensions["gintray"].cameras[table_id] = feed
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=16)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        yield app, base, table_id, feed, truth
    finally:
        feed.stop()  # ends the MJPEG streams
        stop_server(app, server, thread)


def stop_server(app, server, thread: threading.Thread) -> None:
    """Stop a waitress test server and its app's streams without leaking a descriptor."""
    app.extensions["gintray"].notifier.close()
    # Let the worker threads finish their responses before anything is closed: a worker that
    # pulls the server's trigger after close() writes into a closed descriptor, which the
    # next test may already have reopened as its SQLite file (seen as "file is not a
    # database" in CI). Then close every channel from the server's own loop (a close from
    # this thread would pull the descriptors from under its select()), which ends the loop.
    server.task_dispatcher.shutdown(timeout=15)
    from waitress import wasyncore

    # OSError: the loop closed its channels (the trigger among them) meanwhile
    with contextlib.suppress(OSError):
        if thread.is_alive():
            server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
    thread.join(timeout=15)
    assert not thread.is_alive(), "the test server did not stop"


def draw_signature(page, canvas) -> None:
    box = canvas.bounding_box()
    x, y = box["x"] + 30, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 12):
        page.mouse.move(x + step * 25, y + (15 if step % 2 else -15), steps=3)
    page.mouse.up()


def test_demo_hand_from_deal_to_signed_pdf(served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    app, base, table_id, feed, truth = served
    first = truth["hands"][0]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1024, "height": 768}, accept_downloads=True)
        page.set_default_timeout(20_000)
        # Ann's tablet joins with the PIN shown on the table's screen (a wrong PIN first)
        page.goto(f"{base}/t/{table_id}/screen")
        pin = page.inner_text("#pin").strip()
        assert pin == pin_of(app, table_id)
        page.goto(f"{base}/t/{table_id}/join")
        page.fill("input[name=pin]", "999999" if pin != "999999" else "111111")
        page.check("input[name=seat][value=A]")  # the form asks whose tablet (no default)
        page.click("button.primary")
        expect(page.locator("p.error")).to_contain_text("Wrong PIN")
        page.fill("input[name=pin]", pin)
        page.check("input[name=seat][value=A]")
        page.click("button.primary")
        expect(page.locator("#panel")).to_contain_text("Waiting for the deal")
        # Ben's tablet: another browser profile
        ben = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
        ben.set_default_timeout(20_000)
        ben.goto(f"{base}/t/{table_id}/join")
        ben.fill("input[name=pin]", pin)
        ben.check("input[name=seat][value=B]")
        ben.click("button.primary")
        expect(ben.locator("#panel")).to_contain_text("Waiting for the deal")
        # the camera starts now: both pages follow it live (server-sent events)
        feed.start()
        expect(page.locator("#knock-card")).to_have_text(re.compile(r"4\s*♣"))
        expect(ben.locator("#knock-card")).to_have_text(re.compile(r"4\s*♣"))
        feed.thread.join(timeout=60)  # the footage ends; the reading of the spreads is final
        expect(page.locator("#proposal")).to_contain_text("Ann knocks")
        expect(page.locator("#proposal")).to_contain_text("proposed by the camera")
        assert first["knocker"] == "A"
        # one tap each, on each player's own tablet; each sees the other's tap by itself
        assert page.locator("button.confirm[data-player=B]").count() == 0
        page.click("button.confirm[data-player=A]")
        expect(ben.locator(".confirmed")).to_contain_text("Ann confirmed")
        ben.click("button.confirm[data-player=B]")
        expect(page.locator(".game-over")).to_contain_text("Game 1 is over: Ann wins")
        state = app.extensions["gintray"].store.state(table_id)
        hand = state.games[0].hands[0]
        assert hand.confirmed and hand.proposal.source == "camera"
        # each signs on the pad of their own tablet
        for tablet, player in ((page, "A"), (ben, "B")):
            tablet.goto(f"{base}/t/{table_id}/games/1/sign")
            section = tablet.locator(f"section.signature[data-player={player}]")
            draw_signature(tablet, section.locator("canvas.pad"))
            section.locator("button.primary").click()
            expect(tablet.locator(f"section.signature[data-player={player}] .confirmed")
                   ).to_contain_text("signed")
        page.reload()
        expect(page.locator("p.locked")).to_contain_text("locked")
        with page.expect_download() as download:
            page.click("#export-pdf")
        pdf = Path(download.value.path()).read_bytes()
        page.screenshot(path=str(tmp_path / "signed.png"))
        browser.close()
    identity = app.extensions["gintray"].identity
    assert verify_pdf(pdf, identity).ok
    signatures = app.extensions["gintray"].store.state(table_id).games[0].signatures
    assert set(signatures) == {"A", "B"}
    assert pdf.count(b"/Subtype /Image") >= 2  # both drawn signatures are in the sheet
    points = hand.proposal.result.points
    at = pdf.index(f"({points})".encode())
    tampered = bytearray(pdf)
    tampered[at + 1] = ord("0") if chr(tampered[at + 1]) != "0" else ord("1")
    assert not verify_pdf(bytes(tampered), identity).ok


@contextlib.contextmanager
def director_calibrated(base: str, table_id: int):
    """A browser in which the director has marked and saved the table's layout
    (`calibrate_by_taps`); yields its page."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.set_default_timeout(20_000)
        calibrate_by_taps(page, base, table_id)
        yield page
        browser.close()


def director_sets_password(page, base: str) -> None:
    """The director sets the password (first use) and is logged in."""
    page.goto(f"{base}/director/setup")
    page.fill("input[name=password]", "director-pass")
    page.fill("input[name=again]", "director-pass")
    page.click("button.primary")


def calibrate_by_taps(page, base: str, table_id: int) -> None:
    """The director sets a password, opens the calibration page and marks the up-card slot in
    the middle, A's area along the bottom and B's along the top, then saves."""
    director_sets_password(page, base)
    page.goto(f"{base}/director/tables/{table_id}/calibrate/")
    page.wait_for_function("document.getElementById('calib-image').naturalWidth > 0")
    box = page.locator("#calib-overlay").bounding_box()

    def tap(points):
        for fx, fy in points:
            page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])

    tap([(0.45, 0.38), (0.55, 0.38), (0.55, 0.62), (0.45, 0.62)])
    page.click("button[data-region=A]")
    tap([(0.02, 0.64), (0.98, 0.64), (0.98, 0.98), (0.02, 0.98)])
    page.click("button[data-region=B]")
    tap([(0.02, 0.02), (0.98, 0.02), (0.98, 0.36), (0.02, 0.36)])
    page.click("#save-layout")


def test_director_marks_the_layout_on_the_picture(served):
    from playwright.sync_api import expect

    app, base, table_id, feed, _truth = served
    feed.start()
    feed.thread.join(timeout=60)
    with director_calibrated(base, table_id) as page:
        expect(page.locator("#toast")).to_contain_text("Layout saved")
        assert page.locator("#calib-overlay polygon").count() == 3
    state = app.extensions["gintray"].store.state(table_id)
    from vision.table.layout import load_layout

    layout = load_layout(state.layout)
    width, height = layout.image_size
    assert not layout.mirrored
    assert layout.region_of((width / 2, height / 2)) == "up_card"
    assert layout.region_of((width / 2, height * 0.9)) == "A"
    assert layout.region_of((width / 2, height * 0.1)) == "B"


def test_a_mirrored_camera_picture_is_told_and_turned_at_calibration(served, tmp_path):
    """A camera set to mirror its picture (the demo's spreads, flipped): saving the marks says
    so in plain words, the layout says "mirrored" and the page asks for the new picture."""
    import cv2
    from playwright.sync_api import expect

    from vision.inference.detector import load_detector
    from vision.table.layout import load_layout

    app, base, table_id, _feed, _truth = served
    footage = tmp_path / "mirrored"
    footage.mkdir()
    frame = DEMO / "hand" / "frame_065.jpg"  # both spreads and the layoffs on the table
    cv2.imwrite(str(footage / frame.name), cv2.flip(cv2.imread(str(frame)), 1))
    feed = TableCamera(app.extensions["gintray"].store, table_id, f"replay:{footage}?fps=0",
                       tmp_path, app.extensions["gintray"].notifier.publish,
                       detector=load_detector())
    app.extensions["gintray"].cameras[table_id] = feed
    feed.start()
    feed.thread.join(timeout=60)
    with director_calibrated(base, table_id) as page:
        expect(page.locator("#toast")).to_contain_text("mirror image")
        expect(page.locator("#calib-image")).to_have_attribute("src", re.compile(r"\?t=\d+"))
        page.screenshot(path=str(tmp_path / "calibration-mirrored.png"))
    layout = load_layout(app.extensions["gintray"].store.state(table_id).layout)
    width, height = layout.image_size
    assert layout.mirrored
    assert layout.region_of((width / 2, height / 2)) == "up_card"
    assert layout.region_of((width * 0.1, height * 0.9)) == "A"  # flipped with the picture


def test_a_change_after_a_signature_voids_it_on_both_tablets(served):
    """Issue 15 item 1, as the players see it: Ann signed, then the director corrected the
    hand; both tablets say live that Ann's signature is void and Ann is asked to sign again
    (the game had locked with Ann's signature under the other result)."""
    from playwright.sync_api import expect, sync_playwright
    from webui_helpers import PNG_DATA_URL

    from webui.store import commands

    app, base, table_id, _feed, _truth = served
    store = app.extensions["gintray"].store
    ann_actor, ben_actor = Actor("device:ann"), Actor("device:ben")
    store.execute(table_id, commands.set_knock_card(1, 1, parse_card("9H")), ann_actor)
    store.execute(table_id, commands.propose(1, 1, {"kind": "manual", "result": {
        "winner": "A", "points": 25, "outcome": "manual", "note": ""}}), ann_actor)
    revision = store.state(table_id).current_hand().revision
    for player, actor in (("A", ann_actor), ("B", ben_actor)):
        store.execute(table_id, commands.confirm(1, 1, player, revision), actor)
    store.execute(table_id, commands.sign(1, "A", PNG_DATA_URL), ann_actor)
    pin = pin_of(app, table_id)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pages = {}
        for seat, size in (("A", (820, 1180)), ("B", (390, 844))):
            page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
            page.set_default_timeout(20_000)
            page.goto(f"{base}/t/{table_id}/join")
            page.fill("input[name=pin]", pin)
            page.check(f"input[name=seat][value={seat}]")
            page.click("button.primary")
            expect(page.locator("#signature-state")).to_contain_text("Ann signed sheet")
            pages[seat] = page
        expect(pages["B"].locator("#next-game-waits")).to_contain_text("starts once both")
        # the director corrects hand 1 after Ann signed
        store.execute(table_id, commands.propose(1, 1, {"kind": "manual", "result": {
            "winner": "B", "points": 25, "outcome": "manual", "note": "misread"}},
            director=True), Actor("director"))
        for page in pages.values():
            expect(page.locator("#void-signatures")).to_contain_text("Ann's signature is void")
            expect(page.locator("#void-signatures")).to_contain_text("must sign again")
            expect(page.locator("#signature-state")).to_contain_text("Ann has not signed")
        pages["A"].goto(f"{base}/t/{table_id}/games/1/sign")
        expect(pages["A"].locator("section.signature[data-player=A] canvas.pad")).to_be_visible()
        expect(pages["A"].locator("p.error")).to_contain_text("must sign again")
        browser.close()
    assert not store.state(table_id).games[0].locked
