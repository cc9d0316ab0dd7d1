"""The live reader on real photos of one spread, replayed as a camera (issue 17, item 3).

A held-out scene of the second deck's phone photos (a run of clubs photographed again and
again, seconds apart) is copied into a folder and played as ``replay:FOLDER``; the reader
watches one player's area covering the frame. It must settle on the true cards, fix only real
melds, and turn the short hand into a question (a card-count problem), never into points.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from scorer import is_meld, parse_cards
from vision.table.camera import Camera, parse_source, source_opener
from vision.table.events import SpreadRead, TableRead
from vision.table.layout import TableLayout
from vision.table.notes import NoteKind, Problem
from vision.table.reader import TableReader
from vision.training.phone_data import PHONE_DATA, load_frames, split_by_time

pytestmark = pytest.mark.skipif(not PHONE_DATA.is_dir(), reason="../shared phone photos absent")


def _scene_folder(tmp_path: Path) -> tuple[Path, tuple[str, ...]]:
    """The held-out scene with the most never-mirrored photos, copied in time order."""
    _, held_out = split_by_time(load_frames())
    by_scene = Counter(f.scene for f in held_out if not f.may_be_mirrored)
    scene = by_scene.most_common(1)[0][0]
    photos = [f for f in held_out if f.scene == scene and not f.may_be_mirrored]
    truth = Counter(f.cards for f in photos).most_common(1)[0][0]
    folder = tmp_path / "scene"
    folder.mkdir()
    for number, frame in enumerate(f for f in photos if f.cards == truth):
        shutil.copy(frame.image, folder / f"{number:03d}.jpg")
    return folder, truth


def test_a_replayed_real_scene_settles_on_the_true_spread(tmp_path):
    from vision.inference.detector import load_detector

    folder, truth = _scene_folder(tmp_path)
    layout = TableLayout(
        up_card_slot=[(0, 0), (4, 0), (4, 4), (0, 4)],  # a corner no card covers
        areas={"Ann": [(5, 5), (640, 5), (640, 640), (5, 640)]},
        image_size=(640, 640),
    )
    spec = parse_source(f"replay:{folder}?fps=0")
    camera = Camera(source_opener(spec), fps=spec.fps)
    reader = TableReader(load_detector(), layout)
    events = list(reader.follow(camera, max_idle=3))
    spreads = [e for e in events if isinstance(e, SpreadRead)]
    tables = [e for e in events if isinstance(e, TableRead)]
    assert spreads, f"the reader never settled on a spread of {truth}"
    last = spreads[-1]
    assert sorted(last.cards) == sorted(parse_cards(truth))
    assert all(is_meld(group) for group in last.groups)
    assert 0 < last.confidence <= 1
    # four or five cards are not a gin hand: the players are asked, no card becomes points
    count = Problem(NoteKind.WRONG_CARD_COUNT, player="Ann", count=len(truth),
                    expected=(10, 11))
    assert tables and count in tables[-1].problems
