"""Rules-engine benchmark: minimum-deadwood search side by side with RLCard, and full scoring.

Needs the bench extra (RLCard): .venv/bin/pip install -e '.[bench]'
Run:  .venv/bin/python benchmarks/bench_scorer.py            (10,000 random + 10,000 meld-heavy)
      .venv/bin/python benchmarks/bench_scorer.py --hands 2000 --seed 7

For every hand both engines compute the minimum deadwood (RLCard 1.2.0:
``get_best_meld_clusters`` + ``get_deadwood_count``; gintray: ``scorer.min_deadwood``) in the
same process, same hands, same order; the script reports any disagreement, the time per hand
and the speed ratio. It then times ``scorer.score_hand`` on knocks where the defender lays off
(median of repeated full scorings). gintray's search memoises only inside one call, so no
result is reused between hands.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer import DECK, Card, min_deadwood, score_hand
from scorer.melds import ALL_MELDS, min_deadwood_mask

MELDS = sorted(ALL_MELDS)


def random_hand(rng: random.Random, size: int = 10) -> list[Card]:
    """Ten cards dealt from a shuffled deck."""
    return rng.sample(DECK, size)


def meld_heavy_hand(rng: random.Random, size: int = 10) -> list[Card]:
    """Two to four disjoint melds, the rest mostly next to them (same rank or neighbouring rank
    of the same suit), so overlapping melds and near-melds are common."""
    chosen = 0
    for _ in range(rng.randint(2, 4)):
        for _ in range(20):
            meld = rng.choice(MELDS)
            if not meld & chosen and (chosen | meld).bit_count() <= size:
                chosen |= meld
                break
    cards = [DECK[i] for i in range(52) if chosen >> i & 1]
    while len(cards) < size:
        if cards and rng.random() < 0.7:
            base = rng.choice(cards)
            if rng.random() < 0.5:
                rank, suit = base.rank, rng.choice("SHDC")
            else:
                rank, suit = base.rank + rng.choice((-2, -1, 1, 2)), base.suit
            if not 1 <= rank <= 13:
                continue
            card = Card(rank, suit)
        else:
            card = rng.choice(DECK)
        if card not in cards:
            cards.append(card)
    rng.shuffle(cards)
    return cards


def rlcard_min_deadwood_fn() -> Callable[[list], int]:
    from rlcard.games.gin_rummy.utils import melding, utils

    def run(hand: list) -> int:
        clusters = melding.get_best_meld_clusters(hand)
        if not clusters:
            return sum(utils.get_deadwood_value(card) for card in hand)
        return utils.get_deadwood_count(hand, clusters[0])

    return run


def to_rlcard(hands: list[list[Card]]) -> list[list]:
    from rlcard.games.base import Card as RCard

    return [[RCard(suit=c.suit, rank=c.code[0]) for c in hand] for hand in hands]


def time_each(fn: Callable, items: list) -> tuple[list, float]:
    start = time.perf_counter()
    results = [fn(item) for item in items]
    return results, time.perf_counter() - start


def compare(name: str, hands: list[list[Card]], rl_fn: Callable, rounds: int) -> int:
    """Both engines on the same hands in chunks of 250; within a chunk each engine runs
    ``rounds`` times, interleaved, and the fastest run counts (a busy machine preempts us, the
    minimum is the least disturbed run). Results are compared hand by hand."""
    rl_hands = to_rlcard(hands)
    masks = [sum(c.bit for c in hand) for hand in hands]
    total = {"rlcard": 0.0, "cards": 0.0, "mask": 0.0}
    ours: list[int] = []
    theirs: list[int] = []
    for start in range(0, len(hands), 250):
        chunk = slice(start, start + 250)
        best = dict.fromkeys(total, float("inf"))
        for _ in range(rounds):
            rl_out, t = time_each(rl_fn, rl_hands[chunk])
            best["rlcard"] = min(best["rlcard"], t)
            card_out, t = time_each(min_deadwood, hands[chunk])
            best["cards"] = min(best["cards"], t)
            mask_out, t = time_each(min_deadwood_mask, masks[chunk])
            best["mask"] = min(best["mask"], t)
            assert card_out == mask_out
        for key in total:
            total[key] += best[key]
        ours.extend(card_out)
        theirs.extend(rl_out)
    mismatches = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    n = len(hands)
    print(
        f"{name}: {n} hands, mean deadwood {statistics.mean(ours):.2f}, "
        f"gin hands {sum(1 for d in ours if d == 0)} (best of {rounds} per 250-hand chunk)"
    )
    print(
        f"  identical deadwood: {n - len(mismatches)}/{n}"
        + (f"  MISMATCH e.g. {[c.code for c in hands[mismatches[0]]]}" if mismatches else "")
    )
    t_rl = total["rlcard"]
    print(f"  RLCard get_best_meld_clusters : {t_rl / n * 1e6:8.1f} us/hand")
    for label, key in (("min_deadwood(cards)", "cards"), ("min_deadwood_mask  ", "mask")):
        t = total[key]
        print(f"  gintray {label}   : {t / n * 1e6:8.1f} us/hand  -> {t_rl / t:5.1f}x RLCard")
    return len(mismatches)


def knock_deals(rng: random.Random, wanted: int) -> list[dict]:
    """Tournament knocks (knock card 10) where the defender lays off at least one card."""
    deals: list[dict] = []
    while len(deals) < wanted:
        knocker = meld_heavy_hand(rng)
        if min_deadwood(knocker) > 10 or min_deadwood(knocker) == 0:
            continue
        rest = [c for c in DECK if c not in knocker]
        defender = meld_heavy_hand_from(rng, rest)
        deal = {"A": knocker, "B": defender}
        result = score_hand("tournament", up_card="TD", knocker="A", hands=deal)
        if result.layoffs:
            deals.append(deal)
    return deals


def meld_heavy_hand_from(rng: random.Random, pool: list[Card]) -> list[Card]:
    """A hand from the remaining cards, biased towards cards next to each other."""
    hand: list[Card] = []
    allowed = set(pool)
    while len(hand) < 10:
        if hand and rng.random() < 0.6:
            base = rng.choice(hand)
            rank = base.rank + rng.choice((-1, 1))
            if 1 <= rank <= 13 and Card(rank, base.suit) in allowed:
                card = Card(rank, base.suit)
            else:
                continue
        else:
            card = rng.choice(pool)
        if card not in hand:
            hand.append(card)
    return hand


def bench_score(rng: random.Random, deals_wanted: int, repeats: int) -> None:
    deals = knock_deals(rng, deals_wanted)
    times = []
    layoffs = 0
    for deal in deals:
        for _ in range(repeats):
            start = time.perf_counter()
            result = score_hand("tournament", up_card="TD", knocker="A", hands=deal)
            times.append(time.perf_counter() - start)
        layoffs += len(result.layoffs)
    print(
        f"score_hand, knock with layoffs: {len(deals)} deals x {repeats}, "
        f"{layoffs / len(deals):.2f} layoffs/deal"
    )
    print(
        f"  median {statistics.median(times) * 1e3:.3f} ms, "
        f"p95 {sorted(times)[int(len(times) * 0.95)] * 1e3:.3f} ms per full score"
    )


def bench_analysis(rng: random.Random, count: int) -> None:
    """Full ``best_melds`` (every optimal arrangement; 11 cards: every discard), cache cleared."""
    from scorer.melds import _analyse_mask

    for size in (10, 11):
        masks = [sum(c.bit for c in meld_heavy_hand(rng, size)) for _ in range(count)]
        times = []
        for mask in masks:
            _analyse_mask.cache_clear()
            start = time.perf_counter()
            _analyse_mask(mask)
            times.append(time.perf_counter() - start)
        print(
            f"best_melds, {size} meld-heavy cards (cache cleared): median "
            f"{statistics.median(times) * 1e3:.3f} ms, p95 "
            f"{sorted(times)[int(len(times) * 0.95)] * 1e3:.3f} ms"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands of each kind")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--score-deals", type=int, default=200)
    parser.add_argument("--score-repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    rl_fn = rlcard_min_deadwood_fn()
    random_hands = [random_hand(rng) for _ in range(args.hands)]
    heavy_hands = [meld_heavy_hand(rng) for _ in range(args.hands)]
    bad = compare("random", random_hands, rl_fn, args.rounds)
    bad += compare("meld-heavy", heavy_hands, rl_fn, args.rounds)
    both = random_hands + heavy_hands
    label = "all 20,000 side by side" if args.hands == 10_000 else "all"
    bad += compare(label, both, rl_fn, 1)
    bench_score(rng, args.score_deals, args.score_repeats)
    bench_analysis(rng, 500)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
