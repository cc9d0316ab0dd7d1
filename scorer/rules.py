"""Rule sets: named presets with overridable fields, and the knock limit of a hand.

Where the seed documents disagree, each preset's choice and the seed behind it are listed in
``scorer/README.md``. Seed 000 (Gin Rummy Association tournament rules) is the authority.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum
from typing import Any

from scorer.cards import Card
from scorer.errors import RulesError, shown

UP_CARD = "up_card"
NEXT_DEAL_CHOICES = ("winner", "loser", "alternate")


class Shutout(StrEnum):
    """What a shutout (the loser won no hand of the game) is worth to the winner."""

    #: No shutout bonus (000 partnership rule 9: no bonus for "blitzes"; 004 family).
    NONE = "none"
    #: 002: "the winner then doubles his score (including the 100 point bonus)", then boxes.
    SCORE_AND_GAME_BONUS = "score_and_game_bonus"
    #: 003: "the points for each hand are doubled before adding the line bonus" (the game
    #: bonus is not doubled).
    HAND_POINTS = "hand_points"

    def bonus(self, hand_points: int, game_bonus: int) -> int:
        """The points a shutout adds to the winner's total of hand points."""
        if self is Shutout.SCORE_AND_GAME_BONUS:
            return hand_points + game_bonus
        if self is Shutout.HAND_POINTS:
            return hand_points
        return 0

    @classmethod
    def parse(cls, value: Any) -> Shutout:
        """From JSON: true (002's order), false, or one of the names."""
        if value is True:
            return cls.SCORE_AND_GAME_BONUS
        if value is False:
            return cls.NONE
        if isinstance(value, str):
            for member in cls:
                if value == member.value:
                    return member
        names = ", ".join(f'"{m.value}"' for m in cls)
        raise RulesError(
            f"rule 'shutout' must be true, false or one of {names}, got {shown(value)}",
            "bad_rules",
        )


@dataclass(frozen=True)
class RuleSet:
    """One way of playing and scoring gin rummy. Field names are the CLI's override names."""

    name: str
    #: Highest deadwood a knock may have: a number (0 = gin only) or "up_card" (the first up
    #: card's value; an ace means the hand must be played for gin).
    knock_limit: int | str = UP_CARD
    gin_bonus: int = 25
    undercut_bonus: int = 25
    #: Equal counts after a knock are an undercut (else a tie scores nothing).
    undercut_on_tie: bool = True
    #: Bonus for 11 melded cards; None: no big gin.
    big_gin_bonus: int | None = None
    #: A spade first up card doubles the hand (Oklahoma).
    spade_double: bool = False
    game_target: int = 250
    game_bonus: int = 100
    #: Per hand won ("box" / line bonus), added at the end of the game.
    box_bonus: int = 25
    #: A game the loser won no hand of: which points the winner doubles (see ``Shutout``).
    shutout: Shutout = Shutout.SCORE_AND_GAME_BONUS
    #: Three games scored at once (seed 003).
    hollywood: bool = False
    #: Who deals after a scored hand: "winner", "loser" or "alternate" (dead hand: same dealer).
    next_deal: str = "winner"
    #: Games in a match: best of ``match_games`` (1 = single game).
    match_games: int = 1
    #: Partnership: a team stops after this many lost games (None: best-of match).
    match_stop_after_losses: int | None = None

    def to_json(self) -> dict[str, Any]:
        """All fields as a JSON object (``from_json`` reads it back)."""
        out = asdict(self)
        out["shutout"] = self.shutout.value
        return out

    @classmethod
    def from_json(cls, data: Any) -> RuleSet:
        """A rule set from ``to_json()``'s object; fields left out take the tournament
        preset's values.

        :raises RulesError: ``data`` is not an object, or a field is unknown or mistyped.
        """
        if not isinstance(data, dict):
            raise RulesError(f"rules must be an object, got {shown(data)}", "bad_rules")
        checked = {name: _check_override(name, value) for name, value in data.items()}
        return replace(PRESETS["tournament"], **checked)

    @property
    def plays_match(self) -> bool:
        """Whether a match is several games (best of ``match_games``, or a partnership
        series), so finishing the match ends play; a single-game rule set plays on."""
        return self.match_games > 1

    def same_play(self, other: RuleSet) -> bool:
        """Whether ``other`` plays and scores exactly like this rule set (every field equal
        but the name, whatever the preset was called or how it was spelt)."""
        return replace(self, name=other.name) == other


PRESETS: dict[str, RuleSet] = {
    # 000 (GRA): up-card knock, ace = gin only, gin 25, undercut 25 incl. ties; 003 [4]: best
    # of five 250-point games; 002/004: game bonus 100, boxes 25; 002: shutout doubles.
    "tournament": RuleSet(
        name="tournament",
        knock_limit=UP_CARD,
        gin_bonus=25,
        undercut_bonus=25,
        undercut_on_tie=True,
        big_gin_bonus=None,
        game_target=250,
        game_bonus=100,
        box_bonus=25,
        shutout=Shutout.SCORE_AND_GAME_BONUS,
        next_deal="winner",
        match_games=5,
    ),
    # 004 "Family scoring": knock 10, gin 20, undercut 10, to 100, no bonuses; winner deals.
    "family": RuleSet(
        name="family",
        knock_limit=10,
        gin_bonus=20,
        undercut_bonus=10,
        big_gin_bonus=None,
        game_target=100,
        game_bonus=0,
        box_bonus=0,
        shutout=Shutout.NONE,
        next_deal="winner",
    ),
    # 001/003 standard gin: knock 10, gin 25, undercut 25, big gin 31 (003), game to 100 with
    # 100 game bonus, 25 per box, shutout; 003: dealing alternates.
    "standard": RuleSet(
        name="standard",
        knock_limit=10,
        big_gin_bonus=31,
        game_target=100,
        next_deal="alternate",
    ),
    # 001/003 Oklahoma: knock limit from the up card (ace = gin only); 003: a spade doubles.
    "oklahoma": RuleSet(
        name="oklahoma",
        knock_limit=UP_CARD,
        big_gin_bonus=31,
        spade_double=True,
        game_target=100,
        next_deal="alternate",
    ),
    # 001/003 straight gin (gin only): knocking is not allowed; otherwise standard.
    "straight": RuleSet(
        name="straight",
        knock_limit=0,
        big_gin_bonus=31,
        game_target=100,
        next_deal="alternate",
    ),
    # 000 partnership: five 250-point games, stop after 2 losses; knock card from a centre
    # deck; losing team deals; no bonus for boxes, blitzes (shutouts) or spades.
    "partnership": RuleSet(
        name="partnership",
        knock_limit=UP_CARD,
        game_target=250,
        game_bonus=100,
        box_bonus=0,
        shutout=Shutout.NONE,
        spade_double=False,
        next_deal="loser",
        match_games=5,
        match_stop_after_losses=2,
    ),
}

_INT_FIELDS = {
    "gin_bonus",
    "undercut_bonus",
    "game_target",
    "game_bonus",
    "box_bonus",
    "match_games",
}
_BOOL_FIELDS = {"undercut_on_tie", "spade_double", "hollywood"}


def _check_override(name: str, value: Any) -> Any:
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if name in _INT_FIELDS:
        if not is_int(value) or value < 0:
            raise RulesError(
                f"rule {shown(name)} must be a whole number >= 0, got {shown(value)}", "bad_rules"
            )
        if name in {"game_target", "match_games"} and value < 1:
            raise RulesError(
                f"rule {shown(name)} must be at least 1, got {shown(value)}", "bad_rules"
            )
        return value
    if name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise RulesError(
                f"rule {shown(name)} must be true or false, got {shown(value)}", "bad_rules"
            )
        return value
    if name == "shutout":
        return Shutout.parse(value)
    if name == "knock_limit":
        if value == UP_CARD or (is_int(value) and 0 <= value <= 100):
            return value
        raise RulesError(
            f"rule 'knock_limit' must be a number 0..100 or \"up_card\", got {shown(value)}",
            "bad_rules",
        )
    if name == "big_gin_bonus":
        if value is None or (is_int(value) and value >= 0):
            return value
        raise RulesError(
            f"rule 'big_gin_bonus' must be a number or null, got {shown(value)}", "bad_rules"
        )
    if name == "next_deal":
        if value in NEXT_DEAL_CHOICES:
            return value
        raise RulesError(f"rule 'next_deal' must be one of {NEXT_DEAL_CHOICES}, got {shown(value)}")
    if name == "match_stop_after_losses":
        if value is None or (is_int(value) and value >= 1):
            return value
        raise RulesError(
            f"rule 'match_stop_after_losses' must be a number or null, got {shown(value)}"
        )
    if name == "name":
        if isinstance(value, str) and value:
            return value
        raise RulesError(f"rule 'name' must be a non-empty string, got {shown(value)}")
    known = ", ".join(f.name for f in fields(RuleSet))
    raise RulesError(f"unknown rule {shown(name)} (known: {known})", "bad_rules")


def rules_from_spec(spec: str | dict[str, Any] | RuleSet | None) -> RuleSet:
    """A RuleSet from a preset name, ``{"preset": name, **overrides}`` or a RuleSet.

    ``None`` and a dict without "preset" mean "tournament". Unknown presets or fields and
    mistyped values raise RulesError naming the field.
    """
    if isinstance(spec, RuleSet):
        return spec
    if spec is None:
        spec = "tournament"
    if isinstance(spec, str):
        preset = PRESETS.get(spec.strip().lower())
        if preset is None:
            raise RulesError(
                f"unknown rule preset {shown(spec)} (known: {', '.join(PRESETS)})", "unknown_preset"
            )
        return preset
    if not isinstance(spec, dict):
        raise RulesError(
            f"rules must be a preset name or an object, got {shown(spec)}", "bad_rules"
        )
    overrides = dict(spec)
    base = rules_from_spec(overrides.pop("preset", "tournament"))
    checked = {name: _check_override(name, value) for name, value in overrides.items()}
    if checked and "name" not in checked:
        checked["name"] = base.name
    return replace(base, **checked)


def knock_limit_for(rules: RuleSet, up_card: Card | None) -> int:
    """Deadwood limit for knocking this hand (0 means gin only).

    With ``knock_limit == "up_card"`` (tournament, Oklahoma, partnership) the limit is the first
    up card's point value and an ace means the hand must be played for gin (000 rule 4, 001).
    """
    if rules.knock_limit != UP_CARD:
        return int(rules.knock_limit)
    if up_card is None:
        raise RulesError(
            f"rule set {shown(rules.name)} takes the knock limit from the up card: give up_card",
            "missing_up_card",
        )
    return 0 if up_card.rank == 1 else up_card.value
