"""One game's score sheet as shown on the page, in the PDF and in the CSV (one shape for all)."""

from __future__ import annotations

from typing import Any

from webui.common.words import rules_words
from webui.store.engine import PLAYERS, Outcome, other_player
from webui.store.proposal import Kind
from webui.store.record import RecordedProposal
from webui.store.state import digest as record_digest
from webui.store.state import sheet_record

OUTCOME_WORDS = {Outcome.KNOCK: "knocks", Outcome.GIN: "gin", Outcome.BIG_GIN: "big gin",
                 Outcome.UNDERCUT: "knocks"}


def hand_text(players: dict[str, str], recorded: RecordedProposal) -> str:
    """A short line saying what happened in a hand, e.g. "Ann knocks, Bob undercuts (9 v 7)"."""
    if recorded.kind is Kind.DEAD:
        return "dead hand (no knock by the 50th card)"
    result = recorded.result or {}
    if recorded.kind is Kind.MANUAL:
        note = f": {result['note']}" if result.get("note") else ""
        return f"entered by hand{note}"
    knocker = recorded.knocker or PLAYERS[0]
    defender = other_player(knocker)
    outcome = Outcome.of(result.get("outcome"))
    text = f"{players[knocker]} {OUTCOME_WORDS.get(outcome, result.get('outcome'))}"
    if outcome is Outcome.UNDERCUT:
        text += f", {players[defender]} undercuts"
    dw = result.get("deadwood") or {}
    if outcome in (Outcome.KNOCK, Outcome.UNDERCUT) and dw:
        text += f" ({dw.get(knocker)} v {dw.get(defender)})"
    if recorded.improper_accepted:
        text += ", improper knock accepted"
    if result.get("doubled"):
        text += ", doubled"
    return text


def game_view(state: Any, game: Any) -> dict[str, Any]:
    """Rows (hand, dealer, knock card, result, points, running totals), bonuses, finals."""
    players = state.players
    sheet = game.sheet or {"hands": [], "games": []}
    hands = game.confirmed_hands
    rows = []
    boxes = None
    for hand, record in zip(hands, sheet.get("hands", []), strict=False):
        totals = record.get("totals") or (record.get("games") or [{}])[0].get("totals") or {}
        boxes = record.get("boxes") or boxes
        rows.append({"hand": hand.number, "dealer": hand.dealer, "knock": hand.up_card,
                     "text": hand_text(players, hand.proposal),
                     "winner": record.get("winner"), "points": record.get("points"),  # None: dead
                     "totals": {p: totals.get(p, 0) for p in PLAYERS}})
    engine_games = sheet.get("games") or []
    bonuses: list[dict[str, Any]] = []
    finals = None
    hollywood = None
    if sheet.get("hollywood"):
        hollywood = [dict(g.get("finals") or g.get("totals") or {}) for g in sheet["hollywood"]]
    elif engine_games:
        g0 = engine_games[0]
        if g0.get("bonuses"):
            for key, label in (("game", "game bonus"), ("boxes", "boxes"),
                               ("shutout", "shutout")):
                values = {p: g0["bonuses"].get(p, {}).get(key, 0) for p in PLAYERS}
                if any(values.values()) or key != "shutout":
                    bonuses.append({"label": label, **values})
        finals = g0.get("finals") or g0.get("totals")
    rules_name = rules_words(state.rules)
    record = sheet_record(state, game)
    sheet_hash = record_digest(record)
    signed_over = {p: {"sheet_hash": sig.get("sheet_hash"), "seq": sig.get("seq"),
                       "name": sig.get("name")} for p, sig in sorted(game.signatures.items())}
    return {"number": game.number, "players": players, "rows": rows, "bonuses": bonuses,
            "finals": finals, "winner": game.winner, "boxes": boxes, "hollywood": hollywood,
            "locked": game.locked, "rules_name": rules_name, "record": record,
            "sheet_hash": sheet_hash, "signed_over": signed_over,
            "void_signatures": game.void_notices()}


def short_hash(value: str | None) -> str:
    """The first 12 hex digits of a sheet hash, as shown to people (the PDF holds it all)."""
    return (value or "")[:12]
