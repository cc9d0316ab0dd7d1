"""YOLO label files read as pixel boxes and written back."""

from __future__ import annotations

import pytest

from vision.training.yolo_labels import LabelBox, label_text, read_label_boxes


def test_label_lines_come_back_as_pixel_boxes_and_malformed_lines_are_skipped(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("3 0.5 0.25 0.2 0.1\n\nnot a label\n7 0.1 0.1 0.1\n")
    assert read_label_boxes(path, 200, 100) == [LabelBox(3, (80.0, 20.0, 120.0, 30.0))]
    assert read_label_boxes(tmp_path / "missing.txt", 200, 100) == []


def test_written_labels_read_back_the_same_boxes(tmp_path):
    boxes = [LabelBox(0, (10.0, 20.0, 40.0, 80.0)), LabelBox(51, (0.0, 0.0, 1138.0, 640.0))]
    path = tmp_path / "b.txt"
    path.write_text(label_text(boxes, 1138, 640))
    for got, want in zip(read_label_boxes(path, 1138, 640), boxes, strict=True):
        assert got.class_id == want.class_id
        assert got.box == pytest.approx(want.box, abs=1e-3)
