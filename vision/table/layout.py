"""Per-table calibration: where the up-card slot and each player's spread area are in the picture.

A layout is drawn once on the live view (or written by hand) in the pixels of a reference image
and saved as JSON with the table. When printed ArUco markers (see :mod:`vision.table.markers`) were
visible in that reference image their positions are saved too, and :meth:`TableLayout.locate`
maps the layout onto a new frame through the homography between the marker positions, so a
bumped camera does not break the reading. Without markers the manual layout is used as is
(scaled when the frame size differs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorer import PLAYERS
from vision.inference.tiling import DetectorSettings
from vision.table.markers import detect_markers, homography

Point = tuple[float, float]
Polygon = list[Point]
UP_CARD = "up_card"
LAYOUT_VERSION = 1


class LayoutError(ValueError):
    """A layout file is missing, malformed or geometrically impossible."""


def _polygon(value: Any, what: str) -> Polygon:
    try:
        points = [(float(x), float(y)) for x, y in value]
    except (TypeError, ValueError) as exc:
        raise LayoutError(f"{what} must be a list of [x, y] points") from exc
    if len(points) < 3:
        raise LayoutError(f"{what} needs at least 3 points, got {len(points)}")
    if cv2.contourArea(np.asarray(points, np.float32)) <= 1.0:
        raise LayoutError(f"{what} has no area")
    return points


@dataclass(frozen=True)
class TableLayout:
    """Up-card slot and player areas as polygons in the pixels of a reference image."""

    up_card_slot: Polygon
    areas: dict[str, Polygon]
    image_size: tuple[int, int] | None = None  # (width, height) of the reference image
    markers: dict[int, list[Point]] = field(default_factory=dict)  # id -> 4 corners
    name: str = ""
    # detect on native-scale tiles, enlarged by this factor (1.0: native), when this camera sees
    # corner indices smaller than the detector's working size (None: the detector's own policy)
    detector_scale: float | None = None
    # the camera's picture is a mirror image (a camera set to flip it): the table camera flips
    # each frame back before anything reads or shows it, and the polygons are in those pixels
    mirrored: bool = False

    def __post_init__(self) -> None:
        _polygon(self.up_card_slot, "up_card_slot")
        if not self.areas:
            raise LayoutError("a layout needs at least one player area")
        for player, polygon in self.areas.items():
            _polygon(polygon, f"area {player!r}")

    @property
    def players(self) -> list[str]:
        return list(self.areas)

    def detector_settings(self, tile: int | None = None) -> DetectorSettings:
        """How the detector reads this camera's frames: ``detector_scale`` (and a ``--tile``
        option) as `DetectorSettings`; give them to it with `vision.inference.tiling.configured`.
        """
        return DetectorSettings.for_table(self.detector_scale, tile)

    def region_of(self, point: Point) -> str | None:
        """``"up_card"``, a player name, or None for a point outside every region."""
        if _inside(self.up_card_slot, point):
            return UP_CARD
        for player, polygon in self.areas.items():
            if _inside(polygon, point):
                return player
        return None

    def on_marker(self, point: Point, margin: float = 0.25) -> bool:
        """True when ``point`` lies on a printed marker (grown by ``margin`` of its side):
        a marker's black and white squares are never a card, whatever a detector says."""
        for quad in self.markers.values():
            q = np.asarray(quad, np.float32)
            center = q.mean(axis=0)
            grown = center + (q - center) * (1 + 2 * margin)
            if _inside([tuple(map(float, p)) for p in grown], point):
                return True
        return False

    def transformed(self, matrix: np.ndarray, image_size: tuple[int, int] | None) -> TableLayout:
        """The same layout mapped through a 3x3 homography."""

        def warp(points: list[Point]) -> list[Point]:
            array = np.asarray(points, np.float32).reshape(-1, 1, 2)
            out = cv2.perspectiveTransform(array, matrix).reshape(-1, 2)
            return [(float(x), float(y)) for x, y in out]

        return replace(
            self,
            up_card_slot=warp(self.up_card_slot),
            areas={p: warp(poly) for p, poly in self.areas.items()},
            markers={i: warp(c) for i, c in self.markers.items()},
            image_size=image_size,
        )

    def mirrored_across(self) -> TableLayout:
        """The layout for the mirror image of its reference picture: every polygon flipped left
        to right across ``image_size`` and ``mirrored`` turned over. Saved markers are dropped:
        a mirrored picture's markers are never read (the next calibration finds them again)."""
        if self.image_size is None:
            raise LayoutError("a layout without 'image_size' cannot be mirrored")
        width = float(self.image_size[0])

        def flip(points: Polygon) -> Polygon:
            return [(width - x, y) for x, y in reversed(points)]

        return replace(self, up_card_slot=flip(self.up_card_slot),
                       areas={p: flip(poly) for p, poly in self.areas.items()},
                       markers={}, mirrored=not self.mirrored)

    def scaled_to(self, image_size: tuple[int, int]) -> TableLayout:
        """The layout stretched to another frame size (same camera view, other resolution)."""
        if self.image_size is None or tuple(self.image_size) == tuple(image_size):
            return self
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        return self.transformed(np.diag([sx, sy, 1.0]).astype(np.float64), image_size)

    def locate(self, image: np.ndarray) -> tuple[TableLayout, bool]:
        """This layout placed on ``image``: (layout, found_by_markers).

        Uses the saved marker positions when at least two of them are seen in the image;
        otherwise falls back to the manual layout scaled to the image size.
        """
        size = (int(image.shape[1]), int(image.shape[0]))
        if self.markers:
            seen = detect_markers(image)
            reference = {i: np.asarray(c, np.float32) for i, c in self.markers.items()}
            matrix = homography(reference, seen)
            if matrix is not None:
                return self.transformed(matrix, size), True
        return self.scaled_to(size), False

    def to_json(self) -> dict[str, Any]:
        return {
            "version": LAYOUT_VERSION,
            "name": self.name,
            "image_size": list(self.image_size) if self.image_size else None,
            "up_card_slot": [list(p) for p in self.up_card_slot],
            "areas": {p: [list(pt) for pt in poly] for p, poly in self.areas.items()},
            "markers": {str(i): [list(pt) for pt in c] for i, c in sorted(self.markers.items())},
            "detector_scale": self.detector_scale,
            "mirrored": self.mirrored,
        }

    @classmethod
    def from_json(cls, data: Any) -> TableLayout:
        if not isinstance(data, dict):
            raise LayoutError("a layout is a JSON object")
        if data.get("version", LAYOUT_VERSION) != LAYOUT_VERSION:
            raise LayoutError(f"unsupported layout version {data.get('version')!r}")
        for key in ("up_card_slot", "areas"):
            if key not in data:
                raise LayoutError(f"layout lacks {key!r}")
        if not isinstance(data["areas"], dict):
            raise LayoutError("'areas' maps each player to a polygon")
        size = data.get("image_size")
        markers = _markers(data.get("markers") or {})
        try:
            image_size = (int(size[0]), int(size[1])) if size else None
        except (TypeError, ValueError, IndexError) as exc:
            raise LayoutError("'image_size' is [width, height]") from exc
        scale = data.get("detector_scale")
        if scale is not None and (not isinstance(scale, int | float) or not 0.25 <= scale <= 4):
            raise LayoutError("'detector_scale' is a number between 0.25 and 4 (or null)")
        mirrored = data.get("mirrored", False)
        if not isinstance(mirrored, bool):
            raise LayoutError("'mirrored' is true or false")
        return cls(
            detector_scale=float(scale) if scale is not None else None,
            mirrored=mirrored,
            up_card_slot=_polygon(data["up_card_slot"], "up_card_slot"),
            areas={str(p): _polygon(poly, f"area {p!r}") for p, poly in data["areas"].items()},
            image_size=image_size,
            markers=markers,
            name=str(data.get("name", "")),
        )


def _markers(data: Any) -> dict[int, list[Point]]:
    """A layout's saved markers: integer id -> its 4 corners."""
    if not isinstance(data, dict):
        raise LayoutError("'markers' maps each marker id to its 4 corners")
    markers: dict[int, list[Point]] = {}
    for key, corners in data.items():
        quad = _polygon(corners, f"marker {key}")
        if len(quad) != 4 or not str(key).isdigit():
            raise LayoutError(f"marker {key!r} needs an integer id and 4 corners")
        markers[int(key)] = quad
    return markers


def _inside(polygon: Polygon, point: Point) -> bool:
    contour = np.asarray(polygon, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0


def layout_text(layout: TableLayout) -> str:
    """A layout as the JSON text :func:`save_layout` writes and :func:`load_layout` reads."""
    return json.dumps(layout.to_json(), indent=2) + "\n"


def save_layout(layout: TableLayout, path: str | Path) -> None:
    """Write a layout as JSON (creating the folder). The table app writes its layouts with
    ``layout_text`` through ``webui.common.durable`` instead, so they survive a power cut."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(layout_text(layout), encoding="utf-8")


def load_layout(path: str | Path) -> TableLayout:
    """Read a layout saved by :func:`save_layout`; raise LayoutError with the reason if bad."""
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise LayoutError(f"layout file {source} does not exist") from exc
    except (OSError, json.JSONDecodeError) as exc:
        raise LayoutError(f"layout file {source} is not valid JSON: {exc}") from exc
    return TableLayout.from_json(data)


def layout_from_markers(
    image: np.ndarray, players: tuple[str, str] = PLAYERS, name: str = ""
) -> TableLayout:
    """A layout computed from the printed markers alone (no manual drawing).

    The table quadrilateral is spanned by the inner corners of markers 0-3; the up-card slot is
    the box between tray markers 4 and 5 (as tall as the gap between them is wide, at least
    1.5 marker heights). The first player sits at the bottom edge (near half of the table
    outside the slot), the second at the top edge.
    """
    seen = detect_markers(image)
    missing = [i for i in (0, 1, 2, 3, 4, 5) if i not in seen]
    if missing:
        raise LayoutError(f"markers {missing} not found; place all six or draw the layout by hand")
    centers = {i: seen[i].mean(axis=0) for i in seen}
    tl, tr, br, bl = (centers[i] for i in (0, 1, 2, 3))
    left, right = centers[4], centers[5]
    side = float(np.mean([np.linalg.norm(seen[4][0] - seen[4][1]),
                          np.linalg.norm(seen[5][0] - seen[5][1])]))
    gap_x0, gap_x1 = left[0] + side * 0.6, right[0] - side * 0.6
    half_h = max((gap_x1 - gap_x0) * 0.7, side * 1.5)
    cy = (left[1] + right[1]) / 2
    x0, x1 = float(gap_x0), float(gap_x1)
    top, bottom = float(cy - half_h), float(cy + half_h)
    slot = [(x0, top), (x1, top), (x1, bottom), (x0, bottom)]
    mid_l, mid_r = (tl + bl) / 2, (tr + br) / 2
    near = [tuple(map(float, p)) for p in (mid_l, mid_r, br, bl)]
    far = [tuple(map(float, p)) for p in (tl, tr, mid_r, mid_l)]
    return TableLayout(
        up_card_slot=slot,
        areas={players[0]: near, players[1]: far},
        image_size=(int(image.shape[1]), int(image.shape[0])),
        markers={i: [tuple(map(float, pt)) for pt in seen[i]] for i in sorted(seen)},
        name=name,
    )
