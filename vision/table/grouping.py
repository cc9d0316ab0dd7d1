"""From corner detections to cards, and from cards to melds as the player laid them down.

Works on :class:`vision.inference.detection.Detections` (validated corner readings with
canonical card codes), whatever produced them: the detector, labelled frames, or a test.

- :func:`cards_from_detections` merges the corner indices of one card (a card shows up to two
  corners, diagonally opposite) and reports a card seen twice far apart.
- :func:`group_cards` links cards whose corner indices lie close together (a fan in a line or a
  stack by rank shows its indices a short step apart; separate melds lie a card's width apart),
  and reads each cluster of three or more as a group; smaller clusters are loose cards.
  A cluster that is not a meld is split along its fan into melds and loose cards when it can be.
  The groups as laid only choose among the arrangements of least deadwood
  (``scorer.arrange``: the rules engine owns deadwood and meld validity): where they leave
  more deadwood than the cards need (a run laid in two rows, a run's fifth card or a set's
  fourth a little apart, a shuffled fan), the engine's arrangement closest to them is read
  instead (``arranged_by_engine``, the groups as laid kept in ``laid``). The reader never fixes
  a group that is not a meld and never turns a spread it could not follow into deadwood.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorer import ScorerError, arrange, is_meld, parse_cards
from vision.inference.corner_pairing import PAIR_REACH, SAME_CARD_REACH, index_unit
from vision.inference.detection import Detection, Detections, detected_card
from vision.table.notes import NoteKind, Problem

# Geometry, in units of the typical corner index size u = sqrt(width * height) of its box.
LINK_REACH = 2.6  # cards whose nearest indices are closer than this belong to one group
# Two boxes with different names, the smaller this much inside the larger, are one corner index
# found twice (a KD's corner also read as KH); any value from 0.6 to 0.9 reads the same
# (vision/README.md)
ONE_CORNER_OVERLAP = 0.7
# ... and two boxes whose names one card may carry (`_confusable`) overlapping this much: one
# corner found twice, a little shifted (a KS corner also read KC, its box about half inside)
SAME_CORNER_OVERLAP = 0.3


@dataclass(frozen=True)
class SeenCard:
    """One physical card: its code, the corner boxes seen, best confidence, position, and the
    card it may be instead when the detector was in doubt (``alternative``)."""

    card: str
    boxes: tuple[tuple[float, float, float, float], ...]
    confidence: float
    center: tuple[float, float]
    alternative: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"card": self.card, "boxes": [[round(v, 1) for v in b] for b in self.boxes],
               "confidence": round(self.confidence, 3),
               "center": [round(self.center[0], 1), round(self.center[1], 1)]}
        if self.alternative:
            out["alternative"] = self.alternative
        return out


@dataclass
class Grouping:
    """A player's cards read into melds (``groups``, each one a meld, in fan order where kept
    as laid) and deadwood (``loose``). ``arranged_by_engine``: the groups as laid
    (``laid``) left more deadwood than the cards need, so ``groups`` and ``loose`` are the
    rules engine's least-deadwood arrangement closest to them."""

    groups: list[list[str]] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)
    arranged_by_engine: bool = False
    laid: list[list[str]] = field(default_factory=list)


def _box_center(box: Sequence[float]) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2], dtype=np.float64)


def cards_from_detections(
    detections: Detections | Iterable[Detection], min_confidence: float = 0.0
) -> tuple[list[SeenCard], list[Problem]]:
    """Merge corner detections into cards; return (cards, problems).

    Detections of one code within reach of a card diagonal are one card (its two corners).
    The same code seen again farther away is kept as a second card and reported as
    ``duplicate_card`` (two decks mixed, or a misread), never silently dropped.
    (Codes that are not playing cards, card backs and jokers, never become a `Detection`.)
    """
    kept = [(det.card, det.box, det.confidence, det.alternative)
            for det in one_name_a_corner(Detections.of(detections).at_least(min_confidence))]
    unit = index_unit(box for _, box, _, _ in kept)
    by_code: dict[str, list[tuple[tuple[float, ...], float, str | None]]] = {}
    for code, box, conf, alternative in kept:
        by_code.setdefault(code, []).append((box, conf, alternative))
    cards: list[SeenCard] = []
    support: list[float] = []  # each card's summed corner confidences
    problems: list[Problem] = []
    for code, sightings in sorted(by_code.items()):
        clusters = _cluster([_box_center(b) for b, _, _ in sightings], SAME_CARD_REACH * unit)
        # a card has at most two corners: a cluster with more is overlapping tiles/duplicates,
        # which is harmless; keep the best two boxes.
        for members in clusters:
            members.sort(key=lambda i: -sightings[i][1])
            boxes = tuple(sightings[i][0] for i in members[:2])
            centers = np.array([_box_center(b) for b in boxes])
            cards.append(SeenCard(code, boxes, max(sightings[i][1] for i in members),
                                  tuple(float(v) for v in centers.mean(axis=0)),
                                  alternative=next((sightings[i][2] for i in members
                                                    if sightings[i][2]), None)))  # surest first
            support.append(sum(sightings[i][1] for i in members))
    cards = one_name_a_card(cards, support, unit)
    for code, count in Counter(c.card for c in cards).items():
        if count > 1:
            problems.append(Problem(NoteKind.DUPLICATE_CARD, cards=(detected_card(code),),
                                    count=count))
    return (sorted(cards, key=lambda c: c.card),
            sorted(problems, key=lambda p: [c.code for c in p.cards]))


def _named_alike(a: SeenCard, b: SeenCard) -> bool:
    """The namer's runner-up for one of two cards is the other."""
    return a.alternative == b.card or b.alternative == a.card


def _one_card(a: SeenCard, b: SeenCard, unit: float) -> bool:
    """Whether two cards of different names are one card's corners: one index found twice
    (the boxes overlap by `SAME_CORNER_OVERLAP`) under the same rank in the same colour (a club
    taken for a spade: the namer rarely mistakes red for black) or names the namer was torn
    between; or two lone corners the namer was torn between, lying where a card's other corner
    lies (`PAIR_REACH` index sizes apart, diagonally: a card's two indices are offset both
    across and along it, cards laid in a row or a stack are not). Two lone corners of the same
    rank are not enough: a set shows them so (a real spread's 6D and 6H)."""
    alike = _named_alike(a, b)
    same = a.card[:-1] == b.card[:-1] and (a.card[-1] in "HD") == (b.card[-1] in "HD")
    if (alike or same) and any(_inside_share(p, q) >= SAME_CORNER_OVERLAP
                               for p in a.boxes for q in b.boxes):
        return True
    if not alike or len(a.boxes) != 1 or len(b.boxes) != 1:
        return False
    dx, dy = np.abs(_box_center(a.boxes[0]) - _box_center(b.boxes[0])) / unit
    return PAIR_REACH[0] <= float(np.hypot(dx, dy)) <= PAIR_REACH[1] and min(dx, dy) >= 1.0


def one_name_a_card(cards: Sequence[SeenCard], support: Sequence[float],
                    unit: float) -> list[SeenCard]:
    """Corners of one physical card read under two names (`_one_card`) are one card: the
    name with more support (summed corner confidences) is kept, the other becomes its
    alternative (the one-tap swap), the corners are the kept card's. Never two cards."""
    order = sorted(range(len(cards)), key=lambda i: -support[i])
    merged: dict[int, SeenCard] = {}
    taken: set[int] = set()
    for i in order:
        if i in taken:
            continue
        card = cards[i]
        for j in order:
            if j == i or j in taken or j in merged or cards[j].card == card.card:
                continue
            if _one_card(card, cards[j], unit):
                taken.add(j)
                boxes = card.boxes
                if len(boxes) == 1 and len(cards[j].boxes) == 1 and \
                        _inside_share(boxes[0], cards[j].boxes[0]) < SAME_CORNER_OVERLAP:
                    boxes = (*boxes, cards[j].boxes[0])  # its other corner
                center = np.mean([_box_center(b) for b in boxes], axis=0)
                name, alternative = _agreed_name(card, cards[j])
                card = SeenCard(name, boxes, card.confidence,
                                (float(center[0]), float(center[1])), alternative)
                break
        merged[i] = card
    return [merged[i] for i in sorted(merged)]


def _agreed_name(surer: SeenCard, other: SeenCard) -> tuple[str, str]:
    """The name of one card whose two corners were read under two names (``surer`` the better
    supported), and its alternative: the one name both corners allow (each its name or its
    runner-up) when there is exactly one, else the surer's. The casino's 5C read 5D/5C on
    one corner and 5C/5S on the other: both allow 5C, one 5D; the 4C read 4D/4C and 4S/4C."""
    common = {surer.card, surer.alternative} & {other.card, other.alternative} - {None}
    if len(common) == 1:
        name = common.pop()
        return name, surer.card if name != surer.card else other.card
    return surer.card, surer.alternative or other.card


def _inside_share(a: Sequence[float], b: Sequence[float]) -> float:
    """How much of the smaller of two boxes lies inside the other (0 to 1)."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return width * height / smaller if smaller > 0 else 0.0


def one_name_a_corner(detections: Iterable[Detection]) -> list[Detection]:
    """One corner index found twice under two names (two boxes, the smaller at least
    `ONE_CORNER_OVERLAP` inside the other) keeps the name the frame supports more: the larger
    sum of confidences over all of that name's detections (the card's other corner counts).
    The name left out becomes the kept detection's alternative when it has none, so people
    are offered it as a one-tap swap."""
    found = list(detections)
    support: Counter[str] = Counter()
    for det in found:
        support[det.card] += det.confidence
    winner_of: dict[int, int] = {}  # a dropped detection -> the one that kept its corner
    for i, a in enumerate(found):
        for j in range(i + 1, len(found)):
            b = found[j]
            if i in winner_of or j in winner_of or a.card == b.card:
                continue
            if _inside_share(a.box, b.box) >= ONE_CORNER_OVERLAP:
                a_wins = (support[a.card], a.confidence) >= (support[b.card], b.confidence)
                winner_of[j if a_wins else i] = i if a_wins else j
    kept = []
    for i, det in enumerate(found):
        if i in winner_of:
            continue
        lost = [found[k].card for k, w in winner_of.items() if w == i]
        if det.alternative is None and lost:
            det = Detection(det.card, det.box, det.confidence, lost[0])
        kept.append(det)
    return kept


def seen_twice(cards: Iterable[SeenCard]) -> list[str]:
    """Codes that appear as more than one card (seen twice far apart), sorted."""
    counts = Counter(card.card for card in cards)
    return sorted(code for code, n in counts.items() if n > 1)


def _cluster(points: Sequence[np.ndarray], reach: float) -> list[list[int]]:
    """Single-linkage clusters of points closer than ``reach`` (indices into points)."""
    parent = list(range(len(points)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            if np.linalg.norm(points[i] - points[j]) <= reach:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(points)):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: min(g))


def _card_distance(a: SeenCard, b: SeenCard) -> float:
    return min(float(np.linalg.norm(_box_center(p) - _box_center(q)))
               for p in a.boxes for q in b.boxes)


def clusters_of(cards: Sequence[SeenCard], unit: float | None = None) -> list[list[SeenCard]]:
    """Cards linked by nearby corner indices, each cluster ordered along its main direction."""
    if unit is None:
        unit = index_unit(b for c in cards for b in c.boxes)
    parent = list(range(len(cards)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(cards)):
        for j in range(i + 1, len(cards)):
            if _card_distance(cards[i], cards[j]) <= LINK_REACH * unit:
                parent[find(i)] = find(j)
    members: dict[int, list[SeenCard]] = {}
    for i, card in enumerate(cards):
        members.setdefault(find(i), []).append(card)
    ordered = [_order_along_axis(group) for group in members.values()]
    ordered.sort(key=lambda g: (min(c.center[0] for c in g), min(c.center[1] for c in g)))
    return ordered


def _anchor(card: SeenCard, others: Sequence[SeenCard]) -> np.ndarray:
    """The card's index nearest to the other cards (the one the fan or stack lines up)."""
    other_points = [_box_center(b) for c in others for b in c.boxes]
    if not other_points:
        return _box_center(card.boxes[0])
    return min((_box_center(b) for b in card.boxes),
               key=lambda p: min(float(np.linalg.norm(p - q)) for q in other_points))


def _order_along_axis(group: list[SeenCard]) -> list[SeenCard]:
    if len(group) < 2:
        return group
    points = np.array([_anchor(c, [o for o in group if o is not c]) for c in group])
    centered = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(centered, full_matrices=False)
    axis = vt[0] if vt[0][0] + 0.5 * vt[0][1] >= 0 else -vt[0]
    return [group[i] for i in np.argsort(centered @ axis, kind="stable")]


def _is_meld(codes: Sequence[str]) -> bool:
    """The rules engine's verdict (a code seen twice is no meld)."""
    try:
        return bool(is_meld(parse_cards(codes)))
    except ScorerError:
        return False


def split_fan(codes: Sequence[str]) -> tuple[list[list[str]], list[str]] | None:
    """Split an ordered fan into consecutive melds and loose cards, fewest loose cards first.

    Returns None when no split contains a meld.
    """
    n = len(codes)
    best: list[tuple[int, list[list[str]], list[str]] | None] = [None] * (n + 1)
    best[0] = (0, [], [])
    for end in range(1, n + 1):
        options = []
        prev = best[end - 1]
        if prev is not None:
            options.append((prev[0] + 1, prev[1], [*prev[2], codes[end - 1]]))
        for start in range(0, end - 2):
            head = best[start]
            segment = list(codes[start:end])
            if head is not None and _is_meld(segment):
                options.append((head[0], [*head[1], segment], head[2]))
        best[end] = min(options, key=lambda o: (o[0], len(o[1]))) if options else None
    result = best[n]
    if result is None or not result[1]:
        return None
    return result[1], result[2]


def laid_groups(cards: Sequence[SeenCard],
                unit: float | None = None) -> tuple[list[list[str]], list[str]]:
    """One player's cards as they lie: (melds laid together, in fan order; the other cards)."""
    groups: list[list[str]] = []
    loose: list[str] = []
    for cluster in clusters_of(cards, unit):
        codes = [c.card for c in cluster]
        if len(codes) < 3:
            loose.extend(codes)
        elif _is_meld(codes):
            groups.append(codes)
        elif (split := split_fan(codes)) is None:  # laid together, no meld: no group
            loose.extend(codes)
        else:
            groups.extend(split[0])
            loose.extend(split[1])
    return groups, loose


def group_cards(cards: Sequence[SeenCard], unit: float | None = None) -> Grouping:
    """One player's cards read into melds and deadwood: as laid down where that leaves the
    least deadwood, else the engine's least-deadwood arrangement closest to the layout."""
    laid, loose = laid_groups(cards, unit)
    try:
        best = arrange([c for g in laid for c in g] + loose, laid)
    except ScorerError:  # a code seen twice: reported as duplicate_card, kept as laid
        return Grouping(laid, loose)
    if best.as_laid:
        return Grouping(laid, loose)
    return Grouping(groups=[[c.code for c in m] for m in best.melds],
                    loose=[c.code for c in best.deadwood_cards],
                    arranged_by_engine=True, laid=laid)
