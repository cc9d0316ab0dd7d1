"""Blind draw for the first match (000, singles rule 1: "Players shall be paired for the first
match by a blind draw"); the same draw pairs teams for a partnership event."""

from __future__ import annotations

import random
import secrets
from typing import Any

from webui.common.refusal import Refusal
from webui.hall.players import player_key


class DrawError(Refusal):
    """Entrants that cannot be drawn (too few, blank or repeated names)."""


def clean_entrants(names: list[str]) -> list[str]:
    """Entrant names stripped; blank lines dropped; repeats and fewer than two refused."""
    out = clean_names(names)
    if len(out) < 2:
        raise DrawError("a draw needs at least two entrants")
    return out


def clean_names(names: list[str]) -> list[str]:
    """Names stripped (one space for any run of whitespace); blank lines dropped; a name
    given twice (``player_key``) or longer than 60 characters refused."""
    out = [" ".join(n.split()) for n in names if n and n.strip()]
    seen: set[str] = set()
    for name in out:
        key = player_key(name)
        if key in seen:
            raise DrawError(f"{name!r} is entered twice")
        seen.add(key)
        if len(name) > 60:
            raise DrawError(f"name too long: {name[:20]!r}...")
    return out


def blind_draw(names: list[str], seed: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    """Pair entrants at random: returns the seed (kept so the draw can be checked) and the
    pairs ``{"table": n, "A": name, "B": name}``; with an odd number the last drawn has a bye
    (``"B": None, "bye": True``)."""
    entrants = clean_entrants(names)
    seed = seed or secrets.token_hex(8)
    order = list(entrants)
    random.Random(seed).shuffle(order)
    pairs: list[dict[str, Any]] = []
    for i in range(0, len(order) - 1, 2):
        pairs.append({"table": i // 2 + 1, "A": order[i], "B": order[i + 1]})
    if len(order) % 2:
        pairs.append({"table": None, "A": order[-1], "B": None, "bye": True})
    return seed, pairs
