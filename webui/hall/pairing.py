"""The next round's pairing, from proposal to tables: Swiss pairs from the standings
(``swiss``) by player id, kept as a proposal for a director to approve; approving opens the
round's tables on the event database with those players in the seats (and their ids in
``hall_seats``). Printable and CSV pairing lists."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update

from webui.hall import roster
from webui.hall.event import csv_cell
from webui.hall.schema import HallPairing, HallRound
from webui.hall.swiss import Entrant, SwissRound, swiss_round
from webui.store import Actor, Store


class PairingRefused(ValueError):
    """A pairing that cannot be proposed or approved, with why."""


@dataclass(frozen=True)
class PlannedPair:
    """One table of a planned round: its number, both players (id, name, rank, matches won),
    and whether they met before."""

    table: int
    a: Entrant
    b: Entrant
    rematch: bool


@dataclass(frozen=True)
class Planned:
    """A stored pairing: its round, status (proposed, approved, replaced), pairs, bye, who
    proposed and approved it, and the tables opened for it."""

    id: int
    round: int
    status: str
    pairs: tuple[PlannedPair, ...]
    bye: Entrant | None
    proposed_by: str
    approved_by: str | None
    table_ids: tuple[int, ...]

    @property
    def rematches(self) -> int:
        return sum(p.rematch for p in self.pairs)


def _entrant(data: dict[str, Any]) -> Entrant:
    return Entrant(int(data["id"]), str(data["name"]), int(data["rank"]), int(data["wins"]))


def _entrant_json(e: Entrant) -> dict[str, Any]:
    return {"id": e.player_id, "name": e.name, "rank": e.rank, "wins": e.wins}


def _planned(row: HallPairing) -> Planned:
    pairs = tuple(PlannedPair(p["table"], _entrant(p["A"]), _entrant(p["B"]), p["rematch"])
                  for p in row.pairs)
    return Planned(row.id, row.round, row.status, pairs,
                   _entrant(row.bye) if row.bye else None, row.proposed_by, row.approved_by,
                   tuple(row.table_ids or ()))


def latest(store: Store) -> Planned | None:
    """The newest pairing (any status), or None."""
    with store.Session() as s:
        row = s.scalar(select(HallPairing).order_by(HallPairing.id.desc()).limit(1))
        return _planned(row) if row else None


def get(store: Store, pairing_id: int) -> Planned | None:
    with store.Session() as s:
        row = s.get(HallPairing, pairing_id)
        return _planned(row) if row else None


def approved(store: Store) -> list[Planned]:
    """Every approved pairing, oldest first."""
    with store.Session() as s:
        return [_planned(r) for r in s.scalars(select(HallPairing).where(
            HallPairing.status == "approved").order_by(HallPairing.round))]


def next_round(store: Store) -> int:
    """The round the next pairing is for: after the last round on the clock and the last
    approved pairing (round 1 is the blind draw, so never before round 2)."""
    with store.Session() as s:
        clocked = s.scalar(select(HallRound.number).order_by(HallRound.number.desc()).limit(1))
        paired = s.scalar(select(HallPairing.round).where(HallPairing.status == "approved")
                          .order_by(HallPairing.round.desc()).limit(1))
    return max(clocked or 0, paired or 0, 1) + 1


def entrants_from(rows: list[dict[str, Any]]) -> list[Entrant]:
    """The standings rows (``event.event_standings(...).rows``) as Swiss entrants."""
    return [Entrant(r["player_id"], r["name"], r["rank"], r["matches_won"]) for r in rows]


def propose(store: Store, rows: list[dict[str, Any]], meetings: set[frozenset[int]],
            by: str) -> Planned:
    """Pair the next round from the standings ``rows`` and who met whom; kept as the
    proposal (an older proposal not yet approved is replaced)."""
    round_no = next_round(store)
    byes = [p.bye.player_id for p in approved(store) if p.bye]
    result: SwissRound = swiss_round(entrants_from(rows), meetings, byes)
    pairs = [{"table": p.table, "A": _entrant_json(p.a), "B": _entrant_json(p.b),
              "rematch": p.rematch} for p in result.pairs]
    with store.Session() as s:
        s.execute(update(HallPairing).where(HallPairing.status == "proposed")
                  .values(status="replaced"))
        row = HallPairing(round=round_no, status="proposed", pairs=pairs,
                          bye=_entrant_json(result.bye) if result.bye else None,
                          proposed_by=by[:80], table_ids=[])
        s.add(row)
        s.commit()
        return _planned(row)


def approve(store: Store, pairing_id: int, by: str, rules: Any) -> Planned:
    """Approve a proposed pairing and open its tables (``rules``: the event's) with the
    players in the seats. Only once: a second director's approval, or one of a replaced
    proposal, is refused."""
    with store.Session() as s:
        claimed = s.execute(update(HallPairing).where(
            HallPairing.id == pairing_id, HallPairing.status == "proposed").values(
            status="approved", approved_by=by[:80]))
        s.commit()
        if claimed.rowcount != 1:
            row = s.get(HallPairing, pairing_id)
            status = row.status if row else "missing"
            raise PairingRefused(f"this pairing is {status}, not waiting for approval"
                                 + (f" (approved by {row.approved_by})"
                                    if row and row.approved_by else ""))
        row = s.get(HallPairing, pairing_id)
        planned = _planned(row)
        opened: list[int] = []
        for pair in planned.pairs:
            name = f"Round {planned.round} Table {pair.table}"
            table_id = store.create_table(name, {
                "name": name, "players": {"A": pair.a.name, "B": pair.b.name},
                "rules": rules, "camera": None}, Actor("director"))
            roster.seat_players(s, table_id, {"A": pair.a.player_id, "B": pair.b.player_id})
            opened.append(table_id)
        row.table_ids = opened
        s.commit()
        return _planned(row)


CSV_COLUMNS = ["round", "table", "seat A", "seat A id", "seat A rank", "seat B", "seat B id",
               "seat B rank", "rematch"]


def pairing_csv(planned: Planned) -> str:
    """A pairing as CSV: one row per table, then the bye (if any)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for p in planned.pairs:
        writer.writerow([csv_cell(v) for v in (
            planned.round, p.table, p.a.name, p.a.player_id, p.a.rank, p.b.name, p.b.player_id,
            p.b.rank, "yes" if p.rematch else "")])
    if planned.bye:
        b = planned.bye
        writer.writerow([csv_cell(v) for v in (planned.round, "bye", b.name, b.player_id,
                                                b.rank, "", "", "", "")])
    return out.getvalue()
