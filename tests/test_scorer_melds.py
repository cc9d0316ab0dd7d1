"""Melds and deadwood. Seeds: 000 (GRA), 001 (terms), 003 (Objective, Big Gin), 004 (Object)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scorer_helpers import codes, examples, meld_heavy_hand

from scorer import CardError, best_melds, is_meld, min_deadwood
from scorer.cards import DECK


def names(melds) -> list[list[str]]:
    return [[c.code for c in meld] for meld in melds]


def test_runs_are_ace_low_only():
    """003: "A 2 3 is a legal run but Q K A is not"; 004: "aces are always low — Q♥, K♥, A♥ is
    not a set"; 001: "Ace & King do not count as consecutive"."""
    assert is_meld(["AH", "2H", "3H"])
    assert not is_meld(["QH", "KH", "AH"])
    assert not is_meld(["KH", "AH", "2H"])
    assert is_meld(["JH", "QH", "KH"])


def test_sets_and_runs():
    """003: "Sets of 3 or 4 cards sharing the same rank ... runs of 3 or more cards in sequence,
    of the same suit"."""
    assert is_meld(["8S", "8D", "8C"])
    assert is_meld(["8S", "8D", "8C", "8H"])
    assert not is_meld(["8S", "8D"])
    assert is_meld(["4H", "5H", "6H", "7H", "8H", "9H", "TH"])
    assert not is_meld(["4H", "5S", "6H"])  # mixed suits
    assert not is_meld(["4H", "5H", "7H"])  # gap
    assert not is_meld(["4H", "4S", "5H"])


def test_a_card_belongs_to_one_meld_only():
    """003: "Intersecting melds are not allowed; if a player has a three-card set and a
    three-card run sharing a common card, only one of the melds counts"."""
    hand = ["5H", "5S", "5D", "6H", "7H", "KS", "KD", "QC", "JC", "9D"]
    analysis = best_melds(hand)
    # either 5H-6H-7H (5S 5D dead) or 5H 5S 5D (6H 7H dead): 10+ vs 13+, run wins
    assert analysis.deadwood == 5 + 5 + 10 + 10 + 10 + 10 + 9
    melded = [c for meld in analysis.melds for c in meld]
    assert len(melded) == len(set(melded))


def test_gin_hand_has_zero_deadwood_and_deadwood_cards_add_up():
    """000 rule 6: "The player who gins (lays down his hand with all 10 cards matched)"."""
    gin = best_melds(["AH", "2H", "3H", "4H", "7S", "7D", "7C", "QS", "QD", "QC"])
    assert gin.deadwood == 0 and gin.is_gin and gin.deadwood_cards == []
    hand = best_melds(["AH", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "QH"])
    assert hand.deadwood == 4 + 5 + 10 + 10
    assert sum(c.value for c in hand.deadwood_cards) == hand.deadwood
    assert names(hand.melds) == [["AH", "2H", "3H"], ["9S", "9D", "9C"]]


def test_every_optimal_arrangement_is_listed():
    """The 4 in 3-4-5♥ and 4♠ 4♦: both arrangements leave 8 points (issue 2: every arrangement
    that reaches the minimum)."""
    analysis = best_melds(["3H", "4H", "5H", "4S", "4D", "9C", "TC", "JC", "QC", "AS"])
    assert analysis.deadwood == 9
    assert sorted(names(arr)[0] for arr in analysis.arrangements) == [
        ["3H", "4H", "5H"],
        ["4S", "4H", "4D"],
    ]


def test_eleven_cards_big_gin():
    """003 Big Gin: "if all 11 cards in a player's hand form a legal gin"."""
    analysis = best_melds(["AH", "2H", "3H", "4H", "7S", "7D", "7C", "QS", "QD", "QC", "KC"])
    assert analysis.big_gin is False
    assert [c.code for c in analysis.best_discards] == ["KC"]
    assert analysis.min_deadwood_after_discard == 0
    big = best_melds(["AH", "2H", "3H", "4H", "7S", "7D", "7C", "7H", "QS", "QD", "QC"])
    assert big.big_gin is True and big.deadwood == 0
    # discards that keep a 10-card gin: either end of A-4♥, any seven (three remain)
    assert {c.code for c in big.best_discards} == {"AH", "4H", "7S", "7H", "7D", "7C"}


def test_eleven_cards_best_discards_and_deadwood_after_each():
    analysis = best_melds(["5S", "5H", "5D", "8C", "9C", "TC", "KD", "QS", "2H", "3D", "AS"])
    by_card = {d.card.code: d.deadwood for d in analysis.discards}
    assert by_card["KD"] == 16 and by_card["QS"] == 16  # keeps 2H 3D AS + one ten-card
    assert analysis.min_deadwood_after_discard == 16
    assert {c.code for c in analysis.best_discards} == {"KD", "QS"}
    assert len(analysis.discards) == 11
    assert analysis.discards[0].deadwood == 16


def test_analysis_json_shape():
    out = best_melds(["AH", "2H", "3H", "4H", "7S", "7D", "7C", "QS", "QD", "KC"]).to_json()
    assert set(out) == {"deadwood", "melds", "deadwood_cards", "arrangements"}
    assert out["deadwood"] == 30 and out["deadwood_cards"] == ["QS", "QD", "KC"]
    out11 = best_melds(["AH", "2H", "3H", "4H", "7S", "7D", "7C", "QS", "QD", "KC", "5C"]).to_json()
    assert {"big_gin", "best_discards", "min_deadwood_after_discard"} <= set(out11)


def test_bad_input_is_rejected():
    with pytest.raises(CardError):
        best_melds(["AH", "AH", "2H"])
    with pytest.raises(CardError):
        min_deadwood(["ZZ"])
    with pytest.raises(CardError) as info:
        min_deadwood([DECK[0], DECK[1], DECK[0]])  # Card objects: the fast path checks too
    assert info.value.code == "duplicate_card"


hands = st.lists(st.sampled_from(DECK), min_size=10, max_size=10, unique=True)


@st.composite
def heavy(draw):
    return codes(meld_heavy_hand(random.Random(draw(st.integers(0, 2**32)))))


@settings(max_examples=examples(120), deadline=None)
@given(st.one_of(hands, heavy()), st.randoms(use_true_random=False))
def test_properties(hand, rnd):
    """Deadwood never negative, gin exactly when deadwood is 0, order irrelevant, melds legal."""
    analysis = best_melds(hand)
    assert 0 <= analysis.deadwood <= sum(parse.value for parse in best_melds(hand).cards)
    melded = [c for meld in analysis.melds for c in meld]
    assert analysis.is_gin == (analysis.deadwood == 0) == (len(melded) == 10)
    assert all(is_meld(meld) for meld in analysis.melds)
    assert len(set(melded)) == len(melded)
    assert sum(c.value for c in analysis.deadwood_cards) == analysis.deadwood
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert best_melds(shuffled).to_json() == analysis.to_json()
    for arrangement in analysis.arrangements:
        dead = sum(c.value for c in analysis.cards) - sum(c.value for m in arrangement for c in m)
        assert dead == analysis.deadwood
