"""Calibrate one table from its printed markers: save the layout and a picture to check it.

    .venv/bin/python hardware/calibrate.py --image photo.jpg --out layout.json --check check.png
    .venv/bin/python hardware/calibrate.py --camera picamera:0 --out layout.json --check check.png

Finds the six ArUco markers (vision.table.markers: DICT_4X4_50, ids 0-3 table corners TL, TR, BR,
BL, ids 4-5 either side of the tray's up-card slot), builds the layout from them
(vision.table.layout.layout_from_markers) and saves it (vision.table.layout.save_layout). It also
measures the picture's scale from the markers' printed size and says whether a card's corner index
is large enough for the detector (hardware/mount/README.md). Exit status: 0 calibrated, 1 markers
missing or corners too small (nothing saved), 2 bad input (unreadable image, no camera).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from vision.inference.mirror import unmirror  # noqa: E402
from vision.table.layout import TableLayout, layout_from_markers, save_layout  # noqa: E402
from vision.table.markers import MARKER_ROLES, detect_markers  # noqa: E402

MARKER_MM = 40.0        # printed black-square side (hardware/images/marker_sheet.pdf at 100 %)
CORNER_INDEX_MM = 6.5   # hardware/mount/optics.py
MIN_CORNER_PX = 20.0    # hardware/mount/optics.py


@dataclass(frozen=True)
class Check:
    """What the markers say about the picture."""

    found: dict[int, np.ndarray]
    missing: list[int]
    px_per_mm: float | None
    corner_px: float | None

    @property
    def scale_ok(self) -> bool:
        return self.corner_px is not None and self.corner_px >= MIN_CORNER_PX

    def messages(self) -> list[str]:
        """Plain sentences for the person at the table."""
        lines = [f"marker {i} ({MARKER_ROLES[i]}) not found: covered, in shadow, creased, "
                 "or outside the picture?" for i in self.missing]
        if self.px_per_mm is not None and self.corner_px is not None:
            verdict = "ok" if self.scale_ok else (
                f"too small: the detector needs {MIN_CORNER_PX:g} px; lower the camera or use "
                "full-resolution frames")
            lines.append(f"scale {self.px_per_mm:.2f} px/mm: a {CORNER_INDEX_MM:g} mm corner index "
                         f"is {self.corner_px:.1f} px wide ({verdict})")
        return lines


def side_px(corners: np.ndarray) -> float:
    """Mean side length of one marker quad (pixels)."""
    quad = np.asarray(corners, np.float64).reshape(4, 2)
    return float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))


def check_image(image: np.ndarray, marker_mm: float = MARKER_MM) -> Check:
    """Find the markers and measure the scale from their printed size."""
    found = detect_markers(image)
    missing = sorted(set(MARKER_ROLES) - set(found))
    if not found:
        return Check(found, missing, None, None)
    px_per_mm = float(np.median([side_px(c) for c in found.values()])) / marker_mm
    return Check(found, missing, px_per_mm, px_per_mm * CORNER_INDEX_MM)


def draw_check(image: np.ndarray, found: dict[int, np.ndarray],
               layout: TableLayout | None) -> np.ndarray:
    """The picture with the markers outlined and the layout's slot and areas drawn on it."""
    out = image.copy()
    if found:
        ids = np.array(sorted(found), np.int32).reshape(-1, 1)
        cv2.aruco.drawDetectedMarkers(out, [np.asarray(found[i], np.float32).reshape(1, 4, 2)
                                            for i in sorted(found)], ids, (0, 0, 255))
    if layout is None:
        return out
    colours = [(255, 200, 0), (0, 200, 255), (255, 0, 255)]
    for n, (player, polygon) in enumerate(layout.areas.items()):
        colour = colours[n % len(colours)]
        cv2.polylines(out, [np.int32(np.round(polygon)).reshape(-1, 1, 2)], True, colour, 2,
                      cv2.LINE_AA)
        cx, cy = np.mean(polygon, axis=0)
        cv2.putText(out, f"area {player}", (int(cx) - 40, int(cy) + 40),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2, cv2.LINE_AA)
    cv2.polylines(out, [np.int32(np.round(layout.up_card_slot)).reshape(-1, 1, 2)], True,
                  (0, 0, 255), 3, cv2.LINE_AA)
    return out


def grab_frame(source: str, timeout_s: float = 15.0) -> np.ndarray | None:
    """One frame from a camera source (vision.table.camera), waiting up to ``timeout_s``."""
    from vision.table.camera import open_camera

    camera = open_camera(source)
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            frame = camera.read()
            if frame is not None:
                return frame.image
            if camera.finished:
                return None
        return None
    finally:
        camera.close()


def main(argv: list[str] | None = None) -> int:
    """Calibrate from a photo or a camera; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--image", type=Path, help="a photo taken by the table's camera")
    where.add_argument("--camera", help="camera source: picamera:0, usb:0 (stop gintray first)")
    parser.add_argument("--out", type=Path, help="where to save the layout JSON")
    parser.add_argument("--check", type=Path, help="where to write the check picture (PNG/JPEG)")
    parser.add_argument("--marker-mm", type=float, default=MARKER_MM,
                        help=f"printed marker side in mm (default {MARKER_MM:g})")
    args = parser.parse_args(argv)
    if args.image is not None:
        image = cv2.imread(str(args.image), cv2.IMREAD_COLOR) if args.image.is_file() else None
        if image is None:
            print(f"calibrate: {args.image} is not a readable image", file=sys.stderr)
            return 2
    else:
        try:
            image = grab_frame(args.camera)
        except ValueError as exc:  # CameraSourceError: a malformed source string
            print(f"calibrate: {exc}", file=sys.stderr)
            return 2
        if image is None:
            print(f"calibrate: no frame from {args.camera} (is gintray still using it?)",
                  file=sys.stderr)
            return 2
    check = check_image(image, args.marker_mm)
    mirrored = False
    if check.missing:  # printed markers read backwards: a camera set to flip its picture
        flipped_image = unmirror(image)
        flipped = check_image(flipped_image, args.marker_mm)
        if not flipped.missing:
            image, check, mirrored = flipped_image, flipped, True
            print("the camera's picture is a mirror image (the printed markers read backwards):"
                  " gintray flips every frame back (the layout says \"mirrored\"); or turn off"
                  " the camera's flip setting and calibrate again")
    for line in check.messages():
        print(line)
    layout = (replace(layout_from_markers(image), mirrored=mirrored) if not check.missing
              else None)
    if args.check is not None:
        cv2.imwrite(str(args.check), draw_check(image, check.found, layout))
        print(f"check picture: {args.check}")
    if layout is None or not check.scale_ok:
        print("not calibrated: fix the above and run again", file=sys.stderr)
        return 1
    if args.out is not None:
        save_layout(layout, args.out)
        print(f"layout saved: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
