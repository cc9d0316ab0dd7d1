"""Calibration pictures: the marker sheet prints at true size and every marker is found."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest
from hardware_helpers import HARDWARE, load_script

from vision.table.markers import detect_markers

images = load_script("make_calibration_images.py", "gintray_hw_calibration_images")
ALL_IDS = {0, 1, 2, 3, 4, 5}


def side_px(corners: np.ndarray) -> float:
    return float(np.mean([np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]))


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("calibration")
    assert images.main(["--out", str(out)]) == 0
    return out


def test_marker_sheet_has_the_six_markers_at_40_mm(generated):
    sheet = cv2.imread(str(generated / "marker_sheet.png"))
    assert sheet.shape[:2] == (1754, 1240)  # A4 at 150 dpi
    found = detect_markers(sheet)
    assert set(found) == ALL_IDS
    for corners in found.values():
        assert side_px(corners) / (150 / 25.4) == pytest.approx(40, abs=0.5)  # mm on paper


def test_marker_sheet_pdf_is_one_a4_page(generated):
    pdf = (generated / "marker_sheet.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]", pdf)
    assert len(boxes) == 1
    width_pt, height_pt = (float(v) for v in boxes[0])
    assert (width_pt / 72 * 25.4, height_pt / 72 * 25.4) == pytest.approx((210, 297), abs=0.1)


def test_marked_table_shows_every_marker_and_the_check_matches_its_size(generated):
    top = cv2.imread(str(generated / "table_marked.png"))
    assert set(detect_markers(top)) == ALL_IDS
    check = cv2.imread(str(generated / "live_view_check.png"))
    assert check.shape == top.shape  # outlines drawn over the markers: not re-detectable


def test_committed_pictures_are_readable_markers():
    folder = HARDWARE / "images"
    for name in ("marker_sheet.png", "table_marked.png"):
        image = cv2.imread(str(folder / name))
        assert image is not None, name
        assert set(detect_markers(image)) == ALL_IDS, name
    assert cv2.imread(str(folder / "live_view_check.png")) is not None


def test_the_live_view_check_refuses_a_covered_marker():
    top, up_card = images.draw_table()
    view, moved = images.camera_view(top, up_card)
    corners = detect_markers(view)[2]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 10
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 10
    view[y0:y1, x0:x1] = images.FELT_BGR  # a hand over the bottom-right marker
    with pytest.raises(SystemExit, match=r"markers \[2\] not found"):
        images.annotate(view, top, moved)


def test_the_live_view_check_refuses_a_slot_that_misses_the_up_card():
    top, up_card = images.draw_table()
    view, _ = images.camera_view(top, up_card)
    with pytest.raises(SystemExit, match="misses the up card"):
        images.annotate(view, top, (5.0, 5.0))
