"""hardware/calibrate.py: layout from the printed markers, scale check, clear refusals."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hardware_helpers import load_script

from vision.table.layout import UP_CARD, load_layout
from vision.table.markers import detect_markers

images = load_script("make_calibration_images.py", "gintray_hw_calibration_images2")
calibrate = load_script("calibrate.py", "gintray_hw_calibrate")


@pytest.fixture(scope="module")
def sharp_view(tmp_path_factory):
    """A bumped camera's view of a marked table at 3.5 px/mm (corners about 23 px)."""
    top, up_card = images.draw_table(px_per_mm=3.5)
    view, moved = images.camera_view(top, up_card)
    folder = tmp_path_factory.mktemp("sharp")
    path = folder / "table.png"
    cv2.imwrite(str(path), view)
    return path, view, moved


def test_calibrates_from_a_photo_and_the_layout_finds_the_up_card(sharp_view, tmp_path, capsys):
    path, _, up_card = sharp_view
    out, check = tmp_path / "layout.json", tmp_path / "check.png"
    assert calibrate.main(["--image", str(path), "--out", str(out), "--check", str(check)]) == 0
    printed = capsys.readouterr().out
    assert "(ok)" in printed and "layout saved" in printed
    layout = load_layout(out)
    assert layout.region_of(up_card) == UP_CARD
    assert set(layout.markers) == {0, 1, 2, 3, 4, 5}
    assert cv2.imread(str(check)).shape == cv2.imread(str(path)).shape


def test_a_mirrored_camera_picture_is_calibrated_flipped_back(sharp_view, tmp_path, capsys):
    """A camera set to flip its picture: the printed markers read backwards, so the picture
    is calibrated as its mirror image and the layout tells the table camera to flip frames."""
    path, view, up_card = sharp_view
    mirrored_path, out = tmp_path / "mirrored.png", tmp_path / "layout.json"
    cv2.imwrite(str(mirrored_path), cv2.flip(view, 1))
    assert calibrate.check_image(cv2.flip(view, 1)).missing  # as it is, no marker reads
    assert calibrate.main(["--image", str(mirrored_path), "--out", str(out)]) == 0
    assert "the camera's picture is a mirror image" in capsys.readouterr().out
    layout = load_layout(out)
    assert layout.mirrored and layout.region_of(up_card) == UP_CARD  # in flipped-back pixels
    assert calibrate.main(["--image", str(path), "--out", str(out)]) == 0
    assert not load_layout(out).mirrored


def test_scale_is_measured_from_the_markers(sharp_view):
    _, view, _ = sharp_view
    result = calibrate.check_image(view)
    assert result.missing == []
    # the tilted view shrinks the table a little; 3.5 px/mm on the table before the warp
    assert result.px_per_mm == pytest.approx(3.5, rel=0.1)
    assert result.corner_px == pytest.approx(result.px_per_mm * 6.5)


def test_camera_source_is_read_through_the_reader_camera(sharp_view, tmp_path):
    path, _, _ = sharp_view
    out = tmp_path / "layout.json"
    assert calibrate.main(["--camera", f"replay:{path.parent}", "--out", str(out)]) == 0
    assert out.is_file()


def test_too_coarse_a_picture_is_refused(tmp_path, capsys):
    top, up_card = images.draw_table()  # 1.5 px/mm: corners about 10 px
    view, _ = images.camera_view(top, up_card)
    path, out = tmp_path / "coarse.png", tmp_path / "layout.json"
    cv2.imwrite(str(path), view)
    assert calibrate.main(["--image", str(path), "--out", str(out)]) == 1
    assert "too small" in capsys.readouterr().out
    assert not out.exists()


def test_a_covered_marker_is_named_and_nothing_is_saved(sharp_view, tmp_path, capsys):
    _, view, _ = sharp_view
    view = view.copy()
    corners = detect_markers(view)[4]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 20
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 20
    view[y0:y1, x0:x1] = (40, 40, 40)  # a hand over the tray's left marker
    path, out = tmp_path / "covered.png", tmp_path / "layout.json"
    cv2.imwrite(str(path), view)
    assert calibrate.main(["--image", str(path), "--out", str(out), "--check",
                           str(tmp_path / "c.png")]) == 1
    assert "marker 4 (tray, left of the up-card slot) not found" in capsys.readouterr().out
    assert not out.exists() and (tmp_path / "c.png").is_file()


def test_bad_inputs_get_status_2(tmp_path, capsys):
    assert calibrate.main(["--image", str(tmp_path / "missing.jpg")]) == 2
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8 not a jpeg")
    assert calibrate.main(["--image", str(corrupt)]) == 2
    assert calibrate.main(["--camera", "bogus:source"]) == 2
    assert "not a readable image" in capsys.readouterr().err
