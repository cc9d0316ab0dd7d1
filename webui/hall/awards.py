"""Match results the hall gives without a game (``hall_awards``): byes, and forfeits at a
table where a player did not show. How a bye counts is the event's rule (``ByeRule``, the
setting ``hall_bye_rule``; default a match won with no games and no points). A forfeit is
always a match won by the player who came and lost by the one who did not, with no points."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from sqlalchemy import delete, select

from webui.hall import roster
from webui.hall.schema import HallAward
from webui.store import Store
from webui.store.db import commit_first

BYE_RULE_KEY = "hall_bye_rule"


class AwardKind(enum.Enum):
    """Why a player has a result without a game."""

    BYE = "bye"
    FORFEIT_WON = "forfeit_won"
    FORFEIT_LOST = "forfeit_lost"


class ByeRule(enum.Enum):
    """How a bye counts in the standings."""

    WIN = "win"          # a match won (no games, no points): the default
    PLAYED = "played"    # a match played, not won
    NOTHING = "nothing"  # not counted at all (only the player stays in the event)

    @property
    def label(self) -> str:
        return {ByeRule.WIN: "a match won, no games or points",
                ByeRule.PLAYED: "a match played, not won",
                ByeRule.NOTHING: "nothing"}[self]


@dataclass(frozen=True)
class Award:
    """A result without a game: round, player id, kind, and the table (forfeits)."""

    round: int
    player_id: int
    kind: AwardKind
    table_id: int | None = None

    def counts(self, rule: ByeRule) -> tuple[int, int]:
        """(matches played, matches won) this award adds under the event's bye ``rule``."""
        if self.kind is AwardKind.FORFEIT_WON:
            return 1, 1
        if self.kind is AwardKind.FORFEIT_LOST:
            return 1, 0
        return {ByeRule.WIN: (1, 1), ByeRule.PLAYED: (1, 0), ByeRule.NOTHING: (0, 0)}[rule]


def bye_rule(store: Store) -> ByeRule:
    """The event's bye rule (``win`` unless the director chose another)."""
    try:
        return ByeRule(store.get_setting(BYE_RULE_KEY) or ByeRule.WIN.value)
    except ValueError:
        return ByeRule.WIN


def set_bye_rule(store: Store, rule: ByeRule) -> None:
    store.set_setting(BYE_RULE_KEY, rule.value)


def give(store: Store, award: Award, director: str = "director") -> bool:
    """Record ``award`` (once per player and round: False when the player has one)."""
    with store.Session() as s:
        s.add(HallAward(round=award.round, player_id=award.player_id, kind=award.kind.value,
                        table_id=award.table_id, director=director[:80]))
        return commit_first(s)


def take_back(store: Store, round_number: int, player_ids: list[int]) -> None:
    """Remove the awards of ``round_number`` for these players (a seating undone)."""
    with store.Session() as s:
        s.execute(delete(HallAward).where(HallAward.round == round_number,
                                          HallAward.player_id.in_(player_ids)))
        s.commit()


def awards(store: Store) -> list[Award]:
    """Every award, by round."""
    with store.Session() as s:
        rows = list(s.scalars(select(HallAward).order_by(HallAward.round, HallAward.id)))
    return [Award(r.round, r.player_id, AwardKind(r.kind), r.table_id) for r in rows]


def had_bye(store: Store) -> list[int]:
    """The player ids that had a bye (the Swiss gives the next one to someone else)."""
    return [a.player_id for a in awards(store) if a.kind is AwardKind.BYE]


def forfeit_words(store: Store) -> dict[int, str]:
    """Each forfeited table's result in words, by table id: "Ann wins by forfeit: Ben did
    not show"."""
    names = roster.player_names(store)
    won: dict[int, str] = {}
    lost: dict[int, str] = {}
    for a in awards(store):
        if a.table_id is not None:
            name = names.get(a.player_id, f"player {a.player_id}")
            (won if a.kind is AwardKind.FORFEIT_WON else lost)[a.table_id] = name
    return {t: f"{won.get(t, '?')} wins by forfeit: {lost.get(t, '?')} did not show"
            for t in set(won) | set(lost)}


def forfeited_tables(store: Store) -> set[int]:
    """Tables decided by a forfeit (they no longer play)."""
    return {a.table_id for a in awards(store) if a.table_id is not None}
