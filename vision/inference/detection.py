"""What the card detector reports: one named corner index per detection, in a validated
container.

Card codes enter vision here and only here: `card_code` is the one parser (the rules engine's
`scorer.parse_card`), so ``"10C"``, ``"tc"`` and ``"TC"`` are all ``"TC"`` from here on, and a
malformed code is a ValueError where it comes in, not a card that quietly goes missing later.
`detected_card` gives the engine's `scorer.Card` of a code that came in this way (a look-up,
not a second parse): what the reader's events carry to the web app.
`Detections` is what crosses module lines (detector, tiles, reader, picture, evaluation), as
supervision's ``Detections`` does; `Detections.from_labels` is the adapter for labelled corners
(data sets, the demo's ground truth, test doubles).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from scorer import DECK, Card, CardError, parse_card

Box = tuple[float, float, float, float]


def card_code(text: str) -> str:
    """The canonical code of a card (``"10C"``, ``"tc"`` -> ``"TC"``) by the rules engine's
    parser; raises ValueError (`scorer.CardError`) for anything that is not a playing card."""
    return parse_card(text).code


_DECK_BY_CODE: dict[str, Card] = {card.code: card for card in DECK}


def detected_card(code: str) -> Card:
    """The engine's `Card` of a code a `Detection` holds (canonical already, by `card_code`):
    a look-up, no parsing; a KeyError for a code that did not come in through `card_code`."""
    return _DECK_BY_CODE[code]


def face_card_code(text: str | None) -> str | None:
    """`card_code`, or None for a name that is no playing card (a card back, a joker, None):
    for label sets that name those too."""
    if not text:
        return None
    try:
        return card_code(text)
    except CardError:
        return None


@dataclass(frozen=True)
class Detection:
    """One corner index: card code ("7D", "TD"), box (x1, y1, x2, y2) in image pixels, score.

    `alternative` is the runner-up reading when the namer found it nearly as likely (a blurred
    club that may be a spade): the card to offer when people check this one; None otherwise.
    `alternative_confidence` is that reading's score on the same scale (found x named), where
    the detector gives it (None: not known); the live reader's votes weigh names by it.
    Validated on construction: both codes are brought to canonical form (`card_code`), the box
    must have x1 < x2 and y1 < y2, the confidence must lie in [0, 1]; ValueError otherwise.
    """

    card: str
    box: Box
    confidence: float
    alternative: str | None = None
    alternative_confidence: float | None = None

    def __post_init__(self) -> None:
        try:
            card = card_code(self.card)
            alternative = None if self.alternative is None else card_code(self.alternative)
        except CardError as error:
            raise ValueError(f"bad detection: {error}") from None
        try:
            box = tuple(float(v) for v in self.box)
        except (TypeError, ValueError):
            raise ValueError(f"bad detection box {self.box!r}: four numbers expected") from None
        if len(box) != 4 or not all(math.isfinite(v) for v in box):
            raise ValueError(f"bad detection box {self.box!r}: four finite numbers expected")
        if not (box[0] < box[2] and box[1] < box[3]):
            raise ValueError(f"bad detection box {self.box!r}: needs x1 < x2 and y1 < y2")
        confidence = float(self.confidence)
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"bad detection confidence {self.confidence!r}: must be in [0, 1]")
        runner_up = self.alternative_confidence
        if runner_up is not None:
            runner_up = float(runner_up)
            if alternative is None or not 0.0 <= runner_up <= confidence:
                raise ValueError(f"bad detection alternative confidence "
                                 f"{self.alternative_confidence!r}: "
                                 "an alternative's, at most the card's own confidence")
        object.__setattr__(self, "alternative_confidence", runner_up)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "alternative", alternative)
        object.__setattr__(self, "box", box)
        object.__setattr__(self, "confidence", confidence)

    @property
    def center(self) -> tuple[float, float]:
        """Centre of the box in image pixels."""
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    def moved(self, box: Sequence[float]) -> Detection:
        """The same reading with another box (tiles back to frame pixels)."""
        return Detection(self.card, tuple(box), self.confidence, self.alternative,  # type: ignore[arg-type]
                         self.alternative_confidence)

    def to_json(self) -> dict:
        """{"card", "box", "confidence"} (and "alternative" when there is one) as
        `gintray detect --json` prints it."""
        out = {
            "card": self.card,
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 3),
        }
        if self.alternative:
            out["alternative"] = self.alternative
        return out


class Detections(Sequence[Detection]):
    """The detections of one image: an immutable sequence of `Detection`, in the order given
    (the detector gives them best first). Anything else in it is a TypeError."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[Detection] = ()) -> None:
        found = tuple(items)
        for item in found:
            if not isinstance(item, Detection):
                raise TypeError(f"Detections holds Detection objects, not {type(item).__name__}")
        self._items = found

    @classmethod
    def of(cls, items: Iterable[Detection] | None) -> Detections:
        """``items`` as Detections (a Detections passes through; None is no detections)."""
        if isinstance(items, Detections):
            return items
        return cls(items or ())

    @classmethod
    def from_labels(
        cls,
        labels: Iterable[tuple[str, Sequence[float]] | tuple[str, Sequence[float], float]],
    ) -> Detections:
        """Labelled corners ``(name, box)`` or ``(name, box, confidence)`` (confidence 1 when
        left out) as detections. Names that are no playing card (``BACK``, jokers) are left
        out, as the reader ignores them; a malformed box is a ValueError."""
        out = []
        for label in labels:
            name, box, *rest = label
            code = face_card_code(name)
            if code is not None:
                out.append(Detection(code, tuple(box), rest[0] if rest else 1.0))  # type: ignore[arg-type]
        return cls(out)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Detection]:
        return iter(self._items)

    @overload
    def __getitem__(self, index: int) -> Detection: ...

    @overload
    def __getitem__(self, index: slice) -> Detections: ...

    def __getitem__(self, index: int | slice) -> Detection | Detections:
        if isinstance(index, slice):
            return Detections(self._items[index])
        return self._items[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Detections):
            return self._items == other._items
        if isinstance(other, (tuple, list)):
            return list(self._items) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._items)

    def __repr__(self) -> str:
        return f"Detections({list(self._items)!r})"

    def best_first(self) -> Detections:
        """The same detections, most confident first (stable for ties)."""
        return Detections(sorted(self._items, key=lambda d: -d.confidence))

    def at_least(self, min_confidence: float) -> Detections:
        """Only the detections at least ``min_confidence`` sure."""
        return Detections(d for d in self._items if d.confidence >= min_confidence)

    @property
    def cards(self) -> tuple[str, ...]:
        """The card code of each detection, in order."""
        return tuple(d.card for d in self._items)

    def to_json(self) -> list[dict]:
        return [d.to_json() for d in self._items]


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two x1, y1, x2, y2 boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
