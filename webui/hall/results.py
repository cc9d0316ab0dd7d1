"""Every round's results, table by table (``/results.csv``): the tables the
standings count (the event's rules, pairing not undone), each with its round and number in
the room when the hall seated it, both players, games won, points and how it stands (won,
playing, forfeit), then each round's byes. The figures are the standings' own (the engine's
match and each finished game's final scores), so the export adds up to the standings."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from webui.hall import awards, merges, roster, stations
from webui.hall.tournament import csv_cell, engine_sheet, same_rules
from webui.store import Store
from webui.store.engine import PLAYERS, other_player


@dataclass(frozen=True)
class ResultRow:
    """One table's result in its round (or a bye: no table, no seat B)."""

    round: int | None  # None: a table the hall did not seat (its round is not known)
    table: int | None  # its number in the round's room (None: a bye, or not seated)
    table_id: int | None
    names: tuple[str, str]
    player_ids: tuple[int | None, int | None]
    games: tuple[int, int] = (0, 0)
    points: tuple[int, int] = (0, 0)
    result: str = "playing"  # won, playing, forfeit, bye
    winner: str = ""
    note: str = ""

    @property
    def order(self) -> tuple[Any, ...]:
        return (self.round is None, self.round or 0, self.table is None, self.table or 0,
                self.table_id or 0)


def round_results(store: Store, table_ids: list[int], rules: Any) -> list[ResultRow]:
    """The results of the event's singles tables ``table_ids`` on its ``rules``, and its byes,
    by round and table number."""
    seated = {s.table_id: s for s in stations.seats(store)
              if s.table_id is not None and s.status is stations.SeatStatus.SEATED}
    undone = stations.withdrawn_tables(store)
    given = awards.awards(store)
    forfeits = {a.table_id: a for a in given
                if a.kind is awards.AwardKind.FORFEIT_WON and a.table_id is not None}
    states = {t: store.state(t) for t in table_ids if t not in undone}
    states = {t: st for t, st in states.items() if t in forfeits or same_rules(st.rules, rules)}
    ids = roster.table_players(store, [(t, st.players) for t, st in states.items()])
    rows: list[ResultRow] = []
    for table_id, state in states.items():
        seat = seated.get(table_id)
        number = seat.round if seat else None
        names = (state.players["A"], state.players["B"])
        pids = (ids[table_id]["A"], ids[table_id]["B"])
        where = {"round": number, "table": seat.table if seat else None,
                 "table_id": table_id, "names": names, "player_ids": pids}
        won = forfeits.get(table_id)
        if won is not None:
            seat_won = "A" if won.player_id == pids[0] else "B"
            absent = state.players[other_player(seat_won)]
            rows.append(ResultRow(**where, result="forfeit",
                                  winner=state.players[seat_won],
                                  note=f"{absent} did not show"))
            continue
        sheet = engine_sheet(state)
        match = sheet.match()
        done = [g for g in sheet.games if g.complete]
        a, b = PLAYERS
        points = (sum(g.finals[a] for g in done), sum(g.finals[b] for g in done))
        games = (match.games_won[a], match.games_won[b])
        decided = match.complete and match.winner in PLAYERS
        rows.append(ResultRow(**where, games=games, points=points,
                              result="won" if decided else "playing",
                              winner=state.players[match.winner] if decided and match.winner
                              else ""))
    rule = awards.bye_rule(store)
    merged = merges.merged_ids(store)
    names = roster.player_names(store)
    for a in given:
        if a.kind is awards.AwardKind.BYE:
            pid = merges.counted_as(merged, a.player_id)
            rows.append(ResultRow(a.round, None, None, (names.get(pid, f"player {pid}"), ""),
                                  (pid, None), result="bye",
                                  note=f"a bye counts as {rule.label}"))
    return sorted(rows, key=lambda r: r.order)


CSV_COLUMNS = ["round", "table", "table id", "seat A", "seat A id", "seat B", "seat B id",
               "games A", "games B", "points A", "points B", "result", "winner", "note"]


def results_csv(rows: list[ResultRow]) -> str:
    """The results as CSV: one row a table a round, then the round's byes (table "bye");
    names a spreadsheet would run as formulas get a leading '."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        blank = "" if r.round is None else r.round
        table = "bye" if r.result == "bye" else ("" if r.table is None else r.table)
        writer.writerow([csv_cell(v) for v in (
            blank, table, r.table_id or "", r.names[0], r.player_ids[0] or "", r.names[1],
            r.player_ids[1] or "", r.games[0], r.games[1], r.points[0], r.points[1],
            r.result, r.winner, r.note)])
    return out.getvalue()
