"""Real training photos brought back to their true 16:9 aspect for the corner finder (issue 13)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.training.true_aspect_copies import write_true_aspect_folder
from vision.training.yolo_labels import read_label_boxes

SIDE = 90


def _stretched_photo_folder(root):
    """One square photo (a 16:9 frame squeezed to a square) with a red box-shaped index and a
    label line on it, plus one unlabelled photo."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    image = np.full((SIDE, SIDE, 3), 230, np.uint8)
    image[18:45, 9:27] = (0, 0, 255)  # x 9-27, y 18-45: the labelled index
    cv2.imwrite(str(root / "images" / "a.jpg"), image)
    (root / "labels" / "a.txt").write_text(f"7 {18 / SIDE} {31.5 / SIDE} {18 / SIDE} {27 / SIDE}\n")
    cv2.imwrite(str(root / "images" / "b.jpg"), image)  # no label file: not copied widened
    return root


def _red_share(image, box) -> float:
    x1, y1, x2, y2 = (round(float(v)) for v in box)
    patch = image[y1 + 2:y2 - 2, x1 + 2:x2 - 2].astype(int)
    return float(np.mean((patch[..., 2] > 150) & (patch[..., 1] < 100)))


def test_each_labelled_photo_comes_back_wide_at_its_turns_with_its_index_still_boxed(tmp_path):
    src = _stretched_photo_folder(tmp_path / "src")
    written = write_true_aspect_folder(src, tmp_path / "out", turns=4, seed=0)
    assert written == 4
    wide = round(SIDE * 16 / 9)
    for q in range(4):
        name = f"a_wide{q}"
        photo = cv2.imread(str(tmp_path / "out/images" / f"{name}.jpg"))
        assert photo.shape[:2] == ((SIDE, wide) if q % 2 == 0 else (wide, SIDE))
        labels = read_label_boxes(tmp_path / "out/labels" / f"{name}.txt",
                                  photo.shape[1], photo.shape[0])
        assert [b.class_id for b in labels] == [7]
        x1, y1, x2, y2 = labels[0].box
        assert _red_share(photo, labels[0].box) > 0.95  # the box still sits on the index
        w, h = x2 - x1, y2 - y1
        index_w, index_h = (18 * 16 / 9, 27) if q % 2 == 0 else (27, 18 * 16 / 9)
        assert w == pytest.approx(index_w, abs=1) and h == pytest.approx(index_h, abs=1)


def test_the_included_folder_is_kept_as_it_is_and_two_turns_are_drawn_per_photo(tmp_path):
    src = _stretched_photo_folder(tmp_path / "src")
    write_true_aspect_folder(src, tmp_path / "a", turns=2, seed=5, include=src)
    write_true_aspect_folder(src, tmp_path / "b", turns=2, seed=5)
    names = {p.name for p in (tmp_path / "a/images").iterdir()}
    widened = {p.name for p in (tmp_path / "b/images").iterdir()}
    assert len(widened) == 2 and names == {"a.jpg", "b.jpg"} | widened
    assert (tmp_path / "a/images/a.jpg").read_bytes() == (src / "images/a.jpg").read_bytes()


def test_turns_outside_one_to_four_are_refused(tmp_path):
    with pytest.raises(ValueError, match="turns"):
        write_true_aspect_folder(tmp_path, tmp_path / "out", turns=0)
