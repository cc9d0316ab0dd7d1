"""A reading is confirmed, not trusted once: the reads of one picture vote (issue 36 item 1).

Two reads of the same still picture differ (a camera's sensor noise, its JPEG): a corner read
once may be gone in the next read, or read under another name. The change gate
(`vision.table.gate`) reads a region once its picture changed and settled; a still table then
leaves the CPU idle. `RegionReader` spends part of that idle time (`ReadBudget`: a share of one
CPU core, measured in the camera's own time) reading regions again, round robin, and keeps each
region's last `HISTORY` reads (`ReadHistory`). What the region shows is their vote, place by
place (`ReadHistory.consensus`):

- a *place* is where a corner index was found in some read (boxes of the reads that overlap);
- a read *votes* at a place when it saw the picture that is there now: the picture around the
  place (`PLACE_MARGIN`) did not change between that read's frame and this one, and it held
  still in the read's own frame (a hand sweeping past is no vote). A place no read saw as it
  is now keeps what it showed (a hand over a card: the last reading stands, as the gate does);
- a corner is shown when most of the reads voting there found it (half of them keeps one
  already shown), under the name most of them gave; another name some of them gave is offered
  as its alternative (the one-tap swap);
- a corner a minority of the votes found is a *doubt*: never a card, reported for people to
  check.

A region read for the first time shows its one read at once: a changed region costs nothing
more and shows its cards as soon as today (`RegionReader` reads it in the frame it settles).
"""

from __future__ import annotations

import os
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from vision.inference.detection import Detection, Detections
from vision.table.gate import MIN_CHANGED, Signature, changed_pixels

REREAD_SHARE = 0.5  # of one CPU core, on average, that re-reads of settled regions may take
REREAD_SHARE_ENV = "GINTRAY_REREAD_SHARE"  # set by the doctor / the person for this computer
HISTORY = 7  # reads of a region kept for the vote
CONFIRM_READS = 5  # reads of a picture that held since: it is confirmed, no more re-reads
MAX_CREDIT_READS = 2.0  # an idle spell saves up at most this many reads of CPU time
PLACE_MARGIN = 1.0  # the picture around a corner: its box grown by this many box sizes a side
SAME_PLACE = 0.6  # two boxes whose centres are closer than this many box sizes: one place
# the picture around a place changed: this share of its signature pixels moved (the gate's
# `CHANGE_LEVEL`). A compressed video's noise moves up to 15 of the 644 pixels around a still
# card's index in the casino clip (2 %), an arm at the edge of the place 20-60, a hand or a card
# laid over it 100-600
PLACE_CHANGE_SHARE = 0.05


def reread_share() -> float:
    """The share of one CPU core re-reads may take: `REREAD_SHARE_ENV` when set (0 turns them
    off), else `REREAD_SHARE`; ValueError for a value that is not a number from 0 to 4."""
    text = os.environ.get(REREAD_SHARE_ENV, "").strip()
    if not text:
        return REREAD_SHARE
    try:
        share = float(text)
    except ValueError:
        raise ValueError(f"{REREAD_SHARE_ENV}={text!r}: a share of one CPU core expected, "
                         "e.g. 0.5") from None
    if not 0.0 <= share <= 4.0:
        raise ValueError(f"{REREAD_SHARE_ENV}={text!r}: must lie from 0 to 4")
    return share


@dataclass
class ReadBudget:
    """CPU time for re-reads: ``share`` of each second of camera time is earned (saved up to
    `MAX_CREDIT_READS` reads' worth), each re-read spends what it cost. ``clock`` measures the
    cost (process CPU time; a test gives its own)."""

    share: float = REREAD_SHARE
    clock: Callable[[], float] = time.process_time
    credit: float = 0.0
    _last_time: float | None = None
    _read_cost: float = 0.0  # the last re-read's CPU time

    def earn(self, now: float | None) -> None:
        """Camera time passed up to ``now`` (None: a frame without a time, nothing earned)."""
        if now is None:
            return
        if self._last_time is not None and now > self._last_time:
            cap = max(MAX_CREDIT_READS * self._read_cost, self.share)
            self.credit = min(cap, self.credit + self.share * (now - self._last_time))
        self._last_time = now

    @property
    def allows(self) -> bool:
        return self.share > 0 and self._last_time is not None and self.credit >= 0

    def spend(self, read: Callable[[], Detections]) -> Detections:
        """Run one re-read and charge its CPU time."""
        start = self.clock()
        found = read()
        self._read_cost = max(0.0, self.clock() - start)
        self.credit -= self._read_cost
        return found


@dataclass(frozen=True)
class PictureRead:
    """One read of a region: its detections (frame pixels), the frame's signature when read
    and the previous frame's (None: not known; the read is taken to have held still)."""

    detections: Detections
    picture: Signature
    before: Signature | None = None


@dataclass(frozen=True)
class Consensus:
    """What a region shows: the corners most reads agree on, and the doubts (corners a
    minority of the reads found)."""

    detections: Detections
    doubts: Detections


def _size(box: tuple[float, float, float, float]) -> float:
    return float(np.sqrt(max(box[2] - box[0], 1e-6) * max(box[3] - box[1], 1e-6)))


def _around(box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    grow = PLACE_MARGIN * _size(box)
    return (int(box[0] - grow), int(box[1] - grow), int(np.ceil(box[2] + grow)),
            int(np.ceil(box[3] + grow)))


def _same_picture(a: Signature, b: Signature, box: tuple[int, int, int, int]) -> bool:
    """Whether the picture around a place is the same in two signatures: fewer than
    `PLACE_CHANGE_SHARE` of its pixels (and `MIN_CHANGED`) changed, light drift taken out."""
    if a.pixels.shape != b.pixels.shape:
        return False
    before, after = a.cut(box), b.cut(box)
    return changed_pixels(before, after) < max(MIN_CHANGED, PLACE_CHANGE_SHARE * before.size)


@dataclass
class _Place:
    box: tuple[float, float, float, float]
    sightings: dict[int, Detection] = field(default_factory=dict)  # read number -> corner

    def holds(self, det: Detection) -> bool:
        reach = SAME_PLACE * max(_size(self.box), _size(det.box))
        return bool(np.hypot(det.center[0] - (self.box[0] + self.box[2]) / 2,
                             det.center[1] - (self.box[1] + self.box[3]) / 2) <= reach)


@dataclass
class ReadHistory:
    """The last `HISTORY` reads of one region and what they show (see the module docstring)."""

    reads: deque[PictureRead] = field(default_factory=lambda: deque(maxlen=HISTORY))
    shown: Consensus = field(default_factory=lambda: Consensus(Detections(), Detections()))

    def add(self, read: PictureRead) -> None:
        self.reads.append(read)

    def clear(self) -> None:
        self.reads.clear()
        self.shown = Consensus(Detections(), Detections())

    def consensus(self, now: Signature) -> Consensus:
        """The vote of the reads on the picture ``now`` (kept as what the region shows)."""
        places = self._places()
        shown: list[Detection] = []
        doubts: list[Detection] = []
        for place in places:
            around = _around(place.box)
            voters = [k for k, read in enumerate(self.reads)
                      if _same_picture(read.picture, now, around)
                      and (read.before is None or _same_picture(read.before, read.picture,
                                                                around))]
            was_shown = next((d for d in self.shown.detections if place.holds(d)), None)
            if not voters:  # nobody saw the picture that is there now: it keeps what it showed
                if was_shown is not None:
                    shown.append(was_shown)
                continue
            found = [place.sightings[k] for k in voters if k in place.sightings]
            if not found:
                continue
            if 2 * len(found) > len(voters) or (2 * len(found) == len(voters)
                                                 and was_shown is not None):
                shown.append(_named(found, list(place.sightings.values())))
            else:
                doubts.append(found[-1])
        self.shown = Consensus(Detections(shown).best_first(), Detections(doubts).best_first())
        return self.shown

    def _places(self) -> list[_Place]:
        """The places corners were found at, surest first; what is shown now is a place too
        (with no sightings if no read kept found it)."""
        places: list[_Place] = []
        sightings = [(k, det) for k, read in enumerate(self.reads) for det in read.detections]
        sightings.sort(key=lambda s: (-s[1].confidence, -s[0]))
        for k, det in sightings:
            place = next((p for p in places if p.holds(det)), None)
            if place is None:
                places.append(_Place(det.box, {k: det}))
            elif k not in place.sightings:
                place.sightings[k] = det
        for det in self.shown.detections:
            if not any(p.holds(det) for p in places):
                places.append(_Place(det.box))
        return places


def _ranked(found: list[Detection]) -> list[str]:
    """The names of a place's sightings, most often given first (ties: the surer name)."""
    names = Counter(d.card for d in found)
    trust = Counter[str]()
    for d in found:
        trust[d.card] += d.confidence
    return sorted(names, key=lambda c: (names[c], trust[c]), reverse=True)


def _named(found: list[Detection], everything: list[Detection]) -> Detection:
    """The corner most of the voting sightings named (ties: the surer name), the latest
    sighting of it, with an alternative: the runner-up name of the votes, else of every read
    kept of the place (a name the reads were torn between), else the namer's own runner-up."""
    name = _ranked(found)[0]
    best = next(d for d in reversed(found) if d.card == name)
    others = [c for c in _ranked(found) + _ranked(everything) if c != name]
    alternative = others[0] if others else best.alternative
    return Detection(best.card, best.box, best.confidence, alternative)
