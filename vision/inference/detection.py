"""What the card detector reports: one named corner index per detection."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Detection:
    """One corner index: card code ("7D", "TD"), box (x1, y1, x2, y2) in image pixels, score.

    `alternative` is the runner-up reading when the namer found it nearly as likely (a blurred
    club that may be a spade): the card to offer when people check this one.
    """

    card: str
    box: tuple[float, float, float, float]
    confidence: float
    alternative: str | None = None

    @property
    def center(self) -> tuple[float, float]:
        """Centre of the box in image pixels."""
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2, (y1 + y2) / 2)

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


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two x1, y1, x2, y2 boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
