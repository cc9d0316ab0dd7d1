"""When the namer is in doubt (a blurred club that may be a spade), the runner-up card travels
with the detection to the table reading, which asks people to check that card."""

from __future__ import annotations

import numpy as np

from scorer import parse_card
from vision.inference.corner_crops import NAMER_CLASSES
from vision.inference.detection import Detection
from vision.inference.detector import ALTERNATIVE_SHARE, CardDetector
from vision.inference.tiling import DetectorSettings
from vision.table.grouping import SeenCard
from vision.table.notes import NoteKind, Problem
from vision.table.reader import read_detections
from vision.table.voting import RegionVoter


class TwoCorners:
    def find(self, image):
        boxes = np.array([[10, 10, 30, 60], [200, 100, 220, 150]], np.float32)
        return boxes, np.array([0.9, 0.9], np.float32)


class FixedNamer:
    """Reads the first corner as 7S (7C a close second), the second as a sure 5H."""

    crop_size = 48

    def crop(self, image, box):
        return np.zeros((48, 48, 3), np.uint8)

    def probabilities(self, patches, turns=4):
        out = np.zeros((2, len(NAMER_CLASSES)), np.float32)
        out[0, NAMER_CLASSES.index("7S")] = 0.62
        out[0, NAMER_CLASSES.index("7C")] = 0.35
        out[1, NAMER_CLASSES.index("5H")] = 0.97
        out[1, NAMER_CLASSES.index("5D")] = 0.97 * ALTERNATIVE_SHARE * 0.5
        out[:, -1] = 1 - out.sum(axis=1)
        return out


def test_a_close_runner_up_is_reported_as_the_alternative_and_a_far_one_is_not():
    frame = np.zeros((240, 320, 3), np.uint8)
    detector = CardDetector(TwoCorners(), FixedNamer(), pair_vote=False)
    found = {d.card: d for d in detector.detect(frame)}
    assert found["7S"].alternative == "7C"
    assert found["7S"].to_json()["alternative"] == "7C"
    assert found["5H"].alternative is None
    assert "alternative" not in found["5H"].to_json()


def test_the_table_reading_asks_to_check_a_doubtful_card():
    detections = [
        Detection("7S", (10, 10, 30, 60), 0.8, alternative="7C"),
        Detection("7S", (60, 110, 80, 160), 0.7),  # its other corner, sure of itself
        Detection("5H", (200, 100, 220, 150), 0.9),
    ]
    read = read_detections(detections)
    doubts = [p for p in read.problems if p.kind is NoteKind.DOUBTFUL_CARD]
    assert doubts == [Problem(NoteKind.DOUBTFUL_CARD, player="table", cards=(parse_card("7S"),),
                              alternative=parse_card("7C"))]
    assert {c.card: c.alternative for c in read.cards} == {"7S": "7C", "5H": None}


def test_the_vote_keeps_an_alternative_seen_in_at_least_half_the_frames():
    def frame(alternative):
        return [SeenCard("7S", ((10, 10, 30, 60),), 0.8, (20.0, 35.0), alternative)]

    steady = RegionVoter(window=4)
    for alternative in ("7C", None, "7C", None):
        result = steady.add(frame(alternative))
    assert [c.alternative for c in result.cards] == ["7C"]

    passing = RegionVoter(window=4)
    for alternative in ("7C", None, None, None):
        result = passing.add(frame(alternative))
    assert [c.alternative for c in result.cards] == [None]


def test_tiling_keeps_the_alternative():
    detector = CardDetector(TwoCorners(), FixedNamer(), pair_vote=False)
    tiled = detector.with_settings(DetectorSettings(tile=400, enlarge=2.0))
    found = {d.card: d for d in tiled.detect(np.zeros((240, 320, 3), np.uint8))}
    assert found["7S"].alternative == "7C"
    assert found["5H"].alternative is None


def test_a_corner_reads_a_card_only_when_its_box_is_there_and_a_card_beats_no_corner():
    from vision.inference.detector import read_corner

    probs = np.zeros(len(NAMER_CLASSES), np.float32)
    probs[NAMER_CLASSES.index("7S")], probs[-1] = 0.7, 0.3
    reading = read_corner((10, 10, 30, 60), 0.5, probs)
    assert NAMER_CLASSES[reading.card_index] == "7S"
    assert abs(reading.confidence - 0.35) < 1e-6
    assert read_corner((30, 10, 30, 60), 0.9, probs) is None  # clipped away at the edge
    probs[-1] = 0.8  # more likely not a corner at all
    assert read_corner((10, 10, 30, 60), 0.9, probs) is None
    sure = np.zeros(len(NAMER_CLASSES), np.float32)
    sure[0] = 1.0
    assert read_corner((0, 0, 5, 5), 1.0000001, sure).confidence == 1.0  # never above 1
