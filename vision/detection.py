"""What the card detector reports: one named corner index per detection."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Detection:
    """One corner index: card code ("7D", "TD"), box (x1, y1, x2, y2) in image pixels, score."""

    card: str
    box: tuple[float, float, float, float]
    confidence: float

    @property
    def center(self) -> tuple[float, float]:
        """Centre of the box in image pixels."""
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    def to_json(self) -> dict:
        """{"card", "box", "confidence"} as `gintray detect --json` prints it."""
        return {
            "card": self.card,
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 3),
        }
