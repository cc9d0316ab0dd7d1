"""The event as the director sees it: every table live, match results, standings.

Everything here reads the event database through the table app's own ``Store`` and state
folding; results, games and matches come from the rules engine (``scorer``), never from
rules written again here.
"""

from __future__ import annotations

import csv
import io
import weakref
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from webui.common import sheetview
from webui.common.words import problem_sentences, rules_words
from webui.hall import adjustments, awards, entries, merges, roster, stations, tiebreaks
from webui.hall.clock import table_playing
from webui.hall.health import as_utc
from webui.hall.players import PlayerNames, player_key
from webui.hall.tiebreaks import MatchWin, TieBreak
from webui.store import Store, engine
from webui.store.db import EventRow
from webui.store.state import PLAYERS, TableState

LOW_CONFIDENCE = 0.6


def engine_sheet(state: TableState) -> engine.Sheet:
    """The engine's sheet of every confirmed hand the table played, game after game, with
    the engine's match result (``match()``)."""
    hands = [h.sheet_entry() for g in state.games for h in g.confirmed_hands]
    return engine.sheet(state.rules, hands)


def match_status(state: TableState) -> engine.MatchStatus:
    """The table's match by the engine (best of five; 000 partnership series for partnership
    rules)."""
    return engine_sheet(state).match()


@dataclass(frozen=True)
class MatchResult:
    """A table's match as the director's pages read it: the engine's ``MatchStatus`` with the
    players' ``names``; written as JSON (``to_json``) only at the HTTP edge."""

    status: engine.MatchStatus
    names: dict[str, str]

    @property
    def complete(self) -> bool:
        return self.status.complete

    @property
    def games(self) -> int:
        return self.status.games

    @property
    def games_won(self) -> dict[str, int]:
        return self.status.games_won

    @property
    def winner(self) -> str | None:
        return self.status.winner

    @property
    def winner_name(self) -> str | None:
        return self.names.get(self.winner) if self.winner else None

    def to_json(self) -> dict[str, Any]:
        """As the hall's API has always written it."""
        return {**self.status.to_json(), "names": dict(self.names),
                "winner_name": self.winner_name}


def match_result(state: TableState) -> MatchResult:
    """``match_status`` with the players' names, for the director's pages and the hall's
    API."""
    return MatchResult(match_status(state), dict(state.players))


def problems(state: TableState) -> list[str]:
    """What needs a person at the table: camera/reading problems recorded on the hand being
    played, an engine error, a low-confidence reading, a finished game nobody signed."""
    out: list[str] = []
    hand = state.current_hand()
    proposal = hand.proposal if hand else None
    if proposal:
        if proposal.error is not None:
            out.append(f"hand {hand.number}: {proposal.error.message}")
        out += [f"hand {hand.number}: {sentence}" for sentence in problem_sentences(
            proposal.problems, state.players, proposal.question)]
        conf = proposal.confidence
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
    if hand and hand.proposal and hand.proposal.error is None:
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
        "up_card": engine.card_code(hand.up_card) if hand else None,
        "proposed": bool(hand and hand.proposal),
        "score": score, "waiting": waiting, "problems": problems(state),
        "match": match_result(state), "last_seq": state.last_seq,
        "last_at": as_utc(events[-1].created_at).isoformat() if events else None,
        "signed_games": [g.number for g in state.games if g.locked],
        "playing": table_playing(state),
    }


_SUMMARIES: weakref.WeakKeyDictionary[Engine, dict[int, tuple[int, bool, dict[str, Any]]]] = (
    weakref.WeakKeyDictionary())


def last_seqs(store: Store) -> dict[int, int]:
    """Every table's last event, by table id (one query for the whole event)."""
    with store.Session() as s:
        return {int(t): int(top) for t, top in s.execute(
            select(EventRow.table_id, func.max(EventRow.seq)).group_by(EventRow.table_id))}


_STATES: weakref.WeakKeyDictionary[Engine, dict[int, TableState]] = weakref.WeakKeyDictionary()


def table_states(store: Store, table_ids: list[int]) -> dict[int, TableState]:
    """Each table's state, folded again only for the tables with a new event since the last
    call (every table's last event read in one query, not one query a table)."""
    tops = last_seqs(store)
    known = _STATES.setdefault(store.engine, {})
    out = {}
    for table_id in table_ids:
        hit = known.get(table_id)
        if hit is None or hit.last_seq != tops.get(table_id, 0):
            hit = known[table_id] = store.state(table_id)
        out[table_id] = hit
    return out


def table_summaries(store: Store, table_ids: list[int], mirrored: set[int]
                    ) -> list[dict[str, Any]]:
    """``table_summary`` of each table, remembered until the table's next event: a refresh
    of the director's page reads every table's last event in one query and folds only the
    tables that changed (each summary is a fresh dict: callers add their own keys)."""
    tops = last_seqs(store)
    known = _SUMMARIES.setdefault(store.engine, {})
    out = []
    for table_id in table_ids:
        hit = known.get(table_id)
        mine = table_id in mirrored
        if hit is not None and hit[0] == tops.get(table_id, 0) and hit[1] == mine:
            out.append(dict(hit[2]))
            continue
        summary = table_summary(store, table_id, mine)
        known[table_id] = (summary["last_seq"], mine, summary)
        out.append(dict(summary))
    return out


RULES_KEY = "hall_event_rules"  #: the setting's stored name, as databases hold it
DEFAULT_RULES = "tournament"


def rules_of(store: Store) -> str:
    """The rules the tournament plays (a preset name; the director sets it, ``tournament``
    if not)."""
    return store.get_setting(RULES_KEY) or DEFAULT_RULES


def same_rules(table_rules: Any, played: Any) -> bool:
    """Whether a table plays the tournament's rules (``played``: every rule equal, whatever the
    preset's name or spelling); rules the engine cannot read are not the tournament's."""
    return engine.same_rules(table_rules, played)


@dataclass
class Standing:
    """One player's record over the event's singles tables, keyed on the player's stable id
    (``roster``), not on how the name was typed."""

    key: str
    spellings: PlayerNames
    player_id: int = 0
    matches: int = 0
    matches_won: int = 0
    games_won: int = 0
    games_lost: int = 0
    points_for: int = 0
    points_against: int = 0
    adjustment: int = 0
    byes: int = 0
    withdrawn: bool = False
    tables: list[int] = field(default_factory=list)

    @property
    def difference(self) -> int:
        """Points for less points against, with the director's adjustments and penalties."""
        return self.points_for - self.points_against + self.adjustment

    @property
    def name(self) -> str:
        return self.spellings.shown

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "spellings"}
        return {**out, "name": self.name, "spellings": list(self.spellings.spellings),
                "difference": self.difference}


@dataclass(frozen=True)
class LeftOut:
    """A table the standings do not count, and why."""

    table_id: int
    name: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table_id, "name": self.name, "reason": self.reason}


@dataclass
class Standings:
    """The ranked players, the tables left out of the standings with the reason, who met
    whom (player ids) at the counted tables, the finished matches' winners, and the
    tie-break order the rows are ranked by."""

    rows: list[dict[str, Any]]
    left_out: list[LeftOut]
    meetings: set[frozenset[int]] = field(default_factory=set)
    wins: list[MatchWin] = field(default_factory=list)
    order: tuple[TieBreak, ...] = tiebreaks.DEFAULT_ORDER

    @property
    def ranked_by(self) -> str:
        """The ranking rule in words."""
        return tiebreaks.order_text(self.order)


def standings_of(store: Store, table_ids: list[int], rules: Any,
                    order: tuple[TieBreak, ...] | None = None) -> Standings:
    """Players ranked by matches won, then the tie-breaks (``order``; default the event's,
    ``tiebreaks.load``), then name, over the tables playing the event's ``rules`` (others,
    practice tables, are left out and listed). The point difference has the director's
    adjustments and penalties. Points are each finished game's final scores (bonuses
    included) from the engine. A player is one row however the name was typed ("Frank" and
    "frank")."""
    order = tiebreaks.load(store) if order is None else order
    rows: dict[int, Standing] = {}
    left_out: list[LeftOut] = []
    meetings: set[frozenset[int]] = set()
    wins: list[MatchWin] = []
    states = {}
    forfeited = awards.forfeited_tables(store)  # counted by their awards, not their hands
    undone = stations.withdrawn_tables(store)
    folded = table_states(store, [t for t in table_ids if t not in forfeited])
    for table_id in table_ids:
        if table_id in forfeited:
            continue
        state = folded[table_id]
        if table_id in undone:
            hands = sum(len(g.confirmed_hands) for g in state.games)
            left_out.append(LeftOut(table_id, state.name, "its pairing was undone" + (
                f" after {hands} hand(s) were recorded there (played before its table app "
                "learned of it): kept at the table and here, not counted" if hands else "")))
            continue
        if same_rules(state.rules, rules):
            states[table_id] = state
        else:
            left_out.append(LeftOut(table_id, state.name, f"plays {rules_words(state.rules)} "
                                    f"rules, the event plays {rules_words(rules)}"))
    seats = roster.table_players(store, [(t, st.players) for t, st in states.items()])
    merged = merges.merged_ids(store)
    targets = set(merged.values())  # a player others were merged into shows its own name
    own_names = {pid: name for pid, name in roster.player_names(store).items()
                 if pid in targets} if targets else {}
    for table_id, state in states.items():
        sheet = engine_sheet(state)
        match = sheet.match()
        names, ids = state.players, seats[table_id]
        if ids["A"] == ids["B"]:
            left_out.append(LeftOut(table_id, state.name, f"both seats are {names['A']!r}"))
            continue
        meetings.add(frozenset(ids.values()))
        if match.complete and match.winner in PLAYERS:
            wins.append(MatchWin(ids[match.winner], ids[engine.other_player(match.winner)]))
        for seat in PLAYERS:
            other = engine.other_player(seat)
            st = rows.get(ids[seat])
            if st is None:
                first = own_names.get(ids[seat], names[seat])
                st = rows[ids[seat]] = Standing(player_key(first),
                                                PlayerNames(player_key(first)), ids[seat])
                st.spellings.add(first)
            st.spellings.add(names[seat])
            st.tables.append(table_id)
            st.games_won += match.games_won[seat]
            st.games_lost += match.games_won[other]
            if match.complete:
                st.matches += 1
                st.matches_won += int(match.winner == seat)
            for g in sheet.games:
                if g.complete:
                    st.points_for += g.finals[seat]
                    st.points_against += g.finals[other]
    _count_awards(store, rows, merged, own_names)
    _count_entries(store, rows, merged, own_names)
    for pid, points in adjustments.totals(store).items():
        counted = merges.counted_as(merged, pid)
        if counted in rows:
            rows[counted].adjustment += points
    ranked = tiebreaks.rank(rows.values(), order, wins)
    return Standings([{"rank": i + 1, **s.to_json()} for i, s in enumerate(ranked)], left_out,
                     meetings, wins, tuple(order))


def _count_awards(store: Store, rows: dict[int, Standing], merged: dict[int, int],
                  own_names: dict[int, str]) -> None:
    """Byes (as the event's bye rule says) and forfeits into the standings ``rows``; a
    player with only a bye still gets a row, so the next round pairs them."""
    rule = awards.bye_rule(store)
    names = _Names(store, own_names)
    for award in awards.awards(store):
        st = names.row(rows, merges.counted_as(merged, award.player_id))
        played, won = award.counts(rule)
        st.matches += played
        st.matches_won += won
        st.byes += award.kind is awards.AwardKind.BYE


def _count_entries(store: Store, rows: dict[int, Standing], merged: dict[int, int],
                   own_names: dict[int, str]) -> None:
    """Every entered player gets a row (a late entry is paired before playing anywhere);
    withdrawn players are marked (their results stand; they are not paired); a no-show
    (withdrawn before round 1) without a result has none."""
    names = _Names(store, own_names)
    for entry in entries.entries(store):
        pid = merges.counted_as(merged, entry.player_id)
        if entry.withdrawn_after == 0 and pid not in rows:
            continue  # a no-show before round 1, with no result: not in the event
        st = names.row(rows, pid)
        st.withdrawn = st.withdrawn or not entry.active


class _Names:
    """Rows for players known by id only (a bye, an entry), named as registered."""

    def __init__(self, store: Store, own_names: dict[int, str]) -> None:
        self.store, self.own, self.names = store, own_names, None

    def row(self, rows: dict[int, Standing], pid: int) -> Standing:
        st = rows.get(pid)
        if st is None:
            if self.names is None:
                self.names = roster.player_names(self.store)
            first = self.own.get(pid) or self.names.get(pid, f"player {pid}")
            st = rows[pid] = Standing(player_key(first), PlayerNames(player_key(first)), pid)
            st.spellings.add(first)
        return st


def standings(store: Store, table_ids: list[int], rules: Any = DEFAULT_RULES
              ) -> list[dict[str, Any]]:
    """The ranked rows of ``standings_of`` (JSON)."""
    return standings_of(store, table_ids, rules).rows


CSV_COLUMNS = ["rank", "player", "also entered as", "matches won", "matches played",
               "games won", "games lost", "points for", "points against", "difference",
               "tables", "adjustments", "player id"]


def csv_cell(value: Any) -> str:
    """A CSV cell; text a spreadsheet would run as a formula gets a leading '."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return f"'{value}"
    return str(value)


def standings_csv(rows: list[dict[str, Any]], ranked_by: str = "") -> str:
    """The standings rows (``standings_of(...).rows``) as CSV text; after a blank row,
    the ranking rule (``Standings.ranked_by``) when given."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        writer.writerow([csv_cell(v) for v in (
            r["rank"], r["name"], "; ".join(r["spellings"][1:]), r["matches_won"],
            r["matches"], r["games_won"], r["games_lost"], r["points_for"],
            r["points_against"], r["difference"], " ".join(str(t) for t in r["tables"]),
            r["adjustment"], r["player_id"])])
    if ranked_by:
        writer.writerow([])
        writer.writerow(["ranked by", ranked_by])
    return out.getvalue()
