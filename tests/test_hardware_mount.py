"""The OpenSCAD mount: its optics agree with optics.py, and the tray renders to a solid STL."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hardware_helpers import HARDWARE, load_script

optics = load_script("mount/optics.py", "gintray_hw_optics_mount")
SCAD = HARDWARE / "mount" / "gintray_mount.scad"

pytestmark = pytest.mark.skipif(shutil.which("openscad") is None,
                                reason="apt-get install openscad")


def scad_echo(tmp_path: Path, **defines: object) -> str:
    out = tmp_path / "out.echo"
    args = ["openscad", "-o", str(out)]
    for key, value in {"part": "none", **defines}.items():
        if isinstance(value, bool):
            literal = str(value).lower()
        else:
            literal = f'"{value}"' if isinstance(value, str) else str(value)
        args += ["-D", f"{key}={literal}"]
    subprocess.run([*args, str(SCAD)], check=True, capture_output=True, timeout=60)
    return out.read_text()


def echoed(text: str, key: str) -> float:
    match = re.search(rf"\b{key}=([0-9.]+)", text)
    assert match, f"{key} not echoed in {text!r}"
    return float(match.group(1))


@pytest.mark.parametrize("camera, mode_prefix", [
    ("cm3", "Pi Camera Module 3, 4608"),
    ("cm3_wide", "Pi Camera Module 3 Wide, 4608"),
    ("webcam", "1080p USB webcam"),
])
def test_scad_heights_match_the_optics_module(tmp_path, camera, mode_prefix):
    text = scad_echo(tmp_path, camera=camera, area_width=500, area_depth=350)
    cam = next(c for c in optics.CAMERAS if c.name.startswith(mode_prefix))
    plan = optics.plan(cam, 500, 350)
    assert echoed(text, "h_min") == pytest.approx(plan.h_min, abs=1)
    assert echoed(text, "h_max") == pytest.approx(plan.h_max, abs=1)
    assert echoed(text, "height") == pytest.approx(plan.height, abs=1)
    assert echoed(text, "corner_px") == pytest.approx(plan.corner_px, abs=0.1)
    assert "WARNING" not in text


def test_scad_warns_when_the_webcam_cannot_serve_the_area(tmp_path):
    # optics: a 1080p webcam cannot both cover 600 x 400 mm and keep 20 px corners
    assert not optics.plan(next(c for c in optics.CAMERAS if "webcam" in c.name), 600, 400).feasible
    text = scad_echo(tmp_path, camera="webcam", area_width=600, area_depth=400)
    assert "camera too high" in text


def test_scad_cut_lengths_follow_the_camera_height(tmp_path):
    low = scad_echo(tmp_path, camera_height=500)
    high = scad_echo(tmp_path, camera_height=700)
    assert echoed(high, "pole") - echoed(low, "pole") == pytest.approx(200, abs=1)
    assert echoed(low, "arm") == echoed(high, "arm")


def test_tray_renders_as_a_closed_solid_of_the_requested_size(tmp_path):
    stl = tmp_path / "tray.stl"
    result = subprocess.run(
        ["openscad", "-D", 'part="tray"', "-D", "tray_width=260", "-D", "tray_depth=125",
         "-o", str(stl), str(SCAD)], capture_output=True, text=True, timeout=120, check=True)
    assert "Simple:        yes" in result.stderr  # CGAL: a valid 2-manifold
    xs, ys = [], []
    for line in stl.read_text().splitlines():
        parts = line.split()
        if parts[:1] == ["vertex"]:
            xs.append(float(parts[1]))
            ys.append(float(parts[2]))
    assert max(xs) - min(xs) == pytest.approx(260, abs=0.01)
    assert max(ys) - min(ys) == pytest.approx(125, abs=0.01)


def test_tray_grows_to_fit_its_slot_and_marker_pockets(tmp_path):
    # marker 40 mm + quiet zone (4/3) = 53.3 mm pockets, card slot 66.5 mm, 6 mm rims
    assert echoed(scad_echo(tmp_path, tray_width=100), "tray") == pytest.approx(189, abs=1)
    assert echoed(scad_echo(tmp_path, tray_width=100, marker_mm=30), "tray") == pytest.approx(
        162, abs=1)
    assert echoed(scad_echo(tmp_path, tray_width=300), "tray") == 300
