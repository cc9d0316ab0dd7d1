"""Camera sources: parsing, replay, and a camera that vanishes mid-hand (retried, reported)."""

from __future__ import annotations

import shutil

import cv2
import numpy as np
import pytest
from reader_helpers import (
    defender_spread,
    knocker_spread,
    table_layout,
    up_card_in_tray,
)

from vision.inference.detection import Detections
from vision.table.camera import (
    Camera,
    CameraError,
    CameraSourceError,
    open_camera,
    parse_source,
)
from vision.table.events import CameraBack, CameraLost, HandDealt, TableRead
from vision.table.reader import TableReader


class FakeClock:
    """Time that advances only when the camera sleeps (no real waiting in tests)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_source_strings_are_parsed():
    assert parse_source("replay:vision/demo/frames?fps=4&loop=1").kind == "replay"
    spec = parse_source("replay:some/dir?fps=4&loop=1")
    assert (spec.target, spec.fps, spec.loop) == ("some/dir", 4.0, True)
    assert parse_source("usb:1").target == 1
    assert parse_source("0").target == 0
    assert parse_source(2).target == 2
    assert parse_source("rtsp://10.0.0.5/stream").target == "rtsp://10.0.0.5/stream"
    assert parse_source("picamera:0").kind == "picamera"
    for bad in ("webcam", "usb:x", "replay:", "replay:x?fps=-1", "ftp://x/y"):
        with pytest.raises(CameraSourceError):
            parse_source(bad)


def _write_frames(folder, count):
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        image = np.full((48, 64, 3), i, np.uint8)
        cv2.imwrite(str(folder / f"frame_{i:03d}.png"), image)


def test_replay_plays_a_folder_in_order_and_finishes(tmp_path):
    _write_frames(tmp_path / "f", 5)
    camera = open_camera(f"replay:{tmp_path / 'f'}?fps=0")
    values = []
    while (frame := camera.read()) is not None:
        values.append(int(frame.image[0, 0, 0]))
        assert frame.index == len(values) - 1
    assert values == [0, 1, 2, 3, 4] and camera.finished
    assert camera.pop_events() == []


def test_replay_loops(tmp_path):
    _write_frames(tmp_path / "f", 3)
    camera = open_camera(f"replay:{tmp_path / 'f'}?fps=0&loop=1")
    values = [int(camera.read().image[0, 0, 0]) for _ in range(7)]
    assert values == [0, 1, 2, 0, 1, 2, 0]


def test_replay_paces_frames_at_the_requested_rate(tmp_path):
    _write_frames(tmp_path / "f", 4)
    clock = FakeClock()
    spec = parse_source(f"replay:{tmp_path / 'f'}?fps=5")
    from vision.table.camera import source_opener

    camera = Camera(source_opener(spec), fps=spec.fps, clock=clock, sleep=clock.sleep)
    for _ in range(4):
        assert camera.read() is not None
    assert clock.now == pytest.approx(3 / 5)


def test_a_missing_device_is_not_fatal_and_is_reported(tmp_path):
    camera = open_camera(f"replay:{tmp_path / 'nowhere'}?fps=0", first_retry=0.01)
    assert camera.read() is None and not camera.finished
    events = camera.pop_events()
    assert len(events) == 1 and isinstance(events[0], CameraLost)
    assert "does not exist" in events[0].reason


def test_a_source_that_raises_is_retried_with_growing_backoff():
    clock = FakeClock()
    attempts = []

    class Flaky:
        def __init__(self):
            attempts.append(clock.now)
            if len(attempts) in (2, 3, 4):
                raise CameraError("unplugged")
            self.n = 0

        def grab(self):
            self.n += 1
            if len(attempts) == 1 and self.n == 3:
                raise RuntimeError("USB read failed")  # any driver error counts as lost
            return np.zeros((4, 4, 3), np.uint8), "x"

    camera = Camera(Flaky, first_retry=1.0, max_retry=8.0, clock=clock, sleep=clock.sleep)
    frames = [camera.read() for _ in range(120)]
    got = [f for f in frames if f is not None]
    kinds = [type(e) for e in camera.pop_events()]
    assert kinds == [CameraLost, CameraBack]
    gaps = np.diff(attempts[1:])  # waits between reconnection attempts double
    assert list(np.round(gaps, 1)) == [2.0, 4.0, 8.0][: len(gaps)]
    assert len(got) >= 30 and [f.index for f in got] == list(range(len(got)))


def _encode(i: int) -> np.ndarray:
    image = np.zeros((900, 1280, 3), np.uint8)
    image[0, 0] = (i % 256, i // 256, 0)
    return image


class ScriptedDetector:
    """Stands in for the detector: returns the detections scripted for the frame it is shown."""

    def __init__(self, script):
        self.script = script

    def detect(self, image):
        return Detections(self.script[int(image[0, 0, 0]) + 256 * int(image[0, 0, 1])])


def test_camera_vanishing_mid_hand_is_reported_and_the_hand_is_still_read(tmp_path):
    script = ([[]] * 2 + [up_card_in_tray("7D")] * 4 + [up_card_in_tray("QC")] * 4
              + [knocker_spread()] * 6 + [knocker_spread() + defender_spread()] * 10)
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(len(script)):
        cv2.imwrite(str(folder / f"{i:03d}.png"), _encode(i))
    camera = open_camera(f"replay:{folder}?fps=0", first_retry=0.05, max_retry=0.2)
    reader = TableReader(ScriptedDetector(script), table_layout(), stable_frames=3)
    events = []
    stream = reader.follow(camera)
    while len([e for e in events if isinstance(e, HandDealt)]) == 0:
        events.append(next(stream))
    shutil.move(folder, tmp_path / "away")  # the camera disappears mid-hand
    lost_at = len(events)
    for _ in range(5):  # reads fail; each read returns quickly with no frame
        assert camera.read() is None
    events += camera.pop_events()
    assert isinstance(events[lost_at], CameraLost)
    shutil.move(tmp_path / "away", folder)  # plugged back in
    events += list(stream)
    assert [type(e) for e in events].count(CameraBack) == 1
    assert [e.up_card.code for e in events if isinstance(e, HandDealt)] == ["7D"]
    final = [e for e in events if isinstance(e, TableRead)][-1]
    assert final.up_card.code == "7D" and final.knocker == "A"
    assert len(final.spreads["A"].cards) == 10


def test_an_absent_webcam_or_stream_is_reported_not_raised():
    for source in ("usb:7", "rtsp://127.0.0.1:9/none"):
        camera = open_camera(source, first_retry=0.01)
        assert camera.read() is None and not camera.finished
        events = camera.pop_events()
        assert [e.kind for e in events] == ["camera_lost"]
        assert "cannot open camera" in events[0].reason
        camera.close()
