"""Issue 26 (at the table): the camera picture's labels overlapped and could not be read on a
phone ("7S 0.93" on both corners of every card). Each card is labelled once, by its code (a "?"
when the detector doubted it), in letters that stay readable at a phone's width."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.demo import verify
from vision.inference.detection import Detection, Detections
from vision.table.picture import FONT_HEIGHT, card_labels, draw_detections, label_scale

DEMO = Path(__file__).resolve().parents[1] / "vision" / "demo"


def test_each_card_is_labelled_once_by_its_surest_corner():
    found = Detections([Detection("7S", (10, 10, 30, 60), 0.71),
                        Detection("7S", (60, 110, 80, 160), 0.93),
                        Detection("5H", (200, 100, 220, 150), 0.88, alternative="5D")])
    assert card_labels(found) == [(1, "7S"), (2, "5H?")]


def test_labels_stay_readable_on_a_phone_whatever_the_camera_size():
    for width in (640, 960, 1280, 1920, 4056):
        on_phone = FONT_HEIGHT * label_scale(width) * 360 / width  # CSS px of a letter
        assert on_phone >= 10, (width, on_phone)


def test_the_demo_picture_is_labelled_once_a_card(tmp_path):
    """Frame 30 of the demo (a spread): every card read is boxed, the labels are one a card;
    the picture as a 360 px phone shows it is kept for a look."""
    truth = json.loads((DEMO / "ground_truth.json").read_text())
    frame = next(f for f in truth["frames"] if f["frame"] == "frame_030.jpg")
    image = cv2.imread(str(DEMO / "hand" / frame["frame"]))
    found = verify.TruthDetector([frame]).detect(image)
    assert len(found) > len(set(found.cards))  # both corners of some cards are seen
    drawn = draw_detections(image, found)
    assert drawn.shape == image.shape and not np.array_equal(drawn, image)
    assert len(card_labels(found)) == len(set(found.cards))
    phone = cv2.resize(drawn, (360, round(360 * image.shape[0] / image.shape[1])),
                       interpolation=cv2.INTER_AREA)
    assert cv2.imwrite(str(tmp_path / "picture-on-a-phone.png"), phone)
