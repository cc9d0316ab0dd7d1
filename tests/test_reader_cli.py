"""`gintray read`: JSON output, layout errors, bad images, scoring against labels, marker sheet."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from reader_helpers import REAL_DEV, real_detections, real_stems, table_layout

import vision.inference.detector
from vision.read_cli import read_main
from vision.table.layout import save_layout


class LabelDetector:
    """Returns the labelled corners of the real frame whose pixels it is shown."""

    stem: str | None = None

    def detect(self, image):
        return real_detections(self.stem)


@pytest.fixture
def label_detector(monkeypatch):
    detector = LabelDetector()
    monkeypatch.setattr(vision.inference.detector, "load_detector", lambda *a, **k: detector)
    return detector


def test_read_prints_every_card_as_json_and_scores_against_labels(label_detector, capsys):
    stem = real_stems()[0]
    label_detector.stem = stem
    image = REAL_DEV / "images" / f"{stem}.jpg"
    status = read_main([str(image), "--json", "--labels", str(REAL_DEV / "labels")])
    lines = capsys.readouterr().out.strip().splitlines()
    assert status == 0
    read = json.loads(lines[0])
    assert read["up_card"] is None and list(read["spreads"]) == ["table"]
    cards = {c["card"] for c in read["cards"]}
    assert cards == {"7C", "JD", "QD", "KC", "TC", "AC", "2C", "JC", "QC"}
    summary = json.loads(lines[1])
    assert summary["card_precision"] == 1.0 and summary["card_recall"] == 1.0
    assert summary["exact_frames"] == 1


def test_read_with_a_layout_reports_the_up_card_and_each_area(tmp_path, label_detector, capsys):
    from reader_helpers import knocker_spread, up_card_in_tray

    label_detector.stem = None
    label_detector.detect = lambda image: up_card_in_tray("7D") + knocker_spread()
    save_layout(table_layout(), tmp_path / "layout.json")
    cv2.imwrite(str(tmp_path / "table.png"), np.zeros((900, 1280, 3), np.uint8))
    status = read_main([str(tmp_path / "table.png"), "--layout", str(tmp_path / "layout.json"),
                        "--json"])
    read = json.loads(capsys.readouterr().out)
    assert status == 0
    assert read["up_card"] == "7D"
    assert read["spreads"]["A"]["groups"] == [["5H", "6H", "7H", "8H"], ["9C", "9D", "9S"]]
    assert read["spreads"]["B"]["groups"] == []


def test_missing_and_corrupt_images_are_errors_for_that_image_only(tmp_path, label_detector,
                                                                   capsys):
    label_detector.stem = real_stems()[0]
    (tmp_path / "broken.jpg").write_bytes(b"not a jpeg")
    good = REAL_DEV / "images" / f"{label_detector.stem}.jpg"
    status = read_main([str(tmp_path / "missing.jpg"), str(tmp_path / "broken.jpg"), str(good),
                        "--json"])
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert status == 1
    assert lines[0]["error"]["message"] == "no such file"
    assert lines[1]["error"]["message"] == "not a readable image"
    assert len(lines[2]["cards"]) == 9


def test_bad_layout_file_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "layout.json").write_text("{")
    assert read_main(["x.jpg", "--layout", str(tmp_path / "layout.json")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_marker_sheet_is_written(tmp_path):
    assert read_main(["--marker-sheet", str(tmp_path / "markers.png")]) == 0
    assert cv2.imread(str(tmp_path / "markers.png")) is not None
