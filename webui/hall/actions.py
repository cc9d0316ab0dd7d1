"""A director's correction or reopening as typed values, parsed from any request body.

Bodies come from forms (strings) or JSON (anything: lists, strings, ``1e400``, ``true``); every
value is checked here so a bad one is a clear 400, never a 500 further down (whole numbers by
the one strict rule both apps use: ``webui.common.validate.whole_number``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from webui.common.refusal import Refusal
from webui.common.validate import MAX_WHOLE, whole_number
from webui.store import Command
from webui.store.state import TableState

MAX_GAME = 1000
MAX_HAND = 1000
MAX_POINTS = 1000
MAX_SEQ = MAX_WHOLE  # the event databases' integer columns


class ActionKind(Enum):
    """What the director does to a table."""

    CORRECT = "correct"
    REOPEN = "reopen"


@dataclass(frozen=True)
class DirectorAction:
    """A checked director action: which game (and hand), the revision of the hand the director
    saw (corrections), the proposal body (corrections) or the reason (reopenings)."""

    kind: ActionKind
    game: int
    hand: int | None = None
    revision: int | None = None
    proposal: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


MAX_DEPTH = 8  # a correction is an object of card lists and melds: 4 levels deep at most


def too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists or objects more than ``limit`` levels (checked without
    recursion, so no body can exhaust the stack)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def parse_action(kind: str, body: Any) -> DirectorAction:
    """The director action ``kind`` (correct or reopen) from a request body (a dict)."""
    try:
        action = ActionKind(kind)
    except ValueError:
        raise Refusal("the director can correct or reopen",
                      code="bad_request", status=400) from None
    if not isinstance(body, dict):
        raise Refusal("the request body must be a JSON object (or a form) "
                      "with game, hand and the result", code="bad_body", status=400)
    if too_deep(body, MAX_DEPTH):
        raise Refusal(f"the request body is nested more than {MAX_DEPTH} "
                      "levels deep", code="bad_body", status=400)
    game = whole_number(body.get("game"), "game", 1, MAX_GAME)
    if action is ActionKind.REOPEN:
        reason = body.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise Refusal("reason must be text", code="bad_reason", status=400)
        return DirectorAction(action, game, reason=(reason or "")[:300])
    hand = whole_number(body.get("hand"), "hand", 1, MAX_HAND)
    if body.get("revision") in (None, ""):
        raise Refusal("say which revision of the hand you correct "
                      "(revision, from the table's page or state)",
                      code="revision_needed", status=400)
    revision = whole_number(body["revision"], "revision", 0, MAX_SEQ)
    proposal = {k: v for k, v in body.items() if k not in ("game", "hand", "revision",
                                                           "csrf_token")}
    if proposal.get("kind") == "manual" or "points" in proposal:
        proposal["points"] = whole_number(proposal.get("points"), "points", 0, MAX_POINTS)
    return DirectorAction(action, game, hand, revision, proposal)


def at_revision(command: Command, game: int, hand: int, revision: int) -> Command:
    """``command``, refused when hand ``hand`` of game ``game`` is no longer at ``revision``
    (someone corrected or confirmed it since the director looked). Checked against the state
    the command runs on, so two directors at the same instant cannot both apply."""

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        current = state.hand(game, hand)
        now = current.revision if current is not None else 0
        if now != revision:
            raise Refusal(f"game {game}, hand {hand} was corrected since you "
                          f"looked at it (event {now}, you saw {revision}); reload the "
                          "table and check it again", code="changed", status=409)
        return command(state)

    return run


def request_slot(kind: str, payload: dict[str, Any]) -> str:
    """The slot a director request takes at its table (one waiting request each): the hand
    it corrects or the game it reopens."""
    if kind == ActionKind.CORRECT.value:
        return f"correct:{payload.get('game')}:{payload.get('hand')}"
    return f"{kind}:{payload.get('game')}"


def request_words(kind: str, payload: dict[str, Any]) -> str:
    """A correction or reopening in words, for the audit and the pages, from what the request
    stores: "game 1, hand 3 corrected to B 7 (recount)", "game 2 reopened: a misdeal"."""
    if kind == ActionKind.REOPEN.value:
        return f"game {payload.get('game')} reopened: {payload.get('reason') or 'no reason given'}"
    p = payload.get("proposal") if isinstance(payload.get("proposal"), dict) else {}
    result = (f"{p.get('winner')} {p.get('points')}" if p.get("kind") == "manual"
              else str(p.get("kind", "result")))
    note = f" ({p['note']})" if isinstance(p.get("note"), str) and p["note"] else ""
    return f"game {payload.get('game')}, hand {payload.get('hand')} corrected to {result}{note}"
