"""The kinds of event a table's log holds (``EventRow.kind``), named once."""

from __future__ import annotations

from enum import StrEnum


class EventKind(StrEnum):
    """What an event records."""

    TABLE_CREATED = "table_created"
    SETTINGS_CHANGED = "settings_changed"
    GAME_STARTED = "game_started"
    KNOCK_CARD_SET = "knock_card_set"
    PROPOSAL_SET = "proposal_set"
    CONFIRMED = "confirmed"
    UNDO = "undo"
    SIGNED = "signed"
    REOPENED = "reopened"


#: events a tablet may take back (the latest hand's knock card, proposal or confirmation)
UNDOABLE = frozenset({EventKind.KNOCK_CARD_SET, EventKind.PROPOSAL_SET, EventKind.CONFIRMED})

_TAKEN_BACK = {EventKind.CONFIRMED: "a confirmation", EventKind.PROPOSAL_SET: "a result",
               EventKind.KNOCK_CARD_SET: "a knock card"}


def taken_back(kind: str | None) -> str:
    """What undoing an event of ``kind`` takes back, in words ("a result"...)."""
    return _TAKEN_BACK.get(kind, "a change")  # type: ignore[call-overload]
