"""Issue 25: the live reader reads only what changed, where it changed, and settles fast."""

from __future__ import annotations

import glob
import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest
from script_helpers import load_module

from vision.demo.noisy import noisy_frame, write_noisy_footage
from vision.demo.verify import DEMO_DIR, check_demo
from vision.inference.detection import Detection, Detections
from vision.table.camera import Frame
from vision.table.confirm import ReadBudget
from vision.table.gate import Change, RegionGate, Signature, has_changed
from vision.table.reader import Onlooker
from vision.table.regions import RegionReader, regions_of

REPO = Path(__file__).resolve().parents[1]
DEV = sorted(glob.glob(str(REPO.parent / "shared/data/real-cards/dev/images/*.jpg")))


def _dev_photo(i: int = 0) -> np.ndarray:
    if not DEV:
        pytest.skip("the real dev photos are not beside the project (../shared)")
    return cv2.imread(DEV[i])


def test_a_still_real_scene_with_camera_noise_and_light_drift_is_unchanged():
    """Fresh sensor noise at the dev webcam's 90th percentile, JPEG and +-3 % light."""
    rng = np.random.default_rng(5)
    for i in range(0, len(DEV) or 1, 4):
        photo = _dev_photo(i)
        first = Signature.of(noisy_frame(photo, rng, 1.0)).pixels
        later = Signature.of(noisy_frame(photo, rng, 1.03)).pixels
        assert not has_changed(first, later), DEV[i]


def test_one_card_index_changed_is_a_change():
    photo = _dev_photo(3)
    other = photo.copy()
    cv2.putText(other, "7", (300, 300), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)  # ~20 px
    assert has_changed(Signature.of(photo).pixels, Signature.of(other).pixels)
    # consecutive real photos of one scene (cards moved between them) are all changes
    for a, b in itertools.pairwise(DEV[:7]):
        assert has_changed(Signature.of(cv2.imread(a)).pixels, Signature.of(cv2.imread(b)).pixels)


def test_a_region_is_read_once_it_settles_and_never_while_it_moves():
    still = np.full((40, 40), 90, np.float32)
    card = still.copy()
    card[10:30, 10:30] = 230
    hands = []
    for left in (0, 10, 20):  # a hand sliding across the area
        hand = card.copy()
        hand[:, left:left + 15] = 160
        hands.append(hand)
    gate = RegionGate()
    said = [gate.decide("A", cut) for cut in (still, still, card, card, card)]
    assert said == [Change.SETTLED, Change.UNCHANGED, Change.MOVING, Change.SETTLED,
                    Change.UNCHANGED]  # a card laid: read once, when it holds still
    said = [gate.decide("A", cut) for cut in (*hands, still, still, still * 1.03)]
    assert said == [Change.MOVING, Change.MOVING, Change.MOVING, Change.MOVING, Change.SETTLED,
                    Change.UNCHANGED]  # the card taken away, then a little more light
    assert [c.reads for c in said] == [False, False, False, False, True, False]
    # a hand that passes and leaves the picture as it was: nothing read at all
    said = [gate.decide("A", cut) for cut in (hands[0], hands[1], still)]
    assert said == [Change.MOVING, Change.MOVING, Change.UNCHANGED]


class CountingDetector:
    """Names one card wherever it finds white; counts what it was asked to read."""

    reads_regions = True

    def __init__(self) -> None:
        self.crops: list[tuple[int, int]] = []

    def detect(self, image):
        self.crops.append(image.shape[:2])
        ys, xs = np.nonzero(image[:, :, 0] > 200)
        if len(xs) == 0:
            return Detections()
        return Detections([Detection("7D", (float(xs.min()), float(ys.min()),
                                            float(xs.max()) + 1, float(ys.max()) + 1), 0.9)])


def test_only_the_region_that_changed_is_read_and_the_rest_is_reused():
    from reader_helpers import table_layout

    layout = table_layout()
    w, h = layout.image_size
    frame = np.full((h, w, 3), 60, np.uint8)
    detector = CountingDetector()
    reader = RegionReader(detector)
    regions = regions_of(layout, w, h)
    reader.read(frame, regions, layout.region_of)
    assert len(detector.crops) == len(regions)  # the first frame: every region
    detector.crops.clear()
    reader.read(frame, regions, layout.region_of)
    assert detector.crops == []  # nothing changed: nothing read
    slot = np.asarray(layout.up_card_slot)
    (x1, y1), (x2, y2) = slot.min(axis=0).astype(int), slot.max(axis=0).astype(int)
    dealt = frame.copy()
    dealt[y1 + 10:y2 - 10, x1 + 10:x2 - 10] = 255  # a card in the tray
    assert not reader.read(dealt, regions, layout.region_of).detections  # it lands: moving
    assert detector.crops == []
    read = reader.read(dealt, regions, layout.region_of)  # it holds still: read
    up = next(r for r in regions if r.name == "up_card")
    assert detector.crops == [(up.box[3] - up.box[1], up.box[2] - up.box[0])]
    assert [d.card for d in read.detections] == ["7D"]
    x, y = read.detections[0].center
    assert x1 <= x <= x2 and y1 <= y <= y2  # in frame pixels, not the crop's


def test_an_uncalibrated_camera_is_one_gated_region():
    detector = CountingDetector()
    onlooker = Onlooker(detector, ReadBudget(0.0))  # no idle re-reads (test_reader_confirm)
    image = np.full((120, 160, 3), 60, np.uint8)
    image[40:60, 40:60] = 255
    for i in range(4):
        seen = onlooker.look(Frame(image, i, float(i)))
        assert [d.card for d in seen.detections] == ["7D"]
    assert detector.crops == [(120, 160)]  # read once, then reused


@pytest.fixture(scope="module")
def latency():
    return load_module(REPO / "benchmarks" / "bench_latency.py", "bench_latency")


@pytest.mark.slow
@pytest.mark.parametrize("noisy", [False, True], ids=["demo", "noisy copy"])
def test_the_demo_reads_exactly_and_the_events_come_within_frames_of_settling(
        tmp_path, latency, noisy):
    footage = DEMO_DIR / "hand"
    if noisy:
        write_noisy_footage(tmp_path, seed=1)
        footage = tmp_path
    assert all(c.exact for c in check_demo(footage=footage))
    result = latency.replay(footage)
    assert [sorted(row) for row in result.hands] == [["hand", "knock_card", "proposal"]] * 2
    for row in result.hands:
        assert row["knock_card"][0] <= 2, row  # frames from the up card settling
        assert row["proposal"][0] <= 3, row  # frames from the last spread settling
    read = [f for f in result.frames if f.read]
    assert len(read) <= len(result.frames) / 2  # still frames are not read again
    assert all(f.passes == 0 and f.crops == 0 for f in result.frames if not f.read)


def test_verify_refuses_a_footage_folder_that_is_not_there(tmp_path, capsys):
    from vision.demo import verify

    with pytest.raises(SystemExit):
        verify.main(["--truth", "--footage", str(tmp_path / "none")])
    assert "no such folder" in capsys.readouterr().err
