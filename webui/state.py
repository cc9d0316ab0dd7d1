"""The state of a table, folded from its events (the only source of truth).

Folding is pure: the same events always give the same state. Commands (``commands.py``) check a
request against the current state and append new events; this module never writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webui import engine

PLAYERS = engine.PLAYERS


@dataclass
class HandState:
    """One hand of a game: knock card, the proposed result, and who confirmed which revision."""

    game: int
    number: int
    dealer: str
    up_card: str | None = None
    up_source: str | None = None
    proposal: dict[str, Any] | None = None
    revision: int = 0  # seq of the last event that changed what players confirm
    confirmations: dict[str, int] = field(default_factory=dict)
    director_confirmed: bool = False
    seqs: list[int] = field(default_factory=list)

    @property
    def confirmed_by(self) -> list[str]:
        """Players whose confirmation is for the hand as it stands now."""
        return [p for p in PLAYERS if self.confirmations.get(p) == self.revision]

    @property
    def confirmed(self) -> bool:
        """True once both players (or the director) confirmed the current, valid proposal."""
        if self.proposal is None or self.proposal.get("error"):
            return False
        return self.director_confirmed or len(self.confirmed_by) == len(PLAYERS)

    def sheet_entry(self) -> dict[str, Any]:
        """This hand as the engine's score sheet wants it."""
        assert self.proposal is not None
        if self.proposal["kind"] == "dead":
            return {"dead": True}
        result = self.proposal["result"]
        if result.get("winner") is None:
            return {"dead": True}
        return {"winner": result["winner"], "points": result["points"]}

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "number": self.number, "dealer": self.dealer,
                "up_card": self.up_card, "up_source": self.up_source, "proposal": self.proposal,
                "revision": self.revision, "confirmed_by": self.confirmed_by,
                "director_confirmed": self.director_confirmed, "confirmed": self.confirmed}


@dataclass
class GameState:
    """One game: its hands, the engine's sheet, signatures and lock."""

    number: int
    first_dealer: str
    hands: list[HandState] = field(default_factory=list)
    signatures: dict[str, dict[str, Any]] = field(default_factory=dict)
    reopened: int = 0
    sheet: dict[str, Any] | None = None

    @property
    def confirmed_hands(self) -> list[HandState]:
        return [h for h in self.hands if h.confirmed]

    @property
    def winner(self) -> str | None:
        """The game's winner once it is over (Hollywood: once all three columns are over,
        the player who won more of them)."""
        sheet = self.sheet or {}
        if not sheet.get("hollywood"):
            return sheet.get("winner")
        columns = sheet["hollywood"]
        if len(columns) < 3 or not all(c.get("complete") for c in columns):
            return None
        wins = {p: sum(1 for c in columns if c.get("winner") == p) for p in PLAYERS}
        return max(PLAYERS, key=lambda p: wins[p])

    @property
    def ended(self) -> bool:
        return self.winner is not None

    @property
    def locked(self) -> bool:
        """A game both players signed is locked until a director reopens it."""
        return all(p in self.signatures for p in PLAYERS)

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "hands": [h.to_json() for h in self.hands],
                "sheet": self.sheet, "winner": self.winner, "ended": self.ended,
                "locked": self.locked, "reopened": self.reopened,
                "signed_by": sorted(self.signatures)}


@dataclass
class TableState:
    """Everything known about one table."""

    table_id: int
    name: str = ""
    players: dict[str, str] = field(default_factory=lambda: {"A": "A", "B": "B"})
    rules: Any = "tournament"
    camera: str | None = None
    layout: str | None = None
    games: list[GameState] = field(default_factory=list)
    last_seq: int = 0
    camera_status: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> GameState | None:
        return self.games[-1] if self.games else None

    def game_by_number(self, number: int) -> GameState | None:
        return next((g for g in self.games if g.number == number), None)

    def current_hand(self) -> HandState | None:
        """The hand being played now (created on demand), or None when the game has ended."""
        game = self.game
        if game is None or game.ended:
            return None
        if game.hands and not game.hands[-1].confirmed:
            return game.hands[-1]
        if game.hands:
            last = game.hands[-1]
            winner = None if last.proposal["kind"] == "dead" else last.proposal["result"]["winner"]
            dealer = engine.dealer_after(self.rules, last.dealer, winner)
        else:
            dealer = game.first_dealer
        hand = HandState(game=game.number, number=len(game.hands) + 1, dealer=dealer)
        return hand

    def hand(self, game_no: int, hand_no: int, create: bool = False) -> HandState | None:
        game = self.game_by_number(game_no)
        if game is None:
            return None
        if 1 <= hand_no <= len(game.hands):
            return game.hands[hand_no - 1]
        if create and game is self.game and hand_no == len(game.hands) + 1:
            hand = self.current_hand()
            if hand is not None and hand.number == hand_no:
                game.hands.append(hand)
                return hand
        return None

    def match_json(self) -> dict[str, Any]:
        """Match progress from the rules engine (games won, best of, winner, series)."""
        winners = [g.winner for g in self.games if g.winner is not None]
        try:
            status = engine.match(self.rules, winners)
        except engine.ScorerError:  # rules the engine refuses: show the games, decide nothing
            won = {p: winners.count(p) for p in PLAYERS}
            status = {"games_won": won, "games": 5, "complete": False, "winner": None}
        # a match of several games (tournament best of five, partnership series) ends play;
        # single-game rule sets play on, game after game
        decided = bool(status["complete"] and status["games"] > 1)
        return {**status, "best_of": status["games"], "games": len(self.games),
                "decided": decided}

    def to_json(self) -> dict[str, Any]:
        current = self.current_hand()
        knock = None
        if current is not None:
            knock = engine.knock_card_info(self.rules, current.up_card)
        return {"table_id": self.table_id, "name": self.name, "players": self.players,
                "rules": self.rules, "camera": self.camera, "last_seq": self.last_seq,
                "games": [g.to_json() for g in self.games],
                "current_hand": current.to_json() if current else None, "knock": knock,
                "match": self.match_json(), "camera_status": self.camera_status}


def has_undo(events: list[Any]) -> bool:
    """Whether any of ``events`` is an undo (then the state must be folded from scratch)."""
    return any(ev.kind == "undo" for ev in events)


def _undone(events: list[Any]) -> set[int]:
    """Seqs of events cancelled by undo events (an undo of an undo restores its target)."""
    undone: set[int] = set()
    for ev in events:
        if ev.kind == "undo" and ev.seq not in undone:
            target = int(ev.payload["target_seq"])
            if target in undone:
                undone.discard(target)
            else:
                undone.add(target)
    return undone


def fold(table_id: int, events: list[Any]) -> TableState:
    """Fold a table's events (ordered by seq) into its state."""
    state = TableState(table_id=table_id)
    advance(state, events, _undone(events))
    return state


def advance(state: TableState, events: list[Any], undone: set[int] | None = None) -> None:
    """Apply events that follow ``state.last_seq`` (none of them an undo of an earlier one)."""
    undone = undone or set()
    for ev in events:
        state.last_seq = max(state.last_seq, ev.seq)
        if ev.seq in undone or ev.kind == "undo":
            continue
        hand = None
        if ev.kind in {"knock_card_set", "proposal_set", "confirmed"}:
            hand = state.hand(int(ev.payload["game"]), int(ev.payload["hand"]))
        was_confirmed = hand is not None and hand.confirmed
        _apply(state, ev.kind, ev.payload, ev.seq)
        if hand is None and ev.kind in {"knock_card_set", "proposal_set"}:
            hand = state.hand(int(ev.payload["game"]), int(ev.payload["hand"]))
        if hand is not None and (was_confirmed or hand.confirmed):
            game = state.game_by_number(hand.game)
            if game is not None:
                _refresh_sheet(state, game)


def _refresh_sheet(state: TableState, game: GameState) -> None:
    entries = [h.sheet_entry() for h in game.hands if h.confirmed]
    game.sheet = engine.sheet(state.rules, entries)


def _apply(state: TableState, kind: str, p: dict[str, Any], seq: int) -> None:
    if kind in {"table_created", "settings_changed"}:
        state.name = p.get("name", state.name)
        state.players = dict(p.get("players", state.players))
        state.rules = p.get("rules", state.rules)
        state.camera = p.get("camera", state.camera)
        state.layout = p.get("layout", state.layout)
        for game in state.games:
            _refresh_sheet(state, game)
    elif kind == "game_started":
        game = GameState(number=int(p["game"]), first_dealer=p["dealer"])
        state.games.append(game)
        _refresh_sheet(state, game)
    elif kind == "knock_card_set":
        hand = state.hand(p["game"], p["hand"], create=True)
        if hand is not None:
            hand.up_card, hand.up_source = p["card"], p.get("source", "manual")
            hand.revision = seq
            hand.seqs.append(seq)
            if hand.proposal is not None and p.get("rescored") is not None:
                hand.proposal = p["rescored"]
    elif kind == "proposal_set":
        hand = state.hand(p["game"], p["hand"], create=True)
        if hand is not None:
            hand.proposal = p["proposal"]
            hand.revision = seq
            hand.director_confirmed = bool(p.get("director"))
            hand.seqs.append(seq)
    elif kind == "confirmed":
        hand = state.hand(p["game"], p["hand"])
        if hand is not None and p["revision"] == hand.revision:
            hand.confirmations[p["player"]] = p["revision"]
            hand.seqs.append(seq)
    elif kind == "signed":
        game = state.game_by_number(p["game"])
        if game is not None:
            game.signatures[p["player"]] = {"png": p["png"], "seq": seq, "name": p.get("name")}
    elif kind == "reopened":
        game = state.game_by_number(p["game"])
        if game is not None:
            game.signatures.clear()
            game.reopened += 1
