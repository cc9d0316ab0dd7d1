"""Make the pictures of hardware/calibration.md with OpenCV (cv2.aruco) and the reader's own code.

    .venv/bin/python hardware/make_calibration_images.py [--out hardware/images]

Writes:
- ``marker_sheet.png``: the A4 sheet of markers 0-5 (vision.table.markers.marker_sheet, 150 dpi),
and   ``marker_sheet.pdf``, the same sheet placed at exactly 210 x 297 mm so that printing it at
  100 % gives 40 mm markers (a PNG carries no reliable print size).
- ``table_marked.png``: a correctly marked table seen from straight above: markers 0-3 at the
  play area's corners (TL, TR, BR, BL), the tray with markers 4 and 5 either side of the up card.
- ``live_view_check.png``: the same table seen by a camera that is a little off-centre and
  rotated, with what the live view should show: every marker found, and the layout made from the
  markers (vision.table.layout.layout_from_markers) carried onto the new view by them
  (TableLayout.locate).

The script checks what it draws: it exits with an error if any marker is not found or the
located up-card slot misses the up card.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for folder in (REPO, HERE):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from calibrate import draw_check  # noqa: E402

from vision.table.layout import UP_CARD, layout_from_markers  # noqa: E402
from vision.table.markers import MARKER_ROLES, detect_markers, marker_image, marker_sheet  # noqa: E402

PX_PER_MM = 1.5
AREA_MM = (600.0, 400.0)      # play area, as in hardware/mount (optics.py defaults)
MARGIN_MM = 60.0              # table visible around the play area
MARKER_MM = 40.0              # black square side, as printed from the sheet
TRAY_MM = (189.0, 120.0)      # gintray_mount.scad tray with default parameters
CARD_MM = (63.5, 88.9)
FELT_BGR = (60, 110, 40)
UP_CARD_CODE = "7D"


def _paste_marker(image: np.ndarray, marker_id: int, center: tuple[float, float],
                  px_per_mm: float) -> None:
    """A printed marker: white paper (1/6 quiet zone each side) with the black-and-white code."""
    side = round(MARKER_MM * px_per_mm)
    quiet = round(side / 6)
    paper = np.full((side + 2 * quiet, side + 2 * quiet), 255, np.uint8)
    paper[quiet:quiet + side, quiet:quiet + side] = marker_image(marker_id, side)
    x0 = round(center[0] - paper.shape[1] / 2)
    y0 = round(center[1] - paper.shape[0] / 2)
    image[y0:y0 + paper.shape[0], x0:x0 + paper.shape[1]] = cv2.cvtColor(paper, cv2.COLOR_GRAY2BGR)


def _card_face(code: str, width: int) -> np.ndarray:
    """A real card face (vision.training.synth.cards) or, without the decks, a plain labelled
    card."""
    height = round(width * CARD_MM[1] / CARD_MM[0])
    try:
        from vision.training.synth.cards import CardFaces

        face = CardFaces(width=width).face(code)
        face = cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA)
        alpha = face[:, :, 3:4].astype(np.float32) / 255
        return (face[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)
    except Exception:  # decks not unpacked: draw a plain card
        card = np.full((height, width, 3), 250, np.uint8)
        cv2.rectangle(card, (0, 0), (width - 1, height - 1), (120, 120, 120), 1)
        cv2.putText(card, code, (4, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 200), 2, cv2.LINE_AA)
        return card


def draw_table(px_per_mm: float = PX_PER_MM) -> tuple[np.ndarray, tuple[float, float]]:
    """Top view of a correctly marked table; returns the image and the up card's centre."""

    def mm(value: float) -> int:
        return round(value * px_per_mm)

    width = mm(AREA_MM[0] + 2 * MARGIN_MM)
    height = mm(AREA_MM[1] + 2 * MARGIN_MM)
    image = np.zeros((height, width, 3), np.uint8)
    image[:] = FELT_BGR
    x0, y0 = mm(MARGIN_MM), mm(MARGIN_MM)
    x1, y1 = x0 + mm(AREA_MM[0]), y0 + mm(AREA_MM[1])
    cv2.rectangle(image, (x0, y0), (x1, y1), (90, 150, 70), 2)  # play area outline (tape)
    half = MARKER_MM / 2 * px_per_mm
    corners = {0: (x0 + half, y0 + half), 1: (x1 - half, y0 + half),
               2: (x1 - half, y1 - half), 3: (x0 + half, y1 - half)}
    for marker_id, center in corners.items():
        _paste_marker(image, marker_id, center, px_per_mm)
    # tray in the middle: up-card slot between markers 4 (left) and 5 (right)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    tw, th = mm(TRAY_MM[0]), mm(TRAY_MM[1])
    tray_tl = (round(cx - tw / 2), round(cy - th / 2))
    cv2.rectangle(image, tray_tl, (tray_tl[0] + tw, tray_tl[1] + th), (150, 190, 215), -1)
    pocket_offset = (TRAY_MM[0] / 2 - 6 - MARKER_MM * 4 / 3 / 2) * px_per_mm
    _paste_marker(image, 4, (cx - pocket_offset, cy), px_per_mm)
    _paste_marker(image, 5, (cx + pocket_offset, cy), px_per_mm)
    card = _card_face(UP_CARD_CODE, mm(CARD_MM[0]))
    ch, cw = card.shape[:2]
    top, left = round(cy - ch / 2), round(cx - cw / 2)
    image[top:top + ch, left:left + cw] = card
    font = cv2.FONT_HERSHEY_SIMPLEX
    white = (235, 235, 235)
    labels = {0: "id 0 (TL)", 1: "id 1 (TR)", 2: "id 2 (BR)", 3: "id 3 (BL)"}
    for marker_id, (mx, my) in corners.items():
        above = marker_id in (0, 1)
        ty = my - mm(MARKER_MM * 0.75) if above else my + mm(MARKER_MM * 0.75) + 12
        cv2.putText(image, labels[marker_id], (round(mx) - mm(20), round(ty)), font, 0.6, white, 1,
                    cv2.LINE_AA)
    for marker_id, sign in ((4, -1), (5, 1)):
        cv2.putText(image, f"id {marker_id}", (round(cx + sign * pocket_offset) - mm(10),
                    round(cy + th / 2) + mm(12)), font, 0.6, white, 1, cv2.LINE_AA)
    # each player's spread area
    size = 0.8 * px_per_mm / PX_PER_MM
    cv2.putText(image, "player A spreads here", (x0 + mm(60), y1 - mm(50)), font, size,
                (230, 230, 230), 2, cv2.LINE_AA)
    cv2.putText(image, "player B spreads here", (x0 + mm(60), y0 + mm(60)), font, size,
                (230, 230, 230), 2, cv2.LINE_AA)
    return image, (cx, cy)


def camera_view(
    top: np.ndarray, point: tuple[float, float]
) -> tuple[np.ndarray, tuple[float, float]]:
    """The table as a slightly off-centre, rotated camera sees it (a bumped mount)."""
    h, w = top.shape[:2]
    k = w / 1080  # the offsets below are for the 1080-pixel-wide picture
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[40 * k, 70 * k], [w - 10 * k, 20 * k], [w - 60 * k, h - 15 * k],
                      [15 * k, h - 60 * k]])
    matrix = cv2.getPerspectiveTransform(src, dst)
    view = cv2.warpPerspective(top, matrix, (w, h), borderValue=(70, 70, 70))
    moved = cv2.perspectiveTransform(np.float32([[point]]), matrix)[0, 0]
    return view, (float(moved[0]), float(moved[1]))


def annotate(view: np.ndarray, top: np.ndarray, up_card: tuple[float, float]) -> np.ndarray:
    """Overlay what the live view shows once calibrated: markers and the located layout."""
    seen = detect_markers(view)
    missing = sorted(set(MARKER_ROLES) - set(seen))
    if missing:
        raise SystemExit(f"make_calibration_images: markers {missing} not found in the camera view")
    layout, by_markers = layout_from_markers(top).locate(view)
    if not by_markers:
        raise SystemExit("make_calibration_images: the layout was not located by the markers")
    if layout.region_of(up_card) != UP_CARD:
        raise SystemExit("make_calibration_images: the located up-card slot misses the up card")
    out = draw_check(view, seen, layout)
    cv2.putText(out, "6/6 markers found, layout located by markers", (20, out.shape[0] - 20),
                cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2, cv2.LINE_AA)
    return out


def write_pdf(png: Path, pdf: Path) -> None:
    """Place the sheet PNG on one A4 page at its true size (reportlab, a core dependency)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    page = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)  # invariant: reproducible bytes
    page.setTitle("gintray ArUco markers (DICT_4X4_50), print at 100 %")
    page.drawImage(str(png), 0, 0, width=A4[0], height=A4[1])
    page.showPage()
    page.save()


def main(argv: list[str] | None = None) -> int:
    """Write the three calibration pictures into --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "hardware" / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    marker_sheet(args.out / "marker_sheet.png", dpi=150, marker_mm=MARKER_MM)
    write_pdf(args.out / "marker_sheet.png", args.out / "marker_sheet.pdf")
    top, up_card = draw_table()
    view, up_card_in_view = camera_view(top, up_card)
    checked = annotate(view, top, up_card_in_view)
    for name, image in (("table_marked.png", top), ("live_view_check.png", checked)):
        if not cv2.imwrite(str(args.out / name), image, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
            raise OSError(f"cannot write {args.out / name}")
    print(f"wrote marker_sheet.png/.pdf, table_marked.png, live_view_check.png to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
