"""Merging two player ids into one (``hall_player_merges``): one person whose name was typed
two ways that ``players.player_key`` cannot join ("Frank" at one table, "Franck" at
another). The merged id's results, adjustments and later tables count for the id it was
merged into; nothing at the tables changes, and a merge can be undone."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select

from webui.common.refusal import Refusal
from webui.hall.health import as_utc
from webui.hall.schema import HallPlayer, PlayerMerge
from webui.store import Store
from webui.store.db import commit_first


class MergeError(Refusal):
    """A merge that cannot be made (one player, unknown ids, players who met, no reason)."""


@dataclass(frozen=True)
class Merge:
    """A merge as stored: the merged id and the id it counts for (with their names), who
    merged them, why and when."""

    from_id: int
    from_name: str
    into_id: int
    into_name: str
    director: str
    reason: str
    at: datetime


def merged_ids(store: Store) -> dict[int, int]:
    """Each merged player id -> the id its results count for (chains followed: a player
    merged into one that was merged later counts for the last)."""
    with store.Session() as s:
        pairs = {f: i for f, i in s.execute(select(PlayerMerge.from_id, PlayerMerge.into_id))}
    out: dict[int, int] = {}
    for start in pairs:
        seen, at = {start}, pairs[start]
        while at in pairs and at not in seen:
            seen.add(at)
            at = pairs[at]
        out[start] = at
    return out


def counted_as(mapping: dict[int, int], player_id: int) -> int:
    """The id whose standing ``player_id``'s results count in (``merged_ids``)."""
    return mapping.get(player_id, player_id)


def merges(store: Store) -> list[Merge]:
    """Every merge in force, newest first."""
    with store.Session() as s:
        names = {p.id: p.name for p in s.scalars(select(HallPlayer))}
        rows = list(s.scalars(select(PlayerMerge).order_by(PlayerMerge.id.desc())))
    return [Merge(r.from_id, names.get(r.from_id, "?"), r.into_id, names.get(r.into_id, "?"),
                  r.director, r.reason, as_utc(r.created_at)) for r in rows]


def merge(store: Store, from_id: int, into_id: int, director: str, reason: str,
          meetings: Collection[frozenset[int]]) -> Merge:
    """Count ``from_id``'s results for ``into_id``. Refused for one id, an unknown id, an id
    merged already (or merged into ``from_id``, which would make a loop), two players who
    played each other (``meetings``: they are two people), and without a reason."""
    reason = " ".join(reason.split())[:300]
    if not reason:
        raise MergeError("say why (the reason is shown in the audit)")
    mapping = merged_ids(store)
    with store.Session() as s:
        names = {p.id: p.name for p in s.scalars(select(HallPlayer))}
    for pid in (from_id, into_id):
        if pid not in names:
            raise MergeError(f"there is no player {pid} in this event")
    if from_id == into_id:
        raise MergeError("choose two different players")
    if from_id in mapping:
        into = mapping[from_id]
        raise MergeError(f"{names[from_id]} (player {from_id}) is merged into "
                         f"{names[into]} (player {into}) already")
    if into_id in mapping:
        raise MergeError(f"{names[into_id]} (player {into_id}) is merged into "
                         f"{names[mapping[into_id]]}: merge into that player instead")
    if frozenset((from_id, into_id)) in meetings:
        raise MergeError(f"{names[from_id]} and {names[into_id]} played each other at a "
                         "table: they are two players")
    row = PlayerMerge(from_id=from_id, into_id=into_id, director=director[:80], reason=reason)
    with store.Session() as s:
        s.add(row)
        if not commit_first(s):
            raise MergeError(f"{names[from_id]} was just merged by another director")
        return Merge(from_id, names[from_id], into_id, names[into_id], row.director, reason,
                     as_utc(row.created_at))


def unmerge(store: Store, from_id: int) -> Merge:
    """Undo the merge of ``from_id``: its results count for itself again."""
    found = next((m for m in merges(store) if m.from_id == from_id), None)
    if found is None:
        raise MergeError(f"player {from_id} is not merged into anyone")
    with store.Session() as s:
        s.execute(delete(PlayerMerge).where(PlayerMerge.from_id == from_id))
        s.commit()
    return found
