"""The engine against an independent brute force (tests/scorer_helpers.py).

Meld rules: seed 000 (GRA) and 003/004 (sets of 3-4, runs of 3+ of a suit, ace low, a card in
one meld). Layoff rules: 000 rule 9, 002 "laying off cards onto the knocker's melds to extend
sequences or matches", 003 Knocking. Scoring: 000 rule 6 (undercut on ties, 25-point bonuses).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scorer_helpers import (
    SUITS,
    _attachable,
    all_melds,
    brute_defender,
    brute_knock,
    brute_melds,
    codes,
    examples,
    meld_heavy_hand,
    random_hand,
    tup,
)

from scorer import best_melds, min_deadwood, score_hand
from scorer.cards import DECK, mask_to_cards
from scorer.layoffs import best_defence
from scorer.melds import merge_runs

ALL_TUPS = [(r, s) for s in SUITS for r in range(1, 14)]


def engine_arrangements(hand) -> frozenset:
    analysis = best_melds(codes(hand))
    return frozenset(
        frozenset(frozenset(tup(c.code) for c in meld) for meld in arr)
        for arr in analysis.arrangements
    )


def check_hand(hand) -> None:
    expected_dead, expected_arrs = brute_melds(frozenset(hand))
    analysis = best_melds(codes(hand))
    assert analysis.deadwood == expected_dead, codes(hand)
    assert min_deadwood(codes(hand)) == expected_dead
    assert engine_arrangements(hand) == expected_arrs, codes(hand)


@pytest.mark.slow
def test_min_deadwood_and_all_arrangements_match_brute_force_on_2000_hands():
    """1000 random and 1000 meld-heavy 10-card hands: deadwood and every optimal arrangement."""
    rng = random.Random(20260001)
    for _ in range(1000):
        check_hand(random_hand(rng))
    for _ in range(1000):
        check_hand(meld_heavy_hand(rng))


def test_eleven_card_analysis_matches_brute_force():
    """11 cards (after the draw): big gin, best discards and the deadwood after each (003)."""
    rng = random.Random(11)
    for i in range(150):
        hand = meld_heavy_hand(rng, 11) if i % 2 else random_hand(rng, 11)
        analysis = best_melds(codes(hand))
        after = {c: brute_melds(frozenset(hand) - {c})[0] for c in hand}
        best = min(after.values())
        assert analysis.big_gin == (brute_melds(frozenset(hand))[0] == 0)
        assert analysis.min_deadwood_after_discard == best
        assert {tup(c.code) for c in analysis.best_discards} == {
            c for c, d in after.items() if d == best
        }
        assert {tup(o.card.code): o.deadwood for o in analysis.discards} == after


def _knocker_melds(hand) -> list[list]:
    return [sorted(m) for m in brute_melds(frozenset(hand))[1].__iter__().__next__()]


def check_defence(knocker, defender) -> None:
    """For every optimal knocker arrangement, engine's defender count == brute force."""
    for arrangement in brute_melds(frozenset(knocker))[1]:
        masks = [sum(DECK[_index(c)].bit for c in meld) for meld in arrangement]
        defender_mask = sum(DECK[_index(c)].bit for c in defender)
        engine = best_defence(masks, defender_mask)
        assert engine.deadwood == brute_defender(arrangement, defender), (
            codes(knocker),
            codes(defender),
        )
        # the engine's own answer is legal: its layoffs are the defender's cards, each one
        # attaches, in the order given, to the knocker meld it names (as extended so far)
        assert engine.laid_off & ~defender_mask == 0
        extended = [set(meld) for meld in arrangement]
        for bit, meld_index in engine.layoffs:
            card = tup(DECK[bit.bit_length() - 1].code)
            assert _attachable(card, frozenset(extended[meld_index])), (codes(knocker), card)
            extended[meld_index].add(card)
        own = [frozenset(tup(c.code) for c in mask_to_cards(m)) for m in engine.melds]
        left = frozenset(defender) - {tup(DECK[b.bit_length() - 1].code) for b, _ in engine.layoffs}
        assert all(is_meld_tuple(m) for m in own) and sum(len(m) for m in own) == len(
            frozenset().union(*own)
        )
        assert sum(min(c[0], 10) for c in left - frozenset().union(*own)) == engine.deadwood


def is_meld_tuple(meld) -> bool:
    return meld in all_melds(frozenset(meld))


def _index(card) -> int:
    return SUITS.index(card[1]) * 13 + card[0] - 1


@pytest.mark.slow
def test_defender_layoff_optimum_matches_brute_force_on_1000_deals():
    """Knocker's melds vs every sequence of single layoffs plus the defender's own melds."""
    rng = random.Random(777)
    deals = 0
    while deals < 1000:
        knocker = meld_heavy_hand(rng)
        if not brute_melds(frozenset(knocker))[1]:
            continue
        if deals % 3 == 0:
            defender = random_hand(rng, exclude=knocker)
        else:
            defender = meld_heavy_hand(rng, exclude=knocker)
        check_defence(knocker, defender)
        deals += 1


def test_full_knock_scores_match_brute_force():
    """Outcome, winner and points of knocks (knock limit 10) against the brute force."""
    rng = random.Random(4242)
    scored = 0
    while scored < 400:
        knocker = meld_heavy_hand(rng)
        dead = brute_melds(frozenset(knocker))[0]
        if dead > 10:
            continue
        defender = meld_heavy_hand(rng, exclude=knocker)
        result = score_hand(
            {"preset": "tournament", "knock_limit": 10},
            up_card=None,
            knocker="A",
            hands={"A": codes(knocker), "B": codes(defender)},
        )
        assert (result.outcome, result.winner, result.points) == brute_knock(knocker, defender)
        scored += 1


hands10 = st.lists(st.sampled_from(ALL_TUPS), min_size=10, max_size=10, unique=True)


@st.composite
def meld_heavy(draw):
    return meld_heavy_hand(random.Random(draw(st.integers(0, 2**32))))


@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(hands10, meld_heavy()))
def test_property_engine_equals_brute_force(hand):
    check_hand(hand)


@settings(max_examples=examples(100), deadline=None)
@given(meld_heavy(), st.integers(0, 2**32))
def test_property_defence_equals_brute_force(knocker, seed):
    defender = meld_heavy_hand(random.Random(seed), exclude=knocker)
    check_defence(knocker, defender)


def test_merge_runs_is_canonical():
    """3-4-5 and 6-7-8 of one suit are the same arrangement as 3..8 (same cards, same ends)."""
    low = sum(DECK[i].bit for i in (2, 3, 4))
    high = sum(DECK[i].bit for i in (5, 6, 7))
    assert merge_runs([low, high]) == (low | high,)
    # different suits never merge
    other = sum(DECK[i].bit for i in (18, 19, 20))
    assert len(merge_runs([low, other])) == 2


@pytest.mark.parametrize("seed", range(3))
def test_card_order_is_irrelevant(seed):
    rng = random.Random(seed)
    hand = meld_heavy_hand(rng)
    first = best_melds(codes(hand)).to_json()
    rng.shuffle(hand)
    assert best_melds(codes(hand)).to_json() == first
