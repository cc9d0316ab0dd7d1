"""What crosses into a table's records, as types: a proposed hand result (``Proposal``), the
camera's notes on it (``Problem``), the cards it doubts (``Doubt``), where a hand stands
(``Phase``) and how it ended (``Outcome``).

A proposal is built once, from a tablet's form (``Proposal.from_request``), from the camera's
reading (``webui.camera_clerk``) or from a stored event (``Proposal.from_json``), and written as
the same JSON the events have always held (``to_json``), so old databases still read. The
reader's notes arrive as text (``"doubtful_card: 8D may be 8H (player B)"``) and are parsed
once here (``Problem.parse``); card codes in them are recognised by the engine's card parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from webui.store import engine

PLAYERS = engine.PLAYERS


class Kind(StrEnum):
    """How a proposal gives the hand's result."""

    SCORE = "score"  #: scored by the engine from the cards
    DEAD = "dead"  #: nobody knocked by the 50th card: no score
    MANUAL = "manual"  #: winner and points entered by hand


class Outcome(StrEnum):
    """How a hand ended (the engine's ``outcome``, or ``manual`` for a result entered by
    hand)."""

    KNOCK = "knock"
    GIN = "gin"
    BIG_GIN = "big_gin"
    UNDERCUT = "undercut"
    MANUAL = "manual"

    @classmethod
    def of(cls, value: Any) -> Outcome | None:
        """The outcome named ``value``, or None for a result without one."""
        try:
            return cls(value)
        except ValueError:
            return None


class Phase(StrEnum):
    """Where a hand stands."""

    DEALING = "dealing"  #: no knock card yet
    PLAYING = "playing"  #: knock card known, no result proposed
    UNPLAYABLE = "unplayable"  #: a proposal that cannot be scored (correct it first)
    PROPOSED = "proposed"  #: a result waits for the players' confirmations
    CONFIRMED = "confirmed"  #: both players (or the director) confirmed it


def card_code(text: str) -> str | None:
    """The canonical code of a card written ``text`` (engine's parser), None if not a card."""
    try:
        return engine.normalise_cards([text])[0]
    except engine.ScorerError:
        return None


def reader_card(code: str) -> str:
    """A card code from the table reader in the engine's canonical form (a code the engine
    cannot read is kept as read, so scoring the proposal names it in its error)."""
    return card_code(code) or code


def reader_cards(codes: Any) -> list[str]:
    """``reader_card`` of each code, in order."""
    return [reader_card(c) for c in codes]


_TOKEN = re.compile(r"\b[0-9A-Z]{2,3}\b")


def cards_in(text: str) -> tuple[str, ...]:
    """The card codes written in ``text`` (upper-case tokens the engine reads as cards)."""
    found = (card_code(m.group(0)) for m in _TOKEN.finditer(text))
    return tuple(code for code in found if code is not None)


def replace_cards(text: str, how: Any) -> str:
    """``text`` with every card code in it replaced by ``how(code)``."""
    def one(m: re.Match[str]) -> str:
        code = card_code(m.group(0))
        return m.group(0) if code is None else str(how(m.group(0)))

    return _TOKEN.sub(one, text)


_SUFFIX = re.compile(r"\s*\(player ([AB])\)$")
_COUNT = re.compile(r"player ([AB]) has (\d+) cards, expected (.+)")
_AREA = re.compile(r"\bin ([AB])'s area\b")
_SHARE = re.compile(r"seen in only (\S+) of recent frames")


@dataclass(frozen=True)
class Problem:
    """One note of the table reader: its ``code`` (``doubtful_card``, ``wrong_card_count``...),
    the ``player`` it is about, the ``cards`` it names (first: ``card``) and its text."""

    code: str
    detail: str = ""
    player: str | None = None
    cards: tuple[str, ...] = ()
    #: wrong_card_count: the cards seen and the number expected ("10", "10 or 11")
    count: int | None = None
    expected: str | None = None
    #: uncertain_card: the share of recent frames the card was seen in ("40%")
    share: str | None = None
    text: str = ""

    @property
    def card(self) -> str | None:
        return self.cards[0] if self.cards else None

    @property
    def alternative(self) -> str | None:
        """doubtful_card: the card it may be instead."""
        return self.cards[1] if self.code == "doubtful_card" and len(self.cards) > 1 else None

    @classmethod
    def parse(cls, text: str) -> Problem:
        """A note as the reader writes it: ``code: detail`` with ``(player X)`` at the end
        when it is about one player's cards."""
        player = None
        rest = text
        found = _SUFFIX.search(rest)
        if found:
            player, rest = found.group(1), rest[:found.start()]
        code, _, detail = rest.partition(":")
        detail = detail.strip()
        count = expected = share = None
        counted = _COUNT.match(detail) if code == "wrong_card_count" else None
        if counted:
            player = player or counted.group(1)
            count, expected = int(counted.group(2)), counted.group(3)
        area = _AREA.search(detail) if code == "uncertain_card" else None
        if area:
            player = player or area.group(1)
            seen = _SHARE.search(detail)
            share = seen.group(1) if seen else None
        return cls(code=code, detail=detail, player=player, cards=cards_in(detail),
                   count=count, expected=expected, share=share, text=text)

    def to_json(self) -> str:
        """The note as stored (the reader's text)."""
        return self.text


@dataclass(frozen=True)
class Doubt:
    """A card the detector was unsure of in a player's cards, and the card it may be."""

    player: str
    card: str
    alternative: str

    def to_json(self) -> dict[str, str]:
        return {"player": self.player, "card": self.card, "alternative": self.alternative}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Doubt:
        return cls(str(data["player"]), str(data["card"]), str(data["alternative"]))


@dataclass(frozen=True)
class Missing:
    """A card a player's short hand may be missing (one that would meld with the cards
    seen), offered as a one-tap answer to the camera's card-count question."""

    player: str
    card: str

    def to_json(self) -> dict[str, str]:
        return {"player": self.player, "card": self.card}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Missing:
        return cls(str(data["player"]), str(data["card"]))


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
    the same (the engine's ``layout``: never worse than the cards allow). The camera adds what
    it noticed: ``problems``, ``confidence``, ``arranged_by_engine``, ``doubts`` and the
    ``snapshot`` picture's name.
    """

    kind: Kind
    knocker: str | None = None
    cards: dict[str, list[str]] | None = None
    melds: dict[str, list[list[str]]] | None = None
    layout: dict[str, list[list[str]]] | None = None
    improper_accepted: bool = False
    #: a result entered by hand: {"winner", "points", "outcome": "manual", "note"}
    result: dict[str, Any] | None = None
    problems: tuple[Problem, ...] | None = None
    confidence: float | None = None
    arranged_by_engine: bool = False
    snapshot: str | None = None
    doubts: tuple[Doubt, ...] = ()
    missing: tuple[Missing, ...] = ()

    # JSON ----------------------------------------------------------------------------------
    def core_json(self) -> dict[str, Any]:
        """What the engine scores (kind, knocker, cards, melds...), as stored."""
        if self.kind is Kind.DEAD:
            return {"kind": "dead"}
        if self.kind is Kind.MANUAL:
            return {"kind": "manual", "result": dict(self.result or {})}
        out: dict[str, Any] = {"kind": "score", "knocker": self.knocker,
                               "cards": {p: list(c) for p, c in (self.cards or {}).items()}}
        if self.improper_accepted:
            out["improper_accepted"] = True
        if self.melds is not None:
            out["melds"] = {p: [list(g) for g in gs] for p, gs in self.melds.items()}
        if self.layout:
            out["layout"] = {p: [list(g) for g in gs] for p, gs in self.layout.items()}
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
        if self.doubts:
            out["doubts"] = [d.to_json() for d in self.doubts]
        if self.missing:
            out["missing"] = [m.to_json() for m in self.missing]
        return out

    def to_json(self) -> dict[str, Any]:
        return {**self.core_json(), **self.reading_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        """A proposal as stored in an event (its engine result, if any, is left out)."""
        kind = Kind(data.get("kind", "score"))
        problems = data.get("problems")
        return cls(
            kind=kind, knocker=data.get("knocker"), cards=data.get("cards"),
            melds=data.get("melds"), layout=data.get("layout"),
            improper_accepted=bool(data.get("improper_accepted")),
            result=data.get("result") if kind is Kind.MANUAL else None,
            problems=(None if problems is None else
                      tuple(Problem.parse(p) for p in problems if isinstance(p, str))),
            confidence=data.get("confidence"),
            arranged_by_engine=bool(data.get("arranged_by_engine")),
            snapshot=data.get("snapshot"),
            doubts=tuple(Doubt.from_json(d) for d in data.get("doubts") or []),
            missing=tuple(Missing.from_json(m) for m in data.get("missing") or []))

    # the tablet ----------------------------------------------------------------------------
    def form_fields(self, swap: Doubt | None = None,
                    add: Missing | None = None) -> dict[str, str]:
        """The hand's cards as the correction form writes them (melds_X: groups split by
        "|", cards_X: the cards in no meld, layout_X: the groups seen on the table), with
        ``swap.card`` read as ``swap.alternative`` and ``add.card`` added to its player's."""
        def read(code: str) -> str:
            return swap.alternative if swap is not None and code == swap.card else code

        out: dict[str, str] = {}
        cards, melds, layout = self.cards or {}, self.melds or {}, self.layout or {}
        for p in PLAYERS:
            groups = melds.get(p, [])
            melded = {c for g in groups for c in g}
            out[f"melds_{p}"] = " | ".join(" ".join(read(c) for c in g) for g in groups)
            loose = [read(c) for c in cards.get(p, []) if c not in melded]
            if add is not None and add.player == p:
                loose.append(add.card)
            out[f"cards_{p}"] = " ".join(loose)
            if layout.get(p):
                out[f"layout_{p}"] = " | ".join(" ".join(read(c) for c in g)
                                                for g in layout[p])
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


def swaps(proposal: dict[str, Any] | None) -> list[Swap]:
    """The one-tap corrections of a stored proposal (a template filter)."""
    if not proposal:
        return []
    return Proposal.from_json(proposal).swaps()


def answers(proposal: dict[str, Any] | None) -> list[Answer]:
    """The one-tap answers to a stored proposal's card-count question (a template filter)."""
    if not proposal:
        return []
    return Proposal.from_json(proposal).answers()


def problems_of(proposal: dict[str, Any] | None) -> list[Problem]:
    """The camera's notes of a stored proposal, parsed."""
    return [Problem.parse(p) for p in (proposal or {}).get("problems") or []
            if isinstance(p, str)]
