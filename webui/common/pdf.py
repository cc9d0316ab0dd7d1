"""The score sheet as a PDF page (reportlab): the tournament score card plus both signatures.

Page content is left uncompressed so the figures can be read from the file itself; the PDF is
then signed (``signing.sign_pdf``): the signature covers every byte of the file except its
own value (the ``/Contents`` string, whose unused zero padding no PDF signature covers), so
any change to the sheet, the pictures or the attached record is detectable.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Image, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from webui.common.membership import held_event
from webui.common.pdf_text import SANS, SANS_BOLD, markup, paragraph, register_fonts
from webui.common.seating import Seating, seating_of
from webui.common.signature_image import readable
from webui.store.engine import PLAYERS

SIGNATURE_BOX = (80 * mm, 27 * mm)
RECORD_NAME = "gintray-sheet-record.json"
RECORD_FORMAT = "gintray-sheet-record/1"


def _styles() -> dict[str, ParagraphStyle]:
    """reportlab's sample styles in the embedded fonts (``pdf_text``): Helvetica, not
    embedded, has no "Ł", no Cyrillic, no Arabic. The sheet hash stays in Courier (hex)."""
    register_fonts()
    faces = {"Helvetica": SANS, "Helvetica-Oblique": SANS, "Helvetica-Bold": SANS_BOLD,
             "Helvetica-BoldOblique": SANS_BOLD}
    sample = getSampleStyleSheet()
    out = {}
    for name in ("Normal", "Italic", "Title", "Heading2", "Heading3", "Code"):
        style = sample[name]
        out[name] = ParagraphStyle(name, parent=style,
                                   fontName=faces.get(style.fontName, style.fontName))
    out["cell"] = ParagraphStyle("cell", parent=out["Normal"], fontSize=9, leading=11)
    out["head"] = ParagraphStyle("head", parent=out["cell"], fontName=SANS_BOLD)
    return out


def _signature_cell(png: bytes | None, name: str, styles: dict[str, ParagraphStyle],
                    over: str | None = None) -> list[Any]:
    style = styles["Normal"]
    if png is None:
        return [Spacer(1, SIGNATURE_BOX[1]),
                Paragraph(f"{markup(name)}: <i>not signed</i>", style)]
    picture = readable(png)
    if picture is None:
        return [Spacer(1, SIGNATURE_BOX[1]),
                Paragraph(f"{markup(name)}: <i>signed, but the stored signature picture cannot "
                          "be drawn</i>", style)]
    w, h = picture.width, picture.height
    scale = min(SIGNATURE_BOX[0] / w, SIGNATURE_BOX[1] / h)
    cell: list[Any] = [Image(io.BytesIO(picture.png), width=w * scale, height=h * scale),
                       paragraph(name, style, SIGNATURE_COLUMN - 2 * CELL_PADDING)]
    if over:
        cell.append(Paragraph(f"signed over sheet {markup(over[:32])}<br/>{markup(over[32:])}",
                              styles["Code"]))
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


@dataclass(frozen=True)
class SheetContext:
    """What the page says of when and where a game was played, beyond the sheet: the times of
    its first and last recorded hand events (the store's clock, UTC) and, for a table the
    hall seated, the event (its name, as the hall's sync recorded it), the round and the table
    number (None for a table set up by hand: the table app knows no event or round of its
    own)."""

    started: datetime | None = None
    finished: datetime | None = None
    seating: Seating | None = None
    event: str | None = None

    def lines(self) -> list[str]:
        """``Event: spring open``, ``Played 2026-11-28 14:02-14:40 UTC``, ``Round 2, table 3``
        (the known ones)."""
        out = [f"Event: {self.event}"] if self.event else []
        if self.started is not None:
            first = self.started.astimezone(UTC)
            last = (self.finished or self.started).astimezone(UTC)
            span = f"{first:%Y-%m-%d %H:%M}"
            if f"{last:%H:%M}" != f"{first:%H:%M}" or last.date() != first.date():
                span += "\N{EN DASH}" + (f"{last:%H:%M}" if last.date() == first.date()
                                          else f"{last:%Y-%m-%d %H:%M}")
            out.append(f"Played {span} UTC")
        if self.seating is not None:
            out.append(f"Round {self.seating.round}, table {self.seating.table}")
        return out


def sheet_context(store: Any, table_id: int, game: Any) -> SheetContext:
    """The ``SheetContext`` of ``game`` at table ``table_id`` from ``store``'s events."""
    seqs = [seq for hand in game.hands for seq in hand.seqs]
    done = [seq for hand in game.confirmed_hands for seq in hand.seqs]

    def when(seq: int | None) -> datetime | None:
        row = store.event(table_id, seq) if seq is not None else None
        if row is None:
            return None
        at: datetime = row.created_at
        return at if at.tzinfo else at.replace(tzinfo=UTC)  # SQLite hands back naive UTC

    seating = seating_of(store, table_id)
    event = held_event(store) if seating is not None else None
    return SheetContext(started=when(min(seqs, default=None)),
                        finished=when(max(done, default=None)),
                        seating=seating, event=event.name if event else None)


#: the score table's columns (mm): hand, dealer, knock card, result, points, A, B
COLUMNS = (12 * mm, 24 * mm, 14 * mm, 42 * mm, 30 * mm, 26 * mm, 26 * mm)
SIGNATURE_COLUMN = 85 * mm
CELL_PADDING = 3  # points each side of a table cell


def render_sheet_pdf(state: Any, view: dict[str, Any], signatures: dict[str, bytes],
                     last_seq: int, context: SheetContext | None = None) -> bytes:
    """The PDF of one game's sheet (``view`` from ``sheetview.game_view``; ``context``: when
    and in which round it was played, where known)."""
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=A4, title=f"gintray score sheet - {state.name}",
                            author="gintray", leftMargin=18 * mm, rightMargin=18 * mm,
                            topMargin=16 * mm, bottomMargin=16 * mm, pageCompression=0,
                            invariant=1)
    styles = _styles()
    cell, bold = styles["cell"], styles["head"]
    players = view["players"]
    story: list[Any] = [
        Paragraph(f"Score sheet: {markup(state.name)}, game {markup(view['number'])}",
                  styles["Title"]),
        Paragraph(f"{markup(players['A'])} (A) v {markup(players['B'])} (B) &middot; rules: "
                  f"{markup(view['rules_name'])}", styles["Normal"]),
    ]
    story += [Paragraph(markup(line), styles["Normal"])
              for line in (context or SheetContext()).lines()]
    story.append(Spacer(1, 4 * mm))

    def wrapped(value: Any, column: int, style: ParagraphStyle = cell) -> Paragraph:
        """A cell that wraps inside its column (a long result or name printed over the next
        column otherwise)."""
        return paragraph(value, style, COLUMNS[column] - 2 * CELL_PADDING)

    def scored(row: dict[str, Any]) -> Paragraph | str:
        """Who scored the hand's points: ``Ann +22``, the points kept with the name's last
        word (``-`` for a dead hand)."""
        if not row["winner"]:
            return "-"
        name = players.get(row["winner"], row["winner"])
        return paragraph(name, cell, COLUMNS[4] - 2 * CELL_PADDING,
                         after=f"\N{NO-BREAK SPACE}+{row['points']}")

    head = [Paragraph(word, bold) for word in ("Hand", "Dealer", "Knock card", "Result",
                                               "Points to")]
    head += [wrapped(players["A"], 5, bold), wrapped(players["B"], 6, bold)]
    rows: list[list[Any]] = [head]
    for r in view["rows"]:
        rows.append([str(r["hand"]), wrapped(players.get(r["dealer"], r["dealer"]), 1),
                     r["knock"] or "-", wrapped(r["text"], 3), scored(r),
                     str(r["totals"]["A"]), str(r["totals"]["B"])])
    for b in view["bonuses"]:
        rows.append(["", "", "", b["label"], "", str(b["A"]), str(b["B"])])
    if view["finals"]:
        rows.append(["", "", "", "Final score" if view["winner"] else "Running total", "",
                     str(view["finals"]["A"]), str(view["finals"]["B"])])
    table = Table(rows, repeatRows=1, colWidths=list(COLUMNS))
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), SANS),
        ("LINEBELOW", (0, 0), (-1, 0), 1, colors.black),
        ("GRID", (0, 1), (-1, -1), 0.25, colors.grey),
        ("ALIGN", (5, 0), (-1, -1), "RIGHT"),
        ("FONTSIZE", (0, 0), (-1, -1), 9),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PADDING),
        ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PADDING),
    ]))
    story += [table, Spacer(1, 4 * mm)]
    if view["hollywood"]:
        games = len(view["hollywood"])
        name_column = doc.width - games * 20 * mm
        hrows: list[list[Any]] = [[Paragraph("Hollywood", bold),
                                   *[f"game {i + 1}" for i in range(games)]]]
        for p in PLAYERS:
            hrows.append([paragraph(players[p], cell, name_column - 2 * CELL_PADDING),
                          *[str(col.get(p, "")) for col in view["hollywood"]]])
        hollywood = Table(hrows, colWidths=[name_column] + [20 * mm] * games)
        hollywood.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), SANS),
                                       ("LEFTPADDING", (0, 0), (-1, -1), CELL_PADDING),
                                       ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PADDING)]))
        story += [hollywood, Spacer(1, 4 * mm)]
    if view["winner"]:
        story.append(Paragraph(f"<b>{markup(players[view['winner']])} wins game "
                               f"{markup(view['number'])}.</b>", styles["Heading2"]))
    story.append(Spacer(1, 6 * mm))
    story.append(Paragraph("Signatures of the players", styles["Heading3"]))
    over = {p: s.get("sheet_hash") for p, s in view.get("signed_over", {}).items()}
    sig_table = Table([[_signature_cell(signatures.get(p), players[p], styles, over.get(p))
                        for p in PLAYERS]], colWidths=[SIGNATURE_COLUMN] * 2)
    sig_table.setStyle(TableStyle([("BOX", (0, 0), (0, 0), 0.5, colors.grey),
                                   ("BOX", (1, 0), (1, 0), 0.5, colors.grey),
                                   ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                                   ("LEFTPADDING", (0, 0), (-1, -1), CELL_PADDING),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PADDING)]))
    story.append(sig_table)
    story.append(Spacer(1, 6 * mm))
    if view.get("sheet_hash"):
        story.append(Paragraph(
            f"Sheet hash (SHA-256 of this game's record: names, rules, every confirmed hand, "
            f"totals): <font name='Courier'>{markup(view['sheet_hash'])}</font>. A player's "
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
