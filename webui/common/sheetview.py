"""One game's score sheet as shown on the page, in the PDF and in the CSV (one shape for all)."""

from __future__ import annotations

from typing import Any

from webui.common.words import OUTCOME_WORDS, rules_words
from webui.store.engine import PLAYERS, HandResult, Outcome, card_code, other_player
from webui.store.proposal import Kind, ManualResult
from webui.store.record import RecordedProposal
from webui.store.state import digest as record_digest
from webui.store.state import sheet_record


def hand_text(players: dict[str, str], recorded: RecordedProposal) -> str:
    """A short line saying what happened in a hand, e.g. "Ann knocks, Bob undercuts (9 v 7)"."""
    if recorded.kind is Kind.DEAD:
        return "dead hand (no knock by the 50th card)"
    result = recorded.result
    if isinstance(result, ManualResult) or recorded.kind is Kind.MANUAL:
        note = f": {result.note}" if isinstance(result, ManualResult) and result.note else ""
        return f"{OUTCOME_WORDS[Outcome.MANUAL].name}{note}"
    assert isinstance(result, HandResult), "a confirmed hand scored from the cards"
    knocker = recorded.knocker or PLAYERS[0]
    defender = other_player(knocker)
    outcome = result.outcome
    text = f"{players[knocker]} {OUTCOME_WORDS[outcome].sheet}"
    if outcome is Outcome.UNDERCUT:
        text += f", {players[defender]} undercuts"
    dw = result.deadwood
    if outcome in (Outcome.KNOCK, Outcome.UNDERCUT) and dw:
        text += f" ({dw.get(knocker)} v {dw.get(defender)})"
    if recorded.improper_accepted:
        text += ", improper knock accepted"
    if result.doubled:
        text += ", doubled"
    return text


def game_view(state: Any, game: Any) -> dict[str, Any]:
    """Rows (hand, dealer, knock card, result, points, running totals), bonuses, finals."""
    players = state.players
    sheet = game.sheet
    hands = game.confirmed_hands
    rows = []
    boxes = None
    for hand, record in zip(hands, sheet.hands, strict=False):
        totals = record.get("totals") or (record.get("games") or [{}])[0].get("totals") or {}
        boxes = record.get("boxes") or boxes
        rows.append({"hand": hand.number, "dealer": hand.dealer, "knock": card_code(hand.up_card),
                     "text": hand_text(players, hand.proposal),
                     "winner": record.get("winner"), "points": record.get("points"),  # None: dead
                     "totals": {p: totals.get(p, 0) for p in PLAYERS}})
    bonuses: list[dict[str, Any]] = []
    finals = None
    hollywood = None
    if sheet.rules.hollywood and sheet.games:
        hollywood = [dict(g.finals or g.totals) for g in sheet.games[-3:]]
    elif sheet.games:
        g0 = sheet.games[0]
        if g0.bonuses:
            for key, label in (("game", "game bonus"), ("boxes", "boxes"),
                               ("shutout", "shutout")):
                values = {p: g0.bonuses.get(p, {}).get(key, 0) for p in PLAYERS}
                if any(values.values()) or key != "shutout":
                    bonuses.append({"label": label, **values})
        finals = dict(g0.finals or g0.totals)
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
