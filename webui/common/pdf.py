"""The score sheet as a PDF page (reportlab): the tournament score card plus both signatures.

Page content is left uncompressed so the figures can be read from the file itself; the PDF is
then signed (``signing.sign_pdf``): the signature covers every byte of the file except its
own value (the ``/Contents`` string, whose unused zero padding no PDF signature covers), so
any change to the sheet, the pictures or the attached record is detectable.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Image, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from webui.common.signature_image import readable
from webui.store.engine import PLAYERS

SIGNATURE_BOX = (80 * mm, 27 * mm)
RECORD_NAME = "gintray-sheet-record.json"
RECORD_FORMAT = "gintray-sheet-record/1"


def text(value: Any) -> str:
    """A user's string (table or player name, rule set, note) made safe inside a Paragraph:
    reportlab reads Paragraph text as markup, so ``<img src=...>`` or ``<b>`` would be obeyed
    (a server file embedded, or a 500 for broken markup). Table cells are drawn as given."""
    cleaned = "".join(c if c.isprintable() else " " for c in str(value))
    return escape(cleaned)


def _signature_cell(png: bytes | None, name: str, over: str | None = None) -> list[Any]:
    style = getSampleStyleSheet()["Normal"]
    if png is None:
        return [Spacer(1, SIGNATURE_BOX[1]),
                Paragraph(f"{text(name)}: <i>not signed</i>", style)]
    picture = readable(png)
    if picture is None:
        return [Spacer(1, SIGNATURE_BOX[1]),
                Paragraph(f"{text(name)}: <i>signed, but the stored signature picture cannot "
                          "be drawn</i>", style)]
    w, h = picture.width, picture.height
    scale = min(SIGNATURE_BOX[0] / w, SIGNATURE_BOX[1] / h)
    cell: list[Any] = [Image(io.BytesIO(picture.png), width=w * scale, height=h * scale),
                       Paragraph(text(name), style)]
    if over:
        small = getSampleStyleSheet()["Code"]
        cell.append(Paragraph(f"signed over sheet {text(over[:32])}<br/>{text(over[32:])}",
                              small))
    return cell


def sheet_record_json(view: dict[str, Any]) -> dict[str, Any]:
    """What the PDF carries for ``webui.verify``: the sheet record, its hash, and the sheet
    hash each player's signature was given on."""
    return {"format": RECORD_FORMAT, "sheet_hash": view["sheet_hash"], "sheet": view["record"],
            "signatures": {p: {"name": s.get("name"), "sheet_hash": s.get("sheet_hash"),
                               "event": s.get("seq")}
                           for p, s in sorted(view.get("signed_over", {}).items())}}


def _attach_record(pdf: bytes, view: dict[str, Any]) -> bytes:
    """``pdf`` with the sheet record embedded as a JSON file (an incremental update; the
    installation's digital signature, added next, covers it)."""
    from pyhanko.pdf_utils import embed
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    data = json.dumps(sheet_record_json(view), sort_keys=True, indent=1).encode()
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    stream = embed.EmbeddedFileObject.from_file_data(writer, data, compress=False,
                                                     mime_type="application/json")
    embed.embed_file(writer, embed.FileSpec(
        file_spec_string=RECORD_NAME, embedded_data=stream,
        description="the score sheet the players' signatures cover, and its SHA-256"))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def read_record(pdf: bytes) -> dict[str, Any] | None:
    """The sheet record embedded in an exported PDF, or None (none, or unreadable)."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        names = reader.root["/Names"]["/EmbeddedFiles"]["/Names"]
        for i in range(0, len(names) - 1, 2):
            if str(names[i]) == RECORD_NAME:
                spec = names[i + 1].get_object()
                return json.loads(spec["/EF"]["/F"].get_object().data)
    except Exception:  # no record, or a damaged file: the check fails, never crashes
        return None
    return None


def render_sheet_pdf(state: Any, view: dict[str, Any], signatures: dict[str, bytes],
                     last_seq: int) -> bytes:
    """The PDF of one game's sheet (``view`` from ``sheetview.game_view``)."""
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=A4, title=f"gintray score sheet - {state.name}",
                            author="gintray", leftMargin=18 * mm, rightMargin=18 * mm,
                            topMargin=16 * mm, bottomMargin=16 * mm, pageCompression=0,
                            invariant=1)
    styles = getSampleStyleSheet()
    players = view["players"]
    story: list[Any] = [
        Paragraph(f"Score sheet: {text(state.name)}, game {text(view['number'])}",
                  styles["Title"]),
        Paragraph(f"{text(players['A'])} (A) v {text(players['B'])} (B) &middot; rules: "
                  f"{text(view['rules_name'])}", styles["Normal"]),
        Spacer(1, 4 * mm),
    ]
    cell = ParagraphStyle("cell", parent=styles["Normal"], fontName="Helvetica", fontSize=9,
                          leading=11)
    bold = ParagraphStyle("head", parent=cell, fontName="Helvetica-Bold")

    def wrapped(value: Any, style: ParagraphStyle = cell) -> Paragraph:
        """A cell that wraps inside its column (a long result or name printed over the next
        column otherwise); the text is escaped, as everywhere in a Paragraph."""
        return Paragraph(text(value), style)

    head = ["Hand", "Dealer", "Knock card", "Result", "Pts", wrapped(players["A"], bold),
            wrapped(players["B"], bold)]
    rows: list[list[Any]] = [head]
    for r in view["rows"]:
        rows.append([str(r["hand"]), wrapped(players.get(r["dealer"], r["dealer"])),
                     r["knock"] or "-", wrapped(r["text"]),
                     str(r["points"]) if r["winner"] else "-",
                     str(r["totals"]["A"]), str(r["totals"]["B"])])
    for b in view["bonuses"]:
        rows.append(["", "", "", b["label"], "", str(b["A"]), str(b["B"])])
    if view["finals"]:
        rows.append(["", "", "", "Final score" if view["winner"] else "Running total", "",
                     str(view["finals"]["A"]), str(view["finals"]["B"])])
    table = Table(rows, repeatRows=1, colWidths=[13 * mm, 22 * mm, 20 * mm, 60 * mm, 12 * mm,
                                                 23 * mm, 23 * mm])
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("LINEBELOW", (0, 0), (-1, 0), 1, colors.black),
        ("GRID", (0, 1), (-1, -1), 0.25, colors.grey),
        ("ALIGN", (4, 0), (-1, -1), "RIGHT"),
        ("FONTSIZE", (0, 0), (-1, -1), 9),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]))
    story += [table, Spacer(1, 4 * mm)]
    if view["hollywood"]:
        hrows = [["Hollywood", *[f"game {i + 1}" for i in range(len(view["hollywood"]))]]]
        for p in PLAYERS:
            hrows.append([players[p], *[str(col.get(p, "")) for col in view["hollywood"]]])
        story += [Table(hrows), Spacer(1, 4 * mm)]
    if view["winner"]:
        story.append(Paragraph(f"<b>{text(players[view['winner']])} wins game "
                               f"{text(view['number'])}.</b>", styles["Heading2"]))
    story.append(Spacer(1, 6 * mm))
    story.append(Paragraph("Signatures of the players", styles["Heading3"]))
    over = {p: s.get("sheet_hash") for p, s in view.get("signed_over", {}).items()}
    sig_table = Table([[_signature_cell(signatures.get(p), players[p], over.get(p))
                        for p in PLAYERS]], colWidths=[85 * mm, 85 * mm])
    sig_table.setStyle(TableStyle([("BOX", (0, 0), (0, 0), 0.5, colors.grey),
                                   ("BOX", (1, 0), (1, 0), 0.5, colors.grey),
                                   ("VALIGN", (0, 0), (-1, -1), "BOTTOM")]))
    story.append(sig_table)
    story.append(Spacer(1, 6 * mm))
    if view.get("sheet_hash"):
        story.append(Paragraph(
            f"Sheet hash (SHA-256 of this game's record: names, rules, every confirmed hand, "
            f"totals): <font name='Courier'>{text(view['sheet_hash'])}</font>. A player's "
            "signature covers the sheet whose hash is printed under it; any change after it "
            "voids it. The record is attached to this file (check it with webui.verify).",
            styles["Normal"]))
        story.append(Spacer(1, 3 * mm))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    story.append(Paragraph(
        f"Exported {stamp} by gintray from table event {last_seq}. This file carries a digital "
        "signature of the installation that recorded the game. It covers every byte of this "
        "file except the signature value itself: any change to the sheet, the signatures "
        "drawn or the attached sheet record is detectable.",
        styles["Italic"]))
    doc.build(story)
    if "record" not in view:
        return buf.getvalue()
    return _attach_record(buf.getvalue(), view)
