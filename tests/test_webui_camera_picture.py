"""The camera picture and the demo's label-driven detector behind the real camera path
(issue 16 bugs: the picture outlined one tile's boxes, shifted; TruthDetector ran out of frames
under the reader's tiles, which broke the screenshot fallback)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from webui_helpers import make_app

import webui.table.camera_feed
from webui.table.camera_feed import TableCamera

DEMO = Path(__file__).resolve().parents[1] / "vision" / "demo"


def _replay(tmp_path: Path, names: list[str], detector, monkeypatch) -> tuple[list, object]:
    """Run the camera feed over some demo frames with the bundled (tiling) layout; returns the
    detections drawn on each published picture and the app."""
    frames = tmp_path / "hand"
    frames.mkdir()
    for name in names:
        shutil.copy(DEMO / "hand" / name, frames / name)
    shutil.copy(DEMO / "layout.json", tmp_path / "layout.json")
    drawn: list[list] = []
    real_draw = webui.table.camera_feed.draw_detections

    def recording_draw(image, detections):
        drawn.append(list(detections))
        return real_draw(image, detections)

    monkeypatch.setattr(webui.table.camera_feed, "draw_detections", recording_draw)
    app = make_app(tmp_path / "data")
    feed = TableCamera(app.extensions["gintray"].store, 1, f"replay:{frames}?fps=0", tmp_path,
                       app.extensions["gintray"].notifier.publish, detector=detector)
    feed.start()
    feed.thread.join(timeout=180)
    assert feed.status()["state"] == "finished"
    return drawn, app


def test_the_camera_picture_outlines_every_card_the_reader_used_in_frame_pixels(
        tmp_path, monkeypatch):
    """Demo frame 30 with the shipped detector: the picture shows the boxes the reader read
    (tiles merged, in frame pixels), on both halves of the 960 px frame, not one tile's."""
    from vision.inference.detector import load_detector
    from vision.inference.tiling import configured
    from vision.table.layout import load_layout
    from vision.table.reader import TableReader

    detector = load_detector()
    drawn, _ = _replay(tmp_path, ["frame_030.jpg"], detector, monkeypatch)
    layout = load_layout(DEMO / "layout.json")
    reader = TableReader(configured(detector, layout.detector_settings()), layout)
    import cv2

    read = reader.feed(cv2.imread(str(DEMO / "hand" / "frame_030.jpg")))
    expected = sorted((d.card, tuple(round(v) for v in d.box)) for d in read.detections)
    assert len(expected) >= 20
    assert sorted((d.card, tuple(round(v) for v in d.box)) for d in drawn[-1]) == expected
    xs = [(d.box[0] + d.box[2]) / 2 for d in drawn[-1]]
    assert min(xs) < 480 < max(xs)


def test_label_driven_detector_runs_behind_the_readers_tiles(tmp_path, monkeypatch):
    """The demo's TruthDetector answers whole frames, so the reader does not tile it even when
    the layout asks for tiles; the whole first hand is read and proposed (was IndexError)."""
    from vision.demo.verify import TruthDetector

    truth = json.loads((DEMO / "ground_truth.json").read_text())
    names = sorted(p.name for p in (DEMO / "hand").glob("*.jpg"))
    drawn, app = _replay(tmp_path, names, TruthDetector(truth["frames"]), monkeypatch)
    hand = app.extensions["gintray"].store.state(1).current_hand()
    first = truth["hands"][0]
    assert hand.up_card.code == first["up_card"]
    assert hand.proposal and hand.proposal.knocker == first["knocker"]
    assert any(drawn)
