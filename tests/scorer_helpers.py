"""Independent brute force and hand generators for the rules-engine tests.

Nothing here uses the engine's bitmask search: cards are (rank, suit) tuples, melds are
enumerated naively, arrangements are every collection of disjoint melds, and layoffs are
found by simulating every legal sequence of single layoffs (GRA / seed 003 rules: onto the
knocker's melds, sets take the fourth card, runs grow at either end, one card at a time).
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations

from hypothesis import settings

RANKS = range(1, 14)
SUITS = "SHDC"
RANK_CHARS = "A23456789TJQK"

Tup = tuple[int, str]


def examples(full: int) -> int:
    """A property test's generated examples: ``full`` under Hypothesis's ``full`` profile (its
    100 a test), scaled as the loaded profile scales them (a tenth under ``quick``)."""
    return max(1, full * settings.default.max_examples // 100)


def code(card: Tup) -> str:
    return RANK_CHARS[card[0] - 1] + card[1]


def tup(code_: str) -> Tup:
    return (RANK_CHARS.index(code_[0].upper()) + 1, code_[1].upper())


def value(card: Tup) -> int:
    return min(card[0], 10)


def all_melds(cards: frozenset[Tup]) -> list[frozenset[Tup]]:
    """Every set (3 or 4 of a rank) and every run (3+ consecutive ranks, one suit, ace low)."""
    melds: list[frozenset[Tup]] = []
    for rank in RANKS:
        same = [c for c in cards if c[0] == rank]
        for size in (3, 4):
            melds.extend(frozenset(combo) for combo in combinations(same, size))
    for suit in SUITS:
        for low in RANKS:
            for high in range(low + 2, 14):
                run = frozenset((r, suit) for r in range(low, high + 1))
                if run <= cards:
                    melds.append(run)
    return melds


def _collections(melds: list[frozenset[Tup]], start: int, used: frozenset[Tup]):
    yield []
    for i in range(start, len(melds)):
        if not melds[i] & used:
            for rest in _collections(melds, i + 1, used | melds[i]):
                yield [melds[i], *rest]


def normalise(arrangement) -> frozenset[frozenset[Tup]]:
    """Merge runs of one suit that touch (3-4-5 + 6-7-8 = 3..8)."""
    melds = [set(m) for m in arrangement]
    changed = True
    while changed:
        changed = False
        for a in melds:
            for b in melds:
                if a is b or not is_run(a) or not is_run(b):
                    continue
                if next(iter(a))[1] == next(iter(b))[1] and max(a)[0] + 1 == min(b)[0]:
                    a |= b
                    melds.remove(b)
                    changed = True
                    break
            if changed:
                break
    return frozenset(frozenset(m) for m in melds)


def is_run(meld) -> bool:
    return len({c[1] for c in meld}) == 1 and len(meld) >= 3


@lru_cache(maxsize=200_000)
def brute_melds(cards: frozenset[Tup]) -> tuple[int, frozenset]:
    """(minimum deadwood, set of every optimal arrangement, runs merged)."""
    total = sum(value(c) for c in cards)
    best = total
    found: set = set()
    for coll in _collections(all_melds(cards), 0, frozenset()):
        dead = total - sum(value(c) for m in coll for c in m)
        if dead < best:
            best, found = dead, set()
        if dead == best:
            found.add(normalise(coll))
    return best, frozenset(found)


def brute_deadwood(cards) -> int:
    return brute_melds(frozenset(cards))[0]


def _attachable(card: Tup, meld: frozenset[Tup]) -> bool:
    ranks = {c[0] for c in meld}
    if len(ranks) == 1:  # a set: the fourth card of the rank
        return len(meld) == 3 and card[0] in ranks
    suit = next(iter(meld))[1]
    return card[1] == suit and (card[0] == min(ranks) - 1 or card[0] == max(ranks) + 1)


def reachable_layoffs(knocker_melds, defender) -> set[frozenset[Tup]]:
    """Every set of defender cards that can be laid off by some sequence of single layoffs."""
    start = (tuple(sorted((frozenset(m) for m in knocker_melds), key=sorted)), frozenset())
    seen = {start}
    stack = [start]
    results: set[frozenset[Tup]] = set()
    while stack:
        melds, laid = stack.pop()
        results.add(laid)
        for card in defender:
            if card in laid:
                continue
            for i, meld in enumerate(melds):
                if _attachable(card, meld):
                    grown = (*melds[:i], meld | {card}, *melds[i + 1 :])
                    state = (tuple(sorted(grown, key=sorted)), laid | {card})
                    if state not in seen:
                        seen.add(state)
                        stack.append(state)
    return results


def brute_defender(knocker_melds, defender) -> int:
    """Defender's lowest count: own melds and layoffs chosen together."""
    defender = frozenset(defender)
    return min(
        brute_deadwood(defender - laid) for laid in reachable_layoffs(knocker_melds, defender)
    )


def brute_knock(knocker, defender, gin_bonus=25, undercut_bonus=25, limit=10):
    """(outcome, winner, points) of a legal knock by "A" under tournament-style scoring.

    The knocker may lay any collection of disjoint melds whose deadwood is at the knock limit
    or lower (seed 000 rule 9); he lays the one that scores best for him after the defender's
    best layoffs.
    """
    k_dead, _ = brute_melds(frozenset(knocker))
    if k_dead == 0:
        return "gin", "A", brute_deadwood(defender) + gin_bonus
    total = sum(value(c) for c in knocker)
    best = None
    for coll in _collections(all_melds(frozenset(knocker)), 0, frozenset()):
        dead = total - sum(value(c) for m in coll for c in m)
        if dead > limit:
            continue
        d_count = brute_defender(coll, defender)
        if d_count <= dead:
            result = ("undercut", "B", dead - d_count + undercut_bonus)
            net = -result[2]
        else:
            result = ("knock", "A", d_count - dead)
            net = result[2]
        if best is None or net > best[0]:
            best = (net, result)
    assert best is not None
    return best[1]


def random_hand(rng: random.Random, size: int = 10, exclude=()) -> list[Tup]:
    pool = [(r, s) for s in SUITS for r in RANKS if (r, s) not in set(exclude)]
    return rng.sample(pool, size)


def meld_heavy_hand(rng: random.Random, size: int = 10, exclude=()) -> list[Tup]:
    """Several melds plus neighbouring cards: overlapping sets/runs and layoff chances."""
    banned = set(exclude)
    hand: list[Tup] = []
    for _ in range(rng.randint(2, 4)):
        suit = rng.choice(SUITS)
        if rng.random() < 0.5:
            low = rng.randint(1, 11)
            meld = [(r, suit) for r in range(low, min(13, low + rng.randint(2, 4)) + 1)]
        else:
            rank = rng.randint(1, 13)
            meld = [(rank, s) for s in rng.sample(SUITS, rng.choice((3, 3, 4)))]
        meld = [c for c in meld if c not in banned and c not in hand]
        if len(hand) + len(meld) <= size:
            hand.extend(meld)
    attempts = 0
    while len(hand) < size:
        attempts += 1
        if hand and rng.random() < 0.7 and attempts < 500:
            base = rng.choice(hand)
            if rng.random() < 0.5:
                card = (base[0], rng.choice(SUITS))
            else:
                card = (base[0] + rng.choice((-2, -1, 1, 2)), base[1])
            if not 1 <= card[0] <= 13:
                continue
        else:
            card = (rng.randint(1, 13), rng.choice(SUITS))
        if card not in hand and card not in banned:
            hand.append(card)
    rng.shuffle(hand)
    return hand


def codes(cards) -> list[str]:
    return [code(c) for c in cards]
