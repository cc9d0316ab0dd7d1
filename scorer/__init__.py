"""gintray rules engine: cards, melds, deadwood, layoffs, rule sets, hand and sheet scoring.

Standard library only (importing it never pulls in numpy, torch, cameras or HTTP).
See ``scorer/README.md`` for the API, the JSON CLI and the rule presets.
"""

from scorer.cards import DECK, SUITS, Card, codes, parse_card, parse_cards
from scorer.errors import (
    CardError,
    ImproperKnockError,
    InputError,
    NewDealError,
    RulesError,
    ScorerError,
)
from scorer.hand import score_hand, spread_sizes
from scorer.melds import (
    Arrangement,
    DiscardOption,
    MeldAnalysis,
    arrange,
    best_melds,
    is_meld,
    melding_cards,
    min_deadwood,
)
from scorer.outcomes import Outcome
from scorer.results import Alternative, HandResult, Layoff
from scorer.rules import PRESETS, RuleSet, Shutout, knock_limit_for, rules_from_spec
from scorer.sheet import (
    PLAYERS,
    BoardResult,
    Game,
    MatchStatus,
    Sheet,
    hand_winner,
    match_status,
    next_dealer,
    score_sheet,
    sheet_hand,
    team_hand,
)

__all__ = [
    "DECK",
    "PLAYERS",
    "PRESETS",
    "SUITS",
    "Alternative",
    "Arrangement",
    "BoardResult",
    "Card",
    "CardError",
    "DiscardOption",
    "Game",
    "HandResult",
    "ImproperKnockError",
    "InputError",
    "Layoff",
    "MatchStatus",
    "MeldAnalysis",
    "NewDealError",
    "Outcome",
    "RuleSet",
    "RulesError",
    "ScorerError",
    "Sheet",
    "Shutout",
    "arrange",
    "best_melds",
    "codes",
    "hand_winner",
    "is_meld",
    "knock_limit_for",
    "match_status",
    "melding_cards",
    "min_deadwood",
    "next_dealer",
    "parse_card",
    "parse_cards",
    "rules_from_spec",
    "score_hand",
    "score_sheet",
    "sheet_hand",
    "spread_sizes",
    "team_hand",
]
