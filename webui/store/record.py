"""A hand's proposal as the table records it: the ``Proposal``, who made it, and the rules
engine's answer (its result, or the error that keeps it from being scored).

``RecordedProposal`` is what a hand's state holds (``HandState.proposal``) and what pages read:
the result is the engine's ``HandResult`` (or a ``ManualResult``), never its JSON. ``to_json``
writes the JSON the events have always held (so signatures' sheet hashes and old databases are
unchanged) and ``from_json`` reads it back once, when the events are folded. A result read
from an event is written back exactly as it was read: results recorded by earlier engines lack
keys added since (``bonus``, ``alternatives``), and a signature covers the result as recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from vision.table.notes import Problem
from webui.store.engine import Card, HandResult
from webui.store.proposal import Answer, Doubt, Kind, ManualResult, Missing, Proposal, Swap


@dataclass(frozen=True)
class EngineError:
    """Why a proposal cannot be scored (``code``, and ``message`` for people): the engine's
    refusal, or the camera's question about the card count (``card_count``)."""

    code: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    @classmethod
    def from_json(cls, data: Any) -> EngineError:
        if isinstance(data, dict):
            return cls(str(data.get("code", "error")), str(data.get("message", "")))
        return cls("error", str(data))


CARD_COUNT = "card_count"  #: the error code of the camera's card-count question


@dataclass(frozen=True)
class RecordedProposal:
    """A hand's proposed result as recorded.

    ``source``: who proposed it ("camera", "manual" for a tablet, "director"); ``result``: the
    engine's scored hand or the result entered by hand; ``error``:
    why it cannot be scored yet; ``question``: what the camera asks the players (its card
    count); ``changes``: what it changed from the proposal it replaced, in words;
    ``voided_confirmations``: the players whose confirmations it voided.
    """

    proposal: Proposal
    source: str = "manual"
    result: HandResult | ManualResult | None = None
    error: EngineError | None = None
    question: str | None = None
    changes: tuple[str, ...] = ()
    voided_confirmations: tuple[str, ...] = ()
    #: the engine's result as an event recorded it (written back unchanged by ``to_json``)
    recorded_result: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    # what pages read, from the proposal --------------------------------------------------
    @property
    def kind(self) -> Kind:
        return self.proposal.kind

    @property
    def knocker(self) -> str | None:
        return self.proposal.knocker

    @property
    def cards(self) -> dict[str, list[Card]]:
        return self.proposal.cards or {}

    @property
    def melds(self) -> dict[str, list[list[Card]]] | None:
        return self.proposal.melds

    @property
    def improper_accepted(self) -> bool:
        return self.proposal.improper_accepted

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self.proposal.problems or ()

    @property
    def confidence(self) -> float | None:
        return self.proposal.confidence

    @property
    def arranged_by_engine(self) -> bool:
        return self.proposal.arranged_by_engine

    @property
    def snapshot(self) -> str | None:
        return self.proposal.snapshot

    @property
    def doubts(self) -> tuple[Doubt, ...]:
        return self.proposal.doubts

    @property
    def missing(self) -> tuple[Missing, ...]:
        return self.proposal.missing

    @property
    def from_camera(self) -> bool:
        return self.source == "camera"

    @property
    def scorable(self) -> bool:
        """Whether players can confirm it (no error, no open question)."""
        return self.error is None

    @property
    def winner(self) -> str | None:
        """Who the result says won (None: a dead hand, a tie, or nothing scored)."""
        return None if self.result is None else self.result.winner

    def reworded(self, changes: list[str], voided: list[str]) -> RecordedProposal:
        """This record saying what it changed and whose confirmations it voided."""
        return replace(self, changes=tuple(changes), voided_confirmations=tuple(voided))

    # JSON ----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The record as events hold it."""
        out = self.proposal.core_json()
        if self.kind is Kind.SCORE and (self.result is not None or self.question):
            out["result"] = self._result_json()
        if self.error is not None:
            out["error"] = self.error.to_json()
        out["source"] = self.source
        out.update(self.proposal.reading_json())
        if self.question:
            out["question"] = self.question
        if self.changes:
            out["changes"] = list(self.changes)
        if self.voided_confirmations:
            out["voided_confirmations"] = list(self.voided_confirmations)
        return out

    def _result_json(self) -> dict[str, Any] | None:
        if self.recorded_result is not None:
            return self.recorded_result
        return None if self.result is None else self.result.to_json()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecordedProposal:
        """A record as an event holds it."""
        proposal = Proposal.from_json(data)
        error = data.get("error")
        stored = data.get("result") if proposal.kind is Kind.SCORE else None
        result: HandResult | ManualResult | None = proposal.result
        if stored is not None:
            result = HandResult.from_json(stored)
        return cls(proposal=proposal, source=str(data.get("source") or "manual"),
                   result=result, recorded_result=stored,
                   error=None if not error else EngineError.from_json(error),
                   question=data.get("question") or None,
                   changes=tuple(str(c) for c in data.get("changes") or ()),
                   voided_confirmations=tuple(str(v) for v in
                                              data.get("voided_confirmations") or ()))


def swaps(recorded: RecordedProposal | None) -> list[Swap]:
    """The one-tap corrections of a hand's proposal (a template filter)."""
    return recorded.proposal.swaps() if recorded is not None else []


def answers(recorded: RecordedProposal | None) -> list[Answer]:
    """The one-tap answers to a proposal's card-count question (a template filter)."""
    return recorded.proposal.answers() if recorded is not None else []
