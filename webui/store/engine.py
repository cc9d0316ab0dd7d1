"""The web app's only door to the rules engine (``scorer``): requests in, the engine's own
types out (``HandResult``, ``Sheet``, ``MatchStatus``); the web app writes them as JSON only at
its edges (the event log, the HTTP API, the signed sheet record)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import scorer
from scorer import (
    PRESETS,
    Card,
    HandResult,
    MatchStatus,
    Outcome,
    ScorerError,
    Sheet,
    codes,
    knock_limit_for,
    next_dealer,
    parse_card,
    rules_from_spec,
    score_hand,
    score_sheet,
    spread_sizes,
)

PLAYERS = scorer.PLAYERS  #: a table's two seats (named once, in the rules engine)


def other_player(player: str) -> str:
    """The seat across the table from ``player``."""
    return PLAYERS[1] if player == PLAYERS[0] else PLAYERS[0]

__all__ = ["PLAYERS", "Card", "HandResult", "KnockCard", "MatchStatus", "Outcome", "ScorerError",
           "Sheet", "SheetResult", "card_code", "card_json", "codes", "dealer_after",
           "hand_winner", "knock_card_info", "match", "melding_cards", "other_player",
           "parse_card", "plays_match", "preset_names", "request_cards", "rules_json",
           "same_rules", "score", "sheet", "sheet_hand", "spread_sizes", "stored_card",
           "stored_cards", "team_hand"]


class SheetResult(Protocol):
    """What a hand's result gives its score sheet entry: the engine's ``HandResult`` or a
    result entered by hand (``webui.store.proposal.ManualResult``)."""

    @property
    def winner(self) -> str | None: ...

    @property
    def points(self) -> int: ...


def preset_names() -> list[str]:
    """Names of the engine's rule presets, in the engine's order."""
    return list(PRESETS)


def rules_json(spec: Any) -> dict[str, Any]:
    """The rule set a spec resolves to, as a JSON dict (raises ScorerError on a bad spec)."""
    return rules_from_spec(spec).to_json()


def plays_match(spec: Any) -> bool:
    """Whether the rule set plays a match of several games (raises ScorerError on a bad
    spec)."""
    return rules_from_spec(spec).plays_match


def same_rules(spec: Any, other: Any) -> bool:
    """Whether two specs play and score alike, whatever their names; a spec the engine
    cannot read plays like nothing."""
    try:
        return rules_from_spec(spec).same_play(rules_from_spec(other))
    except ScorerError:
        return False


def card_html(code: str | scorer.Card) -> str:
    """A card (the engine's ``Card``, or its code) as a small HTML span (red for hearts and
    diamonds); unknown codes shown as is."""
    from markupsafe import escape

    try:
        card = parse_card(code)
    except ScorerError:
        return f'<span class="card">{escape(str(code))}</span>'
    cls = "card red" if card.suit in "HD" else "card"
    return f'<span class="{cls}" title="{card.code}">{escape(card.pretty())}</span>'


def card_code(card: Card | None) -> str | None:
    """A card as the event log and the API write it (its code; None stays None)."""
    return None if card is None else card.code


def stored_card(code: str | None) -> Card | None:
    """A card code the event log holds (written by ``card_code``) as the engine's ``Card``."""
    return None if code is None else parse_card(code)


def stored_cards(held: list[str]) -> list[Card]:
    """Card codes the event log holds (written by ``codes``) as the engine's cards."""
    return [parse_card(code) for code in held]


def request_cards(given: list[str]) -> list[Card]:
    """A request's card codes as the engine's cards (rejects malformed and duplicate cards
    with ScorerError): the HTTP edge's one parse of a tablet's cards."""
    return scorer.parse_cards(given)


def card_json(code: str | Card) -> dict[str, Any]:
    """A card (or a code the log holds) with its pretty form, e.g. {"code": "TD", "pretty":
    "10♦", "red": true}."""
    card = parse_card(code)
    return {"code": card.code, "pretty": card.pretty(), "red": card.suit in "HD"}


def melding_cards(cards: list[Card], taken: list[Card]) -> list[Card]:
    """The few cards that would meld with ``cards`` (never one of ``taken``)."""
    return scorer.melding_cards(cards, taken)


@dataclass(frozen=True)
class KnockCard:
    """What a hand's up card means: its knock ``limit`` (None while the card is not read)
    and whether the hand is gin only; ``card``: the up card, when known."""

    limit: int | None
    card: scorer.Card | None = None

    @property
    def gin_only(self) -> bool:
        return self.limit == 0

    @property
    def pretty(self) -> str:
        return self.card.pretty() if self.card is not None else ""

    @property
    def red(self) -> bool:
        return self.card is not None and self.card.suit in "HD"

    def to_json(self) -> dict[str, Any]:
        """As the API has always written it: limit, gin_only and the card's ``card_json``."""
        info: dict[str, Any] = {"limit": self.limit, "gin_only": self.gin_only}
        if self.card is not None:
            info.update(card_json(self.card))
        return info


def knock_card_info(spec: Any, up_card: Card | None) -> KnockCard:
    """What a hand's up card means: its knock limit and whether the hand is gin only."""
    rules = rules_from_spec(spec)
    try:
        limit: int | None = knock_limit_for(rules, up_card)
    except ScorerError:  # the limit comes from the up card, not read yet
        limit = None
    return KnockCard(limit, up_card)


def score(spec: Any, *, up_card: Card | None, knocker: str, hands: dict[str, list[Card]],
          melds: dict[str, list[list[Card]]] | None = None,
          accept_improper_knock: bool = False,
          layout: dict[str, list[list[Card]]] | None = None,
          laid_off: dict[str, list[Card]] | None = None) -> HandResult:
    """Score one hand; returns the engine's result (raises ScorerError on bad input).
    ``melds``: declared (checked as laid); ``layout``: how the cards lie, and ``laid_off``:
    the cards seen laid off, preferences among arrangements that score the same."""
    rules = rules_from_spec(spec)
    declared = {p: groups for p, groups in (melds or {}).items() if groups}
    laid = {p: groups for p, groups in (layout or {}).items() if groups}
    result = score_hand(rules, up_card=up_card,
                        knocker=knocker, hands=hands, melds=declared or None,
                        accept_improper_knock=accept_improper_knock, layout=laid or None,
                        laid_off={p: cs for p, cs in (laid_off or {}).items() if cs} or None)
    return result


def sheet(spec: Any, hands: list[dict[str, Any]]) -> Sheet:
    """The engine's score sheet of one game from its hands' sheet entries (``sheet_hand``);
    its ``set_winner`` is the game's winner as the rules count it (Hollywood: once all three
    columns are over), None while it runs."""
    return score_sheet(rules_from_spec(spec), hands)


def sheet_hand(result: SheetResult | None) -> dict[str, Any]:
    """A hand's entry on the engine's score sheet from its result (None: a dead hand; a
    result without a winner: a tie that scores nothing)."""
    if result is None:
        return scorer.sheet_hand(None)
    return scorer.sheet_hand({"winner": result.winner, "points": result.points})


def team_hand(boards: list[dict[str, Any]]) -> dict[str, Any]:
    """One partnership hand netted over its boards (000 partnership rule 8), from each board's
    sheet entry (``sheet_hand``), seat A of every board in the first team: a sheet hand,
    ``{"winner", "points"}`` or ``{"dead": True}``."""
    results = [scorer.BoardResult.from_sheet_hand(entry) for entry in boards]
    return scorer.team_hand(results, {p: p for p in PLAYERS})


def hand_winner(result: SheetResult | None) -> str | None:
    """Who won a hand from its result (None: a dead hand, or a tie that scores nothing)."""
    return None if result is None else result.winner


def match(spec: Any, game_winners: list[str]) -> scorer.MatchStatus:
    """The engine's match status from the finished games' winners, in order."""
    return scorer.match_status(rules_from_spec(spec), PLAYERS, game_winners)


def dealer_after(spec: Any, dealer: str, winner: str | None) -> str:
    """Who deals the next hand under the rule set."""
    return next_dealer(rules_from_spec(spec), dealer, winner)
