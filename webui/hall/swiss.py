"""Swiss pairing of the next round from the standings (pure functions, no database).

Players with similar records meet: the entrants come ranked (best first) and each is paired
with the nearest-ranked player still free. Nobody meets a player they already met while
another pairing avoids it: the search first allows no rematch, then one, then two, ...
(so the fewest rematches possible). With an odd number, the lowest-ranked player who has not
had a bye gets one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from webui.common.refusal import Refusal

SEARCH_LIMIT = 200_000  # nodes per attempt; past it the next attempt allows one more rematch


@dataclass(frozen=True)
class Entrant:
    """A player to pair: stable id, name shown, rank in the standings (1 = best), and
    matches won (the record pairings group on)."""

    player_id: int
    name: str
    rank: int
    wins: int = 0


@dataclass(frozen=True)
class Pair:
    """One table of the round: seat A (the higher-ranked), seat B, whether they met before."""

    table: int
    a: Entrant
    b: Entrant
    rematch: bool = False


@dataclass(frozen=True)
class SwissRound:
    """The pairs of a round, the player with the bye (if any) and the rematches it needs."""

    pairs: tuple[Pair, ...]
    bye: Entrant | None = None

    @property
    def rematches(self) -> int:
        return sum(p.rematch for p in self.pairs)


class PairingError(Refusal):
    """A round that cannot be paired, proposed or approved, with why (fewer than two
    entrants, a player listed twice, a round still playing...)."""


def met(a: int, b: int) -> frozenset[int]:
    """The key of a meeting between two players (either order)."""
    return frozenset((a, b))


def pick_bye(ranked: Sequence[Entrant], had_bye: Iterable[int]) -> Entrant | None:
    """With an odd number of entrants, the lowest-ranked who has not had a bye (everyone has:
    the lowest-ranked); None with an even number."""
    if len(ranked) % 2 == 0:
        return None
    byes = set(had_bye)
    for e in reversed(ranked):
        if e.player_id not in byes:
            return e
    return ranked[-1]


def _search(players: list[Entrant], played: set[frozenset[int]], budget: int,
            limit: list[int]) -> list[tuple[Entrant, Entrant]] | None:
    """Pairs of ``players`` (ranked) with at most ``budget`` rematches, nearest ranks first;
    None when there are none (or the node ``limit`` ran out)."""
    if not players:
        return []
    limit[0] -= 1
    if limit[0] < 0:
        return None
    top, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        again = met(top.player_id, other.player_id) in played
        if again and budget == 0:
            continue
        found = _search(rest[:i] + rest[i + 1:], played, budget - again, limit)
        if found is not None:
            return [(top, other), *found]
    return None


def by_rank(entrants: Iterable[Entrant], what: str) -> list[Entrant]:
    """``entrants`` best first (by ``rank``, then id), refusing a player listed twice or fewer
    than two players (``what`` needs them: "pairing", "a knockout")."""
    ranked = sorted(entrants, key=lambda e: (e.rank, e.player_id))
    ids = [e.player_id for e in ranked]
    if len(set(ids)) != len(ids):
        raise PairingError("a player is listed twice")
    if len(ranked) < 2:
        raise PairingError(f"{what} needs at least two players")
    return ranked


def swiss_round(entrants: Sequence[Entrant], played: Iterable[frozenset[int]],
                had_bye: Iterable[int] = ()) -> SwissRound:
    """The next round's pairs: ``entrants`` in any order (ranked here by ``rank``),
    ``played`` the meetings so far (``met(a, b)``), ``had_bye`` the players who had a bye."""
    ranked = by_rank(entrants, "pairing")
    meetings = set(played)
    bye = pick_bye(ranked, had_bye)
    players = [e for e in ranked if e is not bye]
    found = None
    for budget in range(len(players) // 2 + 1):
        found = _search(players, meetings, budget, [SEARCH_LIMIT])
        if found is not None:
            break
    if found is None:  # only past the node limit: nearest ranks, rematches or not
        found = [(players[i], players[i + 1]) for i in range(0, len(players), 2)]
    pairs = tuple(Pair(n, a, b, met(a.player_id, b.player_id) in meetings)
                  for n, (a, b) in enumerate(found, start=1))
    return SwissRound(pairs, bye)
