"""Issue 29 item 1: how the cards lie on the table chooses only among arrangements that score
the same; it never makes a hand score worse than its cards allow.

``scorer.arrange`` (one player's cards) and ``score_hand(layout=...)`` (a whole knock) take the
groups a camera saw; the engine owns deadwood and the knocker's best spread.
"""

from __future__ import annotations

import random

import pytest
from scorer_helpers import codes, meld_heavy_hand

from scorer import ScorerError, arrange, min_deadwood, score_hand


def _codes(cards) -> list[str]:
    return [c.code for c in cards]


@pytest.mark.parametrize(
    ("name", "cards", "laid", "melds"),
    [
        ("run laid as 4 + loose 5th below", "9C TC JC QC KC",
         [["JC", "QC", "TC", "KC"]], [["9C", "TC", "JC", "QC", "KC"]]),
        ("run laid as 4 + loose 5th on top", "9C TC JC QC KC",
         [["9C", "TC", "JC", "QC"]], [["9C", "TC", "JC", "QC", "KC"]]),
        ("set of 3 + loose 4th", "8S 8H 8D 8C 2C 3D",
         [["8S", "8H", "8D"]], [["8S", "8H", "8D", "8C"]]),
        ("run laid as 3 + two loose at the ends", "4D 5D 6D 7D 8D",
         [["5D", "6D", "7D"]], [["4D", "5D", "6D", "7D", "8D"]]),
        ("two rows of a run, neither a meld alone", "9C TC JC QC KC",
         [["9C", "TC"], ["JC", "QC", "KC"]], [["9C", "TC", "JC", "QC", "KC"]]),
        ("a card bridging two laid runs", "3S 4S 5S 6S 7S 8S 9S",
         [["3S", "4S", "5S"], ["7S", "8S", "9S"]], [["3S", "4S", "5S", "6S", "7S", "8S", "9S"]]),
        ("a shuffled fan", "KC 9C JC TC QC", [["KC", "9C", "JC", "TC", "QC"]],
         [["KC", "9C", "JC", "TC", "QC"]]),
    ],
)
def test_a_card_that_extends_a_laid_meld_is_never_left_as_deadwood(name, cards, laid, melds):
    arranged = arrange(cards.split(), laid)
    assert [sorted(m) for m in map(_codes, arranged.melds)] == [sorted(m) for m in melds], name
    assert arranged.deadwood == min_deadwood(cards.split())
    assert sum(c.value for c in arranged.deadwood_cards) == arranged.deadwood


def test_melds_laid_with_least_deadwood_are_kept_exactly_as_laid():
    laid = [["8H", "7H", "6H", "5H"], ["9S", "9C", "9D"]]
    arranged = arrange(["5H", "6H", "7H", "8H", "9C", "9D", "9S", "KC"], laid)
    assert arranged.as_laid
    assert [_codes(m) for m in arranged.melds] == laid  # the fan's order too
    assert _codes(arranged.deadwood_cards) == ["KC"]


def test_the_layout_chooses_between_arrangements_of_equal_deadwood():
    """3H fits the set of threes or the run of hearts: the table says which."""
    cards = ["AS", "AD", "3S", "3H", "3D", "3C", "4H", "5S", "5H", "6H"]
    as_set = arrange(cards, [["3S", "3H", "3D", "3C"], ["4H", "5H", "6H"]])
    as_run = arrange(cards, [["3S", "3D", "3C"], ["3H", "4H", "5H", "6H"]])
    assert sorted(map(sorted, map(_codes, as_set.melds))) == [["3C", "3D", "3H", "3S"],
                                                               ["4H", "5H", "6H"]]
    assert sorted(map(sorted, map(_codes, as_run.melds))) == [["3C", "3D", "3S"],
                                                               ["3H", "4H", "5H", "6H"]]
    assert as_set.deadwood == as_run.deadwood == 7
    # a layout showing only part of it still leans the right way
    assert arrange(cards, [["3H", "4H"]]).melds == as_run.melds


def test_a_laid_group_with_a_card_not_in_the_hand_is_a_clear_error():
    with pytest.raises(ScorerError, match="laid group"):
        arrange(["5H", "6H", "7H"], [["5H", "6H", "8H"]])


def test_any_layout_leaves_exactly_the_least_deadwood():
    rng = random.Random(29)
    for _ in range(300):
        cards = codes(meld_heavy_hand(rng))
        shuffled = cards[:]
        rng.shuffle(shuffled)
        cut = sorted(rng.sample(range(1, len(cards)), 3))
        laid = [shuffled[a:b] for a, b in zip([0, *cut], [*cut, len(cards)], strict=True)]
        laid = [g for g in laid if rng.random() < 0.7]
        arranged = arrange(cards, laid)
        assert arranged.deadwood == min_deadwood(cards)
        assert sum(c.value for c in arranged.deadwood_cards) == arranged.deadwood
        every = [c for m in arranged.melds for c in _codes(m)] + _codes(arranged.deadwood_cards)
        assert sorted(every) == sorted(cards)


def _summary(result):
    return result.outcome, result.winner, result.points, result.deadwood


def test_a_layout_never_changes_what_a_knock_scores():
    """Knocker: the best spread the engine chooses; defender: his count after layoffs. The
    groups laid on the table (true melds, melds missing a card, or random heaps) change
    neither: 400 meld-heavy deals."""
    rng = random.Random(2029)
    checked = 0
    for _ in range(400):
        knocker = meld_heavy_hand(rng)
        defender = meld_heavy_hand(rng, exclude=knocker)
        hands = {"A": codes(knocker), "B": codes(defender)}
        try:
            plain = score_hand("standard", up_card=None, knocker="A", hands=hands)
        except ScorerError:
            continue  # an improper knock: no layout makes it proper
        layout = {}
        for player, cards in hands.items():
            best = arrange(cards)
            groups = [_codes(m) for m in best.melds]
            if groups and rng.random() < 0.5:  # a meld laid short: its last card lies apart
                groups[0] = groups[0][:-1]
            if rng.random() < 0.3:  # or cards heaped at random
                groups = [rng.sample(cards, 4)]
            layout[player] = groups
        laid = score_hand("standard", up_card=None, knocker="A", hands=hands, layout=layout)
        assert _summary(laid) == _summary(plain), (hands, layout)
        checked += 1
    assert checked > 200


def test_the_layout_chooses_the_knockers_spread_among_equal_results():
    hands = {"A": ["AS", "AD", "3S", "3H", "3D", "3C", "4H", "5S", "5H", "6H"],
             "B": ["2C", "4C", "6C", "8C", "TC", "QC", "KS", "KH", "9D", "JD"]}
    as_set = {"A": [["3S", "3H", "3D", "3C"], ["4H", "5H", "6H"]]}
    as_run = {"A": [["3S", "3D", "3C"], ["3H", "4H", "5H", "6H"]]}
    one = score_hand("standard", up_card=None, knocker="A", hands=hands, layout=as_set)
    two = score_hand("standard", up_card=None, knocker="A", hands=hands, layout=as_run)
    assert _summary(one) == _summary(two)
    assert sorted(map(sorted, map(_codes, one.melds["A"]))) == [["3C", "3D", "3H", "3S"],
                                                                ["4H", "5H", "6H"]]
    assert sorted(map(sorted, map(_codes, two.melds["A"]))) == [["3C", "3D", "3S"],
                                                                ["3H", "4H", "5H", "6H"]]
    assert not any(alt.as_laid for alt in one.alternatives + two.alternatives)


def test_a_spread_as_laid_that_scores_worse_is_an_alternative_not_the_result():
    """The knocker laid 2-3-4 of spades with the ace apart: as laid he knocks with 1, but the
    cards are gin. Gin is proposed; the spread as laid is offered first among the
    alternatives."""
    hands = {"A": ["AS", "2S", "3S", "4S", "7H", "8H", "9H", "KD", "KC", "KH"],
             "B": ["2C", "4C", "6C", "8C", "TC", "QC", "5S", "5H", "9D", "JD"]}
    layout = {"A": [["2S", "3S", "4S"], ["7H", "8H", "9H"], ["KD", "KC", "KH"]]}
    result = score_hand("tournament", up_card="7D", knocker="A", hands=hands, layout=layout)
    assert result.outcome == "gin" and result.deadwood["A"] == 0
    first = result.alternatives[0]
    assert first.as_laid and first.outcome == "knock" and first.deadwood["A"] == 1
    assert sorted(map(sorted, map(_codes, first.melds))) == [
        ["2S", "3S", "4S"], ["7H", "8H", "9H"], ["KC", "KD", "KH"]]
    assert first.to_json()["as_laid"] is True


def test_a_layout_naming_a_card_of_the_other_hand_is_refused():
    hands = {"A": ["AS", "2S", "3S", "4S", "7H", "8H", "9H", "KD", "KC", "KH"],
             "B": ["2C", "4C", "6C", "8C", "TC", "QC", "5S", "5H", "9D", "JD"]}
    with pytest.raises(ScorerError, match="layout of 'A'"):
        score_hand("standard", up_card=None, knocker="A", hands=hands, layout={"A": [["2C"]]})
