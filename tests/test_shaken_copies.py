"""Shaken and defocused copies of real training photos for the corner finder (issue 13)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.training.shaken_copies import write_shaken_folder


def _photo_folder(root, n: int = 6):
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rng = np.random.default_rng(0)
    for i in range(n):
        image = np.full((120, 160, 3), 200, np.uint8)
        cv2.putText(image, "7", (40, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 0, 0), 3)
        image[rng.integers(0, 120, 50), rng.integers(0, 160, 50)] = 0
        cv2.imwrite(str(root / "images" / f"p{i}.jpg"), image)
        (root / "labels" / f"p{i}.txt").write_text("0 0.35 0.5 0.2 0.4\n")
    return root


def test_every_photo_is_kept_and_a_share_gets_a_blurred_copy_with_the_same_labels(tmp_path):
    src = _photo_folder(tmp_path / "src")
    written = write_shaken_folder(src, tmp_path / "out", share=0.5, seed=3)
    names = sorted(p.stem for p in (tmp_path / "out" / "images").glob("*.jpg"))
    shaken = [n for n in names if n.endswith("_shaken")]
    assert len(names) == 6 + written and len(shaken) == written and 0 < written < 6
    for name in shaken:
        original = name.removesuffix("_shaken")
        assert (tmp_path / "out/labels" / f"{name}.txt").read_text() == (
            src / "labels" / f"{original}.txt").read_text()
        sharp = cv2.imread(str(src / "images" / f"{original}.jpg")).astype(float)
        blurred = cv2.imread(str(tmp_path / "out/images" / f"{name}.jpg")).astype(float)
        assert cv2.Laplacian(blurred, cv2.CV_64F).var() < 0.5 * cv2.Laplacian(
            sharp, cv2.CV_64F).var()


def test_the_same_seed_writes_the_same_folder(tmp_path):
    src = _photo_folder(tmp_path / "src")
    write_shaken_folder(src, tmp_path / "a", seed=1)
    write_shaken_folder(src, tmp_path / "b", seed=1)
    a = {p.name: p.read_bytes() for p in (tmp_path / "a/images").iterdir()}
    b = {p.name: p.read_bytes() for p in (tmp_path / "b/images").iterdir()}
    assert a == b
