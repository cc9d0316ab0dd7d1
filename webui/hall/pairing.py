"""The next round's pairing, from proposal to tables: Swiss pairs from the standings
(``swiss``) or a knockout round (``knockout``: seeded from the standings, then the winners of
the previous knockout round) by player id, kept as a proposal for a director to approve;
approving opens the round's tables on the event database with those players in the seats
(and their ids in ``hall_seats``). Printable and CSV pairing lists."""

from __future__ import annotations

import csv
import enum
import io
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from webui.hall import awards, knockout, merges, stations
from webui.hall.knockout import KnockoutRound, Slot
from webui.hall.schema import HallBracket, HallPairing, HallRound, HallTableSeating
from webui.hall.swiss import Entrant, Pair, PairingError, SwissRound, swiss_round
from webui.hall.tournament import csv_cell, match_status
from webui.store import Store
from webui.store.db import utcnow
from webui.store.engine import PLAYERS


class PairingSystem(enum.Enum):
    """How a round is paired."""

    SWISS = "swiss"
    KNOCKOUT = "knockout"


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
    bracket: KnockoutRound | None = None
    tables_by_number: dict[int, int] | None = None

    @property
    def rematches(self) -> int:
        return sum(p.rematch for p in self.pairs)

    @property
    def system(self) -> PairingSystem:
        return PairingSystem.SWISS if self.bracket is None else PairingSystem.KNOCKOUT

    @property
    def byes(self) -> tuple[Entrant, ...]:
        """Who does not play this round: the Swiss bye, or the knockout's byes."""
        if self.bracket is not None:
            return self.bracket.byes
        return (self.bye,) if self.bye else ()


def _entrant(data: dict[str, Any]) -> Entrant:
    return Entrant(int(data["id"]), str(data["name"]), int(data["rank"]), int(data["wins"]))


def _entrant_json(e: Entrant) -> dict[str, Any]:
    return {"id": e.player_id, "name": e.name, "rank": e.rank, "wins": e.wins}


def _bracket(row: HallBracket) -> KnockoutRound:
    return KnockoutRound(row.stage, tuple(
        Slot(_entrant(p["A"]), _entrant(p["B"]) if p["B"] else None) for p in row.slots))


def _planned(row: HallPairing, bracket: HallBracket | None) -> Planned:
    pairs = tuple(PlannedPair(p["table"], _entrant(p["A"]), _entrant(p["B"]), p["rematch"])
                  for p in row.pairs)
    return Planned(row.id, row.round, row.status, pairs,
                   _entrant(row.bye) if row.bye else None, row.proposed_by, row.approved_by,
                   tuple(row.table_ids or ()), _bracket(bracket) if bracket else None)


def _read(s: Session, rows: list[HallPairing]) -> list[Planned]:
    """Pairings as stored, with the brackets of the knockout ones and the tables seated for
    them (``stations``: a station's table once its sync brought it up)."""
    ids = [r.id for r in rows]
    brackets = {b.pairing_id: b for b in s.scalars(select(HallBracket).where(
        HallBracket.pairing_id.in_(ids)))} if rows else {}
    seated: dict[int, list[HallTableSeating]] = {}
    for seat in s.scalars(select(HallTableSeating).where(
            HallTableSeating.pairing_id.in_(ids), HallTableSeating.status == "seated")
            .order_by(HallTableSeating.table)) if rows else ():
        seated.setdefault(seat.pairing_id or 0, []).append(seat)
    out = []
    for r in rows:
        planned = _planned(r, brackets.get(r.id))
        if r.id in seated:  # seated through stations: the tables known so far
            planned = replace(planned, table_ids=tuple(
                x.table_id for x in seated[r.id] if x.table_id is not None),
                tables_by_number={x.table: x.table_id for x in seated[r.id]
                                  if x.table_id is not None})
        out.append(planned)
    return out


def latest(store: Store) -> Planned | None:
    """The newest pairing (any status), or None."""
    with store.Session() as s:
        rows = list(s.scalars(select(HallPairing).order_by(HallPairing.id.desc()).limit(1)))
        return next(iter(_read(s, rows)), None)


def get(store: Store, pairing_id: int) -> Planned | None:
    with store.Session() as s:
        row = s.get(HallPairing, pairing_id)
        return _read(s, [row])[0] if row else None


def approved(store: Store) -> list[Planned]:
    """Every approved pairing, oldest first."""
    with store.Session() as s:
        return _read(s, list(s.scalars(select(HallPairing).where(
            HallPairing.status == "approved").order_by(HallPairing.round))))


def other_rounds_tables(approved_pairings: list[Planned], number: int) -> set[int]:
    """The tables opened for the approved pairings of rounds other than ``number``."""
    return {t for p in approved_pairings if p.round != number for t in p.table_ids}


def next_round(store: Store) -> int:
    """The round the next pairing is for: after the last round on the clock and the last
    approved pairing (round 1 is the blind draw, so never before round 2)."""
    with store.Session() as s:
        clocked = s.scalar(select(HallRound.number).order_by(HallRound.number.desc()).limit(1))
        paired = s.scalar(select(HallPairing.round).where(HallPairing.status == "approved")
                          .order_by(HallPairing.round.desc()).limit(1))
    return max(clocked or 0, paired or 0, 1) + 1


def entrants_from(rows: list[dict[str, Any]]) -> list[Entrant]:
    """The standings rows (``tournament.standings_of(...).rows``) as entrants to pair (withdrawn
    players left out)."""
    return [Entrant(r["player_id"], r["name"], r["rank"], r["matches_won"]) for r in rows
            if not r.get("withdrawn")]


def propose(store: Store, rows: list[dict[str, Any]], meetings: set[frozenset[int]],
            by: str) -> Planned:
    """Pair the next round (Swiss) from the standings ``rows`` and who met whom; kept as the
    proposal (an older proposal not yet approved is replaced)."""
    merged = merges.merged_ids(store)
    byes = [merges.counted_as(merged, pid) for pid in awards.had_bye(store)]
    byes += [merges.counted_as(merged, p.bye.player_id) for p in approved(store) if p.bye]
    result: SwissRound = swiss_round(entrants_from(rows), meetings, byes)
    return _keep(store, result.pairs, result.bye, None, by)


def propose_knockout(store: Store, rows: list[dict[str, Any]], by: str,
                     top: int | None = None) -> Planned:
    """Pair the next knockout round: after an approved knockout round, its winners (every
    match of it must be over); else the first round, seeded by the standings ``rows`` (the
    best ``top`` players when given). Kept as the proposal, like a Swiss one."""
    previous = next((p for p in reversed(approved(store))), None)
    if previous is not None and previous.bracket is not None:
        bracket = knockout.next_round(previous.bracket, _winners(store, previous))
    else:
        seeded = entrants_from(rows)
        bracket = knockout.first_round(seeded[:top] if top else seeded)
    return _keep(store, bracket.pairs, None, bracket, by)


def _winners(store: Store, planned: Planned) -> dict[int, int]:
    """The player id of each finished match's winner of an opened round, by table number."""
    out: dict[int, int] = {}
    by_number = planned.tables_by_number
    if by_number is None:  # opened before seatings were kept: in the pairs' order
        by_number = dict(zip((p.table for p in planned.pairs), planned.table_ids, strict=False))
    for pair in planned.pairs:
        table_id = by_number.get(pair.table)
        if table_id is None:
            continue
        match = match_status(store.state(table_id))
        if match.complete and match.winner in PLAYERS:
            out[pair.table] = (pair.a if match.winner == "A" else pair.b).player_id
    return out


def _keep(store: Store, pairs: tuple[Pair, ...], bye: Entrant | None,
          bracket: KnockoutRound | None, by: str) -> Planned:
    """Store a proposal for the next round (replacing one not yet approved)."""
    rows = [{"table": p.table, "A": _entrant_json(p.a), "B": _entrant_json(p.b),
             "rematch": p.rematch} for p in pairs]
    with store.Session() as s:
        s.execute(update(HallPairing).where(HallPairing.status == "proposed")
                  .values(status="replaced"))
        row = HallPairing(round=next_round(store), status="proposed", pairs=rows,
                          bye=_entrant_json(bye) if bye else None, proposed_by=by[:80],
                          table_ids=[])
        s.add(row)
        s.flush()
        kept = None
        if bracket is not None:
            kept = HallBracket(pairing_id=row.id, stage=bracket.stage, slots=[
                {"A": _entrant_json(x.a), "B": _entrant_json(x.b) if x.b else None}
                for x in bracket.slots])
            s.add(kept)
        s.commit()
        return _planned(row, kept)


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
            raise PairingError(f"this pairing is {status}, not waiting for approval"
                                 + (f" (approved by {row.approved_by})"
                                    if row and row.approved_by else ""))
        row = s.get(HallPairing, pairing_id)
        planned = _read(s, [row])[0]
    stations.seat_round(store, planned.round, [
        (p.table, stations.SeatedPlayer(p.a.player_id, p.a.name),
         stations.SeatedPlayer(p.b.player_id, p.b.name)) for p in planned.pairs],
        rules, pairing_id)
    if planned.bracket is None and planned.bye is not None:  # a knockout's byes advance only
        awards.give(store, awards.Award(planned.round, planned.bye.player_id,
                                        awards.AwardKind.BYE), by)
    found = get(store, pairing_id)
    assert found is not None
    return found


#: How recent a table app's last sync must be for the hall to know that nothing was played at
#: a round table it opened (``undo``): a sync loop runs every few seconds.
SEEN_WITHIN = timedelta(seconds=30)


def _maybe_played(store: Store, seats: list[stations.TableSeat], now: datetime) -> list[str]:
    """The pairing's tables opened at a table app that has not synced within
    ``SEEN_WITHIN``: a hand may have been played there since, unseen by the hall."""
    out = []
    for seat in seats:
        if seat.station is None or seat.table_id is None:
            continue  # on the event database, or never opened (its station not synced since)
        synced = stations.station_synced_at(store, seat.station)
        if synced is None or now - synced > SEEN_WITHIN:
            ago = f"{int((now - synced).total_seconds())} s ago" if synced else "never"
            out.append(f"table app {seat.station} opened {seat.seating.table_name} and last "
                       f"synced {ago}")
    return out


def undo(store: Store, pairing_id: int, now: datetime | None = None) -> Planned:
    """Undo an approved pairing before its round plays: refused once the round is on the
    clock, a hand is recorded at one of its tables, or a table app that opened one of its
    tables has not synced lately (a hand may have been played there unseen). Its seatings are
    withdrawn (a station that has not synced yet never opens them; one that has is told at its
    next sync), its bye is taken back, and the round can be paired again."""
    planned = get(store, pairing_id)
    if planned is None or planned.status != "approved":
        raise PairingError("only an approved pairing can be undone")
    with store.Session() as s:
        clocked = s.scalar(select(HallRound.number).where(HallRound.number == planned.round))
    if clocked is not None:
        raise PairingError(f"round {planned.round} is on the clock already: play started")
    seats = stations.seats(store, [pairing_id])
    tables = set(planned.table_ids) | {x.table_id for x in seats if x.table_id is not None}
    played = sorted(t for t in tables if any(g.hands for g in store.state(t).games))
    if played:
        raise PairingError(f"hands are recorded at table(s) "
                             f"{', '.join(str(t) for t in played)}: play started")
    unseen = _maybe_played(store, seats, now or utcnow())
    if unseen:
        raise PairingError(f"{'; '.join(unseen)}: a hand may have been played there that "
                             "the hall has not seen, so the pairing is kept. Undo it once "
                             "those table apps have synced again")
    with store.Session() as s:
        done = s.execute(update(HallPairing).where(
            HallPairing.id == pairing_id, HallPairing.status == "approved")
            .values(status="undone")).rowcount == 1
        s.commit()
    if not done:
        raise PairingError("this pairing was just undone by another director")
    stations.withdraw_pairing(store, pairing_id)
    awards.take_back(store, planned.round, [b.player_id for b in planned.byes])
    found = get(store, pairing_id)
    assert found is not None
    return found


def swap(store: Store, pairing_id: int, first: int, second: int,
         meetings: set[frozenset[int]]) -> Planned:
    """Swap two players (ids) of a proposed pairing: seats, or a seat and the bye; rematches
    are marked again from ``meetings``."""
    with store.Session() as s:
        row = s.get(HallPairing, pairing_id)
        if row is None or row.status != "proposed":
            raise PairingError("only a proposed pairing can be changed")
        if s.scalar(select(HallBracket.id).where(HallBracket.pairing_id == pairing_id)):
            raise PairingError("a knockout bracket is seeded: swap players in a Swiss round")
        slots = [(i, seat) for i in range(len(row.pairs)) for seat in PLAYERS]
        where = {row.pairs[i][seat]["id"]: (i, seat) for i, seat in slots}
        if row.bye:
            where[row.bye["id"]] = (-1, "bye")
        if first == second or first not in where or second not in where:
            raise PairingError("choose two different players of this pairing")
        pairs = [dict(p) for p in row.pairs]
        bye = dict(row.bye) if row.bye else None

        def player(at: tuple[int, str]) -> dict[str, Any]:
            return bye if at[0] < 0 else pairs[at[0]][at[1]]  # type: ignore[return-value]

        def put(at: tuple[int, str], who: dict[str, Any]) -> None:
            nonlocal bye
            if at[0] < 0:
                bye = who
            else:
                pairs[at[0]][at[1]] = who

        one, two = player(where[first]), player(where[second])
        put(where[first], two)
        put(where[second], one)
        for p in pairs:
            p["rematch"] = frozenset((p["A"]["id"], p["B"]["id"])) in meetings
        row.pairs, row.bye = pairs, bye
        s.commit()
    found = get(store, pairing_id)
    assert found is not None
    return found


CSV_COLUMNS = ["round", "table", "seat A", "seat A id", "seat A rank", "seat B", "seat B id",
               "seat B rank", "rematch"]


def pairing_csv(planned: Planned) -> str:
    """A pairing as CSV: one row per table, then each bye."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for p in planned.pairs:
        writer.writerow([csv_cell(v) for v in (
            planned.round, p.table, p.a.name, p.a.player_id, p.a.rank, p.b.name, p.b.player_id,
            p.b.rank, "yes" if p.rematch else "")])
    for b in planned.byes:
        writer.writerow([csv_cell(v) for v in (planned.round, "bye", b.name, b.player_id,
                                                b.rank, "", "", "", "")])
    return out.getvalue()
