"""The real-footage benchmark (issue 36 item 5): its figures from per-frame reads and labels,
and one run end to end on a short labelled clip of the demo footage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from script_helpers import load_module

from vision.demo.verify import DEMO_DIR

ROOT = Path(__file__).resolve().parents[1]
bench = load_module(ROOT / "benchmarks" / "bench_real_footage.py", "bench_real_footage")


def _reads(*cards: str) -> list[frozenset[str]]:
    """One frame a string: the cards read in it ("" for none)."""
    return [frozenset(c.split()) for c in cards]


def _row(frame: int, settled: str = "", transient: str = "", covered: str = ""):
    return bench.LabelRow(frame, frozenset(settled.split()), frozenset(transient.split()),
                          frozenset(covered.split()))


LABELS = [_row(0), _row(3, transient="KS"), _row(6, "KS"), _row(9, "KS"), _row(12, "KS")]


def test_a_card_read_late_and_a_false_card_are_scored():
    """KS lies still from row 6 on and is read from frame 8 (+2); a 7H that is not there is
    held in frames 10-11; between them the read settles once (not counted) and changes twice."""
    reads = _reads("", "", "", "", "", "", "", "", "KS", "KS", "KS 7H", "KS 7H", "KS")
    score = bench.score_clip(reads, LABELS)
    assert score.frames == 13 and score.read_changes == 3
    assert (score.still_frames, score.still_changes) == (7, 2)
    assert (score.false_frames, score.longest_false_run) == (2, 2)
    assert score.false_cards == {"7H": 2}
    assert score.settlings == [bench.Settling("KS", 6, 2)]


def test_a_card_passing_through_is_not_false_and_a_missed_card_is_never():
    """KS read while it is dealt (transient at row 3) is there; a card never read while it
    lies has no latency; an empty read of a still empty table changes nothing."""
    reads = _reads("", "", "KS", "KS", "", "", "", "", "", "", "", "", "")
    score = bench.score_clip(reads, LABELS)
    assert score.false_frames == 0
    assert score.settlings == [bench.Settling("KS", 6, None)]
    assert score.still_changes == 0


def test_labels_are_read_from_the_csv(tmp_path):
    path = tmp_path / "clip.frames.csv"
    path.write_text('frame,settled_cards,transient_cards,notes\n5,KS 4H,5C?,"a hand, moving"\n'
                    "0,,,empty\n")
    rows = bench.load_labels(path)
    assert [r.frame for r in rows] == [0, 5]
    assert rows[1].settled == {"KS", "4H"} and rows[1].transient == {"5C"}
    assert bench.labels_for(tmp_path / "clip.mp4", None) == path


def test_the_read_catching_up_is_not_a_change_even_when_it_misses_a_card():
    """The spread on a still table is swapped at frame 3: the read follows a frame later but
    never finds the 9D; that catch-up is not a change of the still table. A read that then
    trades one card for another while nothing moves is one."""
    labels = [_row(0, "KS 4H"), _row(2, "KS 4H"), _row(3, "QS 9D 2C"), _row(6, "QS 9D 2C")]
    caught_up = _reads("KS 4H", "KS 4H", "KS 4H", "KS 4H", "QS 2C", "QS 2C", "QS 2C")
    assert bench.score_clip(caught_up, labels).still_changes == 0
    assert bench.Settling("9D", 3, None) in bench.score_clip(caught_up, labels).settlings
    traded = _reads("KS 4H", "KS 4H", "KS 4H", "QS 2C", "QS 2C", "QS 9C", "QS 9C")
    assert bench.score_clip(traded, labels).still_changes == 1  # 2C -> 9C: no nearer


def test_a_covered_card_in_a_pile_is_there_but_not_settled():
    """A pile: 7C lies alone, then 9D is laid on it (7C covered, its corner still showing).
    Reading the covered 7C is not a false card and does not break the still stretch; the 9D's
    latency counts from the row that shows it settled, and the change that brings it into the
    read is the catching up, not a change of a still table; the 7C settles once."""
    labels = [_row(0), _row(3, "7C"), _row(6, "7C"), _row(9, transient="9D", covered="7C"),
              _row(12, "9D", covered="7C"), _row(15, "9D", covered="7C")]
    reads = _reads("", "", "", "7C", "7C", "7C", "7C", "7C", "7C", "7C", "7C", "7C",
                   "7C", "7C 9D", "7C 9D", "7C 9D")
    score = bench.score_clip(reads, labels)
    assert score.false_frames == 0
    assert (score.still_frames, score.still_changes) == (8, 0)  # 9D caught up at 13
    assert score.settlings == [bench.Settling("7C", 3, 0), bench.Settling("9D", 12, 1)]
    without_covered = [_row(r.frame, " ".join(r.settled), " ".join(r.transient)) for r in labels]
    assert bench.score_clip(reads, without_covered).false_frames == 7  # 7C at 9-15: false


def test_labels_with_covered_cards_and_labels_kept_in_the_project(tmp_path, monkeypatch):
    """The covered_cards column is read where present; a clip kept outside the project finds
    its labels under benchmarks/real-footage by its name."""
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "pile.frames.csv").write_text(
        "frame,settled_cards,transient_cards,covered_cards,notes\n0,9D,,7C 2C,a pile\n")
    monkeypatch.setattr(bench, "LABELS_HERE", kept)
    clip = tmp_path / "elsewhere" / "pile.mp4"
    clip.parent.mkdir()
    clip.write_bytes(b"")
    assert bench.labels_for(clip, None) == kept / "pile.frames.csv"
    (row,) = bench.load_labels(kept / "pile.frames.csv")
    assert row.settled == {"9D"} and row.covered == {"7C", "2C"} and row.still
    assert row.present == {"9D", "7C", "2C"}


def test_the_default_clips_are_the_shared_videos_and_labelled_clips_found_outside(tmp_path):
    """With no clip named: the shared videos, then each clip labelled in the project that lies
    in the footage folder (a video or a folder of frames); one that is not there is a line
    saying where to get it, not an error."""
    shared, footage, kept = tmp_path / "shared", tmp_path / "footage", tmp_path / "kept"
    for folder in (shared, footage, kept):
        folder.mkdir()
    (shared / "casino.mp4").write_bytes(b"")
    (shared / "casino.frames.csv").write_text("frame,settled_cards,transient_cards\n")
    for name in ("deal", "still", "absent"):
        (kept / f"{name}.frames.csv").write_text("frame,settled_cards,transient_cards\n")
    (footage / "deal.mp4").write_bytes(b"")
    (footage / "still").mkdir()
    clips, skipped = bench.default_clips(shared, footage, kept)
    assert clips == [shared / "casino.mp4", footage / "deal.mp4", footage / "still"]
    assert len(skipped) == 1 and skipped[0].startswith("skipped absent: no clip absent.*")
    assert bench.default_clips(shared, tmp_path / "nowhere", kept)[0] == [shared / "casino.mp4"]


@pytest.mark.slow
def test_the_benchmark_scores_a_labelled_demo_clip(tmp_path):
    """The demo's first deal as a clip with labels beside it: 4C is read a frame or two after
    it settles, nothing false is held, the still stretch holds."""
    clip = tmp_path / "deal"
    clip.mkdir()
    for i in range(10):
        (clip / f"frame_{i:03d}.jpg").symlink_to(DEMO_DIR / "hand" / f"frame_{i:03d}.jpg")
    (clip / "frames.csv").write_text("frame,settled_cards,transient_cards,notes\n"
                                     "0,,,empty\n5,4C,,up card\n9,4C,,up card\n")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_real_footage.py"),
                           str(clip), "--layout", str(DEMO_DIR / "layout.json")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "== deal: 10 frames" in out
    assert "still stretches: 0 read changes in 5 still frames" in out
    assert "frames holding a card that is not there: 0 of 10" in out
    latency = out.split("4C @5 ")[1].split()[0]
    assert 0 <= int(latency) <= 2
    assert "CPU a frame" in out


CASINO = ROOT.parent / "shared" / "data" / "real-footage" / "casino-blackjack-416.mp4"


@pytest.mark.slow
@pytest.mark.skipif(not CASINO.is_file(), reason="the casino clip (../shared) is absent")
def test_the_casino_clip_holds_nothing_false_long_and_reads_each_laid_card_soon():
    """Issue 36's done-when on the real casino clip, through the live reader with its idle
    re-reads (paid in finder passes on recorded footage, so every computer reads it alike):
    no card that is not on the table is held more than 10 frames in a row (the 4C read 4S,
    the 5C read 5D, the 7D collected under a moving hand: 8-26 before), and each card laid is
    read within 10 frames of settling (the 5C's first stay, one labelled row before the arm
    moves it, aside). Two runs read the same."""
    from vision.inference.detector import DetectorUnavailable, load_detector

    try:
        detector = load_detector()
    except DetectorUnavailable as exc:
        pytest.skip(f"detector model not available: {exc}")
    labels = bench.load_labels(bench.labels_for(CASINO, None))
    runs = []
    for _ in range(2):
        lines, summary = bench.watch_clip(CASINO, None, None, detector)
        runs.append(bench.reads_per_frame(lines, summary.frames))
    assert runs[0] == runs[1], "two runs of a recorded clip read differently"
    score = bench.score_clip(runs[0], labels)
    assert score.longest_false_run <= 10, score.false_cards
    late = [(s.card, s.labelled, s.latency) for s in score.settlings
            if s.labelled != 55 and (s.latency is None or s.latency > 10)]
    assert not late, late
