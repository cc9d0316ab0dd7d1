"""Watching a camera through the live reader: what it holds, each time that changes.

`Watch` drives the live path as the table app does (`webui/table/camera_feed.py`): frames from a
camera source (`vision.table.camera`) go to the table reader (`TableReader` with a layout,
else the `Onlooker`: the whole frame is one region behind the change gate), a mirrored
camera's frames flipped back first. After each frame, `live_read` says what the reader holds
now (the cards of the detections it used, and its doubts); a `WatchLine` is given each time
that read changes or the frame brings events (a deal, a spread, the camera lost or back).
Recorded footage is timed as it was filmed (``footage_fps``: a frame's time is its index over
the rate), and the reader's idle re-reads are charged one detector pass each, not their
measured CPU (`count_rereads_in_passes`), so a clip is read the same on every computer,
however loaded.
`WatchSummary` keeps the CPU it took: the reader's own CPU seconds a frame (one thread unless
GINTRAY_THREADS says more) and the whole process's (capture and decoding included).

`gintray watch` prints the lines; `benchmarks/bench_real_footage.py` scores them against
footage read by eye. A camera that drops out and is not back within ``wait_back`` seconds
ends the watch with `WatchSummary.lost` set.

The reader's idle re-reads (re-reading settled regions while the table is still, voting
across those reads) are switched here and only here (`idle_rereads`,
`set_idle_rereads`), so the figures with and without them come from one place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.inference.detection import detected_card
from vision.inference.mirror import unmirror
from vision.inference.tiling import configured
from vision.table.camera import Camera, Frame
from vision.table.events import (
    CameraBack,
    CameraLost,
    Event,
    FrameRead,
    HandDealt,
    SpreadRead,
    TableRead,
)
from vision.table.grouping import cards_from_detections
from vision.table.layout import TableLayout
from vision.table.notes import NoteKind, Problem
from vision.table.reader import Onlooker, TableReader

LiveReader = TableReader | Onlooker


class CountingDetector:
    """A detector that counts its reads (``detect`` calls); everything else is the wrapped
    detector's own (the region reader asks it ``reads_regions``, the tiling its settings)."""

    def __init__(self, detector: Any) -> None:
        self.wrapped = detector
        self.reads = 0

    def detect(self, image: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return self.wrapped.detect(image, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def live_reader(detector: Any, layout: TableLayout | None) -> tuple[LiveReader, CountingDetector]:
    """The reader the table app would use for this camera (a `TableReader` set up by the
    layout's detector settings, or the `Onlooker` without a layout) and its counted detector."""
    if layout is None:
        counted = CountingDetector(detector)
        return Onlooker(counted), counted
    counted = CountingDetector(configured(detector, layout.detector_settings()))
    return TableReader(counted, layout), counted


def _reread_budget(reader: LiveReader) -> Any:
    """The CPU budget the reader's region reader spends on idle re-reads (a ``share``
    of camera time re-reads may take, 0 for none); None where it has no such budget
    (a reader without idle re-reads, or one that reads every frame whole)."""
    budget = getattr(reader.regions, "budget", None)
    return budget if isinstance(getattr(budget, "share", None), int | float) else None


def count_rereads_in_passes(reader: LiveReader) -> bool:
    """Recorded footage: the reader's idle re-reads charged one detector pass each (a fixed
    CPU time, `ReadBudget.counted_in_passes`), not their measured CPU, so a clip reads the same
    on every computer however loaded; False where the reader has no such budget."""
    budget = _reread_budget(reader)
    if budget is None or not hasattr(budget, "counted_in_passes"):
        return False
    budget.counted_in_passes()
    return True


def idle_rereads(reader: LiveReader) -> bool | None:
    """Whether ``reader`` re-reads settled regions while nothing moves; None where the reader
    has no such option."""
    budget = _reread_budget(reader)
    return None if budget is None else budget.share > 0


def set_idle_rereads(reader: LiveReader, on: bool) -> bool:
    """Switch the reader's idle re-reads off (``on`` False: no CPU for them) or leave them as
    the reader has them (``on`` True); False where the reader has none to switch."""
    budget = _reread_budget(reader)
    if budget is None:
        return False
    if not on:
        budget.share = 0.0
    return True


@dataclass(frozen=True)
class LiveRead:
    """What the live reader holds after a frame: the cards (sorted codes; a code seen twice
    far apart is there twice) and its doubts (a card it may be another, a card seen twice)."""

    cards: tuple[str, ...] = ()
    doubts: tuple[Problem, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"cards": list(self.cards), "doubts": [d.to_json() for d in self.doubts]}


def live_read(reader: LiveReader, read: FrameRead) -> LiveRead:
    """The read of one frame: the cards of the detections the reader used (what the tablet's
    picture outlines), and a doubt for each card the detector was unsure of (its one-tap swap)
    and each card seen twice; and a doubt for each card only a minority of the reads of a
    still picture found (`FrameRead.doubts`: never a card)."""
    cards, problems = cards_from_detections(read.detections,
                                            getattr(reader, "min_confidence", 0.0))
    doubts = [Problem(NoteKind.DOUBTFUL_CARD, cards=(detected_card(c.card),),
                      alternative=detected_card(c.alternative)) for c in cards if c.alternative]
    minority, _ = cards_from_detections(read.doubts, 0.0)
    doubts += [Problem(NoteKind.UNCERTAIN_CARD, cards=(detected_card(c.card),))
               for c in minority]
    return LiveRead(tuple(sorted(c.card for c in cards)), tuple(doubts + problems))


@dataclass(frozen=True)
class WatchLine:
    """The read changed, or events came: at ``frame`` (the last frame read; None before the
    first), ``seconds`` after the first frame."""

    frame: int | None
    seconds: float
    read: LiveRead
    events: tuple[Event, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"frame": self.frame, "seconds": round(self.seconds, 2), **self.read.to_json(),
                "events": [e.to_json() for e in self.events]}

    def text(self) -> str:
        """One line for people: frame, seconds, cards, doubts, events."""
        parts = [f"frame {'-' if self.frame is None else self.frame}", f"{self.seconds:.1f} s",
                 "cards: " + (" ".join(self.read.cards) or "-")]
        if self.read.doubts:
            parts.append("doubts: " + ", ".join(str(d) for d in self.read.doubts))
        parts += [describe_event(e) for e in self.events]
        return "  ".join(parts)


def describe_event(event: Event) -> str:
    """An event in a few words (`WatchLine.text`)."""
    if isinstance(event, HandDealt):
        return f"knock card {event.up_card} ({event.confidence:.2f})"
    if isinstance(event, SpreadRead):
        groups = " ".join("[" + " ".join(map(str, g)) + "]" for g in event.groups)
        loose = " ".join(map(str, event.loose)) or "-"
        return f"{event.player} spread {groups} loose {loose}".strip()
    if isinstance(event, TableRead):
        return (f"table read: knock card {event.up_card or '-'}, knocker "
                f"{event.knocker or '-'}, {len(event.problems)} problem(s)")
    if isinstance(event, CameraLost):
        return f"camera lost ({event.reason})"
    return f"camera back after {event.downtime:.1f} s"


@dataclass
class WatchSummary:
    """How the watch went: frames read, CPU seconds (the reader's, the whole process's),
    frames the detector read in, the reader's idle re-reads (None: it has none), and the
    camera's drop-out when it ended the watch."""

    frames: int = 0
    lines: int = 0
    reader_cpu: float = 0.0
    process_cpu: float = 0.0
    detector_frames: int = 0
    idle_rereads: bool | None = None
    lost: CameraLost | None = None
    ever_connected: bool = False

    @property
    def cpu_per_frame(self) -> float:
        """The reader's CPU seconds a frame."""
        return self.reader_cpu / self.frames if self.frames else 0.0

    @property
    def process_cpu_per_frame(self) -> float:
        return self.process_cpu / self.frames if self.frames else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"summary": {
            "frames": self.frames, "lines": self.lines,
            "cpu_per_frame_s": round(self.cpu_per_frame, 5),
            "process_cpu_per_frame_s": round(self.process_cpu_per_frame, 5),
            "detector_frames": self.detector_frames, "idle_rereads": self.idle_rereads,
            **({"lost": self.lost.to_json()} if self.lost else {})}}


@dataclass
class Watch:
    """Follows ``camera`` with ``reader`` (see the module docstring). Iterate `lines()`; then
    `summary` says how it went."""

    camera: Camera
    reader: LiveReader
    detector: CountingDetector | None = None  # the reader's counted detector, if counted
    max_frames: int | None = None
    wait_back: float = 10.0  # seconds a lost camera may take to come back
    # frames a second of recorded footage: its frames are timed index / rate (the camera time
    # a live camera would give them, whatever the reading speed); None: the frames' own time
    footage_fps: float | None = None
    clock: Callable[[], float] = time.monotonic
    summary: WatchSummary = field(default_factory=WatchSummary)

    def lines(self) -> Iterator[WatchLine]:
        """A line for the first frame, then each time the read changes or events come."""
        self.summary.idle_rereads = idle_rereads(self.reader)
        if self.footage_fps:  # recorded: re-reads counted in passes, as its time in frames
            count_rereads_in_passes(self.reader)
        mirrored = isinstance(self.reader, TableReader) and self.reader.layout.mirrored
        last, seconds = LiveRead(), 0.0
        first: float | None = None  # the first frame's time
        frame_at: int | None = None
        lost: CameraLost | None = None
        lost_at = 0.0
        started = time.process_time()
        try:
            while not self.camera.finished and (self.max_frames is None
                                                or self.summary.frames < self.max_frames):
                frame = self.camera.read()
                camera_events = self.camera.pop_events()
                for event in camera_events:
                    if isinstance(event, CameraLost):
                        lost, lost_at = event, self.clock()
                    elif isinstance(event, CameraBack):
                        lost = None
                if frame is None:
                    if camera_events:
                        if first is not None and not self.footage_fps:  # a live camera's
                            seconds = time.time() - first  # own clock; footage: its last frame
                        yield self._line(frame_at, seconds, last, tuple(camera_events))
                    if lost is not None and self.clock() - lost_at >= self.wait_back:
                        self.summary.lost = lost
                        return
                    continue
                self.summary.ever_connected = True
                if self.footage_fps:
                    frame = replace(frame, timestamp=frame.index / self.footage_fps)
                first = frame.timestamp if first is None else first
                seconds = frame.timestamp - first
                if mirrored:
                    frame = replace(frame, image=unmirror(frame.image))
                read, events = self._read(frame)
                frame_at = frame.index
                if read != last or events or camera_events or self.summary.frames == 1:
                    last = read
                    yield self._line(frame_at, seconds, read, (*camera_events, *events))
        finally:
            self.summary.process_cpu = time.process_time() - started

    def _read(self, frame: Frame) -> tuple[LiveRead, tuple[Event, ...]]:
        """One frame through the reader, its CPU and detector reads counted."""
        reads = self.detector.reads if self.detector is not None else 0
        start = time.process_time()
        if isinstance(self.reader, TableReader):
            frame_read = self.reader.feed(frame)
        else:
            frame_read = self.reader.look(frame)
        self.summary.reader_cpu += time.process_time() - start
        self.summary.frames += 1
        if self.detector is not None and self.detector.reads > reads:
            self.summary.detector_frames += 1
        return live_read(self.reader, frame_read), frame_read.events

    def _line(self, frame: int | None, seconds: float, read: LiveRead,
              events: tuple[Event, ...]) -> WatchLine:
        self.summary.lines += 1
        return WatchLine(frame, seconds, read, events)
