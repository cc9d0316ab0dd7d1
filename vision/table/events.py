"""Typed events the table reader emits (consumed by the web app).

Every event has ``kind`` (a short machine name) and ``to_json()``; none of them is a fact about
the game: the web app shows them as proposals that players confirm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorer import Card, codes
from vision.inference.detection import Detections
from vision.table.notes import Problem

if TYPE_CHECKING:  # the grouping (and numpy) only where a table is read
    from vision.table.grouping import SeenCard


@dataclass(frozen=True)
class HandDealt:
    """A fresh deal was seen: ``up_card`` lies alone in the tray's up-card slot (the knock card).
    ``alternative``: the card the detector's runner-up reading says it may be instead. Both are
    the engine's ``Card``, as the detector parsed them (`detected_card`)."""

    up_card: Card
    confidence: float = 1.0
    frame_index: int | None = None
    alternative: Card | None = None
    kind: str = field(default="hand_dealt", init=False)

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "up_card": self.up_card.code,
               "confidence": round(self.confidence, 3), "frame_index": self.frame_index}
        if self.alternative:
            out["alternative"] = self.alternative.code
        return out


@dataclass(frozen=True)
class SpreadRead:
    """One player's cards read into melds (``groups``) and deadwood (``loose``), as the
    engine's ``Card``s the detector parsed (`spreads.spread_read` looks them up once).

    ``layoffs`` are the cards this player (the defender) placed on the knocker's melds.
    ``arranged_by_engine``: the groups as laid on the table (``laid``) left more deadwood than
    the cards need (a run's fifth card apart, a run in two rows), so ``groups`` and ``loose``
    are the rules engine's least-deadwood arrangement closest to them.
    """

    player: str
    groups: list[list[Card]]
    loose: list[Card]
    confidence: float
    layoffs: list[Card] = field(default_factory=list)
    arranged_by_engine: bool = False
    laid: list[list[Card]] = field(default_factory=list)
    kind: str = field(default="spread_read", init=False)

    @property
    def layout(self) -> list[list[Card]]:
        """The melds as they lie on the table (what the engine's ``layout`` takes)."""
        return [list(g) for g in (self.laid if self.arranged_by_engine else self.groups)]

    @property
    def cards(self) -> list[Card]:
        """Every card of this spread that is this player's own (groups + loose + layoffs)."""
        return [c for g in self.groups for c in g] + list(self.loose) + list(self.layoffs)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player,
                "groups": [codes(g) for g in self.groups],
                "loose": codes(self.loose), "layoffs": codes(self.layoffs),
                "arranged_by_engine": self.arranged_by_engine,
                **({"laid": [codes(g) for g in self.laid]} if self.arranged_by_engine else {}),
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class CameraLost:
    """The camera stopped delivering frames; the reader keeps retrying with backoff."""

    reason: str
    retry_in: float = 0.0
    kind: str = field(default="camera_lost", init=False)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "retry_in": round(self.retry_in, 2)}


@dataclass(frozen=True)
class CameraBack:
    """The camera delivers frames again after a :class:`CameraLost`."""

    downtime: float = 0.0
    kind: str = field(default="camera_back", init=False)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "downtime": round(self.downtime, 2)}


@dataclass(frozen=True)
class TableRead:
    """The whole table as read: knock card, each player's spread, problems for people to fix.

    ``knocker`` is the player who spread first (None when unknown, e.g. a single photo).
    ``cards`` lists every card seen with its position, for drawing on the camera picture.
    ``mirrored``: the photo was a mirror image and was read flipped back (its JSON says so
    only then).
    """

    up_card: Card | None  #: the engine's card, as the detector parsed it (`detected_card`)
    spreads: dict[str, SpreadRead]
    problems: list[Problem]
    confidence: float
    knocker: str | None = None
    cards: tuple[SeenCard, ...] = ()
    mirrored: bool = False  # read in the photo's mirror image (`vision.inference.mirror`)
    kind: str = field(default="table_read", init=False)

    def hands(self) -> dict[str, list[Card]]:
        """Each player's ten (or eleven) cards, layoffs counted with the defender who owned them."""
        return {player: spread.cards for player, spread in self.spreads.items()}

    def layout(self) -> dict[str, list[list[Card]]]:
        """Each player's melds as they lie on the table, for the engine's ``layout``: it only
        chooses among arrangements that score the same (``scorer.score_hand``)."""
        return {player: spread.layout for player, spread in self.spreads.items()}

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "up_card": self.up_card.code if self.up_card else None,
                "knocker": self.knocker,
                "spreads": {p: s.to_json() for p, s in self.spreads.items()},
                "problems": [p.to_json() for p in self.problems],
                "confidence": round(self.confidence, 3),
                "cards": [c.to_json() for c in self.cards],
                **({"mirrored": True} if self.mirrored else {})}


Event = HandDealt | SpreadRead | CameraLost | CameraBack | TableRead


@dataclass(frozen=True)
class FrameRead:
    """What the reader made of one camera frame: the detections it used, in the frame's pixels
    (the detector's tiles merged), and the events the frame caused (often none). The web app
    draws the one (`vision.table.picture.draw_detections`) and records the other. ``doubts``:
    corners a minority of the reads of a still picture found (`vision.table.confirm`), never
    cards: for people to check."""

    index: int
    detections: Detections = field(default_factory=Detections)
    events: tuple[Event, ...] = ()
    doubts: Detections = field(default_factory=Detections)
