"""The demo footage as the real clips look (`vision.demo.real_camera`): a seeded copy with the
warm light, the smeared video colour, the shadow and the auto exposure they show, the demo's
own frames untouched."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.demo import real_camera
from vision.demo.verify import DEMO_DIR

FRAMES = ["frame_022.jpg", "frame_023.jpg", "frame_024.jpg"]  # the knocker's melds going down


@pytest.fixture(scope="module")
def small_demo(tmp_path_factory) -> Path:
    """A demo folder of three frames (the real one's files, its ground truth cut to them)."""
    root = tmp_path_factory.mktemp("demo")
    (root / "hand").mkdir()
    truth = json.loads((DEMO_DIR / "ground_truth.json").read_text())
    truth["frames"] = [f for f in truth["frames"] if f["frame"] in FRAMES]
    (root / "ground_truth.json").write_text(json.dumps(truth))
    for name in FRAMES:
        (root / "hand" / name).symlink_to(DEMO_DIR / "hand" / name)
    return root


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_the_copy_is_the_same_on_every_run_and_the_demo_is_untouched(small_demo, tmp_path):
    before = _digests(DEMO_DIR / "hand")
    real_camera.write_real_camera_footage(tmp_path / "a", seed=1, demo_dir=small_demo)
    real_camera.write_real_camera_footage(tmp_path / "b", seed=1, demo_dir=small_demo)
    real_camera.write_real_camera_footage(tmp_path / "c", seed=2, demo_dir=small_demo)
    assert _digests(tmp_path / "a") == _digests(tmp_path / "b")
    assert sorted(_digests(tmp_path / "a")) == FRAMES
    assert _digests(tmp_path / "a") != _digests(tmp_path / "c")
    assert _digests(DEMO_DIR / "hand") == before


def test_card_white_turns_warm_and_a_black_index_comes_out_red_brown(small_demo, tmp_path):
    """What the real card clip shows: the card's white warm (blue well under red), and a black
    index's darkest pixels no longer black but red-brown, where the clean demo has them grey."""
    real_camera.write_real_camera_footage(tmp_path, seed=1, demo_dir=small_demo)
    truth = json.loads((small_demo / "ground_truth.json").read_text())
    frame = next(f for f in truth["frames"] if f["frame"] == "frame_024.jpg")
    black = [d["box"] for d in frame["detections"] if d["card"][1] in "SC"]
    assert black
    clean = cv2.imread(str(DEMO_DIR / "hand" / "frame_024.jpg")).astype(float)
    look = cv2.imread(str(tmp_path / "frame_024.jpg")).astype(float)

    def darkest(image: np.ndarray, box: list[float]) -> np.ndarray:
        x1, y1, x2, y2 = (round(v) for v in box)
        pixels = image[y1:y2, x1:x2].reshape(-1, 3)
        return pixels[pixels.sum(1) <= np.percentile(pixels.sum(1), 20)].mean(0)

    def whites(image: np.ndarray) -> np.ndarray:
        return image[clean.min(axis=2) > 200].mean(0)  # where the clean demo is card white

    clean_white, look_white = whites(clean), whites(look)
    assert clean_white[0] / clean_white[2] > 0.95  # neutral
    assert look_white[0] / look_white[2] < 0.8  # warm: blue well under red
    for box in black:
        b, _, r = darkest(clean, box)
        assert abs(r - b) < 15
        b, _, r = darkest(look, box)
        assert r - b > 20


def test_auto_exposure_pulls_toward_the_first_frames_light_within_its_limit():
    gain = real_camera.exposure_gain(1.0, mean=120.0, target=100.0)  # the table got brighter
    assert 1.0 - real_camera.AE_LIMIT <= gain < 1.0
    darker = gain
    for _ in range(30):
        darker = real_camera.exposure_gain(darker, mean=240.0, target=100.0)
    assert darker == pytest.approx(1.0 - real_camera.AE_LIMIT)
    assert real_camera.exposure_gain(1.0, mean=100.0, target=100.0) == 1.0
