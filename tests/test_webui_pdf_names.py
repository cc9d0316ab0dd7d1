"""Issue 35 item 4 and the PDF part of item 6: every player's name prints in the signed PDF.

The sheet was drawn in Helvetica (not embedded, Latin-1 only): "Łukasz Żółć" printed as
"■ukasz ■ó■■", and every Cyrillic, Greek, Chinese, Arabic or Hebrew name likewise. These
tests export real sheets through the table app, read their text back (pypdf, by the PDF's
own ToUnicode maps) and check every glyph drawn in the embedded fonts against the fonts
themselves. Right-to-left names are drawn in visual order (``webui.common.pdf_text``), Arabic
in its joined presentation forms: the characters drawn, read left to right, are the name
reversed (NFKC undoes the letter forms); pypdf's text extraction puts right-to-left runs back
in reading order, so the page text holds every name as typed (after NFKC).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from pypdf import PdfReader
from pypdf.generic import ContentStream
from reportlab.lib.styles import ParagraphStyle
from webui_helpers import PNG_DATA_URL, Tablet, make_app

from webui.common import pdf_text
from webui.common.membership import MEMBER_KEY, EventIdentity
from webui.common.seating import Seating, open_seated_table
from webui.common.signing import ensure_identity
from webui.store import Actor
from webui.verify import main as verify_main

NAMES = ["Łukasz Żółć", "Antonín Dvořák", "Şükrü", "Nguyễn Văn Anh", "Дмитрий Шостакович",
         "Γιώργος Παπαδόπουλος", "王小明", "محمد عبد الله", "יוסי כהן"]
ROOT = Path(__file__).resolve().parents[1]
LONG_NAME = "Ann Wolfeschlegelsteinhausenbergerdorff"  # a 35-letter surname


def right_to_left(name: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in name)


def export(app, names: tuple[str, str], table_name: str) -> bytes:
    """A finished game between ``names``, signed by both, exported as the tablets do."""
    store = app.extensions["gintray"].store
    table_id = store.create_table(table_name, {
        "name": table_name, "players": {"A": names[0], "B": names[1]},
        "rules": "tournament", "camera": None}, Actor("test"))
    tablet = Tablet(app, table_id=table_id)
    tablet.play_manual_hand("B", 20)
    tablet.play_manual_hand("A", 300)
    for p in ("A", "B"):
        assert tablet.post("sign", {"game": 1, "player": p, "png": PNG_DATA_URL}
                           ).status_code == 200
    answer = tablet.client.get(f"/t/{table_id}/games/1/export.pdf")
    assert answer.status_code == 200
    return answer.data


def page_text(pdf: bytes) -> str:
    return PdfReader(io.BytesIO(pdf)).pages[0].extract_text()


def drawn_glyphs(pdf: bytes) -> list[tuple[str, str, bool]]:
    """(font, character, has a glyph) of every character drawn on the page in an embedded
    TrueType font, read from the file: the subset font's own code -> glyph map (glyph 0 is
    .notdef, the empty box) and outline, and its ToUnicode map for the character."""
    reader = PdfReader(io.BytesIO(pdf))
    page = reader.pages[0]
    fonts = {}
    for key, ref in page["/Resources"]["/Font"].items():
        font = ref.get_object()
        descriptor = font.get("/FontDescriptor")
        if descriptor is None:
            continue  # a standard font (Courier for the hash): ASCII only, no file
        face = TTFont(io.BytesIO(descriptor.get_object()["/FontFile2"].get_object().get_data()))
        unicode_map = {}
        cmap = font["/ToUnicode"].get_object().get_data().decode()
        for code, char in re.findall(r"^<([0-9A-F]+)> <([0-9A-F]+)>$", cmap, re.M | re.I):
            unicode_map[int(code, 16)] = chr(int(char, 16))
        fonts[key] = (str(font["/BaseFont"]), face, unicode_map)
    out = []
    current = None
    for operands, operator in ContentStream(page.get_contents(), reader).operations:
        if operator == b"Tf":
            current = fonts.get(operands[0])
        elif operator == b"Tj" and current is not None:
            name, face, unicode_map = current
            codes = operands[0]
            raw = codes.original_bytes if hasattr(codes, "original_bytes") else bytes(codes)
            glyph_of = face["cmap"].getcmap(1, 0).cmap  # reportlab's subsets: codes 0-255
            for code in raw:
                char = unicode_map.get(code, "?")
                glyph = glyph_of.get(code)
                drawn = glyph is not None and face.getGlyphID(glyph) != 0 and (
                    char.isspace() or face["glyf"][glyph].numberOfContours != 0)
                out.append((name, char, drawn))
    return out


def missing_glyphs(pdf: bytes) -> list[tuple[str, str]]:
    """(font, character) of each character drawn without a glyph of its own."""
    return [(font, char) for font, char, drawn in drawn_glyphs(pdf) if not drawn]


def test_every_name_prints_in_an_embedded_font_and_reads_back(tmp_path):
    app = make_app(tmp_path)
    pairs = [(NAMES[i], NAMES[i + 1]) for i in range(0, len(NAMES) - 1, 2)] + [
        (NAMES[-1], LONG_NAME)]
    for number, names in enumerate(pairs, start=1):
        pdf = export(app, names, f"Table {number}")
        sheet = tmp_path / f"sheet-{number}.pdf"
        sheet.write_bytes(pdf)
        text = unicodedata.normalize("NFKC", page_text(pdf))
        drawn = drawn_glyphs(pdf)
        # the characters in the order they are drawn, left to right, letter forms undone
        strokes = "".join(unicodedata.normalize("NFKC", char) for _font, char, _ in drawn)
        for name in names:
            assert name in text, (name, text)  # pypdf reads right-to-left runs back in order
            assert (name[::-1] if right_to_left(name) else name) in strokes
        assert missing_glyphs(pdf) == []
        assert verify_main([str(sheet), "--data-dir", str(tmp_path)]) == 0
        if shutil.which("pdftoppm"):  # a picture to look at: no black boxes
            subprocess.run(["pdftoppm", "-r", "70", "-png", "-f", "1", "-l", "1", str(sheet),
                            str(tmp_path / f"sheet-{number}")], check=True)


def test_the_glyph_check_sees_a_character_no_font_has(tmp_path):
    """The check above can fail: a Thai name (neither shipped font has Thai) is drawn with
    the font's empty box, and the check names it."""
    app = make_app(tmp_path)
    pdf = export(app, ("สมชาย", "Ben"), "Table 1")
    assert missing_glyphs(pdf)  # reportlab draws it as code 0, the subset's .notdef


def test_a_right_to_left_name_wrapped_in_a_narrow_column_reads_from_its_first_line():
    """Lines are broken before they are put in visual order: the first line holds the first
    words of the name (each line read right to left), not its last ones."""
    style = ParagraphStyle("t", fontName=pdf_text.SANS, fontSize=9, leading=11)
    pdf_text.register_fonts()
    cell = pdf_text.paragraph("محمد عبد الله", style, room=pdf_text.width(
        pdf_text.logical("محمد عبد"), pdf_text.SANS, 9) + 1)
    first, second = cell.text.split("<br/>")
    assert unicodedata.normalize("NFKC", first[::-1]) == "محمد عبد"
    assert unicodedata.normalize("NFKC", second[::-1]) == "الله"
    # the points after a name stay on its right (the bidi algorithm alone would draw "20+"
    # on its left, the number taken into the Arabic run)
    scored = pdf_text.paragraph("محمد عبد الله", style, room=500, after=" +20").text
    assert scored.endswith(" +20")
    assert unicodedata.normalize("NFKC", scored[:-4][::-1]) == "محمد عبد الله"


def test_the_sheet_says_when_in_which_round_and_who_scored(tmp_path):
    """Issue 35 item 6: the PDF lacked the date, the event and its round, and who scored the
    points of each hand."""
    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    table_id = open_seated_table(store, Seating("tok-1", 3, 7, "Łukasz Żółć", "Ben"),
                                 "tournament", None, Actor("hall"))
    # the hall's sync records which event the table database belongs to
    store.settings.compare_and_set(MEMBER_KEY, None,
                                   EventIdentity("3f2a9c1d", "Kraków Open").to_text())
    tablet = Tablet(app, table_id=table_id)
    tablet.play_manual_hand("B", 20)
    tablet.play_manual_hand("A", 30)
    text = " ".join(unicodedata.normalize("NFKC", page_text(
        tablet.client.get(f"/t/{table_id}/games/1/export.pdf").data)).split())
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert f"Played {today}" in text
    assert "Round 3, table 7" in text and "Event: Kraków Open" in text
    assert "Ben +20" in text and "Łukasz Żółć +30" in text
    # a table set up by hand has no round to print
    plain = page_text(export(app, ("Ann", "Ben"), "Table 2"))
    assert "Round" not in plain and "Event" not in plain and f"Played {today}" in plain


@pytest.mark.parametrize("name", ["<b>Ann</b> & co", "A\u202eB\u202c", "tab\tname"])
def test_markup_in_a_name_is_printed_not_obeyed(name):
    """A name is text: reportlab would obey ``<b>`` or fail on a bare ``&``; control and
    bidi-override characters print as spaces."""
    out = pdf_text.markup(name)
    assert "<b>" not in out and "\u202e" not in out and "\t" not in out


def run_verify(pdf: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m webui.verify FILE.pdf`` as a person types it: no ``--data-dir``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "webui.verify", str(pdf)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_verify_without_a_data_dir_says_what_it_needs(tmp_path):
    """Issue 35 item 6: without ``--data-dir`` the command printed a library traceback (run
    where ``./instance`` is another installation's) or a bare "no certificate"."""
    app = make_app(tmp_path / "table")
    sheet = tmp_path / "sheet.pdf"
    sheet.write_bytes(export(app, ("Ann", "Ben"), "Table 2"))
    nowhere = tmp_path / "elsewhere"
    nowhere.mkdir()
    answer = run_verify(sheet, nowhere)
    assert answer.returncode == 2
    assert "Traceback" not in answer.stdout + answer.stderr
    assert "--data-dir" in answer.stderr and "signing/cert.pem" in answer.stderr
    # another installation's data directory at ./instance: the signature is intact but not
    # this installation's, said in words
    other = tmp_path / "other"
    ensure_identity(other / "instance")
    answer = run_verify(sheet, other)
    assert answer.returncode == 1
    assert "Traceback" not in answer.stdout + answer.stderr
    assert "another installation" in answer.stdout and "--data-dir" in answer.stdout
    # and with the right one it passes
    right = subprocess.run([sys.executable, "-m", "webui.verify", str(sheet), "--data-dir",
                            str(tmp_path / "table")], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert right.returncode == 0, right.stdout + right.stderr
