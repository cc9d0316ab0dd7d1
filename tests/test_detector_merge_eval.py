"""Corner merging, duplicate reporting and the evaluation metrics (no model needed)."""

from __future__ import annotations

import pytest

from scorer import parse_card
from vision.inference.detection import Detection
from vision.table.grouping import cards_from_detections, seen_twice
from vision.table.notes import NoteKind, Problem
from vision.training.evaluate import ImageTruth, average_precision, card_scores, map50


def corner(card: str, x: float, y: float, size: float = 20, conf: float = 0.9) -> Detection:
    return Detection(card, (x, y, x + size * 0.6, y + size), conf)


def test_two_corners_of_one_card_merge_into_one_card():
    cards, problems = cards_from_detections(
        [corner("7D", 100, 100), corner("7D", 160, 200, conf=0.8)]  # 7.5 index sizes apart
    )
    assert len(cards) == 1
    assert cards[0].card == "7D" and len(cards[0].boxes) == 2
    assert cards[0].confidence == pytest.approx(0.9)
    assert seen_twice(cards) == [] and problems == []


def test_same_card_far_apart_is_reported_as_seen_twice():
    cards, problems = cards_from_detections([corner("7D", 10, 10), corner("7D", 1500, 900)])
    assert len(cards) == 2
    assert seen_twice(cards) == ["7D"]
    assert problems == [Problem(NoteKind.DUPLICATE_CARD, cards=(parse_card("7D"),), count=2)]


def test_different_cards_side_by_side_stay_apart():
    cards, _ = cards_from_detections([corner("6S", 100, 100), corner("9S", 110, 100)])
    assert sorted(c.card for c in cards) == ["6S", "9S"]


def test_average_precision_perfect_and_with_a_false_positive_first():
    assert average_precision([(0.9, True), (0.8, True)], 2) == pytest.approx(1.0)
    worse = average_precision([(0.95, False), (0.9, True), (0.8, True)], 2)
    assert 0.5 < worse < 1.0
    assert average_precision([], 3) == 0.0


def test_map50_and_card_scores_count_a_misread_as_a_confusion():
    truth = ImageTruth("x.jpg", [("6S", (0, 0, 10, 20)), ("KD", (50, 50, 60, 70))])
    preds = [
        Detection("9S", (0, 0, 10, 20), 0.9),  # 6S read upside down as 9S
        Detection("KD", (50, 50, 60, 70), 0.8),
    ]
    assert map50([(truth, preds)]) == pytest.approx(0.5)
    assert map50([(truth, preds)], agnostic=True) == pytest.approx(1.0)
    scores = card_scores([(truth, preds)], threshold=0.25)
    assert scores["card_precision"] == 0.5 and scores["card_recall"] == 0.5
    assert scores["top_confusions"] == [{"labelled": "6S", "read_as": "9S", "count": 1}]


def test_card_scores_count_misreads_that_offer_the_right_card():
    truth = ImageTruth(
        "x.jpg", [("7C", (0, 0, 10, 20)), ("8C", (30, 0, 40, 20)), ("KD", (50, 50, 60, 70))]
    )
    preds = [
        Detection("7S", (0, 0, 10, 20), 0.9, alternative="7C"),  # misread, right card offered
        Detection("8S", (30, 0, 40, 20), 0.9, alternative="9S"),  # misread, wrong offer
        Detection("KD", (50, 50, 60, 70), 0.8, alternative="KH"),  # right, asked for nothing
    ]
    alternatives = card_scores([(truth, preds)], threshold=0.25)["alternatives"]
    assert alternatives == {
        "misread": 2,
        "misread_offering_the_card": 1,
        "right": 1,
        "right_offering_another": 1,
    }


def test_namer_alone_on_labelled_boxes_counts_which_suit_is_read_as_which(tmp_path):
    """A namer that calls every black card a spade: clubs show up as read as spades."""
    import cv2
    import numpy as np

    from vision.inference.corner_crops import NAMER_CLASSES
    from vision.training.evaluate import namer_on_labelled_boxes

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((100, 100, 3), 200, np.uint8))
    # data.yaml-less folder: class ids follow the shared real-cards naming (see CLASS_NAMES)
    from vision.training.synth.scene import CLASS_NAMES

    ids = {name: i for i, name in enumerate(CLASS_NAMES)}
    lines = [f"{ids[n]} 0.3 0.3 0.1 0.1" for n in ("7C", "7S", "10C")]
    (tmp_path / "labels" / "a.txt").write_text("\n".join(lines) + "\n")

    class SpadesOnly:
        crop_size = 48  # the side of the crops it reads

        def probabilities(self, patches, turns):
            out = np.zeros((len(patches), len(NAMER_CLASSES)), np.float32)
            out[:, NAMER_CLASSES.index("7S")] = 1.0
            return out

    report = namer_on_labelled_boxes(tmp_path, SpadesOnly())
    assert report["boxes"] == 3
    assert report["card_accuracy"] == pytest.approx(1 / 3, abs=1e-3)
    assert report["rank_accuracy"] == pytest.approx(2 / 3, abs=1e-3)
    assert report["suits_read_as"]["C"] == {"S": 2}
    assert report["suits_read_as"]["S"] == {"S": 1}


def _fixes_csv(tmp_path, rows: str):
    path = tmp_path / "fixes.csv"
    path.write_text("image,box,labelled,corrected,why\n" + rows)
    return path


def test_a_label_fix_corrects_the_named_box_and_scores_change_accordingly(tmp_path):
    from vision.training.evaluate import apply_label_fixes, load_label_fixes

    truth = ImageTruth(tmp_path / "a.jpg", [("4S", (0, 0, 10, 20)), ("4S", (50, 50, 60, 70))])
    read = [Detection("3S", (0, 0, 10, 20), 0.9), Detection("3S", (50, 50, 60, 70), 0.9)]
    assert card_scores([(truth, read)], 0.25)["card_f1"] == 0.0
    fixes = load_label_fixes(_fixes_csv(tmp_path, 'a.jpg,0,4S,3S,"reads 3"\nb.jpg,0,4C,3C,x\n'))
    assert apply_label_fixes(truth, fixes) == 1
    assert truth.boxes == [("3S", (0, 0, 10, 20)), ("4S", (50, 50, 60, 70))]
    assert card_scores([(truth, read)], 0.25)["card_precision"] == 1.0


def test_a_fix_that_no_longer_matches_the_labels_is_refused(tmp_path):
    from vision.training.evaluate import apply_label_fixes, load_label_fixes

    truth = ImageTruth(tmp_path / "a.jpg", [("4S", (0, 0, 10, 20))])
    for row in ("a.jpg,0,4C,3C,x\n", "a.jpg,3,4S,3S,x\n"):
        with pytest.raises(ValueError, match=r"label fix for a\.jpg"):
            apply_label_fixes(truth, load_label_fixes(_fixes_csv(tmp_path, row)))
    assert truth.boxes == [("4S", (0, 0, 10, 20))]


def test_eval_detector_says_clearly_when_the_fixes_file_is_unreadable(tmp_path, capsys):
    from vision.training.evaluate import main

    (tmp_path / "images").mkdir()
    bad = tmp_path / "fixes.csv"
    bad.write_text("picture,where\nx,1\n")
    assert main([str(tmp_path), "--label-fixes", str(bad)]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main([str(tmp_path), "--label-fixes", str(tmp_path / "missing.csv")]) == 2
