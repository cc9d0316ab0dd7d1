"""`gintray detect` / `gintray eval-detector`: JSON output, bad images, missing models."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from detector_helpers import DEV, REPO, dev_or_skip, model_or_skip

from vision.inference.detector import DetectorUnavailable, load_detector


def test_import_does_not_pull_in_torch():
    code = (
        "import sys, vision.inference.detector, vision.cli; "
        "print('torch' in sys.modules, 'ultralytics' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_missing_weights_raise_detector_unavailable(tmp_path):
    with pytest.raises(DetectorUnavailable):
        load_detector("onnx", weights=tmp_path / "nope.onnx")
    with pytest.raises(ValueError):
        load_detector("tensorflow")


def test_detect_cli_reports_missing_model_clearly(tmp_path, capsys):
    from vision.cli import detect_main

    assert detect_main([str(tmp_path / "x.jpg"), "--weights", str(tmp_path / "none.onnx")]) == 2
    assert "model file missing" in capsys.readouterr().err


def test_detect_json_one_line_per_image_and_bad_images_do_not_stop_the_rest(tmp_path, capsys):
    model_or_skip()
    dev_or_skip()
    from vision.cli import detect_main

    good = sorted((DEV / "images").glob("*.jpg"))[0]
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8 this is not a jpeg")
    missing = tmp_path / "missing.jpg"
    status = detect_main([str(missing), str(corrupt), str(good), "--json"])
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert status == 1
    assert [rec["image"] for rec in lines] == [str(missing), str(corrupt), str(good)]
    assert "no such file" in lines[0]["error"]
    assert "corrupt" in lines[1]["error"]
    record = lines[2]
    assert record["detections"], "the dev photo has cards"
    for det in record["detections"]:
        assert set(det) - {"alternative"} == {"card", "box", "confidence"}
        assert det.get("alternative", "") != det["card"]
        x1, y1, x2, y2 = det["box"]
        assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 640
    assert record["cards"] == sorted({d["card"] for d in record["detections"]})
    assert "missing.jpg" in captured.err and "corrupt.jpg" in captured.err


def test_eval_detector_scores_a_labelled_folder(tmp_path, capsys):
    model_or_skip()
    dev_or_skip()
    from vision.cli import eval_main

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    for img in sorted((DEV / "images").glob("*.jpg"))[:2]:
        shutil.copy(img, tmp_path / "images")
        shutil.copy(DEV / "labels" / (img.stem + ".txt"), tmp_path / "labels")
    shutil.copy(DEV.parent / "data.yaml", tmp_path / "data.yaml")
    assert eval_main([str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["images"] == 2 and report["labelled_corners"] > 10
    assert 0.0 <= report["map50"] <= 1.0 and 0.0 <= report["card_f1"] <= 1.0
    assert isinstance(report["top_confusions"], list)


def test_eval_detector_rejects_a_folder_without_images(tmp_path, capsys):
    from vision.cli import eval_main

    assert eval_main([str(tmp_path)]) == 2
    assert "is not a folder" in capsys.readouterr().err
