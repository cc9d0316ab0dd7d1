"""How fast a table will feel on this computer, measured, in a player's words.

The live reader (`vision.table.regions.RegionReader`) reads a region only when its picture
changed and settled, and a reading whose picture held on the next frame is voted in at once.
So the knock card shows about one read of the up-card slot plus `KNOCK_CARD_FRAMES` frames after
the deal, and the proposal about one read of the spread area plus `PROPOSAL_FRAMES` frames after
the last card settles (`benchmarks/bench_latency.py` counts them on the demo footage).
`measure_table_speed` times those reads on the doctor's check frame (a spread of 20 cards,
vision/demo) with the detector as it is set up here, in CPU seconds of this process, and
`TableSpeed.sentence` says it to the players.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2

from vision.inference.tiling import configured
from vision.table.layout import UP_CARD, load_layout
from vision.table.regions import RegionReader, read_region, regions_of

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo"
CHECK_FRAME = DEMO_DIR / "hand" / "frame_030.jpg"  # the doctor's check frame (20 cards)
DEAL_FRAME = DEMO_DIR / "hand" / "frame_010.jpg"  # the up card alone in the tray
# frames from a region settling to its event: the gate confirms a reading on the next frame
# (the knock card is then in); the spreads are then voted stable for 3 frames
KNOCK_CARD_FRAMES = 1
PROPOSAL_FRAMES = 3
FRAME_GAP = 0.1  # seconds between frames the reader takes (a webcam's frame, or an idle read)
RUNS = 3
SLOW_KNOCK_CARD = 2.0  # seconds: slower than this and the players will notice
SLOW_PROPOSAL = 5.0


@dataclass(frozen=True)
class TableSpeed:
    """Measured CPU seconds of the live reader's steps on this computer."""

    slot_read: float  # reading the up-card slot once
    area_read: float  # reading a player's spread area once
    unchanged_frame: float  # a frame whose regions did not change

    @property
    def frame_gap(self) -> float:
        return max(FRAME_GAP, self.unchanged_frame)

    @property
    def knock_card_after(self) -> float:
        """Seconds from the up card settling in the tray to the knock card on the tablets."""
        return self.slot_read + KNOCK_CARD_FRAMES * self.frame_gap

    @property
    def proposal_after(self) -> float:
        """Seconds from the last spread settling to the proposal on the tablets."""
        return self.area_read + PROPOSAL_FRAMES * self.frame_gap

    @property
    def too_slow(self) -> bool:
        return self.knock_card_after > SLOW_KNOCK_CARD or self.proposal_after > SLOW_PROPOSAL

    def sentence(self) -> str:
        """What the players are told (no backend names, no milliseconds)."""
        said = (f"A knock card shows about {_seconds(self.knock_card_after)} after the deal; "
                f"a proposal about {_seconds(self.proposal_after)} after the spreads settle "
                "on this computer.")
        if self.too_slow:
            said += (" This computer is slow for live reading: players will wait. A faster "
                     "computer (or a Raspberry Pi 5 with its setup) reads sooner.")
        return said

    def to_json(self) -> dict[str, float | bool | str]:
        return {"slot_read_s": round(self.slot_read, 3), "area_read_s": round(self.area_read, 3),
                "unchanged_frame_s": round(self.unchanged_frame, 4),
                "knock_card_after_s": round(self.knock_card_after, 2),
                "proposal_after_s": round(self.proposal_after, 2),
                "too_slow": self.too_slow, "sentence": self.sentence()}


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"


def _cpu(step: Any) -> float:
    """Median CPU seconds of ``RUNS`` runs of ``step()``."""
    times = []
    for _ in range(RUNS):
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return statistics.median(times)


def measure_table_speed(detector: Any) -> TableSpeed:
    """Time the live reader's steps on the check frame with ``detector`` (as the demo table's
    layout sets it up: its detector settings, its regions)."""
    image, deal = cv2.imread(str(CHECK_FRAME)), cv2.imread(str(DEAL_FRAME))
    if image is None or deal is None:
        raise FileNotFoundError(f"the check frames {CHECK_FRAME.name}, {DEAL_FRAME.name} "
                                "are missing or unreadable")
    layout = load_layout(DEMO_DIR / "layout.json")
    detector = configured(detector, layout.detector_settings())
    h, w = image.shape[:2]
    regions = {r.name: r for r in regions_of(layout.scaled_to((w, h)), w, h)}
    area = max((r for n, r in regions.items() if n != UP_CARD),
               key=lambda r: (r.box[2] - r.box[0]) * (r.box[3] - r.box[1]))
    slot_read = _cpu(lambda: read_region(detector, deal, regions[UP_CARD].box))
    area_read = _cpu(lambda: read_region(detector, image, area.box))
    live = RegionReader(detector)
    boxes = list(regions.values())
    live.read(image, boxes)  # the first frame is read whole; the next ones are unchanged
    unchanged = _cpu(lambda: live.read(image, boxes))
    return TableSpeed(slot_read, area_read, unchanged)
