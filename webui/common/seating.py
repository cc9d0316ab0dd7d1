"""A round's seating pushed by the hall to a table app: who plays whom, in which round, at
which table number. The hall's sync opens the round's table in the table app's own database
with these names (no typing at the table); the seating rides in that table's
``table_created`` event (key ``seating``), so the table app and the hall read it back from the
events, and a sync that runs twice finds the table it opened already."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webui.store import Store
from webui.store.state import TableState

PAYLOAD_KEY = "seating"
ORIGIN_KEY = "hall_origin"  # set by the first sync (webui.hall.identity)
WITHDRAWN_KEY = "hall_withdrawn_seatings"  # tokens the hall withdrew (a pairing undone)
FORFEITS_KEY = "hall_forfeits"  # tables the hall decided by a forfeit: local id -> words


@dataclass(frozen=True)
class Seating:
    """One table of a round as the hall seated it: the seating's token (unique, so a table is
    opened for it once), the round, the table number in the room and both players' names."""

    token: str
    round: int
    table: int
    a: str
    b: str

    @property
    def title(self) -> str:
        """``Round 2: Ann vs Ben``."""
        return f"Round {self.round}: {self.a} vs {self.b}"

    @property
    def table_name(self) -> str:
        """The name of the table opened for it: ``Round 2 Table 3``."""
        return f"Round {self.round} Table {self.table}"

    def to_payload(self) -> dict[str, Any]:
        return {"token": self.token, "round": self.round, "table": self.table,
                "A": self.a, "B": self.b}

    @staticmethod
    def from_payload(data: Any) -> Seating | None:
        """The seating a ``table_created`` payload carries, or None (a table typed in)."""
        if not isinstance(data, dict):
            return None
        try:
            return Seating(str(data["token"]), int(data["round"]), int(data["table"]),
                           str(data["A"]), str(data["B"]))
        except (KeyError, TypeError, ValueError):
            return None


def seating_of(store: Store, table_id: int) -> Seating | None:
    """The hall's seating a table was opened for (None for a table set up by hand)."""
    first = store.event(table_id, 1)
    if first is None or first.kind != "table_created":
        return None
    return Seating.from_payload(first.payload.get(PAYLOAD_KEY))


def seated_tables(store: Store) -> dict[str, int]:
    """Every table of this database opened for a hall seating, by the seating's token."""
    out: dict[str, int] = {}
    for table in store.tables():
        seating = seating_of(store, table.id)
        if seating is not None:
            out.setdefault(seating.token, table.id)
    return out


def open_seated_table(store: Store, seating: Seating, rules: Any, like: TableState | None,
                      actor: Any) -> int:
    """Open the table of ``seating`` (once: an existing one with its token is returned) with
    its players' names and ``rules``; camera and layout as the table ``like`` (the table app's
    latest table, so the round plays under the same camera)."""
    found = seated_tables(store).get(seating.token)
    if found is not None:
        return found
    settings: dict[str, Any] = {
        "name": seating.table_name, "players": {"A": seating.a, "B": seating.b},
        "rules": rules, "camera": like.camera if like else None, PAYLOAD_KEY:
        seating.to_payload()}
    if like is not None and like.layout:
        settings["layout"] = like.layout
    return store.create_table(seating.table_name, settings, actor)


def syncs_to_hall(store: Store) -> bool:
    """Whether this table database syncs to an event (``gintray sync`` gave it an origin)."""
    return store.get_setting(ORIGIN_KEY) is not None


def finished(state: TableState) -> bool:
    """Whether a table is done with its match: decided and its last game signed, or never
    started (no hand confirmed), so its screen may move on to the next round's table."""
    game = state.game
    if game is None or not any(g.confirmed_hands for g in state.games):
        return True
    return state.match().complete and game.ended and game.locked


def next_seated(store: Store, table_id: int) -> tuple[int, Seating] | None:
    """The newest table of this app the hall seated after ``table_id`` (the next round's,
    not one whose pairing was undone), or None."""
    later = [t.id for t in store.tables() if t.id > table_id]
    gone = withdrawn_tokens(store)
    for other in sorted(later, reverse=True):
        seating = seating_of(store, other)
        if seating is not None and seating.token not in gone:
            return other, seating
    return None


def withdrawn_tokens(store: Store) -> set[str]:
    """The seatings the hall withdrew from this table app (their pairing was undone), told by
    its sync."""
    text = store.get_setting(WITHDRAWN_KEY)
    return set(json.loads(text)) if text else set()


def mark_withdrawn(store: Store, tokens: set[str]) -> None:
    """Record that the hall withdrew these seatings (once each, safe from two syncs)."""
    for _ in range(100):
        before = store.get_setting(WITHDRAWN_KEY)
        known = set(json.loads(before)) if before else set()
        if tokens <= known:
            return
        if store.settings.compare_and_set(WITHDRAWN_KEY, before,
                                          json.dumps(sorted(known | tokens))):
            return
    raise RuntimeError("the withdrawn seatings kept changing; try again")


def forfeit_of(store: Store, table_id: int) -> str | None:
    """The forfeit the hall decided a table's match by ("Ann wins by forfeit: Ben did not
    show"), told by its sync; None when none."""
    text = store.get_setting(FORFEITS_KEY)
    return json.loads(text).get(str(table_id)) if text else None


def mark_forfeit(store: Store, table_id: int, words: str) -> None:
    """Record the hall's forfeit of a table (safe from two syncs at once)."""
    for _ in range(100):
        before = store.get_setting(FORFEITS_KEY)
        known = json.loads(before) if before else {}
        if known.get(str(table_id)) == words:
            return
        if store.settings.compare_and_set(FORFEITS_KEY, before,
                                          json.dumps({**known, str(table_id): words})):
            return
    raise RuntimeError("the forfeits kept changing; try again")


def undone(store: Store, table_id: int) -> Seating | None:
    """The seating of a table whose pairing the hall undid (do not play it), or None."""
    seating = seating_of(store, table_id)
    return seating if seating is not None and seating.token in withdrawn_tokens(store) else None
