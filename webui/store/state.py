"""The state of a table, folded from its events (the only source of truth).

Folding is pure: the same events always give the same state. Commands (``commands.py``) check a
request against the current state and append new events; this module never writes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from webui.store import engine
from webui.store.engine import HandResult
from webui.store.event_kind import EventKind, taken_back
from webui.store.proposal import Kind, ManualResult, Phase
from webui.store.record import RecordedProposal

PLAYERS = engine.PLAYERS


@dataclass
class HandState:
    """One hand of a game: knock card, the proposed result, and who confirmed which revision."""

    game: int
    number: int
    dealer: str
    up_card: engine.Card | None = None
    up_source: str | None = None
    #: the camera's runner-up reading of the knock card (a one-tap swap), while it stands
    up_alternative: engine.Card | None = None
    #: the knock card as the camera recorded it, kept when the players correct it: the
    #: camera's later readings of this deal still carry it (``dealt_as``)
    camera_up_card: engine.Card | None = None
    proposal: RecordedProposal | None = None
    revision: int = 0  # seq of the last event that changed what players confirm
    confirmations: dict[str, int] = field(default_factory=dict)
    director_confirmed: bool = False
    seqs: list[int] = field(default_factory=list)

    def dealt_as(self, card: engine.Card) -> bool:
        """Whether a camera reading with ``card`` in the up-card slot is of this hand's deal:
        the hand's knock card, or the camera's own reading of it that the players corrected
        (their fix is the truth the hand is scored with; the camera still sees what it read)."""
        return card in (self.up_card, self.camera_up_card)

    @property
    def confirmed_by(self) -> list[str]:
        """Players whose confirmation is for the hand as it stands now."""
        return [p for p in PLAYERS if self.confirmations.get(p) == self.revision]

    @property
    def confirmed(self) -> bool:
        """True once both players (or the director) confirmed the current, valid proposal."""
        if self.proposal is None or self.proposal.error is not None:
            return False
        return self.director_confirmed or len(self.confirmed_by) == len(PLAYERS)

    @property
    def phase(self) -> Phase:
        """Where the hand stands: dealing, playing, a proposal to correct or to confirm, or
        confirmed."""
        if self.proposal is None:
            return Phase.PLAYING if self.up_card is not None else Phase.DEALING
        if self.proposal.error is not None:
            return Phase.UNPLAYABLE
        return Phase.CONFIRMED if self.confirmed else Phase.PROPOSED

    @property
    def result(self) -> HandResult | ManualResult | None:
        """The proposal's result (None for a dead hand)."""
        assert self.proposal is not None
        return None if self.proposal.kind is Kind.DEAD else self.proposal.result

    @property
    def winner(self) -> str | None:
        """Who won the hand, as the engine reads its result (None: dead hand or a tie)."""
        return engine.hand_winner(self.result)

    def sheet_entry(self) -> dict[str, Any]:
        """This hand as the engine's score sheet wants it."""
        return engine.sheet_hand(self.result)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "number": self.number, "dealer": self.dealer,
                "up_card": engine.card_code(self.up_card), "up_source": self.up_source,
                "up_alternative": engine.card_code(self.up_alternative),
                "proposal": self.proposal.to_json() if self.proposal is not None else None,
                "revision": self.revision, "confirmed_by": self.confirmed_by,
                "director_confirmed": self.director_confirmed, "confirmed": self.confirmed}


@dataclass
class GameState:
    """One game: its hands, the engine's sheet, signatures and lock.

    ``signatures`` holds only the signatures that cover the sheet as it stands (each with the
    ``sheet_hash`` it was given on); a change to the game after a signature moves it to
    ``void_signatures`` (with what changed), and the player must sign again.
    """

    number: int
    first_dealer: str
    hands: list[HandState] = field(default_factory=list)
    signatures: dict[str, dict[str, Any]] = field(default_factory=dict)
    void_signatures: list[dict[str, Any]] = field(default_factory=list)
    stale_signatures: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    reopened: int = 0
    rules: Any = field(default="tournament", repr=False)
    _sheet: engine.Sheet | None = field(default=None, repr=False)

    @property
    def sheet(self) -> engine.Sheet:
        """The engine's score sheet of the confirmed hands (computed when first needed after a
        change, so folding a long game costs one sheet, not one per hand)."""
        if self._sheet is None:
            entries = [h.sheet_entry() for h in self.hands if h.confirmed]
            self._sheet = engine.sheet(self.rules, entries)
        return self._sheet

    def sheet_changed(self, rules: Any = None) -> None:
        """Forget the computed sheet (a hand's confirmation or the rules changed)."""
        if rules is not None:
            self.rules = rules
        self._sheet = None

    @property
    def confirmed_hands(self) -> list[HandState]:
        return [h for h in self.hands if h.confirmed]

    @property
    def winner(self) -> str | None:
        """The game's winner once it is over, as the engine counts it (Hollywood: once all
        three columns are over)."""
        return self.sheet.set_winner

    @property
    def ended(self) -> bool:
        return self.winner is not None

    @property
    def locked(self) -> bool:
        """A game both players signed, both on the sheet as it stands, is locked until a
        director reopens it."""
        return all(p in self.signatures for p in PLAYERS)

    def void_notices(self) -> list[dict[str, Any]]:
        """Void signatures of players who have not signed again since (newest first)."""
        seen: set[str] = set()
        out = []
        for void in reversed(self.void_signatures):
            if void["player"] in self.signatures or void["player"] in seen:
                continue
            seen.add(void["player"])
            out.append(void)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "hands": [h.to_json() for h in self.hands],
                "sheet": self.sheet.to_json(), "winner": self.winner, "ended": self.ended,
                "locked": self.locked, "reopened": self.reopened,
                "signed_by": sorted(self.signatures),
                "signatures": {p: {"sheet_hash": s.get("sheet_hash"), "seq": s["seq"]}
                               for p, s in sorted(self.signatures.items())},
                "void_signatures": [{k: v.get(k) for k in ("player", "seq", "voided_by",
                                                            "reason", "sheet_hash")}
                                    for v in self.void_signatures]}


def sheet_record(state: TableState, game: GameState) -> dict[str, Any]:
    """What a player's signature covers: the table, the players, the rules, every confirmed
    hand of the game as recorded (dealer, knock card, cards, melds, result), the engine's
    sheet with its totals and bonuses, and how many times the director reopened the game
    (from the first reopening on: a game never reopened keeps the hash it always had).
    Embedded in the exported PDF so it can be checked."""
    keys = ("kind", "knocker", "cards", "melds", "result", "improper_accepted")
    hands = []
    for h in game.hands:
        if not h.confirmed or h.proposal is None:
            continue
        recorded = h.proposal.to_json()
        hands.append({"hand": h.number, "dealer": h.dealer,
                      "knock_card": engine.card_code(h.up_card),
                      "director": h.director_confirmed,
                      "proposal": {k: recorded[k] for k in keys if recorded.get(k) is not None}})
    record = {"table": state.name, "players": dict(state.players), "rules": state.rules,
              "game": game.number, "hands": hands, "sheet": game.sheet.to_json()}
    if game.reopened:  # a reopened game's sheet is another sheet: earlier requests sign nothing
        record["reopened"] = game.reopened
    return record


def digest(record: dict[str, Any]) -> str:
    """SHA-256 (hex) of a sheet record in canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def sheet_hash(state: TableState, game: GameState) -> str:
    """The hash of the game's sheet as it stands: what a signature given now covers."""
    return digest(sheet_record(state, game))


@dataclass(frozen=True)
class TableMatch:
    """A table's match as the engine counts it (``status``), with the games started
    (``games``) and whether it ends play (``decided``: a match of several games is over)."""

    status: engine.MatchStatus
    games: int
    decided: bool

    @property
    def best_of(self) -> int:
        return self.status.games

    @property
    def games_won(self) -> dict[str, int]:
        return self.status.games_won

    @property
    def complete(self) -> bool:
        return self.status.complete

    @property
    def winner(self) -> str | None:
        return self.status.winner

    def to_json(self) -> dict[str, Any]:
        return {**self.status.to_json(), "best_of": self.best_of, "games": self.games,
                "decided": self.decided}


@dataclass
class TableState:
    """Everything known about one table."""

    table_id: int
    name: str = ""
    players: dict[str, str] = field(default_factory=lambda: {p: p for p in PLAYERS})
    rules: Any = "tournament"
    camera: str | None = None
    layout: str | None = None
    games: list[GameState] = field(default_factory=list)
    last_seq: int = 0

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
        return HandState(game=game.number, number=len(game.hands) + 1,
                         dealer=self._next_dealer(game))

    def hand(self, game_no: int, hand_no: int, create: bool = False) -> HandState | None:
        game = self.game_by_number(game_no)
        if game is None:
            return None
        if 1 <= hand_no <= len(game.hands):
            return game.hands[hand_no - 1]
        if create and game is self.game and hand_no == len(game.hands) + 1:
            if game.hands and not game.hands[-1].confirmed:
                return None
            # a recorded event: the command that wrote it checked the game was still on, so
            # the next hand is made without asking for the sheet (folding stays linear)
            hand = HandState(game=game.number, number=hand_no, dealer=self._next_dealer(game))
            game.hands.append(hand)
            return hand
        return None

    def _next_dealer(self, game: GameState) -> str:
        if not game.hands:
            return game.first_dealer
        last = game.hands[-1]
        return engine.dealer_after(self.rules, last.dealer, last.winner)

    def match(self) -> TableMatch:
        """Match progress from the rules engine (games won, best of, winner, series). A table's
        rules are ones the engine plays (checked when the table is made and when its settings
        change), so there is no match length to guess."""
        winners = [g.winner for g in self.games if g.winner is not None]
        status = engine.match(self.rules, winners)
        # a match of several games (tournament best of five, partnership series) ends play;
        # single-game rule sets play on, game after game
        return TableMatch(status, len(self.games), status.complete and self.plays_match)

    def match_json(self) -> dict[str, Any]:
        """``match()`` as the API and the exported record write it."""
        return self.match().to_json()

    def knock_card(self) -> engine.KnockCard | None:
        """What the current hand's up card means (None: the game is over)."""
        current = self.current_hand()
        return None if current is None else engine.knock_card_info(self.rules, current.up_card)

    @property
    def plays_match(self) -> bool:
        """Whether the table's rules play a match of several games."""
        return engine.plays_match(self.rules)

    def to_json(self) -> dict[str, Any]:
        current = self.current_hand()
        knock = self.knock_card()
        return {"table_id": self.table_id, "name": self.name, "players": self.players,
                "rules": self.rules, "camera": self.camera, "last_seq": self.last_seq,
                "games": [g.to_json() for g in self.games],
                "current_hand": current.to_json() if current else None,
                "knock": knock.to_json() if knock is not None else None,
                "match": self.match_json()}


def has_undo(events: list[Any]) -> bool:
    """Whether any of ``events`` is an undo (then the state must be folded from scratch)."""
    return any(ev.kind == EventKind.UNDO for ev in events)


def _undone(events: list[Any]) -> set[int]:
    """Seqs of events cancelled by undo events (an undo of an undo restores its target)."""
    undone: set[int] = set()
    for ev in events:
        if ev.kind == EventKind.UNDO and ev.seq not in undone:
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


GAME_EVENTS = {EventKind.KNOCK_CARD_SET, EventKind.PROPOSAL_SET, EventKind.CONFIRMED,
               EventKind.UNDO, EventKind.REOPENED}


def advance(state: TableState, events: list[Any], undone: set[int] | None = None) -> None:
    """Apply events that follow ``state.last_seq`` (none of them an undo of an earlier one).

    A signature covers the sheet it was given on (its ``sheet_hash``): one that does not
    match the sheet when it is recorded, or any later change to its game (a knock card,
    proposal or confirmation of one of its hands, an undo, a reopening, new names or rules),
    makes it void.
    """
    undone = undone or set()
    for ev in events:
        state.last_seq = max(state.last_seq, ev.seq)
        if ev.kind in GAME_EVENTS and "game" in ev.payload:
            game = state.game_by_number(_int(ev.payload["game"]))
            if game is not None and (game.signatures or game.stale_signatures):
                _void(game, ev.seq, _change_words(state, ev))
        if ev.seq in undone or ev.kind == EventKind.UNDO:
            continue
        hand = None
        if ev.kind in {EventKind.KNOCK_CARD_SET, EventKind.PROPOSAL_SET, EventKind.CONFIRMED}:
            hand = state.hand(_int(ev.payload["game"]), _int(ev.payload["hand"]))
        was_confirmed = hand is not None and hand.confirmed
        _apply(state, ev.kind, ev.payload, ev.seq)
        if hand is None and ev.kind in {EventKind.KNOCK_CARD_SET, EventKind.PROPOSAL_SET}:
            hand = state.hand(_int(ev.payload["game"]), _int(ev.payload["hand"]))
        if hand is not None and (was_confirmed or hand.confirmed):
            game = state.game_by_number(hand.game)
            if game is not None:
                game.sheet_changed()
    for game in state.games:  # signed on a sheet that is not this one, and nothing later says why
        for player, sig in sorted(game.stale_signatures.items()):
            game.void_signatures.append({
                "player": player, "name": sig.get("name"), "seq": sig["seq"],
                "sheet_hash": sig.get("sheet_hash"), "voided_by": sig["seq"],
                "reason": "the sheet changed before the signature was recorded"})
        game.stale_signatures.clear()


def _int(value: Any) -> int:
    return int(value)


def _void(game: GameState, seq: int, reason: str) -> None:
    """Make the game's signatures void: ``seq`` changed what they covered."""
    voided = sorted([*game.signatures.items(), *game.stale_signatures.items()],
                    key=lambda item: item[1]["seq"])
    for player, sig in voided:
        game.void_signatures.append({"player": player, "name": sig.get("name"),
                                     "seq": sig["seq"], "sheet_hash": sig.get("sheet_hash"),
                                     "voided_by": seq, "reason": reason})
    game.signatures.clear()
    game.stale_signatures.clear()


def _change_words(state: TableState, ev: Any) -> str:
    """What an event changed, in words, for the notice of a void signature."""
    p = ev.payload
    who = "the director" if ev.actor == "director" else "a tablet"
    if ev.kind == EventKind.REOPENED:
        return f"the director reopened the game ({p.get('reason', '')})"
    if ev.kind == EventKind.UNDO:
        return f"{who} undid {taken_back(p.get('kind'))}"
    if ev.kind == EventKind.CONFIRMED:
        return f"hand {p.get('hand')} was confirmed again"
    if ev.kind == EventKind.KNOCK_CARD_SET:
        return f"{who} changed the knock card of hand {p.get('hand')}"
    return f"{who} changed the result of hand {p.get('hand')}"


def _apply(state: TableState, kind: str, p: dict[str, Any], seq: int) -> None:
    if kind in {EventKind.TABLE_CREATED, EventKind.SETTINGS_CHANGED}:
        state.name = p.get("name", state.name)
        state.players = dict(p.get("players", state.players))
        state.rules = p.get("rules", state.rules)
        state.camera = p.get("camera", state.camera)
        state.layout = p.get("layout", state.layout)
        for game in state.games:
            before = {pl: s.get("sheet_hash") for pl, s in game.signatures.items()}
            game.sheet_changed(state.rules)
            if before and any(h != sheet_hash(state, game) for h in before.values()):
                _void(game, seq, "the director changed the table's names or rules")
    elif kind == EventKind.GAME_STARTED:
        game = GameState(number=int(p["game"]), first_dealer=p["dealer"], rules=state.rules)
        state.games.append(game)
    elif kind == EventKind.KNOCK_CARD_SET:
        hand = state.hand(p["game"], p["hand"], create=True)
        if hand is not None:
            # the log holds codes: read back into the engine's cards here, once
            hand.up_card, hand.up_source = engine.stored_card(p["card"]), p.get("source", "manual")
            hand.up_alternative = engine.stored_card(p.get("alternative"))
            if hand.up_source == "camera":
                hand.camera_up_card = hand.up_card
            hand.revision = seq
            hand.seqs.append(seq)
            if hand.proposal is not None and p.get("rescored") is not None:
                hand.proposal = RecordedProposal.from_json(p["rescored"])
    elif kind == EventKind.PROPOSAL_SET:
        hand = state.hand(p["game"], p["hand"], create=True)
        if hand is not None:
            hand.proposal = RecordedProposal.from_json(p["proposal"])
            hand.revision = seq
            hand.director_confirmed = bool(p.get("director"))
            hand.seqs.append(seq)
    elif kind == EventKind.CONFIRMED:
        hand = state.hand(p["game"], p["hand"])
        if hand is not None and p["revision"] == hand.revision:
            hand.confirmations[p["player"]] = p["revision"]
            hand.seqs.append(seq)
    elif kind == EventKind.SIGNED:
        game = state.game_by_number(p["game"])
        if game is not None:
            now = sheet_hash(state, game)
            signature = {"png": p["png"], "seq": seq, "name": p.get("name"),
                         "sheet_hash": p.get("sheet_hash") or now}
            if signature["sheet_hash"] != now:
                # not the sheet it was given on (a later undo took back what was signed):
                # void, with the reason the next change of the game gives
                game.stale_signatures[p["player"]] = signature
            else:
                game.signatures[p["player"]] = signature
    elif kind == EventKind.REOPENED:
        game = state.game_by_number(p["game"])
        if game is not None:
            _void(game, seq, f"the director reopened the game ({p.get('reason', '')})")
            game.reopened += 1
