"""A scored hand as types: ``HandResult`` with its ``Layoff``s and ``Alternative`` spreads.

``to_json`` writes each as the ``gintray score`` command prints it and ``from_json`` reads it
back (the web app stores results as JSON and holds them as these types).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import Card, codes, parse_card, parse_cards
from scorer.outcomes import Outcome


@dataclass(frozen=True)
class Layoff:
    """A defender card laid off onto one of the knocker's melds (as the knocker laid it)."""

    card: Card
    onto: list[Card]

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card.code, "onto": codes(self.onto)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Layoff:
        """A layoff as ``to_json`` writes it."""
        return cls(parse_card(data["card"]), parse_cards(data["onto"]))


@dataclass(frozen=True)
class Alternative:
    """Another spread the knocker could lay, with a different result after the layoffs.

    Reported so players who laid their melds differently from the engine's choice see what
    their spread scores when they might choose differently.
    """

    melds: list[list[Card]]
    layoffs: list[Layoff]
    deadwood: dict[str, int]
    outcome: Outcome
    winner: str | None
    points: int
    #: the knocker's melds exactly as laid on the table (``score_hand``'s ``layout``)
    as_laid: bool = False

    def to_json(self) -> dict[str, Any]:
        out = {
            "melds": [codes(m) for m in self.melds],
            "layoffs": [lay.to_json() for lay in self.layoffs],
            "deadwood": dict(self.deadwood),
            "outcome": self.outcome.value,
            "winner": self.winner,
            "points": self.points,
        }
        if self.as_laid:
            out["as_laid"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Alternative:
        """An alternative as ``to_json`` writes it."""
        return cls(melds=[parse_cards(m) for m in data["melds"]],
                   layoffs=[Layoff.from_json(lay) for lay in data["layoffs"]],
                   deadwood=dict(data["deadwood"]), outcome=Outcome(data["outcome"]),
                   winner=data["winner"], points=int(data["points"]),
                   as_laid=bool(data.get("as_laid")))


@dataclass(frozen=True)
class HandResult:
    """The scored hand; ``to_json()`` is exactly the ``gintray score`` output."""

    outcome: Outcome
    winner: str | None
    points: int
    knock_limit: int
    knocker: str
    defender: str
    deadwood: dict[str, int]
    melds: dict[str, list[list[Card]]]
    layoffs: list[Layoff]
    deadwood_cards: dict[str, list[Card]]
    doubled: bool = False
    bonus: int = 0  #: the gin, big gin or undercut bonus within ``points`` (before doubling)
    improper_knock_accepted: bool = False
    penalties: dict[str, dict[str, Any]] = field(default_factory=dict)
    alternatives: list[Alternative] = field(default_factory=list)

    @property
    def loser(self) -> str | None:
        """The player who lost the hand (None on a scoreless tie)."""
        if self.winner is None:
            return None
        return self.defender if self.winner == self.knocker else self.knocker

    def to_json(self) -> dict[str, Any]:
        """JSON object of the CLI's ``score`` command."""
        return {
            "outcome": self.outcome.value,
            "winner": self.winner,
            "points": self.points,
            "knock_limit": self.knock_limit,
            "knocker": self.knocker,
            "defender": self.defender,
            "deadwood": dict(self.deadwood),
            "melds": {p: [codes(m) for m in ms] for p, ms in self.melds.items()},
            "layoffs": [lay.to_json() for lay in self.layoffs],
            "deadwood_cards": {p: codes(cs) for p, cs in self.deadwood_cards.items()},
            "doubled": self.doubled,
            "bonus": self.bonus,
            "improper_knock_accepted": self.improper_knock_accepted,
            "penalties": self.penalties,
            "alternatives": [alt.to_json() for alt in self.alternatives],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandResult:
        """A result as ``to_json`` writes it. Its outcome, winner and points are required;
        the details a shorter record lacks (one written before the key existed, or a summary)
        read as empty: ``bonus`` 0, no melds, layoffs, penalties or alternatives."""
        return cls(
            outcome=Outcome(data["outcome"]), winner=data["winner"], points=int(data["points"]),
            knock_limit=int(data.get("knock_limit") or 0), knocker=str(data.get("knocker") or ""),
            defender=str(data.get("defender") or ""), deadwood=dict(data.get("deadwood") or {}),
            melds={p: [parse_cards(m) for m in ms] for p, ms in (data.get("melds") or {}).items()},
            layoffs=[Layoff.from_json(lay) for lay in data.get("layoffs") or ()],
            deadwood_cards={p: parse_cards(cs)
                            for p, cs in (data.get("deadwood_cards") or {}).items()},
            doubled=bool(data.get("doubled")), bonus=int(data.get("bonus") or 0),
            improper_knock_accepted=bool(data.get("improper_knock_accepted")),
            penalties=dict(data.get("penalties") or {}),
            alternatives=[Alternative.from_json(a) for a in data.get("alternatives") or ()])
