"""Melds and the minimum-deadwood search.

Hands are 52-bit card masks (see ``scorer.cards``). All 329 possible melds of a deck are
precomputed (264 runs, 65 sets). The search branches on the hand's lowest card: it is either
deadwood or the lowest card of one meld, which visits every meld arrangement exactly once and
memoises on the remaining mask. Cards that fit no meld of the hand are counted up front, so a
hand without melds costs one table look-up per suit.

Runs are ace-low only: A-2-3 is a run, Q-K-A and K-A-2 are not (seeds 000-004 agree; 003 and
004 say so explicitly).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import Any

from scorer.cards import (
    _SUIT_PATTERN_VALUE,
    DECK,
    SUITS,
    VALUES,
    Card,
    codes,
    hand_mask,
    mask_to_cards,
    mask_value,
    parse_cards,
    sort_cards,
)
from scorer.errors import InputError

SUIT_MASK = 0x1FFF
_CARD_BIT = attrgetter("_bit")
_RANK_SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39  # one rank bit copied to all suits
_PATTERN_VALUE = _SUIT_PATTERN_VALUE


def _run_masks() -> list[int]:
    runs = []
    for suit_index in range(4):
        for low in range(13):
            for high in range(low + 2, 13):
                runs.append(((1 << (high + 1)) - (1 << low)) << (13 * suit_index))
    return runs


def _set_masks() -> list[int]:
    sets = []
    for rank_index in range(13):
        bits = [1 << (13 * s + rank_index) for s in range(4)]
        full = sum(bits)
        sets.append(full)
        sets.extend(full ^ b for b in bits)
    return sets


RUN_MELDS: tuple[int, ...] = tuple(_run_masks())
SET_MELDS: tuple[int, ...] = tuple(_set_masks())
ALL_MELDS: frozenset[int] = frozenset(RUN_MELDS + SET_MELDS)


_RUNS_IN_SUIT: list[dict[int, tuple[int, ...]]] = [{}, {}, {}, {}]


def _runs_in_suit(suit_index: int, pattern: int) -> tuple[int, ...]:
    """Run masks (52-bit) within one suit's 13-bit rank pattern, memoised per pattern."""
    table = _RUNS_IN_SUIT[suit_index]
    found = table.get(pattern)
    if found is None:
        shift = 13 * suit_index
        found = tuple(m << shift for m in RUN_MELDS[:66] if m & pattern == m)
        table[pattern] = found
    return found


def candidate_melds(hand: int) -> list[int]:
    """Every meld (card mask) contained in the hand."""
    s0 = hand & SUIT_MASK
    s1 = (hand >> 13) & SUIT_MASK
    s2 = (hand >> 26) & SUIT_MASK
    s3 = (hand >> 39) & SUIT_MASK
    return _melds_of(hand, s0, s1, s2, s3)


def _melds_of(hand: int, s0: int, s1: int, s2: int, s3: int) -> list[int]:
    """Melds of a hand given its four 13-bit suit patterns."""
    melds: list[int] = []
    if s0 & (s0 >> 1) & (s0 >> 2):
        melds.extend(_runs_in_suit(0, s0))
    if s1 & (s1 >> 1) & (s1 >> 2):
        melds.extend(_runs_in_suit(1, s1))
    if s2 & (s2 >> 1) & (s2 >> 2):
        melds.extend(_runs_in_suit(2, s2))
    if s3 & (s3 >> 1) & (s3 >> 2):
        melds.extend(_runs_in_suit(3, s3))
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    while triples:
        low = triples & -triples
        triples ^= low
        rank_bits = hand & (low * _RANK_SPREAD)
        melds.append(rank_bits)
        if rank_bits.bit_count() == 4:
            melds.extend(rank_bits ^ (low << shift) for shift in (0, 13, 26, 39))
    return melds


class DeadwoodSearch:
    """Minimum deadwood of every sub-hand reachable by the lowest-card branching, memoised."""

    __slots__ = ("by_low", "memo")

    def __init__(self, melds: Iterable[int]) -> None:
        by_low: dict[int, list[int]] = {}
        for meld in melds:
            by_low.setdefault(meld & -meld, []).append(meld)
        self.by_low = by_low
        self.memo: dict[int, int] = {0: 0}

    def deadwood(self, mask: int) -> int:
        """Minimum deadwood of ``mask`` (every card of it must be meldable or not: any mask)."""
        memo = self.memo
        found = memo.get(mask)
        if found is not None:
            return found
        low = mask & -mask
        best = VALUES[low.bit_length() - 1] + self.deadwood(mask ^ low)
        for meld in self.by_low.get(low, ()):
            if meld & mask == meld:
                value = self.deadwood(mask ^ meld)
                if value < best:
                    best = value
        memo[mask] = best
        return best

    def one_arrangement(self, mask: int) -> list[int]:
        """One set of disjoint melds reaching the minimum deadwood of ``mask``."""
        melds: list[int] = []
        while mask:
            target = self.deadwood(mask)
            low = mask & -mask
            for meld in self.by_low.get(low, ()):
                if meld & mask == meld and self.deadwood(mask ^ meld) == target:
                    melds.append(meld)
                    mask ^= meld
                    break
            else:
                mask ^= low  # the low card is deadwood
        return melds

    def arrangements(self, mask: int) -> list[list[int]]:
        """Every set of disjoint melds reaching the minimum deadwood of ``mask`` (raw, unmerged)."""
        target = self.deadwood(mask)
        if mask == 0:
            return [[]]
        if target == mask_value(mask):
            # Nothing melds better than nothing; but a zero-gain meld is impossible (values > 0),
            # so the only optimal arrangement is no meld at all.
            return [[]]
        low = mask & -mask
        out: list[list[int]] = []
        if VALUES[low.bit_length() - 1] + self.deadwood(mask ^ low) == target:
            out.extend(self.arrangements(mask ^ low))
        for meld in self.by_low.get(low, ()):
            if meld & mask == meld and self.deadwood(mask ^ meld) == target:
                out.extend([meld, *rest] for rest in self.arrangements(mask ^ meld))
        return out


def union_of(melds: Iterable[int]) -> int:
    """Card mask of every card in the given melds."""
    cover = 0
    for meld in melds:
        cover |= meld
    return cover


def min_deadwood_mask(hand: int) -> int:
    """Minimum deadwood of a card mask (any number of cards)."""
    s0 = hand & SUIT_MASK
    s1 = (hand >> 13) & SUIT_MASK
    s2 = (hand >> 26) & SUIT_MASK
    s3 = hand >> 39
    if not (
        (s0 & (s0 >> 1) & (s0 >> 2))
        or (s1 & (s1 >> 1) & (s1 >> 2))
        or (s2 & (s2 >> 1) & (s2 >> 2))
        or (s3 & (s3 >> 1) & (s3 >> 2))
        or (s0 & s1 & (s2 | s3))
        or (s2 & s3 & (s0 | s1))
    ):
        # no run and no set: everything is deadwood
        table = _PATTERN_VALUE
        return table[s0] + table[s1] + table[s2] + table[s3]
    melds = _melds_of(hand, s0, s1, s2, s3)
    if len(melds) <= 2:
        first = mask_value(melds[0])
        if len(melds) == 1:
            return mask_value(hand) - first
        second = mask_value(melds[1])
        both = first + second if not melds[0] & melds[1] else max(first, second)
        return mask_value(hand) - both
    cover = union_of(melds)
    return mask_value(hand & ~cover) + DeadwoodSearch(melds).deadwood(hand & cover)


def min_deadwood(cards: Iterable[Card | str]) -> int:
    """Minimum deadwood of a hand given as cards or codes (duplicates rejected)."""
    if type(cards) is list:
        try:  # fast path: a list of Card objects (distinct bits add up without carries)
            mask = sum(map(_CARD_BIT, cards))
            if mask.bit_count() == len(cards):
                return min_deadwood_mask(mask)
        except AttributeError:
            pass
    return min_deadwood_mask(hand_mask(cards))


def merge_runs(arrangement: Iterable[int]) -> tuple[int, ...]:
    """Canonical form of an arrangement: adjacent runs of one suit merged, melds sorted.

    3-4-5 + 6-7-8 and 3-4-5-6-7-8 meld the same cards and take the same layoffs, so they are
    one arrangement.
    """
    runs = sorted(m for m in arrangement if is_run_mask(m))
    others = [m for m in arrangement if not is_run_mask(m)]
    merged: list[int] = []
    for run in runs:  # sorted by mask value: within a suit, lower runs come first
        if merged:
            top = merged[-1].bit_length() - 1
            bottom = (run & -run).bit_length() - 1
            if top + 1 == bottom and top // 13 == bottom // 13:
                merged[-1] |= run
                continue
        merged.append(run)
    runs = merged
    return tuple(sorted(runs + others, key=_meld_sort_key))


def _meld_sort_key(meld: int) -> tuple[int, int, int]:
    """Display order of melds: by lowest rank, sets before runs, then by card mask."""
    # the lowest bit of a run or a set is a card of its lowest rank
    low_rank_index = ((meld & -meld).bit_length() - 1) % 13
    return (low_rank_index, 1 if is_run_mask(meld) else 0, meld)


def is_run_mask(mask: int) -> bool:
    """True if the mask is one contiguous run of 3+ cards in one suit (any length)."""
    low = mask & -mask
    index = low.bit_length() - 1
    shifted = mask >> index
    return (
        mask.bit_count() >= 3
        and shifted & (shifted + 1) == 0
        and index // 13 == (mask.bit_length() - 1) // 13
    )


def is_meld(cards: Iterable[Card | str]) -> bool:
    """True if the cards form one legal meld: a set of 3 or 4 of a rank, or a run of 3+ cards
    of one suit, ace low only (seed 003: "A 2 3 is a legal run but Q K A is not")."""
    return hand_mask(cards) in ALL_MELDS


def meld_cards(meld: int) -> list[Card]:
    """Cards of a meld in display order: runs by rank, sets by suit S H D C."""
    return sort_cards(mask_to_cards(meld))


@dataclass(frozen=True)
class DiscardOption:
    """One discard from an 11-card hand and the best the remaining 10 cards can do."""

    card: Card
    deadwood: int
    melds: list[list[Card]]

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card.code,
            "deadwood": self.deadwood,
            "melds": [codes(m) for m in self.melds],
        }


@dataclass(frozen=True)
class MeldAnalysis:
    """Result of ``best_melds``: minimum deadwood and every arrangement reaching it.

    For 11 cards also ``big_gin`` (all 11 meld), ``best_discards`` (the discards that reach
    ``min_deadwood_after_discard``) and ``discards`` (every discard, best first).
    """

    cards: list[Card]
    deadwood: int
    melds: list[list[Card]]
    arrangements: list[list[list[Card]]]
    deadwood_cards: list[Card]
    big_gin: bool | None = None
    best_discards: list[Card] | None = None
    min_deadwood_after_discard: int | None = None
    discards: list[DiscardOption] = field(default_factory=list)

    @property
    def is_gin(self) -> bool:
        """True if every card melds (deadwood 0)."""
        return self.deadwood == 0

    def to_json(self) -> dict[str, Any]:
        """The ``gintray melds`` JSON object."""
        out: dict[str, Any] = {
            "deadwood": self.deadwood,
            "melds": [codes(m) for m in self.melds],
            "deadwood_cards": codes(self.deadwood_cards),
            "arrangements": [[codes(m) for m in arr] for arr in self.arrangements],
        }
        if self.big_gin is not None:
            out["big_gin"] = self.big_gin
            out["best_discards"] = codes(self.best_discards or [])
            out["min_deadwood_after_discard"] = self.min_deadwood_after_discard
            out["discards"] = [d.to_json() for d in self.discards]
        return out


def optimal_arrangements(hand: int) -> tuple[int, list[tuple[int, ...]]]:
    """(minimum deadwood, every optimal arrangement in canonical form) of a card mask."""
    melds = candidate_melds(hand)
    if not melds:
        return mask_value(hand), [()]
    search = DeadwoodSearch(melds)
    cover = union_of(melds)
    deadwood = mask_value(hand & ~cover) + search.deadwood(hand & cover)
    seen: dict[tuple[int, ...], None] = {}
    for raw in search.arrangements(hand & cover):
        seen.setdefault(merge_runs(raw), None)
    return deadwood, sorted(seen, key=_arrangement_key)


def arrangements_within(hand: int, max_deadwood: int) -> list[tuple[int, ...]]:
    """Every way to lay down melds from ``hand`` leaving at most ``max_deadwood``.

    Not only the optimal ones: a knocker may keep a meldable card as deadwood, or lay a set
    instead of a run, to block the defender's layoffs. Canonical form (runs merged), lowest
    deadwood first. The lowest card of what is left is either deadwood or the lowest card of
    one meld; a branch stops once even its best completion is over ``max_deadwood``.
    """
    melds = candidate_melds(hand)
    search = DeadwoodSearch(melds)
    found: dict[tuple[int, ...], int] = {}

    def walk(mask: int, chosen: tuple[int, ...], dead: int) -> None:
        if dead + search.deadwood(mask) > max_deadwood:
            return
        if mask == 0:
            found.setdefault(merge_runs(chosen), dead)
            return
        low = mask & -mask
        walk(mask ^ low, chosen, dead + VALUES[low.bit_length() - 1])
        for meld in search.by_low.get(low, ()):
            if meld & mask == meld:
                walk(mask ^ meld, (*chosen, meld), dead)

    walk(hand, (), 0)
    return sorted(found, key=lambda a: (found[a], _arrangement_key(a)))


def _arrangement_key(arrangement: tuple[int, ...]) -> tuple[int, tuple[tuple[int, int, int], ...]]:
    return (len(arrangement), tuple(_meld_sort_key(m) for m in arrangement))


def _as_cards(arrangement: Iterable[int]) -> list[list[Card]]:
    return [meld_cards(m) for m in arrangement]


@lru_cache(maxsize=4096)
def _analyse_mask(hand: int) -> MeldAnalysis:
    cards = sort_cards(mask_to_cards(hand))
    deadwood, arrangements = optimal_arrangements(hand)
    best = arrangements[0]
    analysis = MeldAnalysis(
        cards=cards,
        deadwood=deadwood,
        melds=_as_cards(best),
        arrangements=[_as_cards(a) for a in arrangements],
        deadwood_cards=sort_cards(mask_to_cards(hand & ~union_of(best))),
    )
    if len(cards) != 11:
        return analysis
    melds = candidate_melds(hand)
    search = DeadwoodSearch(melds)
    cover = union_of(melds)
    options = []
    for card in cards:
        rest = hand ^ card.bit
        deadwood_after = mask_value(rest & ~cover) + search.deadwood(rest & cover)
        best = merge_runs(search.one_arrangement(rest & cover))
        options.append(DiscardOption(card, deadwood_after, _as_cards(best)))
    options.sort(key=lambda o: (o.deadwood, -o.card.value, -o.card.rank, SUITS.index(o.card.suit)))
    minimum = options[0].deadwood
    return MeldAnalysis(
        cards=analysis.cards,
        deadwood=analysis.deadwood,
        melds=analysis.melds,
        arrangements=analysis.arrangements,
        deadwood_cards=analysis.deadwood_cards,
        big_gin=deadwood == 0,
        best_discards=[o.card for o in options if o.deadwood == minimum],
        min_deadwood_after_discard=minimum,
        discards=options,
    )


def layout_agreement(arrangement: Iterable[int], layout: Iterable[int]) -> int:
    """How much of a layout an arrangement keeps: the pairs of cards that lie in one group on
    the table (``layout``: card masks) and share a meld of the arrangement."""
    total = 0
    groups = tuple(layout)
    for meld in arrangement:
        for group in groups:
            n = (meld & group).bit_count()
            total += n * (n - 1) // 2
    return total


def laid_melds(hand: int, layout: Iterable[int]) -> tuple[int, ...] | None:
    """The groups of a layout as melds, when every group is a meld of the hand and no card is in
    two of them; else None (the layout is then only a preference, see ``arrange``)."""
    used = 0
    melds = []
    for group in layout:
        if group not in ALL_MELDS or group & ~hand or group & used:
            return None
        used |= group
        melds.append(group)
    return tuple(melds)


@dataclass(frozen=True)
class Arrangement:
    """Cards arranged into melds and deadwood; ``as_laid``: the groups are the ones laid on the
    table (unchanged), else the engine moved cards to leave less deadwood."""

    melds: list[list[Card]]
    deadwood_cards: list[Card]
    deadwood: int
    as_laid: bool

    def to_json(self) -> dict[str, Any]:
        return {"melds": [codes(m) for m in self.melds],
                "deadwood_cards": codes(self.deadwood_cards), "deadwood": self.deadwood,
                "as_laid": self.as_laid}


def arrange(cards: Iterable[Card | str],
            laid: Iterable[Iterable[Card | str]] = ()) -> Arrangement:
    """The least-deadwood arrangement of ``cards`` that keeps the most of how they were laid.

    The engine owns deadwood: the layout (``laid``: groups of cards lying together, e.g. a
    camera's reading) only chooses among the arrangements of least deadwood. Laid groups that
    are melds and leave the least deadwood are kept exactly as laid (card order included);
    otherwise the optimal arrangement sharing the most pairs of cards with the laid groups wins
    (a loose fifth card of a laid four-card run joins the run; a loose fourth of a set joins
    the set). Cards of a laid group must be among ``cards`` (``InputError`` otherwise).
    """
    hand_cards = parse_cards(cards)
    hand = sum(c.bit for c in hand_cards)
    groups = [parse_cards(g) for g in laid]
    masks = [sum(c.bit for c in g) for g in groups]
    for group, mask in zip(groups, masks, strict=True):
        if mask & ~hand or mask.bit_count() != len(group):
            raise InputError(f"laid group [{' '.join(codes(group))}] has cards that are not "
                             "among the cards arranged (or a card twice)", "bad_layout")
    deadwood, arrangements = optimal_arrangements(hand)
    kept = laid_melds(hand, masks)
    if kept is not None and mask_value(hand & ~union_of(kept)) == deadwood:
        melded = union_of(kept)
        return Arrangement([list(g) for g in groups], sort_cards(mask_to_cards(hand & ~melded)),
                           deadwood, as_laid=True)
    best = max(arrangements, key=lambda a: layout_agreement(a, masks))  # first of equals
    return Arrangement(_as_cards(best), sort_cards(mask_to_cards(hand & ~union_of(best))),
                       deadwood, as_laid=False)


def melding_cards(cards: Iterable[Card | str], taken: Iterable[Card | str] = (),
                  limit: int = 6) -> list[Card]:
    """The cards that would meld with ``cards`` (a run's next card, a set's third or fourth):
    those whose adding lowers the deadwood below ``cards``' own plus the card's value, lowest
    deadwood after first, at most ``limit``. ``taken``: cards known elsewhere (never offered).
    A hand short of a card most likely misses one of these."""
    hand = hand_mask(cards)
    blocked = hand | hand_mask(taken)
    base = min_deadwood_mask(hand)
    found = []
    for card in DECK:
        if card.bit & blocked:
            continue
        after = min_deadwood_mask(hand | card.bit)
        if after < base + card.value:
            found.append((after, card.rank, SUITS.index(card.suit), card))
    return [card for *_, card in sorted(found)[:limit]]


def best_melds(cards: Iterable[Card | str]) -> MeldAnalysis:
    """Minimum deadwood, one best meld arrangement and every optimal arrangement of a hand.

    Any number of distinct cards is analysed; 10 is a hand at rest, 11 a hand after the draw
    (then ``big_gin``, ``best_discards``, ``min_deadwood_after_discard`` and ``discards`` are
    filled in). Results are memoised per hand (the camera sends the same hand many times).

    >>> a = best_melds("AH 2H 3H 9S 9D 9C 4C 5D KS QH".split())
    >>> a.deadwood, a.melds
    (29, [[Card(AH), Card(2H), Card(3H)], [Card(9S), Card(9D), Card(9C)]])
    >>> a.deadwood_cards
    [Card(4C), Card(5D), Card(QH), Card(KS)]
    >>> after_draw = best_melds("AS 2S 3S 4S 4H 5H 6H 7C 7D 7S 8S".split())
    >>> after_draw.big_gin, after_draw.best_discards, after_draw.min_deadwood_after_discard
    (False, [Card(8S)], 0)
    >>> best_melds("AS 2S 3S 4S 4H 5H 6H 7C 7D 7S 7H".split()).big_gin
    True
    """
    return _analyse_mask(hand_mask(cards))


__all__ = [
    "ALL_MELDS",
    "DECK",
    "Arrangement",
    "DiscardOption",
    "MeldAnalysis",
    "arrange",
    "best_melds",
    "candidate_melds",
    "is_meld",
    "laid_melds",
    "layout_agreement",
    "meld_cards",
    "melding_cards",
    "merge_runs",
    "min_deadwood",
    "min_deadwood_mask",
    "optimal_arrangements",
]
