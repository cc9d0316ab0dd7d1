"""Issue 15 item 14: the table's screen shows the joined tablets, who has confirmed and signed,
and the match score; the signed PDF wraps a long result instead of printing it over the
points column."""

from __future__ import annotations

import re

import pytest
import test_webui_browser
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from test_webui_browser import CHROMIUM, CHROMIUM_ARGS
from webui_helpers import PNG_DATA_URL, Tablet, pin_of

from webui.common.pdf_text import SANS, SANS_BOLD, register_fonts

served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)
LONG_NOTE = ("improper knock accepted by the opponent after a long discussion with the floor "
             "director, who was called to the table twice")


def screen_of(tablet: Tablet) -> str:
    screen = tablet.app.test_client()  # the table's own computer (loopback)
    return screen.get(f"/t/{tablet.table_id}/screen").get_data(as_text=True)


def test_the_screen_shows_tablets_confirmations_signatures_and_the_match(app):
    tablet = Tablet(app)
    page = screen_of(tablet)
    assert "Ann's tablet (tablet A)" in page and "Ben's tablet (tablet B)" in page
    assert "match: Ann 0 – 0 Ben (best of 5)" in page
    tablet.knock_card("9H")
    tablet.propose(kind="manual", winner="A", points=300, note="")
    tablet.confirm("A")
    status = re.search(r'<section class="table-status".*?</section>', screen_of(tablet), re.S)
    assert status, "no status on the screen"
    text = re.sub(r"<[^>]+>", " ", status.group(0))
    assert re.search(r"Ann\s+✓ confirmed", text) and re.search(r"Ben\s+to confirm", text)
    tablet.confirm("B")  # 300: Ann wins game 1
    text = screen_of(tablet)
    assert "Ann wins game 1" in text and "match: Ann 1 – 0 Ben (best of 5)" in text
    assert re.search(r"Ann\s+to sign", text) and re.search(r"Ben\s+to sign", text)
    assert tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL}
                       ).status_code == 200
    text = screen_of(tablet)
    assert re.search(r"Ann\s+✓ signed", text) and re.search(r"Ben\s+to sign", text)


def _drawn_text(pdf: bytes) -> list[tuple[float, float, str]]:
    """(x, width, text) of every string drawn on the sheet page (page content uncompressed):
    x is absolute (the ``cm`` translations of reportlab's tables and paragraphs applied). Each
    string is measured in its font: the embedded DejaVu Sans faces keep ASCII at its own codes
    in their subsets."""
    register_fonts()
    faces = {}
    for base, name in re.findall(rb"/BaseFont /(\S+) .*?/Name /F([\d+]+)", pdf):
        embedded = SANS_BOLD if b"Bold" in base else SANS
        faces[name.decode()] = embedded if b"+" in base else base.decode()
    start = pdf.index(b"(Hand) Tj")
    body = pdf[pdf.rindex(b"stream", 0, start):pdf.index(b"endstream", start)].decode("latin-1")
    token = re.compile(r"(?P<q>\bq\b)|(?P<Q>\bQ\b)|"
                       r"(?P<cm>(?:[-\d.]+\s+){4}(?P<cx>[-\d.]+)\s+[-\d.]+\s+cm)|"
                       r"(?P<tm>(?:[-\d.]+\s+){4}(?P<tx>[-\d.]+)\s+[-\d.]+\s+Tm)|"
                       r"(?P<tf>/F(?P<font>[\d+]+)\s+(?P<size>[\d.]+)\s+Tf)|"
                       r"\((?P<s>(?:\\.|[^\\)])*)\)\s*Tj")
    stack, x0, tx, face, size, out = [], 0.0, 0.0, "Helvetica", 9.0, []
    for m in token.finditer(body):
        if m["q"]:
            stack.append(x0)
        elif m["Q"]:
            x0 = stack.pop()
        elif m["cm"]:
            x0 += float(m["cx"])
        elif m["tm"]:
            tx = float(m["tx"])
        elif m["tf"]:
            face, size = faces[m["font"]], float(m["size"])
        else:
            out.append((x0 + tx, stringWidth(m["s"], face, size), m["s"]))
    return out


def test_a_long_result_wraps_inside_its_column_in_the_pdf(app):
    tablet = Tablet(app)
    tablet.knock_card("9H")
    tablet.propose(kind="manual", winner="A", points=30, note=LONG_NOTE)
    tablet.confirm("A")
    tablet.confirm("B")
    pdf = tablet.client.get("/t/1/games/1/export.pdf").data
    drawn = _drawn_text(pdf)
    result_x = next(x for x, _w, s in drawn if s == "Result")
    points_x = next(x for x, _w, s in drawn if s == "Points to")
    in_result = [(x, w, s) for x, w, s in drawn if abs(x - result_x) < 1]
    assert LONG_NOTE in " ".join(s for _x, _w, s in in_result)  # all of it, on several lines
    for x, w, s in in_result:
        assert x + w < points_x - 2 * mm, f"{s!r} runs into the points column"


@pytest.mark.slow
@pytest.mark.browser
def test_the_screen_follows_the_tablets_live(served):
    """What the players see on the table's screen while they confirm on their tablets."""
    from playwright.sync_api import expect, sync_playwright

    app, base, _table_id, _feed, _truth = served
    tablet = Tablet(app)
    tablet.knock_card("9H")
    tablet.propose(kind="manual", winner="A", points=300, note="")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        screen = browser.new_page(viewport={"width": 1024, "height": 768})
        screen.set_default_timeout(20_000)
        screen.goto(f"{base}/t/1/screen")
        expect(screen.locator("#pin")).to_have_text(pin_of(app))
        status = screen.locator("section.table-status")
        expect(status).to_contain_text("Ann's tablet (tablet A)")
        expect(status.locator(".confirm-state")).to_contain_text("Ben to confirm")
        tablet.confirm("A")
        expect(status.locator(".confirm-state")).to_contain_text("Ann ✓ confirmed")
        tablet.confirm("B")
        expect(status).to_contain_text("Ann wins game 1")
        expect(status).to_contain_text("match: Ann 1 – 0 Ben")
        expect(status.locator(".sign-state")).to_contain_text("Ann to sign")
        assert screen.evaluate("document.documentElement.scrollWidth") <= 1024
        browser.close()
