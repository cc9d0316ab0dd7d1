"""`gintray watch` on real recorded footage (issue 36, item 4): clips whose licences keep them
out of the project, read where they lie (the footage folder, `bench_real_footage.FOOTAGE`:
``../footage`` or ``$GINTRAY_FOOTAGE``; `benchmarks/real-footage/README.md` says how to fetch
each). A test whose clip is absent is skipped.

Which frames the reader reads, never how fast: replays at ``fps=0``, and without the idle
re-reads (paid in measured CPU) or with the detector on every frame.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from detector_helpers import shipped_detector_or_skip
from script_helpers import load_module

from vision.watch_cli import watch_main

ROOT = Path(__file__).resolve().parents[1]
bench = load_module(ROOT / "benchmarks" / "bench_real_footage.py", "bench_real_footage")


def _clip(name: str) -> Path:
    path = bench.FOOTAGE / name
    if not path.is_file():
        pytest.skip(f"{path} absent (benchmarks/real-footage/README.md says how to fetch it)")
    return path


@pytest.mark.slow
def test_a_card_dealt_on_a_real_table_is_read_once_it_lies_still(capsys):
    """The dealer's clip to frame 131: the first card dealt (7C) slides under the fingers, then
    lies still from the labels' row 95; it is in the read within 5 frames of that row and the
    read holds it, and nothing else, to the end."""
    clip = _clip("cardtrick-deal-480.mp4")
    labels = bench.load_labels(bench.labels_for(clip, None))
    settled = next(row.frame for row in labels if "7C" in row.settled)
    shipped_detector_or_skip()
    status = watch_main([f"replay:{clip}?fps=0", "--frames", "132", "--no-idle-rereads",
                         "--json"])
    *reads, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0 and summary["summary"]["frames"] == 132
    after = [r for r in reads if r["frame"] > settled - 5]
    assert after and after[0]["frame"] <= settled + 5, reads
    assert all(r["cards"] == ["7C"] for r in after), after


@pytest.mark.slow
@pytest.mark.parametrize("name", ["idcards-on-cloth-480.avi", "idcard-on-desk-480.mp4"])
def test_real_footage_with_no_playing_card_is_never_read_as_cards(name):
    """Hand-held phone footage of printed membership and ID cards, hands moving them: read
    whole in every frame, not one card."""
    clip = _clip(name)
    detector = shipped_detector_or_skip()
    lines, summary = bench.watch_clip(clip, None, None, detector, every_frame=True)
    assert summary.frames > 300 and summary.detector_frames == summary.frames
    assert [line.read.cards for line in lines if line.read.cards] == []
