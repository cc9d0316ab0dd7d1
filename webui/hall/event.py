"""The event as the director sees it: every table live, match results, standings.

Everything here reads the event database through the table app's own ``Store`` and state
folding; results, games and matches come from the rules engine (``scorer``), never from
rules written again here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webui import engine, sheetview
from webui.state import PLAYERS, TableState
from webui.store import Store

LOW_CONFIDENCE = 0.6


def engine_sheet(state: TableState) -> dict[str, Any]:
    """The engine's sheet (JSON) of every confirmed hand the table played, game after game,
    with the engine's match result under ``"match"``."""
    hands = [h.sheet_entry() for g in state.games for h in g.confirmed_hands]
    return engine.sheet(state.rules, hands)


def match_result(state: TableState) -> dict[str, Any]:
    """The table's match by the engine (best of five; 000 partnership series for partnership
    rules), with the players' names."""
    match = engine_sheet(state)["match"]
    return {**match, "names": dict(state.players),
            "winner_name": state.players.get(match["winner"]) if match["winner"] else None}


def problems(state: TableState) -> list[str]:
    """What needs a person at the table: camera/reading problems recorded on the hand being
    played, an engine error, a low-confidence reading, a finished game nobody signed."""
    out: list[str] = []
    hand = state.current_hand()
    proposal = hand.proposal if hand else None
    if proposal:
        err = proposal.get("error")
        if err:
            out.append(f"hand {hand.number}: {err.get('message', err)}")
        out += [f"hand {hand.number}: {p}" for p in proposal.get("problems") or []]
        conf = proposal.get("confidence")
        if isinstance(conf, (int, float)) and conf < LOW_CONFIDENCE:
            out.append(f"hand {hand.number}: camera reading uncertain ({conf:.0%})")
    for game in state.games:
        if game.ended and not game.locked:
            missing = [state.players[p] for p in PLAYERS if p not in game.signatures]
            out.append(f"game {game.number} over, not signed by {', '.join(missing)}")
    return out


def table_summary(store: Store, table_id: int, mirrored: bool) -> dict[str, Any]:
    """One table for the director's page: game, score, who must confirm, problems, match."""
    state = store.state(table_id)
    game = state.game
    hand = state.current_hand()
    waiting: list[str] = []
    if hand and hand.proposal and not hand.proposal.get("error"):
        waiting = [state.players[p] for p in PLAYERS if p not in hand.confirmed_by]
    score = {p: 0 for p in PLAYERS}
    if game is not None:
        view = sheetview.game_view(state, game)
        if view["finals"]:
            score = dict(view["finals"])
        elif view["rows"]:
            score = dict(view["rows"][-1]["totals"])
    events = store.events(table_id, after=max(0, state.last_seq - 1))
    return {
        "id": table_id, "name": state.name, "players": dict(state.players),
        "rules": state.rules, "mirrored": mirrored,
        "game": game.number if game else None,
        "hand": hand.number if hand else None,
        "up_card": hand.up_card if hand else None,
        "proposed": bool(hand and hand.proposal),
        "score": score, "waiting": waiting, "problems": problems(state),
        "match": match_result(state), "last_seq": state.last_seq,
        "last_at": events[-1].created_at.isoformat() if events else None,
        "signed_games": [g.number for g in state.games if g.locked],
    }


@dataclass
class Standing:
    """One player's record over the event's singles tables."""

    name: str
    matches: int = 0
    matches_won: int = 0
    games_won: int = 0
    games_lost: int = 0
    points_for: int = 0
    points_against: int = 0
    tables: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "difference": self.points_for - self.points_against}


def standings(store: Store, table_ids: list[int]) -> list[dict[str, Any]]:
    """Players ranked by matches won, then games won, fewer games lost, point difference.
    Points are each finished game's final scores (bonuses included) from the engine."""
    rows: dict[str, Standing] = {}
    for table_id in table_ids:
        state = store.state(table_id)
        sheet = engine_sheet(state)
        match = sheet["match"]
        names = state.players
        for seat in PLAYERS:
            other = "B" if seat == "A" else "A"
            st = rows.setdefault(names[seat], Standing(names[seat]))
            st.tables.append(table_id)
            st.games_won += match["games_won"].get(seat, 0)
            st.games_lost += match["games_won"].get(other, 0)
            if match["complete"]:
                st.matches += 1
                st.matches_won += int(match["winner"] == seat)
            for g in sheet["games"]:
                if g["complete"]:
                    st.points_for += g["finals"][seat]
                    st.points_against += g["finals"][other]
    ranked = sorted(rows.values(), key=lambda s: (-s.matches_won, -s.games_won, s.games_lost,
                                                  -(s.points_for - s.points_against), s.name))
    return [{"rank": i + 1, **s.to_json()} for i, s in enumerate(ranked)]
