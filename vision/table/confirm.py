"""A reading is confirmed, not trusted once: the reads of one picture vote.

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
  already shown), under the name best supported by the namer's two best scores summed over
  those reads (not one vote a read's winner: a near-even split flips the winner read by read);
  another name some of them gave is offered as its alternative (the one-tap swap). A shown name
  changes only when another leads it by a margin (`KEEP_SHARE`); a new corner torn between two
  names (`TORN_SHARE`) is a doubt until one leads, never a card;
- a corner a minority of the votes found is a *doubt*: never a card, reported for people to
  check;
- a corner the vote showed from at least `HOLD_READS` reads is *held*: it stays shown while the
  picture of its index is the one it was confirmed in, even when later reads of the region
  miss it (a caption fading in beside it, a little more light: a corner near the detector's
  threshold comes and goes with any change to the picture it is read in). It is voted on
  again once its index changes (a hand over it, the card taken away or moved).

A region read for the first time shows its one read at once: a changed region costs nothing
more and shows its cards as soon as today (`RegionReader` reads it in the frame it settles);
but while re-reads will come, a corner that one read is unsure of (`SURE_CONFIDENCE`,
`LONE_SHARE`) waits for a second read as a doubt. A sure corner (the demo's cards) is not
delayed: a confirmation would need another frame (the same frame read again gives the same
pixels), half a second at the demo's 2 frames a second.
"""

from __future__ import annotations

import os
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.inference.detection import Detection, Detections
from vision.table.gate import CHANGE_LEVEL, MIN_CHANGED, Signature, changed_pixels

REREAD_SHARE = 0.5  # of one CPU core, on average, that re-reads of settled regions may take
REREAD_SHARE_ENV = "GINTRAY_REREAD_SHARE"  # set by the doctor / the person for this computer
HISTORY = 7  # reads of a region kept for the vote
CONFIRM_READS = 5  # reads of a picture that held since: it is confirmed, no more re-reads
MAX_CREDIT_READS = 2.0  # an idle spell saves up at most this many reads of CPU time
# recorded footage: a re-read is charged this many CPU seconds for each corner-finder pass it
# made (`CardDetector.finder_passes`; one pass a read for a detector that does not count),
# whatever it took: one 640 px pass, one thread, on the AMD EPYC the figures are measured on
# (a read's CPU over 24 frames of the two real clips, 1-10 passes each: 0.041 s a pass), so
# the default half a core buys the same reads on every computer
PASS_SECONDS = 0.04
PLACE_MARGIN = 1.0  # the picture around a corner: its box grown by this many box sizes a side
SAME_PLACE = 0.6  # two boxes whose centres are closer than this many box sizes: one place
# the picture around a place changed: this share of its signature pixels moved (the gate's
# `CHANGE_LEVEL`). A compressed video's noise moves up to 15 of the 644 pixels around a still
# card's index in the casino clip (2 %), an arm at the edge of the place 20-60, a hand or a card
# laid over it 100-600
PLACE_CHANGE_SHARE = 0.05
# a runner-up name with this share of the leading name's summed score (`_scores`): the corner
# is torn between them. A new corner so torn is a doubt, not a card, until one name leads by
# this margin (a corner already shown stays a card, its other name the swap). The real dev
# photos' 6C lying upside down beside a spade pip: 6S/6C 0.78-0.98 of each other read by read
# over 30 noisy copies, 0.91 summed
TORN_SHARE = 0.7
# the margin before a shown name may change: it is kept while its summed score is this share
# of the leading name's (the casino clip's 5C first read 5S: a wider margin, 0.7-0.85, keeps
# the 5S two frames longer)
KEEP_SHARE = 0.9
# a new corner one read alone found, while re-reads of its picture will come, waits for one
# as a doubt when it is unsure: its confidence under SURE_CONFIDENCE (the detector keeps 0.25
# and up) or its runner-up name at least LONE_SHARE as likely. The real dev photo 12_48_18 with
# webcam noise: an 8D found at 0.28 in the first read and by few reads after it was shown,
# then dropped. The casino clip: the 5C first read 5S (5C over half as likely) was shown 6
# frames (LONE_SHARE 0.4-0.55 alike; at 0.4 the 4C waits 12 frames, 5 at 0.5)
SURE_CONFIDENCE = 0.35
LONE_SHARE = 0.5
HOLD_READS = 3  # reads of one picture that found a shown corner: held while its index holds
INDEX_RIM = 0.15  # of a corner box's width and height a side: the rim around the glyphs
INDEX_LIGHT_DRIFT = 1.25  # light on a held index may change this much (either way) and match


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
    cost (process CPU time; a test gives its own); ``pass_seconds`` set (`counted_in_passes`),
    each re-read is charged that for each corner-finder pass it made instead, whatever it
    took: the budget is counted in detector passes, so recorded footage is re-read at the
    same frames on any computer, however loaded."""

    share: float = REREAD_SHARE
    clock: Callable[[], float] = time.process_time
    credit: float = 0.0
    pass_seconds: float | None = None
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

    def counted_in_passes(self, pass_seconds: float = PASS_SECONDS) -> None:
        """Charge each re-read ``pass_seconds`` a finder pass from now on, not its measured
        CPU time (a recorded clip: the same reads on every computer; the share stays)."""
        self.pass_seconds = pass_seconds

    def spend(self, read: Callable[[], Detections],
              passes: Callable[[], int | None] | None = None) -> Detections:
        """Run one re-read and charge its CPU time, or (`counted_in_passes`) its passes:
        ``passes`` says how many the detector has made so far (None: it does not count; the
        read is one pass)."""
        if self.pass_seconds is not None:
            before = passes() if passes is not None else None
            found = read()
            after = passes() if passes is not None else None
            made = after - before if before is not None and after is not None else 1
            self._read_cost = self.pass_seconds * max(1, made)
        else:
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


@dataclass(frozen=True)
class _ChangeMap:
    """Where two signatures of a frame differ (light drift taken out over the whole frame),
    summed for any box at once (an integral image): is the picture around a place the same?"""

    sums: np.ndarray | None  # None: the signatures differ in size (a new camera): all changed
    scale: float

    @classmethod
    def between(cls, before: Signature, after: Signature) -> _ChangeMap:
        if before.pixels.shape != after.pixels.shape:
            return cls(None, after.scale)
        gain = float(before.pixels.mean()) / max(float(after.pixels.mean()), 1.0)
        moved = cv2.absdiff(cv2.multiply(after.pixels, gain), before.pixels)
        changed = cv2.threshold(moved, CHANGE_LEVEL, 1, cv2.THRESH_BINARY)[1]
        return cls(cv2.integral(changed.astype(np.uint8)), after.scale)

    def same(self, boxes: np.ndarray) -> np.ndarray:
        """For each box (N x 4, frame pixels): fewer than `PLACE_CHANGE_SHARE` (and
        `MIN_CHANGED`) of its pixels changed."""
        if self.sums is None:
            return np.zeros(len(boxes), bool)
        h, w = self.sums.shape[0] - 1, self.sums.shape[1] - 1
        b = np.round(boxes * self.scale).astype(np.int64)  # clipped as `Signature.cut` clips
        x1, y1 = np.clip(b[:, 0], 0, w - 1), np.clip(b[:, 1], 0, h - 1)
        x2 = np.maximum(x1 + 1, np.minimum(b[:, 2], w))
        y2 = np.maximum(y1 + 1, np.minimum(b[:, 3], h))
        s = self.sums
        changed = s[y2, x2] - s[y1, x2] - s[y2, x1] + s[y1, x1]
        return changed < np.maximum(MIN_CHANGED, PLACE_CHANGE_SHARE * (x2 - x1) * (y2 - y1))


def _index_holds(before: Signature, after: Signature,
                 box: tuple[float, float, float, float]) -> bool:
    """Whether a corner index shows the same picture in two frames: under `PLACE_CHANGE_SHARE`
    of its signature pixels moved more than the gate's `CHANGE_LEVEL`, the light on the index
    itself matched within `INDEX_LIGHT_DRIFT` (a caption or a lamp elsewhere in the frame moves
    the frame's mean, not the index's; a card taken away leaves felt no gain makes white). The
    index's glyphs alone (its box less `INDEX_RIM` a side), not the place around it that the
    vote watches: the dealer's clip's caption frame fades in across the top rim of the 7C's
    box, and a hand beside a card leaves it there; a hand over the index, a card laid on it,
    the card taken or moved change the glyphs."""
    if before.pixels.shape != after.pixels.shape:
        return False
    x1, y1, x2, y2 = box
    rim_x, rim_y = INDEX_RIM * (x2 - x1), INDEX_RIM * (y2 - y1)
    glyphs = (x1 + rim_x, y1 + rim_y, x2 - rim_x, y2 - rim_y)
    then, now = before.cut(glyphs), after.cut(glyphs)
    changed = changed_pixels(then, now, max_drift=INDEX_LIGHT_DRIFT)
    return changed < max(MIN_CHANGED, PLACE_CHANGE_SHARE * now.size)


@dataclass
class _Place:
    """Where a corner was found: the surest sighting's box, and each read's sighting there."""

    box: tuple[float, float, float, float]
    sightings: dict[int, Detection] = field(default_factory=dict)  # read number -> corner


def _holding(places: list[_Place], corners: list[Detection]) -> np.ndarray:
    """places x corners: whether each corner lies at each place (centres closer than
    `SAME_PLACE` of the larger box's size)."""
    if not places or not corners:
        return np.zeros((len(places), len(corners)), bool)
    boxes = np.array([p.box for p in places], np.float64)
    found = np.array([d.box for d in corners], np.float64)

    def centres_and_sizes(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        wh = np.maximum(b[:, 2:] - b[:, :2], 1e-6)
        return (b[:, :2] + b[:, 2:]) / 2, np.sqrt(wh[:, 0] * wh[:, 1])

    (pc, ps), (fc, fs) = centres_and_sizes(boxes), centres_and_sizes(found)
    distance = np.linalg.norm(pc[:, None] - fc[None], axis=2)
    return distance <= SAME_PLACE * np.maximum(ps[:, None], fs[None])


@dataclass(frozen=True)
class _Hold:
    """A corner the vote confirmed and the picture it was confirmed in."""

    corner: Detection
    picture: Signature


@dataclass
class ReadHistory:
    """The last `HISTORY` reads of one region and what they show (see the module docstring)."""

    reads: deque[PictureRead] = field(default_factory=lambda: deque(maxlen=HISTORY))
    shown: Consensus = field(default_factory=lambda: Consensus(Detections(), Detections()))
    # where each read's picture moved from the frame before it (None: taken to be still)
    _moved: deque[_ChangeMap | None] = field(default_factory=lambda: deque(maxlen=HISTORY))
    _read_places: list[_Place] | None = None  # the places of the reads kept (None: to find)
    _holds: list[_Hold] = field(default_factory=list)  # confirmed corners (`HOLD_READS`)

    def add(self, read: PictureRead) -> None:
        self.reads.append(read)
        self._moved.append(None if read.before is None
                           else _ChangeMap.between(read.before, read.picture))
        self._read_places = None

    def clear(self) -> None:
        self.reads.clear()
        self._moved.clear()
        self._read_places = None
        self._holds.clear()
        self.shown = Consensus(Detections(), Detections())

    def consensus(self, now: Signature,
                  on_face: Callable[[tuple[float, float, float, float]], bool] | None = None,
                  rereads: bool = False) -> Consensus:
        """The vote of the reads on the picture ``now`` (kept as what the region shows).
        ``on_face`` says whether a card face lies around a box in the frame now (None: not
        asked): a shown corner no read saw as it is now stays only where one does.
        ``rereads``: more reads of this picture will come (the reader re-reads it in idle
        time): a new corner one read alone found under `SURE_CONFIDENCE`, or with its runner-up
        name `LONE_SHARE` as likely, waits for one as a doubt."""
        since = [_ChangeMap.between(read.picture, now) for read in self.reads]
        before = list(self.shown.detections)
        places = self._places()
        holds = _holding(places, before)
        held = holds.any(axis=0)  # shown corners no read kept found: places of their own
        places += [_Place(d.box) for d, h in zip(before, held, strict=True) if not h]
        holds = np.vstack([holds, np.eye(len(before), dtype=bool)[~held]])
        around = np.array([_around(place.box) for place in places], np.float64).reshape(-1, 4)
        votes = np.zeros((len(self.reads), len(places)), bool)  # read k votes at place i
        for k, (read, moved) in enumerate(zip(self.reads, self._moved, strict=True)):
            # a read votes where its picture is the one there now and was still: still in its
            # own frame, or the same in a later frame (a read taken while a hand swept past
            # elsewhere, or just left the place, saw the place as it is when it holds later)
            still = True if moved is None or read.picture is not now else moved.same(around)
            votes[k] = since[k].same(around) & still
        shown: list[Detection] = []
        doubts: list[Detection] = []
        confirmed: list[Detection] = []
        for i, place in enumerate(places):
            voters = np.flatnonzero(votes[:, i]).tolist()
            was_shown = next((before[j] for j in np.flatnonzero(holds[i])), None)
            if not voters:  # nobody saw the picture that is there now: it keeps what it showed
                if was_shown is not None and was_shown not in shown and (
                        on_face is None or on_face(was_shown.box)):  # but bare table: gone
                    shown.append(was_shown)
                continue
            found = [place.sightings[k] for k in voters if k in place.sightings]
            if not found:
                continue
            if 2 * len(found) > len(voters) or (2 * len(found) == len(voters)
                                                 and was_shown is not None):
                corner, torn = _named(found, list(place.sightings.values()), was_shown)
                unsure = rereads and len(voters) == 1 and (
                    corner.confidence < SURE_CONFIDENCE or (corner.alternative_confidence or 0.0)
                    >= LONE_SHARE * corner.confidence)
                if was_shown is None and (torn or unsure):
                    doubts.append(corner)  # no card until a name leads / a read confirms it
                    continue
                shown.append(corner)
                if len(found) >= HOLD_READS:
                    confirmed.append(shown[-1])
            else:
                doubts.append(found[-1])
        shown, doubts = self._hold(confirmed, shown, doubts, now)
        self.shown = Consensus(Detections(shown).best_first(), Detections(doubts).best_first())
        return self.shown

    def _hold(self, confirmed: list[Detection], shown: list[Detection], doubts: list[Detection],
              now: Signature) -> tuple[list[Detection], list[Detection]]:
        """The vote's corners and doubts with the held corners whose place is as it was when
        they were confirmed put back (a doubt at their place dropped); the holds renewed:
        ``confirmed`` now, the others kept while their place holds."""
        kept = [hold for hold in self._holds
                if not _holding([_Place(hold.corner.box)], confirmed).any()]
        kept = [hold for hold in kept if _index_holds(hold.picture, now, hold.corner.box)]
        for hold in kept:
            place = [_Place(hold.corner.box)]
            if not _holding(place, shown).any():
                shown.append(hold.corner)
                doubts = [d for d in doubts if not _holding(place, [d])[0, 0]]
        self._holds = kept + [_Hold(corner, now) for corner in confirmed]
        return shown, doubts

    def _places(self) -> list[_Place]:
        """The places corners were found at in the reads kept, surest first (a copy)."""
        if self._read_places is None:
            sightings = [(k, det) for k, read in enumerate(self.reads)
                         for det in read.detections]
            sightings.sort(key=lambda s: (-s[1].confidence, -s[0]))
            places: list[_Place] = []
            for k, det in sightings:
                at = np.flatnonzero(_holding(places, [det])[:, 0])
                if not len(at):
                    places.append(_Place(det.box, {k: det}))
                else:
                    places[int(at[0])].sightings.setdefault(k, det)
            self._read_places = places
        return list(self._read_places)


def _scores(found: list[Detection]) -> Counter[str]:
    """Each name's summed score over a place's sightings: a sighting gives its card its
    confidence and its runner-up its `alternative_confidence` (the namer's two best readings,
    found x named), so a corner the namer is torn over shows as torn however the reads'
    winners fall."""
    scores = Counter[str]()
    for d in found:
        scores[d.card] += d.confidence
        if d.alternative is not None and d.alternative_confidence is not None:
            scores[d.alternative] += d.alternative_confidence
    return scores


def _ranked(found: list[Detection]) -> list[str]:
    """The names of a place's sightings, best supported first (`_scores`; ties: most often
    the winner)."""
    scores = _scores(found)
    names = Counter(d.card for d in found)
    return sorted(scores, key=lambda c: (scores[c], names[c]), reverse=True)


def _named(found: list[Detection], everything: list[Detection],
           shown: Detection | None = None) -> tuple[Detection, bool]:
    """The corner the voting sightings name, and whether they are torn over it. The name is
    the best supported (`_scores`), but the name ``shown`` there keeps its place while it has
    `KEEP_SHARE` of the leader's score (a margin before a shown name may change: a near-even
    split never flips it); torn: another name has `TORN_SHARE` of the name's score. The corner
    is the latest sighting of the name (a name only ever a runner-up: the latest sighting,
    renamed, its score the name's mean), with an alternative: the runner-up name of the
    votes, else of every read kept of the place, else the namer's own runner-up."""
    scores = _scores(found)
    ranked = _ranked(found)
    name = ranked[0]
    if shown is not None and scores[shown.card] >= KEEP_SHARE * scores[name]:
        name = shown.card
    torn = any(scores[c] >= TORN_SHARE * scores[name] for c in ranked if c != name)
    others = [c for c in ranked + _ranked(everything) if c != name]
    best = next((d for d in reversed(found) if d.card == name), None)
    if best is None:  # kept by the margin though the latest reads' winners name another
        latest = found[-1]
        mean = min(1.0, scores[name] / len(found))
        return Detection(name, latest.box, mean, latest.card,
                         min(mean, latest.confidence)), torn
    alternative = others[0] if others else best.alternative
    runner_up = (best.alternative_confidence if alternative == best.alternative else None)
    return Detection(best.card, best.box, best.confidence, alternative, runner_up), torn
