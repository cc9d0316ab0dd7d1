"""What crosses into a table's records, as types: a proposed hand result (``Proposal``), the
camera's notes on it (``Problem``), the cards it doubts (``Doubt``) and where a hand stands
(``Phase``); how it ended is the rules engine's ``Outcome``.

A proposal is built once, from a tablet's form (``Proposal.from_request``), from the camera's
reading (``webui.table.camera_clerk``) or a stored event (``Proposal.from_json``), and written as
the same JSON the events have always held (``to_json``), so old databases still read. The
reader's notes are the reader's own type (``vision.table.notes.Problem``), stored as JSON; the
cards it doubts are read from them (``Proposal.doubts``), never kept twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from vision.table.notes import NoteKind, Problem, problems_from_json
from webui.store import engine
from webui.store.engine import Card, codes, stored_cards

PLAYERS = engine.PLAYERS


class Kind(StrEnum):
    """How a proposal gives the hand's result."""

    SCORE = "score"  #: scored by the engine from the cards
    DEAD = "dead"  #: nobody knocked by the 50th card: no score
    MANUAL = "manual"  #: winner and points entered by hand


class Phase(StrEnum):
    """Where a hand stands."""

    DEALING = "dealing"  #: no knock card yet
    PLAYING = "playing"  #: knock card known, no result proposed
    UNPLAYABLE = "unplayable"  #: a proposal that cannot be scored (correct it first)
    PROPOSED = "proposed"  #: a result waits for the players' confirmations
    CONFIRMED = "confirmed"  #: both players (or the director) confirmed it


@dataclass(frozen=True)
class ManualResult:
    """A result entered by hand: who won and how many points, no cards scored (the
    engine's ``Outcome.MANUAL``), with the players' ``note``."""

    winner: str
    points: int
    note: str = ""

    @property
    def outcome(self) -> engine.Outcome:
        return engine.Outcome.MANUAL

    def to_json(self) -> dict[str, Any]:
        """The result as events have always held it."""
        return {"winner": self.winner, "points": self.points,
                "outcome": self.outcome.value, "note": self.note}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ManualResult:
        return cls(str(data.get("winner")), int(data.get("points") or 0),
                   str(data.get("note") or ""))


@dataclass(frozen=True)
class Doubt:
    """A card the detector was unsure of in a player's cards, and the card it may be."""

    player: str
    card: Card
    alternative: Card


@dataclass(frozen=True)
class Missing:
    """A card a player's short hand may be missing (one that would meld with the cards
    seen), offered as a one-tap answer to the camera's card-count question."""

    player: str
    card: Card

    def to_json(self) -> dict[str, str]:
        return {"player": self.player, "card": self.card.code}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Missing:
        return cls(str(data["player"]), engine.parse_card(str(data["card"])))


@dataclass(frozen=True)
class Answer:
    """The one-tap answer that ``missing.card`` is the player's missing card: the form fields
    that propose the hand again with it added."""

    missing: Missing
    fields: dict[str, str]


@dataclass(frozen=True)
class Swap:
    """The one-tap correction of a doubt: the form fields that propose the hand again with
    ``doubt.card`` read as ``doubt.alternative`` (melds_A, cards_A, melds_B, cards_B)."""

    doubt: Doubt
    fields: dict[str, str]


@dataclass(frozen=True)
class Proposal:
    """A proposed result of a hand, before the engine scores it.

    ``cards``: each player's cards (melded ones included); ``melds``: the knocker's melds as
    declared (checked as laid; None: the engine arranges them); ``layout``: each player's melds
    as the camera saw them lie on the table, which only chooses among arrangements that score
    the same (the engine's ``layout``: never worse than the cards allow); ``laid_off``: the
    cards each player was seen laying off onto the other's melds, which likewise only chooses
    (a card laid off as it lay rather than melded with the defender's own). The camera adds what
    it noticed: ``problems`` (among them the cards it doubts: ``doubts``), ``confidence``,
    ``arranged_by_engine``, the cards a short hand may be ``missing`` and the ``snapshot``
    picture's name.
    """

    kind: Kind
    knocker: str | None = None
    cards: dict[str, list[Card]] | None = None
    melds: dict[str, list[list[Card]]] | None = None
    layout: dict[str, list[list[Card]]] | None = None
    laid_off: dict[str, list[Card]] | None = None
    improper_accepted: bool = False
    #: a result entered by hand
    result: ManualResult | None = None
    problems: tuple[Problem, ...] | None = None
    confidence: float | None = None
    arranged_by_engine: bool = False
    snapshot: str | None = None
    missing: tuple[Missing, ...] = ()

    @property
    def doubts(self) -> tuple[Doubt, ...]:
        """The cards the camera doubted (its ``doubtful_card`` notes) that are still among
        the player's cards, each with a card it may be that is not on the table."""
        hands = self.cards or {}
        on_table = {card for hand in hands.values() for card in hand}
        return tuple(
            Doubt(p.player, p.card, p.alternative) for p in self.problems or ()
            if p.kind is NoteKind.DOUBTFUL_CARD and p.player is not None
            and p.card is not None and p.alternative is not None
            and p.card in hands.get(p.player, ()) and p.alternative not in on_table)

    # JSON ----------------------------------------------------------------------------------
    def core_json(self) -> dict[str, Any]:
        """What the engine scores (kind, knocker, cards, melds...), as stored."""
        if self.kind is Kind.DEAD:
            return {"kind": "dead"}
        if self.kind is Kind.MANUAL:
            return {"kind": "manual", "result": self.result.to_json() if self.result else {}}
        out: dict[str, Any] = {"kind": "score", "knocker": self.knocker,
                               "cards": {p: codes(c) for p, c in (self.cards or {}).items()}}
        if self.improper_accepted:
            out["improper_accepted"] = True
        if self.melds is not None:
            out["melds"] = {p: [codes(g) for g in gs] for p, gs in self.melds.items()}
        if self.layout:
            out["layout"] = {p: [codes(g) for g in gs] for p, gs in self.layout.items()}
        if self.laid_off:
            out["laid_off"] = {p: codes(cs) for p, cs in self.laid_off.items()}
        return out

    def reading_json(self) -> dict[str, Any]:
        """What the camera noticed, as stored beside the result."""
        out: dict[str, Any] = {}
        if self.problems is not None:
            out["problems"] = [p.to_json() for p in self.problems]
        if self.confidence is not None:
            out["confidence"] = self.confidence
        if self.arranged_by_engine:
            out["arranged_by_engine"] = True
        if self.snapshot:
            out["snapshot"] = self.snapshot
        if self.missing:
            out["missing"] = [m.to_json() for m in self.missing]
        return out

    def to_json(self) -> dict[str, Any]:
        return {**self.core_json(), **self.reading_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        """A proposal as stored in an event (its engine result, if any, is left out); the
        log holds card codes, read back into the engine's cards here, once."""
        kind = Kind(data.get("kind", "score"))
        problems = data.get("problems")

        def groups(key: str) -> dict[str, list[list[Card]]] | None:
            held = data.get(key)
            return None if held is None else {p: [stored_cards(g) for g in gs]
                                              for p, gs in held.items()}

        def hands(key: str) -> dict[str, list[Card]] | None:
            held = data.get(key)
            return None if held is None else {p: stored_cards(cs) for p, cs in held.items()}

        return cls(
            kind=kind, knocker=data.get("knocker"), cards=hands("cards"),
            melds=groups("melds"), layout=groups("layout"), laid_off=hands("laid_off"),
            improper_accepted=bool(data.get("improper_accepted")),
            result=ManualResult.from_json(data.get("result") or {}) if kind is Kind.MANUAL
            else None,
            problems=None if problems is None else problems_from_json(problems),
            confidence=data.get("confidence"),
            arranged_by_engine=bool(data.get("arranged_by_engine")),
            snapshot=data.get("snapshot"),
            missing=tuple(Missing.from_json(m) for m in data.get("missing") or []))

    # the tablet ----------------------------------------------------------------------------
    def form_fields(self, swap: Doubt | None = None,
                    add: Missing | None = None) -> dict[str, str]:
        """The hand's cards as the correction form writes them (melds_X: groups split by
        "|", cards_X: the cards in no meld, layout_X: the groups seen on the table, laid_off_X:
        the cards seen laid off), with
        ``swap.card`` read as ``swap.alternative`` and ``add.card`` added to its player's."""
        def read(card: Card) -> str:
            return (swap.alternative if swap is not None and card == swap.card else card).code

        out: dict[str, str] = {}
        cards, melds, layout = self.cards or {}, self.melds or {}, self.layout or {}
        for p in PLAYERS:
            groups = melds.get(p, [])
            melded = {c for g in groups for c in g}
            out[f"melds_{p}"] = " | ".join(" ".join(read(c) for c in g) for g in groups)
            loose = [read(c) for c in cards.get(p, []) if c not in melded]
            if add is not None and add.player == p:
                loose.append(add.card.code)
            out[f"cards_{p}"] = " ".join(loose)
            if layout.get(p):
                out[f"layout_{p}"] = " | ".join(" ".join(read(c) for c in g)
                                                for g in layout[p])
            if (self.laid_off or {}).get(p):
                out[f"laid_off_{p}"] = " ".join(read(c) for c in (self.laid_off or {})[p])
        return out

    def swaps(self) -> list[Swap]:
        """One one-tap correction per doubt of a proposal scored from the cards."""
        if self.kind is not Kind.SCORE:
            return []
        return [Swap(d, self.form_fields(d)) for d in self.doubts]

    def answers(self) -> list[Answer]:
        """One one-tap answer per card a short hand may be missing."""
        if self.kind is not Kind.SCORE:
            return []
        return [Answer(m, self.form_fields(add=m)) for m in self.missing]
