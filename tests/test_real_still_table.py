"""The live reader over a real still table (issue 36, "real still footage"): real overhead
webcam photos of cards lying on a table, each played as a camera where nothing moves
(`benchmarks/real_still_table.py`), watched as `gintray watch replay:FOLDER?fps=0` watches it
and scored by `benchmarks/bench_real_footage.py` against the photos' own labels.

Which frames the reader reads, never how fast: replays at ``fps=0``. Skipped where the shared
dev photos are absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from detector_helpers import shipped_detector_or_skip
from script_helpers import load_module

ROOT = Path(__file__).resolve().parents[1]
still = load_module(ROOT / "benchmarks" / "real_still_table.py", "real_still_table")
bench = load_module(ROOT / "benchmarks" / "bench_real_footage.py", "bench_real_footage")

pytestmark = pytest.mark.skipif(not still.DEV.is_dir(), reason="../shared dev photos absent")

#: The spread whose top-left pile shows a 6C corner upside down beside the pip of a card
#: beneath (a spade): the namer's two best names for that corner are 6C and 6S, each read with
#: a confidence of 0.42-0.58, and webcam noise decides which comes first (16 of 30 noisy copies
#: read 6C).
TIED_CORNER_PHOTO = "WIN_20240627_12_52_49_Pro_jpg.jpg"


def _score(clip: Path, rereads: bool):
    lines, summary = bench.watch_clip(clip, None, rereads, shipped_detector_or_skip())
    return bench.score_clip(bench.reads_per_frame(lines, summary.frames),
                            bench.load_labels(clip / "frames.csv"))


def test_a_clip_is_the_photo_again_and_again_with_its_labelled_cards(tmp_path):
    """Every frame the photo's bytes (or a noisy copy of it), the labels its cards settled in
    a row every 5th frame and the last; the face-down card is no card; a sequence plays the
    photos one after another."""
    photos = still.load_photos([TIED_CORNER_PHOTO, "WIN_20240627_12_54_32_Pro_jpg.jpg"])
    assert photos[0].cards == {"2D", "3H", "6C", "7H", "8S", "KC"}  # and a BACK
    clip = still.write_clip(photos[:1], tmp_path / "one", 7, noise=False)
    frames = sorted(clip.glob("frame_*"))
    assert len(frames) == 7 and frames[3].read_bytes() == photos[0].path.read_bytes()
    rows = bench.load_labels(clip / "frames.csv")
    assert [r.frame for r in rows] == [0, 5, 6]
    assert all(r.settled == photos[0].cards and r.still for r in rows)
    noisy = still.write_clip(photos, tmp_path / "two", 3, noise=True)
    images = sorted(noisy.glob("frame_*.jpg"))
    assert len(images) == 6 and images[0].read_bytes() != images[1].read_bytes()
    assert [r.settled for r in bench.load_labels(noisy / "frames.csv")] == [
        photos[0].cards] * 2 + [photos[1].cards] * 2
    with pytest.raises(FileNotFoundError, match="no such photo"):
        still.load_photos(["WIN_nowhere.jpg"])


@pytest.mark.slow
@pytest.mark.parametrize("rereads", [False, True], ids=["one-read", "idle-rereads"])
def test_a_real_still_table_reads_once_and_holds_nothing_false(tmp_path, rereads):
    """Each default photo held 12 frames: the read is made once, never changes while nothing
    moves, and never holds a card that is not on the table (cards it misses aside)."""
    for photo in still.load_photos(list(still.DEFAULT_PHOTOS)):
        clip = still.write_clip([photo], tmp_path / photo.name, 12, noise=False)
        score = _score(clip, rereads)
        assert score.read_changes == 0, f"{photo.name}: the still read changed"
        assert score.false_frames == 0, f"{photo.name}: held falsely {score.false_cards}"
        found = [s for s in score.settlings if s.latency is not None]
        assert len(found) >= len(photo.cards) - 1, f"{photo.name}: {score.settlings}"
        assert all(s.latency == 0 for s in found)


@pytest.mark.slow
def test_a_real_still_table_with_webcam_noise_reads_once_and_holds_nothing_false(tmp_path):
    """The same table with fresh webcam noise in every frame: still one read, nothing false.
    The 6C the namer is torn over (6C or 6S, 0.8-1.0 as likely as each other read by read) is
    a doubt with both names, never a card: before, the first read's 6S was shown (frames 0-2)
    and then flipped to 6C (`vision.table.confirm`, the summed scores and their margin)."""
    photos = still.load_photos([TIED_CORNER_PHOTO])
    clip = still.write_clip(photos, tmp_path / "noisy", 12, noise=True)
    score = _score(clip, rereads=True)
    assert (score.read_changes, score.false_frames) == (0, 0), score.false_cards


def test_the_default_still_tables_are_each_default_photo_and_their_sequence(tmp_path):
    """What the benchmark reads when no clip is named: a folder a default photo, named after
    it, then the sequence of all of them, each frame a noisy copy."""
    clips = still.default_clips(tmp_path, frames=2)
    photos = still.load_photos(list(still.DEFAULT_PHOTOS))
    assert [c.name for c in clips] == [p.name for p in photos] + [still.SEQUENCE]
    assert len(list(clips[-1].glob("frame_*.jpg"))) == 2 * len(photos)
    assert all((c / "frames.csv").is_file() for c in clips)
