"""Who a typed name stands for: one player however the name was typed at the tables.

Every place of the hall that groups or compares players by name goes through
``player_key`` ("Frank", "frank" and " FRANK " are one player); ``PlayerNames`` keeps the
spellings seen so the director sees which names were taken as one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_SPACES = re.compile(r"\s+")


def player_key(name: str) -> str:
    """The identity of a typed name: Unicode NFKC, case folded, runs of whitespace made one
    space, ends stripped."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip().casefold()


@dataclass
class PlayerNames:
    """The spellings of one player's name, first seen first (the first is the one shown)."""

    key: str
    spellings: list[str] = field(default_factory=list)

    def add(self, name: str) -> None:
        """Remember a spelling (whitespace tidied) once."""
        tidy = _SPACES.sub(" ", name).strip()
        if tidy not in self.spellings:
            self.spellings.append(tidy)

    @property
    def shown(self) -> str:
        """The name shown for the player."""
        return self.spellings[0] if self.spellings else self.key


@dataclass(frozen=True)
class Placed:
    """One player in a printed round, for the alphabetical list on the wall: where they sit
    (``table`` None: a bye) and whom they play."""

    name: str
    table: int | None
    seat: str
    opponent: str


def alphabetical(pairs: list[tuple[int, str, str]], byes: list[str]) -> list[Placed]:
    """Every player of a round's ``pairs`` (table, seat A's name, seat B's name) and its
    ``byes``, in alphabetical order (as ``player_key`` compares names: case and spacing
    aside), each with table, seat and opponent."""
    out = [Placed(a, table, "A", b) for table, a, b in pairs]
    out += [Placed(b, table, "B", a) for table, a, b in pairs]
    out += [Placed(name, None, "", "") for name in byes]
    return sorted(out, key=lambda p: (player_key(p.name), p.name))
