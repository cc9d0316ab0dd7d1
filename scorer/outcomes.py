"""How a hand ends, as a type beside the rule that decides it (seed 000 rule 6 and 003).

``Outcome`` names the ending (knock, gin, big gin, undercut; ``MANUAL`` for a result written
on the sheet without its cards); ``decide`` applies the rule to the two deadwood counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scorer.rules import RuleSet


class Outcome(StrEnum):
    """How a hand ended."""

    KNOCK = "knock"
    GIN = "gin"
    BIG_GIN = "big_gin"
    UNDERCUT = "undercut"
    MANUAL = "manual"  #: a result entered by hand: winner and points, no cards scored

    @classmethod
    def of(cls, value: Any) -> Outcome | None:
        """The outcome named ``value``, or None for a result without one."""
        try:
            return cls(value)
        except ValueError:
            return None

    @property
    def is_gin(self) -> bool:
        """Gin or big gin: the defender lays nothing off."""
        return self in (Outcome.GIN, Outcome.BIG_GIN)


@dataclass(frozen=True)
class Score:
    """Outcome, winner and points of one knock before any doubling; ``bonus``: the gin, big
    gin or undercut bonus within ``points`` (the rest is the difference of the counts)."""

    outcome: Outcome
    winner: str | None
    points: int
    bonus: int = 0

    def net_for(self, player: str) -> int:
        """Points won (positive) or lost (negative) by ``player``."""
        if self.winner is None:
            return 0
        return self.points if self.winner == player else -self.points


def decide(rules: RuleSet, k_count: int, d_count: int, is_gin: bool, is_big_gin: bool,
           knocker: str, defender: str) -> Score:
    """Seed 000 rule 6 and 003: gin, big gin, undercut (ties too, by default) or a knock,
    from the knocker's and the defender's deadwood counts (after layoffs)."""
    if is_big_gin:
        # a big gin is only recognised when the rules have a big gin bonus (big_gin_allowed)
        assert rules.big_gin_bonus is not None
        return Score(Outcome.BIG_GIN, knocker, d_count + rules.big_gin_bonus,
                     rules.big_gin_bonus)
    if is_gin:
        return Score(Outcome.GIN, knocker, d_count + rules.gin_bonus, rules.gin_bonus)
    if d_count < k_count or (d_count == k_count and rules.undercut_on_tie):
        return Score(Outcome.UNDERCUT, defender, k_count - d_count + rules.undercut_bonus,
                     rules.undercut_bonus)
    if d_count == k_count:
        return Score(Outcome.KNOCK, None, 0)
    return Score(Outcome.KNOCK, knocker, d_count - k_count)
