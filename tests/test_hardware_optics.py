"""The mount maths: coverage, pixels per mm and corner size against hand-computed cases."""

from __future__ import annotations

import math

import pytest
from hardware_helpers import load_script

optics = load_script("mount/optics.py", "gintray_hw_optics")


def cam(hfov: float, vfov: float, w: int = 2000, h: int = 1000) -> optics.CameraMode:
    return optics.CameraMode("test", hfov, vfov, w, h, "test")


def test_ninety_degree_lens_sees_twice_its_height():
    assert optics.ground_coverage_mm(90, 500) == pytest.approx(1000)
    assert optics.ground_coverage_mm(60, 1000) == pytest.approx(2 * 1000 / math.sqrt(3))


def test_pixels_per_mm_and_corner_width_at_known_height():
    c = cam(90, 90)  # 2000 px over 1000 mm at 500 mm high
    assert optics.px_per_mm(c, 500) == pytest.approx(2.0)
    assert optics.corner_px(c, 500, corner_mm=6.5) == pytest.approx(13.0)
    # shrinking the whole 2000-px frame to one 640 input divides by 3.125
    assert optics.corner_px(c, 500, corner_mm=6.5, tiled=False) == pytest.approx(13.0 * 640 / 2000)


def test_max_height_is_where_the_corner_shrinks_to_the_minimum():
    c = optics.CAMERAS[0]
    for tiled in (True, False):
        h = optics.max_height_mm(c, corner_mm=6.5, min_px=20, tiled=tiled)
        assert optics.corner_px(c, h, corner_mm=6.5, tiled=tiled) == pytest.approx(20)
        assert optics.corner_px(c, h * 1.01, corner_mm=6.5, tiled=tiled) < 20


def test_min_height_is_set_by_the_tighter_axis():
    c = cam(90, 90)
    assert optics.min_height_mm(c, 600, 400) == pytest.approx(300)  # width binds
    assert optics.min_height_mm(c, 400, 600) == pytest.approx(300)  # depth binds
    c16x9 = cam(66, 41)
    expected = 400 / (2 * math.tan(math.radians(20.5)))
    assert optics.min_height_mm(c16x9, 600, 400) == pytest.approx(expected)


def test_diagonal_fov_splits_by_aspect_ratio():
    h, v = optics.fov_from_diagonal(78, 16, 9)
    assert (round(h, 1), round(v, 1)) == (70.4, 43.3)
    # tan(d/2)^2 = tan(h/2)^2 + tan(v/2)^2 for a rectilinear lens
    t = lambda deg: math.tan(math.radians(deg) / 2)  # noqa: E731
    assert t(h) ** 2 + t(v) ** 2 == pytest.approx(t(78) ** 2)
    square_h, square_v = optics.fov_from_diagonal(90, 1, 1)
    expected = 2 * math.degrees(math.atan(1 / math.sqrt(2)))
    assert square_h == pytest.approx(expected)
    assert square_v == pytest.approx(expected)


def test_minimum_resolution_across_the_play_area():
    # 20 px over a 6.5 mm index: 3.08 px/mm, so a 600 mm area needs 1846 px whatever the lens
    assert optics.min_px_across(600, corner_mm=6.5, min_px=20) == pytest.approx(1846.15, abs=0.01)


def test_1080p_webcam_cannot_cover_600x400_but_camera_module_3_can():
    webcam = next(c for c in optics.CAMERAS if "webcam" in c.name)
    cm3_full = next(c for c in optics.CAMERAS if c.name.startswith("Pi Camera Module 3, 4608"))
    assert not optics.plan(webcam, 600, 400).feasible
    p = optics.plan(cm3_full, 600, 400)
    assert p.feasible and p.corner_px >= 20
    assert p.h_min <= p.height <= p.h_max
    # the frame is resized so corners are about 22 px before tiling, never below 20
    assert optics.corner_px(cm3_full, p.height) * p.work_scale == pytest.approx(22)


def test_tile_count_covers_the_area():
    c = cam(90, 90)  # 2 px/mm at 500 mm
    # tiles of 640 with 64 overlap start every 576 px: 2 reach 1216 px, 3 reach 1792 px
    assert optics.tiles(c, 500, 600, 400) == 2 * 2  # 1200 x 800 px
    assert optics.tiles(c, 500, 700, 400) == 3 * 2  # 1400 x 800 px
    assert optics.tiles(c, 500, 600, 400, scale=0.5) == 1 * 1
    with pytest.raises(ValueError):
        optics.tiles(c, 500, 600, 400, scale=0)


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        cam(0, 40)
    with pytest.raises(ValueError):
        optics.ground_coverage_mm(66, -1)
    with pytest.raises(ValueError):
        optics.min_height_mm(cam(66, 41), 0, 400)
    with pytest.raises(ValueError):
        optics.fov_from_diagonal(180, 16, 9)


def test_cli_prints_the_table_and_rejects_a_bad_area(capsys):
    assert optics.main(["--area", "600", "400"]) == 0
    out = capsys.readouterr().out
    assert "1846 px across" in out and "Camera Module 3 Wide" in out
    assert optics.main(["--area", "0", "400"]) == 2
    assert "positive" in capsys.readouterr().err
