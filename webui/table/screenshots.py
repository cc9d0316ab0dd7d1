"""Take the README's screenshots at tablet size (Playwright + Debian Chromium).

    .venv/bin/python -m webui.table.screenshots webui/docs

Serves a throw-away copy of the app, plays the demo footage into a table (labelled corners
stand in for the detector when no trained model is installed), records a few hands, and
photographs the table page, the score sheet, the signing page and the table screen.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from pathlib import Path

from webui.common.proposal_form import parse_proposal
from webui.store import Actor, commands
from webui.store.engine import PLAYERS, parse_card
from webui.table import create_app
from webui.table.camera_feed import TableCamera
from webui.table.parts import table_parts

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TABLET = {"width": 1024, "height": 768}
DEMO = Path(__file__).resolve().parent.parent / "vision" / "demo"

# Later hands of the pictured game: knock card and the proposal as the correction form sends it.
HANDS = [
    ("9H", {"kind": "score", "knocker": "B", "cards": {"A": "KS KH KC 4H 5H 6H QD QS 2D 8D",
                                                       "B": "5S"},
            "melds": {"B": "2C 3C 4C | 7H 7S 7D | 9D TD JD"}}),
    ("AS", {"kind": "score", "knocker": "A", "cards": {"A": "2C 3C 4C 7H 7S 7D 9D TD JD QD",
                                                       "B": "KS KH KC 4H 5H 6H QH QS 2D 8D"}}),
]


def _confirm_both(store, table_id: int) -> None:
    for player in PLAYERS:
        st = store.state(table_id)
        hand = st.current_hand()
        store.execute(table_id, commands.confirm(hand.game, hand.number, player, hand.revision),
                      Actor("screenshots"))


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright
    from waitress import create_server

    out = Path(argv[0] if argv else "webui/docs")
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="gintray-shots-"))
    app = create_app({"DATA_DIR": str(data), "START_CAMERAS": False})
    store = table_parts(app).store
    table_id = store.create_table("Table 7", {"name": "Table 7",
                                              "players": {"A": "Ann", "B": "Ben"},
                                              "rules": "tournament", "camera": None},
                                  Actor("director"))
    detector = None
    try:
        from vision.inference.detector import load_detector

        detector = load_detector()
    except Exception:
        from vision.demo.verify import TruthDetector

        truth = json.loads((DEMO / "ground_truth.json").read_text())
        detector = TruthDetector(truth["frames"])
    feed = TableCamera(store, table_id, f"replay:{DEMO / 'hand'}?fps=0", data,
                       table_parts(app).notifier.publish, detector=detector)
    table_parts(app).cameras[table_id] = feed
    feed.start()
    feed.thread.join(timeout=120)
    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{server.effective_port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=TABLET)
        page.goto(f"{base}/t/{table_id}/join")
        page.fill("input[name=pin]", store.table(table_id).pin)
        page.check("input[name=seat][value=A]")  # whose tablet: Ann's
        page.click("button.primary")
        page.wait_for_selector("#proposal")
        time.sleep(0.5)
        page.screenshot(path=str(out / "table-proposal.png"), full_page=True)
        _confirm_both(store, table_id)
        for up, body in HANDS:
            hand = store.state(table_id).current_hand()
            store.execute(table_id, commands.set_knock_card(hand.game, hand.number,
                                                                  parse_card(up)),
                          Actor("screenshots"))
            store.execute(table_id, commands.propose(hand.game, hand.number,
                                                     parse_proposal(body)),
                          Actor("screenshots"))
            if up != "AS":  # the last hand stays open: the page shows "gin only"
                _confirm_both(store, table_id)
        page.goto(f"{base}/t/{table_id}")
        page.wait_for_selector("#knock-card")
        page.screenshot(path=str(out / "table-gin-only.png"))
        page.goto(f"{base}/t/{table_id}/sheet")
        page.screenshot(path=str(out / "score-sheet.png"))
        page.goto(f"{base}/t/{table_id}/screen")
        page.screenshot(path=str(out / "table-screen.png"))
        browser.close()
    feed.stop()
    server.close()
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
