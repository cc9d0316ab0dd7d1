"""Camera height and resolution for a gintray table: does a card's corner index stay readable?

Standard library only. Run it to print the worked table of hardware/mount/README.md:

    python3 hardware/mount/optics.py            # markdown table for the default table
    python3 hardware/mount/optics.py --area 700 450 --corner-mm 6.0

Model: a rectilinear lens looking straight down from height ``h`` sees a rectangle
``2 h tan(HFOV/2)`` by ``2 h tan(VFOV/2)`` on the table. With ``N`` pixels across, one millimetre of
table is ``N / (2 h tan(HFOV/2))`` pixels. The detector sees a frame either at native scale (cut
into 640-pixel tiles) or shrunk to 640 pixels across; a corner index ``c`` mm wide is then
``c * px_per_mm * scale`` pixels wide, and must be at least ``min_px`` for the detector.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass

DETECTOR_INPUT_PX = 640
"""Side of the detector's square input (YOLO imgsz)."""

MIN_CORNER_PX = 20.0
"""Smallest corner-index width (pixels, at the detector's input) we design for: the dev spreads the
detector is measured on have a median corner width of 22 px at 640
(/work/shared/notes/detector-budget.md)."""

CORNER_INDEX_MM = 6.5
"""Printed width of a poker card's corner index (rank over suit), about 6-7 mm."""


@dataclass(frozen=True)
class CameraMode:
    """One camera and the sensor mode it streams in (the full field of view in every mode here)."""

    name: str
    hfov_deg: float
    vfov_deg: float
    width_px: int
    height_px: int
    source: str

    def __post_init__(self) -> None:
        if not (0 < self.hfov_deg < 180 and 0 < self.vfov_deg < 180):
            raise ValueError(f"{self.name}: field of view must be between 0 and 180 degrees")
        if self.width_px <= 0 or self.height_px <= 0:
            raise ValueError(f"{self.name}: pixel counts must be positive")


def fov_from_diagonal(diagonal_deg: float, aspect_w: float, aspect_h: float) -> tuple[float, float]:
    """(HFOV, VFOV) in degrees of a rectilinear lens given its diagonal field of view and aspect."""
    if not 0 < diagonal_deg < 180:
        raise ValueError("diagonal field of view must be between 0 and 180 degrees")
    half_diag = math.tan(math.radians(diagonal_deg) / 2)
    diag = math.hypot(aspect_w, aspect_h)
    hfov = 2 * math.degrees(math.atan(half_diag * aspect_w / diag))
    vfov = 2 * math.degrees(math.atan(half_diag * aspect_h / diag))
    return hfov, vfov


_CM3 = "raspberrypi/documentation, accessories/camera/camera_hardware.adoc (Hardware Specification)"
_WEBCAM_HFOV, _WEBCAM_VFOV = fov_from_diagonal(78.0, 16, 9)

CAMERAS: tuple[CameraMode, ...] = (
    CameraMode("Pi Camera Module 3, 2304x1296 (binned video mode)", 66, 41, 2304, 1296, _CM3),
    CameraMode("Pi Camera Module 3, 4608x2592 (full sensor)", 66, 41, 4608, 2592, _CM3),
    CameraMode("Pi Camera Module 3 Wide, 2304x1296 (binned)", 102, 67, 2304, 1296, _CM3),
    CameraMode("Pi Camera Module 3 Wide, 4608x2592 (full sensor)", 102, 67, 4608, 2592, _CM3),
    CameraMode(
        "1080p USB webcam, 78 deg diagonal",
        round(_WEBCAM_HFOV, 1),
        round(_WEBCAM_VFOV, 1),
        1920,
        1080,
        "78 deg diagonal as advertised for the Logitech C920; check your webcam's datasheet",
    ),
)


def ground_coverage_mm(fov_deg: float, height_mm: float) -> float:
    """Length of table (mm) seen across a field of view ``fov_deg`` from ``height_mm`` above it."""
    if height_mm <= 0:
        raise ValueError("camera height must be positive")
    return 2 * height_mm * math.tan(math.radians(fov_deg) / 2)


def min_height_mm(cam: CameraMode, area_w_mm: float, area_d_mm: float) -> float:
    """Lowest lens height (mm) at which the frame (long side along ``area_w``) covers the area."""
    if area_w_mm <= 0 or area_d_mm <= 0:
        raise ValueError("play area must have a positive size")
    by_width = area_w_mm / (2 * math.tan(math.radians(cam.hfov_deg) / 2))
    by_depth = area_d_mm / (2 * math.tan(math.radians(cam.vfov_deg) / 2))
    return max(by_width, by_depth)


def px_per_mm(cam: CameraMode, height_mm: float) -> float:
    """Native image pixels per millimetre of table at ``height_mm`` (centre of the frame)."""
    return cam.width_px / ground_coverage_mm(cam.hfov_deg, height_mm)


def input_scale(cam: CameraMode, tiled: bool) -> float:
    """Scale from native pixels to detector pixels: 1 when tiled, 640/width when the whole frame
    is shrunk to one 640-pixel input."""
    return 1.0 if tiled else min(1.0, DETECTOR_INPUT_PX / cam.width_px)


def corner_px(cam: CameraMode, height_mm: float, *, corner_mm: float = CORNER_INDEX_MM,
              tiled: bool = True) -> float:
    """Width in detector pixels of a corner index ``corner_mm`` wide seen from ``height_mm``."""
    return corner_mm * px_per_mm(cam, height_mm) * input_scale(cam, tiled)


def max_height_mm(cam: CameraMode, *, corner_mm: float = CORNER_INDEX_MM,
                  min_px: float = MIN_CORNER_PX, tiled: bool = True) -> float:
    """Highest lens height (mm) at which the corner index is still ``min_px`` detector pixels."""
    if corner_mm <= 0 or min_px <= 0:
        raise ValueError("corner size and pixel minimum must be positive")
    px_wide = cam.width_px * input_scale(cam, tiled)
    return px_wide * corner_mm / (min_px * 2 * math.tan(math.radians(cam.hfov_deg) / 2))


def min_px_across(area_w_mm: float, *, corner_mm: float = CORNER_INDEX_MM,
                  min_px: float = MIN_CORNER_PX) -> float:
    """Pixels the detector needs across ``area_w_mm`` of table, whatever the lens: the play area can
    at best fill the frame, so this is the minimum horizontal resolution of any camera."""
    return area_w_mm * min_px / corner_mm


def tiles(cam: CameraMode, height_mm: float, area_w_mm: float, area_d_mm: float,
          *, scale: float = 1.0, overlap_px: int = 64) -> int:
    """Number of 640-pixel tiles (``overlap_px`` overlap) covering the play area once the native
    frame is resized by ``scale``: the detector's work per frame."""
    if not 0 < scale <= 1:
        raise ValueError("scale must be in (0, 1]")
    scale = px_per_mm(cam, height_mm) * scale
    step = DETECTOR_INPUT_PX - overlap_px

    def count(length_px: float) -> int:
        return max(1, math.ceil((length_px - overlap_px) / step))

    return count(area_w_mm * scale) * count(area_d_mm * scale)


@dataclass(frozen=True)
class Plan:
    """The heights one camera allows over a play area, and the figures at a chosen height."""

    cam: CameraMode
    h_min: float
    h_max: float
    height: float
    px_per_mm: float
    corner_px: float
    work_scale: float
    tiles: int

    @property
    def feasible(self) -> bool:
        return self.h_min <= self.h_max


TARGET_CORNER_PX = 22.0
"""Corner width the frame is resized to before tiling when the camera gives more: the dev scale."""


def plan(cam: CameraMode, area_w_mm: float, area_d_mm: float, *,
         corner_mm: float = CORNER_INDEX_MM, min_px: float = MIN_CORNER_PX,
         margin: float = 1.1) -> Plan:
    """Heights for ``cam`` (tiled at native scale) and the figures at the recommended height: the
    lowest that covers the area with ``margin`` spare for an off-centre mount, but never above the
    highest that keeps corners readable. ``work_scale`` shrinks the frame so that corners are
    ``TARGET_CORNER_PX`` wide (never enlarges); ``tiles`` counts the detector inputs it needs."""
    h_min = min_height_mm(cam, area_w_mm, area_d_mm)
    h_max = max_height_mm(cam, corner_mm=corner_mm, min_px=min_px, tiled=True)
    height = max(h_min, min(h_min * margin, h_max))
    native_corner = corner_px(cam, height, corner_mm=corner_mm)
    work_scale = min(1.0, max(TARGET_CORNER_PX, min_px) / native_corner)
    return Plan(cam, h_min, h_max, height, px_per_mm(cam, height), native_corner, work_scale,
                tiles(cam, height, area_w_mm, area_d_mm, scale=work_scale))


def markdown_table(area_w_mm: float, area_d_mm: float, *, corner_mm: float = CORNER_INDEX_MM,
                   min_px: float = MIN_CORNER_PX) -> str:
    """The README's worked table for one play area."""
    rows = [
        "| camera (mode) | HFOV x VFOV | lowest height covering the area | highest height for "
        f"{min_px:g} px corners (tiled) | same, whole frame at 640 | mount height | px/mm | "
        "corner px | resize before tiling | 640 tiles |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for cam in CAMERAS:
        p = plan(cam, area_w_mm, area_d_mm, corner_mm=corner_mm, min_px=min_px)
        h_whole = max_height_mm(cam, corner_mm=corner_mm, min_px=min_px, tiled=False)
        verdict = "" if p.feasible else " (below the lowest: does not work)"
        rows.append(
            f"| {cam.name} | {cam.hfov_deg:g} x {cam.vfov_deg:g} deg | {p.h_min:.0f} mm | "
            f"{p.h_max:.0f} mm{verdict} | {h_whole:.0f} mm | {p.height:.0f} mm | "
            f"{p.px_per_mm:.2f} | {p.corner_px:.1f} | {p.work_scale:.2f} | {p.tiles} |"
        )
    need = min_px_across(area_w_mm, corner_mm=corner_mm, min_px=min_px)
    rows.append("")
    rows.append(
        f"Play area {area_w_mm:g} x {area_d_mm:g} mm, corner index {corner_mm:g} mm, "
        f"minimum {min_px:g} px: any camera needs at least {need:.0f} px across the play area "
        f"({need / area_w_mm:.2f} px/mm)."
    )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Print the worked table (markdown) for a play area."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", nargs=2, type=float, metavar=("WIDTH_MM", "DEPTH_MM"),
                        default=(600.0, 400.0), help="play area to cover (default 600 400)")
    parser.add_argument("--corner-mm", type=float, default=CORNER_INDEX_MM)
    parser.add_argument("--min-px", type=float, default=MIN_CORNER_PX)
    args = parser.parse_args(argv)
    try:
        print(markdown_table(*args.area, corner_mm=args.corner_mm, min_px=args.min_px))
    except ValueError as exc:
        print(f"optics: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
