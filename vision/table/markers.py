"""Printed ArUco markers that let the reader find the table again after the camera moves.

Convention (shared with the hardware guide): dictionary ``DICT_4X4_50``; ids 0, 1, 2, 3 are the
table corners top-left, top-right, bottom-right, bottom-left as the camera sees them; ids 4 and 5
sit on the tray (left and right of the up-card slot).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

DICTIONARY_ID = cv2.aruco.DICT_4X4_50
TABLE_CORNER_IDS = (0, 1, 2, 3)
TRAY_IDS = (4, 5)
MARKER_ROLES = {
    0: "table corner, top-left",
    1: "table corner, top-right",
    2: "table corner, bottom-right",
    3: "table corner, bottom-left",
    4: "tray, left of the up-card slot",
    5: "tray, right of the up-card slot",
}

BORDER = 24  # white margin added around a picture before searching it
Corners = np.ndarray  # float32 array of shape (4, 2): the marker's corners TL, TR, BR, BL


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY_ID)


def marker_image(marker_id: int, side_px: int = 200) -> np.ndarray:
    """One marker as a grayscale image (black on white, no margin)."""
    if not 0 <= marker_id < 50:
        raise ValueError(f"marker id {marker_id} is outside DICT_4X4_50 (0..49)")
    return cv2.aruco.generateImageMarker(_dictionary(), marker_id, side_px)


def detect_markers(image: np.ndarray) -> dict[int, Corners]:
    """Find the markers in a BGR or gray image: {id: corners (4, 2) in image pixels}.

    A marker seen twice (should not happen on one table) keeps the larger sighting.
    """
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    # markers at the table's corners often sit at the very edge of the picture, where the
    # detector would reject them: give it a white margin (a quiet zone) and shift back.
    gray = cv2.copyMakeBorder(gray, BORDER, BORDER, BORDER, BORDER, cv2.BORDER_CONSTANT,
                              value=255)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(_dictionary(), parameters)
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, Corners] = {}
    if ids is None:
        return found
    for marker_corners, marker_id in zip(corners, ids.flatten(), strict=True):
        quad = np.asarray(marker_corners, dtype=np.float32).reshape(4, 2) - BORDER
        key = int(marker_id)
        if key not in found or cv2.contourArea(quad) > cv2.contourArea(found[key]):
            found[key] = quad
    return found


def homography(reference: dict[int, Corners], seen: dict[int, Corners]) -> np.ndarray | None:
    """Homography taking reference-image pixels to current-image pixels from shared markers.

    Needs at least two shared markers (eight corner points) so that one misread marker cannot
    move the layout on its own; returns None when fewer are shared or the fit is degenerate.
    """
    shared = sorted(set(reference) & set(seen))
    if len(shared) < 2:
        return None
    src = np.concatenate([np.asarray(reference[i], np.float32).reshape(4, 2) for i in shared])
    dst = np.concatenate([np.asarray(seen[i], np.float32).reshape(4, 2) for i in shared])
    matrix, _ = cv2.findHomography(src, dst, cv2.RANSAC, 5.0)
    if matrix is None or not np.isfinite(matrix).all() or abs(np.linalg.det(matrix)) < 1e-9:
        return None
    return matrix


def marker_sheet(
    path: str | Path | None = None, *, dpi: int = 150, marker_mm: float = 40.0
) -> np.ndarray:
    """Render a printable A4 sheet (portrait) with markers 0..5, each labelled with its role.

    Print at 100 % scale; each marker's black square is ``marker_mm`` wide. Returns the image and
    writes it as PNG when ``path`` is given.
    """
    px_per_mm = dpi / 25.4
    width, height = round(210 * px_per_mm), round(297 * px_per_mm)
    sheet = np.full((height, width), 255, np.uint8)
    side = round(marker_mm * px_per_mm)
    quiet = round(side / 6)  # white border the detector needs around each marker
    cell_w, cell_h = width // 2, (height - round(25 * px_per_mm)) // 3
    top = round(20 * px_per_mm)
    title = "gintray table markers (ArUco DICT_4X4_50) - print at 100%, cut on the grey lines"
    scale = 0.35 * dpi / 100
    cv2.putText(sheet, title, (quiet, round(10 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                scale, 0, max(1, dpi // 100), cv2.LINE_AA)
    for n, marker_id in enumerate(sorted(MARKER_ROLES)):
        col, row = n % 2, n // 2
        x0, y0 = col * cell_w, top + row * cell_h
        cv2.rectangle(sheet, (x0 + 4, y0 + 4), (x0 + cell_w - 4, y0 + cell_h - 4), 190, 1)
        mx, my = x0 + (cell_w - side) // 2, y0 + quiet * 2
        sheet[my:my + side, mx:mx + side] = marker_image(marker_id, side)
        label = f"id {marker_id}: {MARKER_ROLES[marker_id]}"
        cv2.putText(sheet, label, (x0 + quiet, my + side + quiet * 2), cv2.FONT_HERSHEY_SIMPLEX,
                    scale, 0, max(1, dpi // 100), cv2.LINE_AA)
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(path), sheet):
            raise OSError(f"cannot write marker sheet to {path}")
    return sheet
