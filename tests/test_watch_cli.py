"""`gintray watch` on recorded footage (issue 36 item 4): a still table reads once and holds,
a card laid down appears, a camera that drops out ends with a clear message and status 1.

Every outcome here is a matter of which frames the reader sees, never of how fast it sees
them: replays run with ``fps=0`` (as fast as the reader reads), and a lost camera that cannot
come back (its folder emptied, its frame file unreadable) ends after ``--wait`` whatever the
machine's speed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_helpers import TickingClock

from vision.demo.noisy import noisy_frame
from vision.demo.verify import DEMO_DIR
from vision.table.camera import REPLAY_FPS, footage_rate, open_camera, parse_source
from vision.table.watch import Watch, live_reader
from vision.watch_cli import run_watch, watch_main

ROOT = Path(__file__).resolve().parents[1]
FRAMES = DEMO_DIR / "hand"
LAYOUT = DEMO_DIR / "layout.json"


def _detector():
    from vision.inference.detector import DetectorUnavailable, load_detector

    try:
        return load_detector()
    except DetectorUnavailable as exc:
        pytest.skip(f"detector model not available: {exc}")


def _truth(frame: int) -> list[str]:
    """The cards whose corners show in demo frame ``frame`` (the footage's labels)."""
    frames = json.loads((DEMO_DIR / "ground_truth.json").read_text())["frames"]
    return sorted({d["card"] for d in frames[frame]["detections"]})


def _watch_json(capsys, *argv: str) -> tuple[int, list[dict], str]:
    """`gintray watch --json ARGV`: its status, its lines (parsed) and its stderr."""
    _detector()  # skip when no model is installed
    status = watch_main([*argv, "--json"])
    captured = capsys.readouterr()
    return status, [json.loads(line) for line in captured.out.splitlines()], captured.err


def _still_clip(folder: Path, frame: int, count: int) -> Path:
    """``count`` copies of one demo frame as a cheap webcam films a still table: fresh sensor
    noise, light drift and JPEG in every copy (`vision.demo.noisy`), never two identical."""
    folder.mkdir()
    image = cv2.imread(str(FRAMES / f"frame_{frame:03d}.jpg"))
    rng = np.random.default_rng(7)
    for i in range(count):
        gain = 1.0 + 0.02 * np.sin(i)
        cv2.imwrite(str(folder / f"{i:03d}.png"), noisy_frame(image, rng, gain))
    return folder


@pytest.mark.slow
def test_a_still_table_is_read_once_and_the_read_holds(tmp_path, capsys):
    """Twelve noisy frames of one laid-out table: the first frame's read is the true cards
    and no later line changes it (lines after it only carry the reader's events)."""
    clip = _still_clip(tmp_path / "still", 30, 12)
    status, lines, _ = _watch_json(capsys, f"replay:{clip}?fps=0", "--layout", str(LAYOUT))
    assert status == 0
    *reads, summary = lines
    assert reads[0]["frame"] == 0
    assert reads[0]["cards"] == _truth(30)
    assert [r["cards"] for r in reads] == [_truth(30)] * len(reads), "the still read changed"
    assert all(r["events"] for r in reads[1:]), "a line came without a change or an event"
    assert summary["summary"]["frames"] == 12
    assert summary["summary"]["lines"] == len(reads)
    assert summary["summary"]["cpu_per_frame_s"] > 0


@pytest.mark.slow
def test_a_card_laid_down_appears_in_the_read(capsys):
    """The demo's first deal: an empty table, then the up card 4C alone in the tray. The read
    starts empty, 4C appears, and the knock card event names it (plain-text lines)."""
    _detector()
    status = watch_main([f"replay:{FRAMES}?fps=0", "--layout", str(LAYOUT), "--frames", "10"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0].startswith("frame 0 ") and out[0].endswith("cards: -")
    laid = next(line for line in out if "cards: 4C" in line)
    assert "knock card 4C" in laid
    frame = int(laid.split()[1])
    assert 5 <= frame <= 7, "4C lies still from frame 5: read one or two frames later"
    assert laid.split()[2] == f"{frame / REPLAY_FPS:.1f}", "a replay's seconds are footage time"
    assert out[-1].startswith("10 frames, ")
    assert "CPU a frame" in out[-1] and "idle re-reads" in out[-1]


def test_a_camera_whose_files_vanish_ends_with_status_1(tmp_path):
    """A replay folder emptied after its first frame (a drive unplugged): the lost camera is
    a line, it cannot come back, and the watch ends with the reason and status 1."""
    folder = tmp_path / "camera"
    folder.mkdir()
    for i in range(4):
        shutil.copy(FRAMES / f"frame_{i:03d}.jpg", folder / f"frame_{i:03d}.jpg")
    reader, counted = live_reader(_detector(), None)
    camera = open_camera(f"replay:{folder}?fps=0", first_retry=0.01, max_retry=0.02)
    printed: list[str] = []

    def out(line: str) -> None:
        printed.append(line)
        for path in folder.iterdir():  # the first line is out: the files vanish
            path.unlink()

    watch = Watch(camera, reader, counted, wait_back=0.1, footage_fps=REPLAY_FPS)
    status = run_watch(watch, "replay:camera", as_json=True, out=out)
    lines = [json.loads(line) for line in printed]
    assert status == 1
    assert lines[0]["frame"] == 0 and lines[0]["events"] == []
    lost = lines[1]["events"][0]
    assert lost["kind"] == "camera_lost" and "disappeared" in lost["reason"]
    assert lines[1]["frame"] == 0 and lines[1]["seconds"] == 0.0, "lost after footage frame 0"
    assert lines[-2]["summary"]["frames"] == 1
    error = lines[-1]["error"]
    assert error["code"] == "camera_lost"
    assert "dropped out" in error["message"] and "not back within 0.1 s" in error["message"]


def test_a_camera_back_within_the_wait_is_told_and_the_watch_goes_on(tmp_path):
    """The folder's files vanish after the first frame and are put back once the loss is
    told: the lost and back lines come, the rest of the footage is read, status 0."""
    folder = tmp_path / "camera"
    folder.mkdir()
    names = [f"frame_{i:03d}.jpg" for i in range(4)]
    for name in names:
        shutil.copy(FRAMES / name, folder / name)
    reader, counted = live_reader(_detector(), None)
    camera = open_camera(f"replay:{folder}?fps=0", first_retry=0.01, max_retry=0.02)
    printed: list[dict] = []

    def out(line: str) -> None:
        printed.append(json.loads(line))
        if len(printed) == 1:  # the first frame is out: the files vanish
            for name in names:
                (folder / name).unlink()
        elif any(e["kind"] == "camera_lost" for e in printed[-1].get("events", [])):
            for name in names:  # told: they come back
                shutil.copy(FRAMES / name, folder / name)

    status = run_watch(Watch(camera, reader, counted, wait_back=300), "replay:camera", True, out)
    kinds = [e["kind"] for line in printed for e in line.get("events", [])]
    assert status == 0
    assert kinds == ["camera_lost", "camera_back"]
    assert printed[-1]["summary"]["frames"] == 4 and "lost" not in printed[-1]["summary"]


def test_a_camera_that_errors_at_once_is_a_message_not_a_traceback(tmp_path):
    """A source whose frame cannot be read (a broken file where a picture should be): the
    command says which and why on stderr and exits 1; no traceback."""
    _detector()
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "frame_000.jpg").write_bytes(b"not a picture")
    proc = subprocess.run([sys.executable, "-m", "gintray_cli", "watch",
                           f"replay:{folder}?fps=0", "--wait", "0"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "gave no picture" in proc.stderr and "frame_000.jpg is unreadable" in proc.stderr
    assert "camera lost (replay frame" in proc.stdout


@pytest.mark.parametrize("argv, said", [
    (["webcam"], "unknown camera source"),
    (["usb:x"], "usb source needs a device number"),
    ([f"replay:{FRAMES}?fps=0", "--frames", "0"], "--frames must be at least 1"),
])
def test_a_malformed_source_or_option_is_status_2(argv, said, capsys):
    assert watch_main(argv) == 2
    assert said in capsys.readouterr().err


def test_an_unusable_layout_is_status_2(tmp_path, capsys):
    bad = tmp_path / "layout.json"
    bad.write_text("{}")
    assert watch_main([f"replay:{FRAMES}?fps=0", "--layout", str(bad)]) == 2
    assert "gintray watch:" in capsys.readouterr().err


def test_no_idle_rereads_switches_them_off_or_says_there_are_none(capsys):
    """`--no-idle-rereads`: a reader with idle re-reads (issue 36 item 1) has them off, and the
    summary says so; a reader without them (today's) says it has none and reads as ever."""
    status, lines, err = _watch_json(capsys, f"replay:{FRAMES}?fps=0", "--frames", "1",
                                     "--no-idle-rereads")
    assert status == 0
    rereads = lines[-1]["summary"]["idle_rereads"]
    assert rereads is False or (rereads is None and "no idle re-reads" in err)


def test_recorded_footage_is_timed_as_filmed(tmp_path):
    """A replay's frames are timed by its pace, a video's own rate when it plays as fast as
    it is read, the replay default for a folder; a live camera keeps its frames' own time."""
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (64, 48))
    for i in range(3):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    assert footage_rate(parse_source(f"replay:{video}?fps=0")) == pytest.approx(5.0)
    assert footage_rate(parse_source(f"replay:{video}?fps=4")) == 4.0
    assert footage_rate(parse_source(f"replay:{FRAMES}?fps=0")) == REPLAY_FPS
    assert footage_rate(parse_source(f"replay:{FRAMES}")) == REPLAY_FPS
    assert footage_rate(parse_source("usb:0")) is None


def test_idle_rereads_are_the_region_readers_budget():
    """The switch works on the region reader's re-read budget (a share of camera time; issue
    36 item 1): a share above 0 is "on", off sets it to 0; a reader without a budget, or one
    reading every frame whole, has none to switch."""
    from dataclasses import dataclass
    from types import SimpleNamespace

    from vision.table.watch import idle_rereads, set_idle_rereads

    @dataclass
    class Budget:
        share: float = 0.5

    reader = SimpleNamespace(regions=SimpleNamespace(budget=Budget()))
    assert idle_rereads(reader) is True
    assert set_idle_rereads(reader, False) and idle_rereads(reader) is False
    for without in (SimpleNamespace(regions=SimpleNamespace()), SimpleNamespace(regions=None)):
        assert idle_rereads(without) is None and not set_idle_rereads(without, False)


class _CountingReads:
    """A region-reading detector that finds one corner in every read and counts its reads;
    each read makes ``passes`` corner-finder passes (as `CardDetector.finder_passes` counts)."""

    reads_regions = True

    def __init__(self, passes: int) -> None:
        self.reads, self.passes, self.finder_passes = 0, passes, 0

    def detect(self, image):
        from vision.inference.detection import Detection, Detections

        self.reads += 1
        self.finder_passes += self.passes
        return Detections([Detection("7D", (40, 40, 56, 76), 0.9)])


def test_recorded_footage_is_re_read_the_same_on_a_fast_and_a_loaded_machine(tmp_path):
    """Issue 36: idle re-reads of recorded footage are counted in corner-finder passes
    (`confirm.PASS_SECONDS` of the share a pass), not in measured CPU, so a clip re-read on a
    fast computer and on a loaded one gives the same reads; a live camera keeps paying its
    measured CPU."""
    from vision.table.confirm import PASS_SECONDS, ReadBudget
    from vision.table.reader import Onlooker

    folder = tmp_path / "hand"
    folder.mkdir()
    for i in range(40):  # a hand that never rests: the picture is never confirmed
        image = np.full((120, 160, 3), 60, np.uint8)
        image[100:120, (i * 7) % 140:(i * 7) % 140 + 20] = 250
        cv2.imwrite(str(folder / f"{i:03d}.png"), image)
    counts = []
    for cost in (0.02, 0.2):
        detector = _CountingReads(passes=5)
        onlooker = Onlooker(detector, ReadBudget(0.5, TickingClock(cost)))
        with open_camera(f"replay:{folder}?fps=0") as camera:
            watch = Watch(camera, onlooker, footage_fps=10.0)
            list(watch.lines())
        counts.append(detector.reads)
    # 3.9 s of footage x half a core / five passes' seconds, and the first read
    expected = 1 + int(3.9 * 0.5 / (5 * PASS_SECONDS))
    assert counts == [counts[0]] * 2 and abs(counts[0] - expected) <= 1, counts
    live = ReadBudget(0.5, TickingClock(0.2))  # a live camera: its measured CPU is charged
    live.earn(0.0)
    live.earn(1.0)
    live.spend(lambda: None)
    assert live.credit == pytest.approx(0.5 - 0.2)
