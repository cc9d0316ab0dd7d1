"""Scoring one hand: knock, gin, big gin or undercut, with the defender's best layoffs.

Rules (seed in brackets; 000 is the GRA tournament text and the authority):
- The knocker's melds are validated as laid down; an invalid meld or deadwood over the knock
  limit is an improper knock, which is played open, not scored [000 rule 9]. The opponent may
  accept an improper knock if his own count, after layoffs, is at the knock card or lower; he
  then gets credit for the undercut [000 rule 9] (``accept_improper_knock=True``).
- Without melds given, the knocker lays the spread that scores best for him after the
  defender's best layoffs: any legal spread (count at the knock card or lower), not only the
  one with least deadwood; keeping a card out of a meld or laying a set instead of a run can
  block layoffs [000 rule 9: the knocker lays his melds, the opponent lays off]. Among equal
  results: least deadwood, then the fewest layoffs. Spreads with other results are reported
  as ``alternatives``.
- No layoffs on gin [000, 002, 003]. Undercut when the defender's count is lower or equal
  [000 rule 6]; ``undercut_on_tie=False`` makes a tie score nothing [003 "some rule sets"].
- Gin: opponent's deadwood + gin bonus; undercut: difference + undercut bonus; big gin:
  opponent's deadwood + big gin bonus [000, 003]. A spade up card doubles the hand when
  ``spade_double`` is on [003 Oklahoma].
- Wrong number of cards [000 rule 8]: a player short of ten cards is charged 10 points per
  missing card; extra cards count at face value (the player keeps the best ten). If both
  players have the wrong number of cards the hand is a new deal (NewDealError).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from scorer.cards import (
    Card,
    cards_to_mask,
    codes,
    mask_to_cards,
    mask_value,
    parse_card,
    parse_cards,
    sort_cards,
)
from scorer.errors import CardError, ImproperKnockError, InputError, NewDealError, shown
from scorer.layoffs import Defence, best_defence
from scorer.melds import (
    ALL_MELDS,
    arrangements_within,
    laid_melds,
    layout_agreement,
    meld_cards,
    merge_runs,
    min_deadwood_mask,
    optimal_arrangements,
)
from scorer.outcomes import Score, decide
from scorer.results import Alternative, HandResult, Layoff
from scorer.rules import RuleSet, knock_limit_for, rules_from_spec

HAND_SIZE = 10
MAX_CARDS = 13
MISSING_CARD_PENALTY = 10


def spread_sizes(knocker: bool) -> tuple[int, ...]:
    """How many cards a player lays down when a hand ends: ``HAND_SIZE``, or one more for a
    knocker who goes big gin without discarding."""
    return (HAND_SIZE, HAND_SIZE + 1) if knocker else (HAND_SIZE,)


@dataclass(frozen=True)
class _Side:
    """One player's count: deadwood cards (extras included) plus the short-hand penalty."""

    count: int
    melds: tuple[int, ...]
    deadwood_mask: int
    missing: int
    extras: int
    defence: Defence | None = None


def _parse_hands(hands: Mapping[str, Iterable[Card | str]]) -> dict[str, list[Card]]:
    if not isinstance(hands, Mapping) or len(hands) != 2:
        raise InputError('hands must name exactly two players, e.g. {"A": [...], "B": [...]}')
    parsed: dict[str, list[Card]] = {}
    seen: dict[Card, str] = {}
    for player, cards in hands.items():
        if not isinstance(player, str) or not player:
            raise InputError(f"player names must be non-empty strings, got {shown(player)}")
        if isinstance(cards, str) or not isinstance(cards, Iterable):
            raise InputError(f"hand of {shown(player)} must be a list of card codes")
        try:
            parsed[player] = parse_cards(cards)
        except CardError as exc:
            raise CardError(f"hand of {shown(player)}: {exc.message}", exc.code) from None
        for card in parsed[player]:
            if card in seen:
                raise CardError(
                    f"duplicate card {card.code} in the hands of {shown(seen[card])} and "
                    f"{shown(player)}",
                    "duplicate_card",
                )
            seen[card] = player
        if not 1 <= len(parsed[player]) <= MAX_CARDS:
            raise CardError(
                f"hand of {shown(player)} has {len(parsed[player])} cards: a hand has 10 "
                f"(1..{MAX_CARDS} accepted for the wrong-number-of-cards rule)",
                "wrong_card_count",
            )
    return parsed


def _parse_melds(player: str, groups: Any, hand: int, knocker: bool) -> tuple[int, ...]:
    """Melds as laid down by a player, validated: real melds, from his hand, disjoint."""
    error = ImproperKnockError if knocker else InputError
    consequence = (": an improper knock is played open (GRA rule 9)" if knocker
                   else " (defender's melds)")
    if isinstance(groups, str) or not isinstance(groups, Iterable):
        raise InputError(f"melds of {shown(player)} must be a list of card lists")
    masks: list[int] = []
    used = 0
    for group in groups:
        if isinstance(group, str) or not isinstance(group, Iterable):
            raise InputError(f"melds of {shown(player)}: each meld must be a list of card codes")
        cards = parse_cards(group)
        mask = cards_to_mask(cards)
        label = " ".join(codes(cards))
        if mask & ~hand:
            stray = codes(mask_to_cards(mask & ~hand))
            raise error(
                f"meld [{label}] of {shown(player)} uses cards not in the hand: {', '.join(stray)}",
                "invalid_meld",
            )
        if mask not in ALL_MELDS:
            raise error(f"[{label}] laid down by {shown(player)} is not a meld (a set of 3-4 of a "
                        f"rank or a run of 3+ of one suit, ace low){consequence}", "invalid_meld")
        if mask & used:
            dup = codes(mask_to_cards(mask & used))
            raise error(f"{', '.join(dup)} of {shown(player)} is in two melds: a card belongs to "
                        "one meld only", "invalid_meld")
        used |= mask
        masks.append(mask)
    return tuple(masks)


def _side_from_melds(melds: tuple[int, ...], hand: int, size: int) -> _Side:
    melded = 0
    for meld in melds:
        melded |= meld
    missing = max(0, HAND_SIZE - size)
    dead = hand & ~melded
    return _Side(
        count=mask_value(dead) + MISSING_CARD_PENALTY * missing,
        melds=melds,
        deadwood_mask=dead,
        missing=missing,
        extras=max(0, size - HAND_SIZE),
    )


def _knocker_choices(hand: int, size: int, big_gin: bool) -> tuple[int, list[tuple[int, ...]]]:
    """(count, every arrangement reaching it) for the knocker, extras and shortage included."""
    if size <= HAND_SIZE or (big_gin and size == HAND_SIZE + 1 and min_deadwood_mask(hand) == 0):
        deadwood, arrangements = optimal_arrangements(hand)
        return deadwood + MISSING_CARD_PENALTY * max(0, HAND_SIZE - size), arrangements
    best = None
    found: dict[tuple[int, ...], None] = {}
    cards = mask_to_cards(hand)
    for extras in combinations(cards, size - HAND_SIZE):
        extra_mask = cards_to_mask(extras)
        kept = hand & ~extra_mask
        count = mask_value(extra_mask) + min_deadwood_mask(kept)
        if best is None or count < best:
            best, found = count, {}
        if count == best:
            for arrangement in optimal_arrangements(kept)[1]:
                found.setdefault(arrangement, None)
    assert best is not None
    return best, list(found)


def _knocker_spreads(hand: int, size: int, limit: int) -> list[tuple[int, ...]]:
    """Every legal spread of a knock with ten cards or fewer: count at the knock card or lower.

    The knocker lays his melds as he chooses [000 rule 9: he "starts to lay his meld down"]; a
    spread need not be the one with least deadwood (see ``score_hand``).
    """
    shortage = MISSING_CARD_PENALTY * max(0, HAND_SIZE - size)
    return arrangements_within(hand, limit - shortage)


def _defend(
    knocker_melds: Sequence[int], hand: int, size: int, fixed: tuple[int, ...] | None,
    layout: Sequence[int] = (), seen_laid_off: int = 0,
) -> _Side:
    """Defender's best count; with extra cards, the extras that leave the lowest count."""
    missing = max(0, HAND_SIZE - size)
    free = hand
    if fixed is not None:
        for meld in fixed:
            free &= ~meld
    if size > HAND_SIZE and free.bit_count() < size - HAND_SIZE:
        fixed = None  # the melds given leave no card to be the extra one: choose freely
        free = hand
    if size <= HAND_SIZE:
        defence = best_defence(knocker_melds, hand, fixed, layout, seen_laid_off)
        return _Side(
            count=defence.deadwood + MISSING_CARD_PENALTY * missing,
            melds=defence.melds,
            deadwood_mask=defence.deadwood_mask,
            missing=missing,
            extras=max(0, size - HAND_SIZE),
            defence=defence,
        )
    best: _Side | None = None
    # Seed 000 rule 8: an extra card counts at face value, melds given or not (the extras are
    # then taken from the cards outside the given melds).
    for extras in combinations(mask_to_cards(free), size - HAND_SIZE):
        extra_mask = cards_to_mask(extras)
        defence = best_defence(knocker_melds, hand & ~extra_mask, fixed, layout, seen_laid_off)
        count = defence.deadwood + mask_value(extra_mask)
        if best is None or count < best.count:
            best = _Side(
                count=count,
                melds=defence.melds,
                deadwood_mask=defence.deadwood_mask | extra_mask,
                missing=0,
                extras=size - HAND_SIZE,
                defence=defence,
            )
    assert best is not None
    return best


def _penalty_json(side: _Side) -> dict[str, Any] | None:
    if side.missing:
        return {"missing_cards": side.missing, "points": MISSING_CARD_PENALTY * side.missing}
    if side.extras:
        return {"extra_cards": side.extras}
    return None


def _layoffs(k_side: _Side, d_side: _Side) -> list[Layoff]:
    """The defender's layoffs, each named with the knocker meld it goes onto."""
    if d_side.defence is None:
        return []
    return [
        Layoff(mask_to_cards(bit)[0], meld_cards(k_side.melds[meld_index]))
        for bit, meld_index in d_side.defence.layoffs
    ]


MAX_ALTERNATIVES = 3


def _alternatives(
    scored: list[tuple[tuple[int, ...], _Side, _Side, Score]],
    knocker: str,
    defender: str,
    factor: int,
    as_laid: tuple[_Side, _Side, Score] | None = None,
) -> list[Alternative]:
    """The best spread of each other result (at most three).

    The spread as laid on the table comes first when it scores differently (``as_laid``);
    then the least-deadwood spread, as that is how most players lay their cards; then the
    others, best for the knocker first.
    """
    least = min(row[1].count for row in scored)
    rows = [(False, k, d, sc) for _, k, d, sc in
            sorted(scored[1:], key=lambda row: row[1].count != least)]  # stable
    if as_laid is not None:
        rows.insert(0, (True, *as_laid))
    seen = {scored[0][3]}
    out: list[Alternative] = []
    for laid, k_side, d_side, score in rows:
        if score in seen or len(out) == MAX_ALTERNATIVES:
            continue
        seen.add(score)
        out.append(
            Alternative(
                melds=[meld_cards(m) for m in k_side.melds],
                layoffs=[] if score.outcome.is_gin else _layoffs(k_side, d_side),
                deadwood={knocker: k_side.count, defender: d_side.count},
                outcome=score.outcome,
                winner=score.winner,
                points=score.points * factor,
                as_laid=laid,
            )
        )
    return out


def _parse_layout(player: str, groups: Any, hand: int) -> tuple[int, ...]:
    """How a player's cards lie on the table (groups of cards), as card masks."""
    if isinstance(groups, str) or not isinstance(groups, Iterable):
        raise InputError(f"layout of {shown(player)} must be a list of card lists", "bad_layout")
    return tuple(_cards_in_hand(f"layout of {shown(player)}", g, hand) for g in groups)


def _cards_in_hand(what: str, cards: Any, hand: int) -> int:
    """``cards`` (card codes) as a card mask; all of them must be in ``hand``."""
    if isinstance(cards, str) or not isinstance(cards, Iterable):
        raise InputError(f"{what} must be a list of card codes", "bad_layout")
    mask = cards_to_mask(parse_cards(cards))
    if mask & ~hand:
        stray = codes(mask_to_cards(mask & ~hand))
        raise InputError(f"{what}: cards not in the hand: {', '.join(stray)}", "bad_layout")
    return mask


def score_hand(
    rules: RuleSet | str | dict[str, Any],
    *,
    up_card: Card | str | None,
    knocker: str,
    hands: Mapping[str, Iterable[Card | str]],
    melds: Mapping[str, Any] | None = None,
    accept_improper_knock: bool = False,
    declared_gin: bool = False,
    layout: Mapping[str, Any] | None = None,
    laid_off: Mapping[str, Any] | None = None,
) -> HandResult:
    """Score one hand that ended in a knock or gin by ``knocker``.

    ``hands`` maps both players' names to their cards (10 each; see the module docstring for
    the wrong-number-of-cards rule). ``melds`` optionally gives melds as laid down (for the
    knocker; for the defender too, then only its other cards may be laid off). Raises
    ImproperKnockError for an invalid meld or deadwood over the knock limit, unless
    ``accept_improper_knock`` (the opponent accepts it: 000 rule 9). ``declared_gin``: the
    knocker announced gin; if the hand is not a gin it is improper (000 rule 9: "If his hand is
    not a gin ... he must play an open hand"), code ``not_gin``.

    ``layout`` says how each player's cards lie on the table (groups of cards, e.g. a camera's
    reading): unlike ``melds`` it declares nothing. It only chooses among spreads of the same
    result and deadwood (the one sharing the most pairs of cards with the laid groups), so the
    result is never worse than the cards allow. When the knocker's laid groups are melds that
    score differently, that spread is the first of the ``alternatives`` (``as_laid``).
    ``laid_off``: the cards each player was seen laying off onto the other's melds (a camera's
    reading); like ``layout`` it declares nothing: among the defender's answers of the same
    count, the one laying those cards off is reported (``layoffs``), not one melding them.

    >>> r = score_hand("tournament", up_card="TC", knocker="A",  # A knocks with 2 against 16
    ...                hands={"A": "AS 2S 3S 4H 5H 6H 7C 7D 7S 2D".split(),
    ...                       "B": "KC QC JC 9H 9D 9S 2H 3D 5C 6S".split()})
    >>> r.outcome.value, r.winner, r.points, r.knock_limit, r.deadwood
    ('knock', 'A', 14, 10, {'A': 2, 'B': 16})
    """
    rules = rules_from_spec(rules)
    up = None if up_card is None else parse_card_field(up_card)
    limit = knock_limit_for(rules, up)
    if rules.spade_double and up is None:
        raise InputError("this rule set doubles spade hands: give up_card", "missing_up_card")
    parsed = _parse_hands(hands)
    if knocker not in parsed:
        raise InputError(
            f"knocker {shown(knocker)} is not one of the players {sorted(parsed)}", "unknown_player"
        )
    defender = next(p for p in parsed if p != knocker)
    melds = dict(melds or {})
    for player in [*melds, *(layout or {}), *(laid_off or {})]:
        if player not in parsed:
            raise InputError(f"melds given for unknown player {shown(player)}", "unknown_player")
    laid = {p: _parse_layout(p, groups, cards_to_mask(parsed[p]))
            for p, groups in (layout or {}).items()}

    k_cards, d_cards = parsed[knocker], parsed[defender]
    k_hand, d_hand = cards_to_mask(k_cards), cards_to_mask(d_cards)
    k_size, d_size = len(k_cards), len(d_cards)
    big_gin_allowed = rules.big_gin_bonus is not None
    k_big_gin_shape = big_gin_allowed and k_size == HAND_SIZE + 1
    k_wrong = k_size != HAND_SIZE and not (k_big_gin_shape and min_deadwood_mask(k_hand) == 0)
    if k_wrong and d_size != HAND_SIZE:
        raise NewDealError(
            f"both players have the wrong number of cards ({knocker}: {k_size}, "
            f"{defender}: {d_size}): new deal (GRA rule 8)"
        )

    # The knocker's side.
    if knocker in melds:
        k_melds = _parse_melds(knocker, melds[knocker], k_hand, knocker=True)
        if sum(m.bit_count() for m in k_melds) > HAND_SIZE and not (
            k_big_gin_shape and sum(m.bit_count() for m in k_melds) == k_size
        ):
            raise ImproperKnockError(
                f"{shown(knocker)} melds more than ten cards: extra cards count at face value "
                "(GRA rule 8)",
                "invalid_meld",
            )
        options = [_side_from_melds(k_melds, k_hand, k_size)]
    else:
        count, arrangements = _knocker_choices(k_hand, k_size, big_gin_allowed)
        if 0 < count <= limit and k_size <= HAND_SIZE:
            arrangements = _knocker_spreads(k_hand, k_size, limit)  # least deadwood first
        options = [_side_from_melds(a, k_hand, k_size) for a in arrangements]
        assert options[0].count == count
    k_count = options[0].count
    is_big_gin = k_big_gin_shape and k_count == 0 and options[0].deadwood_mask == 0
    is_gin = k_count == 0 and (k_size == HAND_SIZE or is_big_gin)

    if declared_gin and not is_gin:
        raise ImproperKnockError(
            f"{shown(knocker)} declared gin with deadwood {k_count}: per GRA rule 9 the hand is "
            "played open (all ten cards face up)",
            "not_gin",
        )
    accepted = False
    if k_count > limit:
        best_possible = _knocker_choices(k_hand, k_size, big_gin_allowed)[0]
        if not accept_improper_knock:
            hint = (
                f"; rearranged, the hand counts {best_possible}"
                if knocker in melds and best_possible < k_count
                else ""
            )
            what = (
                "the hand must be played for gin" if limit == 0 else f"the knock limit is {limit}"
            )
            raise ImproperKnockError(
                f"improper knock by {shown(knocker)}: deadwood {k_count} and {what}{hint}. Per GRA "
                "rule 9 the hand is played open (all ten cards face up), unless the opponent "
                "accepts the knock",
                "improper_knock",
            )
        accepted = True

    d_fixed = None
    if defender in melds:
        d_fixed = _parse_melds(defender, melds[defender], d_hand, knocker=False)

    # The defender's best answer to each spread the knocker may lay; keep the knocker's best.
    # The layout chooses only among spreads of equal result and deadwood.
    k_laid, d_laid = laid.get(knocker, ()), laid.get(defender, ())
    d_seen = _cards_in_hand(f"the cards {shown(defender)} laid off",
                            (laid_off or {}).get(defender, ()), d_hand)
    scored: list[tuple[tuple[int, ...], _Side, _Side, Score]] = []
    for k_side in options:
        d_side = _defend(() if is_gin else k_side.melds, d_hand, d_size, d_fixed, d_laid,
                         d_seen)
        score = decide(rules, k_side.count, d_side.count, is_gin, is_big_gin, knocker, defender)
        layoffs = len(d_side.defence.layoffs) if d_side.defence and not is_gin else 0
        key = (score.net_for(knocker), -k_side.count, d_side.count,
               layout_agreement(k_side.melds, k_laid), -layoffs)
        scored.append((key, k_side, d_side, score))
    scored.sort(key=lambda row: row[0], reverse=True)  # stable: ties keep the listed order
    as_laid = None
    laid_spread = laid_melds(k_hand, k_laid) if k_laid and knocker not in melds else None
    if laid_spread is not None and set(merge_runs(laid_spread)) != set(scored[0][1].melds):
        laid_side = _side_from_melds(laid_spread, k_hand, k_size)
        if laid_side.count <= limit:  # a spread over the knock card is no knock to offer
            gin = is_gin and laid_side.count == 0
            laid_def = _defend(() if gin else laid_spread, d_hand, d_size, d_fixed, d_laid,
                               d_seen)
            as_laid = (laid_side, laid_def, decide(rules, laid_side.count, laid_def.count, gin,
                                                   is_big_gin and gin, knocker, defender))
    _, k_side, d_side, score = scored[0]
    k_count, d_count = k_side.count, d_side.count

    if accepted and d_count > limit:
        raise ImproperKnockError(
            f"{shown(defender)} cannot accept the improper knock: his count {d_count} after "
            f"layoffs "
            f"is over the knock card ({limit}) (GRA rule 9)",
            "cannot_accept_knock",
        )

    outcome, winner, points = score.outcome, score.winner, score.points
    doubled = bool(rules.spade_double and up is not None and up.suit == "S")
    if doubled:
        points *= 2
    alternatives = _alternatives(scored, knocker, defender, 2 if doubled else 1, as_laid)

    k_melds_cards = [meld_cards(m) for m in k_side.melds]
    layoffs = [] if is_gin else _layoffs(k_side, d_side)
    penalties = {}
    for player, side in ((knocker, k_side), (defender, d_side)):
        note = _penalty_json(side)
        if note and is_big_gin and player == knocker:
            note = None  # big gin is 11 cards by definition: no extra card to penalise
        if note:
            penalties[player] = note
    return HandResult(
        outcome=outcome,
        winner=winner,
        points=points,
        knock_limit=limit,
        knocker=knocker,
        defender=defender,
        deadwood={knocker: k_count, defender: d_count},
        melds={knocker: k_melds_cards, defender: [meld_cards(m) for m in d_side.melds]},
        layoffs=layoffs,
        deadwood_cards={
            knocker: sort_cards(mask_to_cards(k_side.deadwood_mask)),
            defender: sort_cards(mask_to_cards(d_side.deadwood_mask)),
        },
        doubled=doubled,
        bonus=score.bonus,
        improper_knock_accepted=accepted,
        penalties=penalties,
        alternatives=alternatives,
    )


def parse_card_field(value: Card | str) -> Card:
    """Parse a single-card field (the up card), naming it in the error."""
    try:
        return parse_card(value)
    except CardError as exc:
        raise CardError(f"up_card: {exc.message}", exc.code) from None
