"""Scoring one hand. Seeds: 000 (GRA tournament rules, the authority), 002, 003, 004."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scorer_helpers import examples

from scorer import (
    CardError,
    ImproperKnockError,
    InputError,
    NewDealError,
    RulesError,
    best_melds,
    score_hand,
)
from scorer.cards import DECK

# Knocker A: A-2-3♥, three 7s, 9-10-J♣, 8♦ loose (deadwood 8).
KNOCKER = ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "8D"]
# Defender B: 4-5-6♠, three kings, 2-3-4♣, 10♦ loose (deadwood 10, nothing to lay off).
DEFENDER = ["4S", "5S", "6S", "KS", "KD", "KH", "2C", "3C", "4C", "TD"]
OTHER = ["6H", "7H", "4C", "2C", "3C", "KD", "QD", "8S", "8D", "2S"]


def score(knocker=KNOCKER, defender=DEFENDER, rules="tournament", up="8S", **kw):
    return score_hand(rules, up_card=up, knocker="A", hands={"A": knocker, "B": defender}, **kw)


def swap(hand, old, new):
    return [new if c == old else c for c in hand]


def test_knock_scores_the_difference():
    """000 rule 6 / 003 "Knock Points": the knocker receives the difference (knock with 8 vs
    10 after laying off -> 2, the example in 003)."""
    result = score()
    assert (result.outcome, result.winner, result.points) == ("knock", "A", 2)
    assert result.deadwood == {"A": 8, "B": 10}
    assert result.knock_limit == 8
    assert [c.code for c in result.deadwood_cards["A"]] == ["8D"]
    assert result.layoffs == []


def test_undercut_scores_difference_plus_25():
    """000 rule 6: "the opponent wins the hand and receives the difference ... plus a BONUS OF
    25 POINTS FOR THE UNDERCUT"."""
    result = score(defender=swap(DEFENDER, "TD", "5D"))
    assert (result.outcome, result.winner, result.points) == ("undercut", "B", 8 - 5 + 25)


def test_equal_counts_are_an_undercut_in_tournament_play():
    """000 rule 6: "If the player who knocks has a point count equal to or higher than his
    opponent, the opponent wins"."""
    result = score(defender=swap(DEFENDER, "TD", "8H"))
    assert (result.outcome, result.winner, result.points) == ("undercut", "B", 25)


def test_tie_without_undercut_on_tie_scores_nothing():
    """003: "In some rule sets, the bonus is ... not awarded in case of a tie"."""
    rules = {"preset": "tournament", "undercut_on_tie": False}
    result = score(defender=swap(DEFENDER, "TD", "8H"), rules=rules)
    assert (result.outcome, result.winner, result.points) == ("knock", None, 0)


def test_gin_scores_opponents_deadwood_plus_25_and_takes_no_layoffs():
    """000 rule 6: gin "receives an amount equal to his opponent's unmatched point count plus a
    bonus of 25 points"; 003: "There is no chance to lay off when a player goes gin"."""
    gin = swap(KNOCKER, "8D", "QC")  # 9-10-J-Q♣
    defender = swap(DEFENDER, "TD", "KC")  # K♣ would fit 9-Q♣ -- but not on gin
    defender = swap(defender, "KH", "8C")  # 8♣ too; kings now K♠ K♦ K♣
    result = score(knocker=gin, defender=defender)
    assert result.outcome == "gin" and result.winner == "A"
    assert result.layoffs == []
    assert result.deadwood["B"] == 8  # 8♣ stays deadwood
    assert result.points == 8 + 25


def test_family_scoring_gin_20_undercut_10():
    """004 "Family scoring": gin 20 plus deadwood, undercut 10 plus the difference."""
    gin = swap(KNOCKER, "8D", "QC")
    assert score(knocker=gin, rules="family").points == 10 + 20
    under = score(defender=swap(DEFENDER, "TD", "5D"), rules="family", up=None)
    assert (under.outcome, under.points) == ("undercut", 8 - 5 + 10)


def test_layoff_fourth_card_of_a_set():
    """003: "the knocking player has a meld of three Kings. The defending player's deadwood has
    a king. The player can lay off that king"."""
    knocker = ["KS", "KD", "KC", "AH", "2H", "3H", "4S", "5S", "6S", "2D"]
    defender = ["KH", "QD", "QS", "9C", "9D", "9H", "5C", "6C", "7C", "AD"]
    result = score(knocker, defender, rules="standard", up=None)
    assert [(lay.card.code, [c.code for c in lay.onto]) for lay in result.layoffs] == [
        ("KH", ["KS", "KD", "KC"])
    ]
    assert result.deadwood["B"] == 10 + 10 + 1


def test_layoffs_extend_runs_at_either_end_in_chains():
    """004: "the 5♥ might be added to a sequence of 6♥, 7♥, 8♥, 9♥"; issue 2: runs extended at
    either end, chains (10 then J onto 6-9), onto cards laid off earlier."""
    knocker = ["6H", "7H", "8H", "9H", "QS", "QD", "QC", "2S", "2D", "AC"]
    defender = ["5H", "TH", "JH", "4S", "4D", "4C", "9S", "9D", "9C", "KD"]
    result = score(knocker, defender, rules="standard", up=None)
    laid = [lay.card.code for lay in result.layoffs]
    assert sorted(laid) == ["5H", "JH", "TH"]
    assert laid.index("TH") < laid.index("JH")  # J♥ goes onto the 10♥ laid before it
    assert all([c.code for c in lay.onto] == ["6H", "7H", "8H", "9H"] for lay in result.layoffs)
    assert result.deadwood == {"A": 5, "B": 10}
    assert (result.outcome, result.points) == ("knock", 5)


def test_layoff_bridges_two_runs_of_one_suit():
    knocker = ["2H", "3H", "4H", "6H", "7H", "8H", "QS", "QD", "QC", "AC"]
    defender = ["5H", "9H", "KD", "KS", "3S", "3D", "3C", "8S", "8D", "8C"]
    result = score(knocker, defender, rules="standard", up=None)
    assert sorted(lay.card.code for lay in result.layoffs) == ["5H", "9H"]
    assert result.deadwood["B"] == 20


def test_defender_breaks_own_meld_when_laying_off_is_better():
    """Issue 2: "breaking the defender's own meld when that is better". B's set 8♠ 8♣ 8♥ leaves
    9♣ 9♥ loose (18 + 14); laying off 8♣ 9♣ onto 5-6-7♣ and 8♥ 9♥ onto 5-6-7♥ leaves 8♠."""
    knocker = ["5C", "6C", "7C", "5H", "6H", "7H", "QS", "QD", "QC", "AD"]
    defender = ["8S", "8C", "8H", "9C", "9H", "2S", "3S", "4S", "KD", "4D"]
    result = score(knocker, defender, rules="standard", up=None)
    assert sorted(lay.card.code for lay in result.layoffs) == ["8C", "8H", "9C", "9H"]
    assert result.deadwood["B"] == 8 + 10 + 4
    assert [[c.code for c in m] for m in result.melds["B"]] == [["2S", "3S", "4S"]]


def test_defender_breaks_a_set_of_four_to_lay_off():
    knocker = ["5C", "6C", "7C", "AS", "2S", "3S", "JH", "QH", "KH", "4D"]
    defender = ["8S", "8D", "8C", "8H", "9C", "2H", "3H", "4H", "KS", "KD"]
    result = score(knocker, defender, rules="standard", up=None)
    assert sorted(lay.card.code for lay in result.layoffs) == ["8C", "9C"]
    assert result.deadwood["B"] == 20


def test_layoffs_go_only_onto_the_knockers_melds():
    """003: "The knocking player can never lay off their deadwood into the defending player's
    melds" (A's 5♦ would extend B's 6-7-8♦ but still counts)."""
    knocker = ["AH", "2H", "3H", "9S", "9D", "9C", "TC", "JC", "QC", "5D"]
    defender = ["6D", "7D", "8D", "4S", "4H", "4C", "KS", "QS", "JS", "2C"]
    result = score(knocker, defender, rules="standard", up=None)
    assert result.deadwood == {"A": 5, "B": 2}
    assert result.layoffs == []
    assert (result.outcome, result.points) == ("undercut", 5 - 2 + 25)


def test_knocker_arrangement_leaves_the_defender_fewest_layoffs():
    """Issue 2: without melds given, lowest deadwood and among equals the arrangement best for
    the knocker. 3-4-5♥ or 4♠ 4♥ 4♦ both leave 9; the set leaves 6♥ 7♥ stuck with B."""
    knocker = ["3H", "4H", "5H", "4S", "4D", "9C", "TC", "JC", "QC", "AS"]
    defender = ["6H", "7H", "4C", "2C", "3C", "KD", "QD", "8S", "8D", "2S"]
    result = score(knocker, defender, rules="standard", up=None)
    assert [c.code for c in result.melds["A"][0]] == ["4S", "4H", "4D"]
    assert result.deadwood == {"A": 9, "B": 51}
    assert result.points == 42


def test_knocker_spreads_aces_as_a_set_when_that_blocks_layoffs():
    """Issue 14 item 2. Seed 000 rule 9: the knocker lays his melds, the opponent lays off.
    Spreading A-2-3♥ (deadwood 2: A♠ A♦) lets B lay off 4♥ 5♥: B counts 28 - 9 = 19, A wins
    19 - 2 = 17. Spreading the aces as a set (deadwood 2♥ 3♥ = 5) blocks both layoffs: B counts
    28, A wins 28 - 5 = 23, which is what the knocker lays."""
    knocker = ["AS", "AD", "AH", "2H", "3H", "7C", "8C", "9C", "TC", "JC"]
    defender = ["4H", "5H", "QS", "QD", "QH", "2S", "3S", "4S", "KC", "9D"]
    result = score(knocker, defender, rules="standard", up=None)
    assert (result.outcome, result.winner, result.points) == ("knock", "A", 23)
    assert result.deadwood == {"A": 5, "B": 28}
    assert result.layoffs == []
    assert ["AS", "AH", "AD"] in [[c.code for c in m] for m in result.melds["A"]]
    # the least-deadwood spread, the one many players would lay, is reported with its score
    first = result.alternatives[0]
    assert ["AH", "2H", "3H"] in [[c.code for c in m] for m in first.melds]
    assert (first.winner, first.points, first.deadwood) == ("A", 17, {"A": 2, "B": 19})
    assert sorted(lay.card.code for lay in first.layoffs) == ["4H", "5H"]


def test_knocker_keeps_a_run_end_as_deadwood_to_block_layoffs():
    """Issue 14 item 2. Seed 000 rule 9 and 003 Knocking: a knocker need not meld every card.
    Laying 2-3-4-5♥ (deadwood A♠ A♣ 2♦ = 4) lets B lay off 6♥ 7♥ (68 - 13 = 55): A wins 51.
    Keeping 5♥ (deadwood 9, still at the knock limit of 10 or lower) leaves B at 68: A wins
    68 - 9 = 59."""
    knocker = ["2H", "3H", "4H", "5H", "KS", "KD", "KC", "AS", "AC", "2D"]
    defender = ["6H", "7H", "9S", "4D", "6C", "8S", "QC", "JD", "3C", "5S"]
    result = score(knocker, defender, rules="standard", up=None)
    assert (result.winner, result.points, result.deadwood) == ("A", 59, {"A": 9, "B": 68})
    assert [c.code for c in result.deadwood_cards["A"]] == ["AS", "AC", "2D", "5H"]
    assert (result.alternatives[0].points, result.alternatives[0].deadwood["A"]) == (51, 4)


def test_knocker_never_lays_a_spread_over_the_knock_card():
    """Seed 000 rule 4 and 9: with a 4 up (knock limit 4) keeping 5♥ back (deadwood 9) would be
    an improper knock, so the knocker lays 2-3-4-5♥ and B lays off: 55 - 4 = 51."""
    knocker = ["2H", "3H", "4H", "5H", "KS", "KD", "KC", "AS", "AC", "2D"]
    defender = ["6H", "7H", "9S", "4D", "6C", "8S", "QC", "JD", "3C", "5S"]
    result = score(knocker, defender, rules="tournament", up="4S")
    assert (result.winner, result.points, result.knock_limit) == ("A", 51, 4)
    assert all(alt.deadwood["A"] <= 4 for alt in result.alternatives)


def test_melds_as_laid_down_are_scored_as_laid():
    """Issue 2: the knocker's melds are validated as laid down (here 3-4-5♥, so B lays off)."""
    knocker = ["3H", "4H", "5H", "4S", "4D", "9C", "TC", "JC", "QC", "AS"]
    defender = ["6H", "7H", "4C", "2C", "3C", "KD", "QD", "8S", "8D", "2S"]
    laid = {"A": [["3H", "4H", "5H"], ["9C", "TC", "JC", "QC"]]}
    result = score(knocker, defender, rules="standard", up=None, melds=laid)
    assert sorted(lay.card.code for lay in result.layoffs) == ["6H", "7H"]
    assert result.deadwood == {"A": 9, "B": 38}
    assert result.points == 29


@pytest.mark.parametrize(
    ("laid", "fragment"),
    [
        ([["3H", "4H", "4S"]], "is not a meld"),
        ([["4S", "4D", "5H"]], "is not a meld"),
        ([["3H", "4H", "5H"], ["5H", "5S", "5D"]], "not in the hand"),
        ([["9C", "TC", "JC"], ["9C", "9S", "9D"]], "not in the hand"),
    ],
)
def test_invalid_melds_are_an_improper_knock(laid, fragment):
    """000 rule 9: "If his hand is not a gin or his knock is not legal he must play an open
    hand" -- the engine says so instead of scoring."""
    knocker = ["3H", "4H", "5H", "4S", "4D", "9C", "TC", "JC", "QC", "AS"]
    with pytest.raises(ImproperKnockError) as info:
        score(knocker, OTHER, rules="standard", up=None, melds={"A": laid})
    assert info.value.code == "invalid_meld"
    assert fragment in info.value.message


def test_queen_king_ace_laid_as_a_run_is_rejected():
    """003: "A 2 3 is a legal run but Q K A is not"."""
    knocker = ["QH", "KH", "AH", "3S", "4S", "5S", "7D", "7C", "7S", "5C"]
    with pytest.raises(ImproperKnockError) as info:
        score(knocker, OTHER, rules="standard", up=None, melds={"A": [["QH", "KH", "AH"]]})
    assert info.value.code == "invalid_meld" and "QH KH AH" in info.value.message


def test_a_card_in_two_laid_melds_is_rejected():
    knocker = ["3H", "4H", "5H", "4S", "4D", "9C", "TC", "JC", "QC", "AS"]
    with pytest.raises(ImproperKnockError) as info:
        two = [["3H", "4H", "5H"], ["4H", "4S", "4D"]]
        score(knocker, OTHER, rules="standard", up=None, melds={"A": two})
    assert info.value.code == "invalid_meld" and "4H" in info.value.message


def test_knock_over_the_up_card_limit_is_improper():
    """000 rule 4: the up card's value is the knock limit; rule 9: an improper knock is played
    open, all ten cards face up."""
    with pytest.raises(ImproperKnockError) as info:
        score(up="5H")  # deadwood 8 > 5
    assert info.value.code == "improper_knock"
    assert "knock limit is 5" in info.value.message and "played open" in info.value.message


def test_ace_up_card_means_gin_only():
    """000 rule 4: "If the up card is an ACE, the game must be played for gin"."""
    with pytest.raises(ImproperKnockError) as info:
        score(up="AD")
    assert "played for gin" in info.value.message
    gin = swap(KNOCKER, "8D", "QC")
    assert score(knocker=gin, up="AD").outcome == "gin"


def test_declaring_gin_without_gin_is_improper():
    """000 rule 9: "When a player announces he is ginning ... If his hand is not a gin ... he
    must play an open hand"."""
    with pytest.raises(ImproperKnockError) as info:
        score(declared_gin=True)  # deadwood 8: a legal knock, but not the gin announced
    assert info.value.code == "not_gin"
    assert score(knocker=swap(KNOCKER, "8D", "QC"), declared_gin=True).outcome == "gin"


def test_straight_gin_allows_no_knock():
    """001 "Gin-Only" / 003 "Straight gin": knocking is not allowed."""
    with pytest.raises(ImproperKnockError):
        score(rules="straight", up=None)


def test_opponent_may_accept_an_improper_knock_and_lay_off_to_get_under():
    """000 rule 9: "the knocking point is 8 and a player knocks with 10 points, the opponent
    with 8 points or less may accept the knock and get credit for the undercut. The opponent
    may also lay off points to get under the knock"."""
    knocker = swap(KNOCKER, "8D", "KD")  # deadwood 10 over the 8 limit
    defender = [
        "4H",
        "AD",
        "QS",
        "QD",
        "QH",
        "6S",
        "6D",
        "6C",
        "2S",
        "3S",
    ]  # 10 loose, 6 after laying off 4♥
    with pytest.raises(ImproperKnockError):
        score(knocker, defender, up="8S")
    result = score(knocker, defender, up="8S", accept_improper_knock=True)
    assert result.improper_knock_accepted
    assert [lay.card.code for lay in result.layoffs] == ["4H"]
    assert (result.outcome, result.winner, result.points) == ("undercut", "B", 10 - 6 + 25)


def test_opponent_over_the_knock_card_cannot_accept():
    knocker = swap(KNOCKER, "8D", "QS")
    with pytest.raises(ImproperKnockError) as info:
        score(knocker, DEFENDER, up="8S", accept_improper_knock=True)  # B has 10 > 8
    assert info.value.code == "cannot_accept_knock"


def test_defender_short_of_cards_is_charged_10_per_missing_card():
    """000 rule 8: "THE PERSON WHO GINS GETS THE UNMATCHED POINT COUNT PLUS 10 POINTS FOR EACH
    MISSING CARD"."""
    result = score(defender=DEFENDER[:-1])  # nine cards, all melded
    assert result.deadwood["B"] == 10
    assert result.penalties == {"B": {"missing_cards": 1, "points": 10}}
    assert (result.outcome, result.points) == ("knock", 2)
    gin = swap(KNOCKER, "8D", "QC")
    assert score(knocker=gin, defender=DEFENDER[:-2]).points == (2 + 3 + 20) + 25  # 2♣ 3♣ loose


def test_extra_cards_count_at_face_value():
    """000 rule 8: "IF A PLAYER HAS MORE THAN 10 CARDS, THE ADDITIONAL CARDS ARE COUNTED BY THEIR
    NUMERIC VALUE" (the player keeps his best ten)."""
    result = score(defender=[*DEFENDER, "5D"])
    assert result.deadwood["B"] == 15
    assert result.penalties == {"B": {"extra_cards": 1}}
    assert sorted(c.code for c in result.deadwood_cards["B"]) == ["5D", "TD"]


def test_both_players_with_the_wrong_number_of_cards_is_a_new_deal():
    """000 rule 8: "IF BOTH PLAYERS HAVE WRONG NUMBER OF CARDS-NEW DEAL"."""
    with pytest.raises(NewDealError) as info:
        score(knocker=KNOCKER[:-1], defender=[*DEFENDER, "5D"])
    assert info.value.code == "new_deal"


def test_big_gin_with_eleven_melded_cards():
    """003 Big Gin: "awarded 31 points plus entire count of deadwood in their opponent's hand"."""
    knocker = [*swap(KNOCKER, "8D", "QC"), "KC"]
    result = score(knocker=knocker, rules="standard", up=None)
    assert result.outcome == "big_gin"
    assert result.points == 10 + 31
    # tournament play has no big gin: the 11th card is an extra card at face value (000 rule 8)
    plain = score(knocker=knocker, up="8S")
    assert plain.outcome != "big_gin"
    assert plain.deadwood["A"] == 6  # best: drop A♥ (1), 2♥ 3♥ loose (5)


def test_spade_up_card_doubles_in_oklahoma():
    """003 Oklahoma gin: "If the upcard is a spade, the hand will count double"."""
    doubled = score(rules="oklahoma", up="9S")
    assert doubled.knock_limit == 9 and doubled.doubled and doubled.points == 4
    plain = score(rules="oklahoma", up="9H")
    assert not plain.doubled and plain.points == 2


def test_player_names_are_arbitrary():
    result = score_hand(
        "tournament", up_card="8S", knocker="Lily", hands={"Lily": KNOCKER, "John": DEFENDER}
    )
    assert result.winner == "Lily" and result.deadwood == {"Lily": 8, "John": 10}
    assert result.loser == "John"


def test_bad_input_is_named():
    with pytest.raises(CardError) as info:
        score(defender=swap(DEFENDER, "TD", "7D"))  # 7♦ is in A's hand too
    assert info.value.code == "duplicate_card" and "7D" in info.value.message
    with pytest.raises(CardError) as info:
        score(defender=swap(DEFENDER, "TD", "XD"))
    assert "'B'" in info.value.message
    with pytest.raises(InputError) as info:
        score_hand("tournament", up_card="8S", knocker="C", hands={"A": KNOCKER, "B": DEFENDER})
    assert info.value.code == "unknown_player"
    with pytest.raises(RulesError) as info:
        score(up=None)
    assert info.value.code == "missing_up_card"
    with pytest.raises(CardError) as info:
        score(up="8X")
    assert "up_card" in info.value.message


def test_result_json_has_the_cli_fields():
    out = score().to_json()
    assert {
        "outcome",
        "winner",
        "points",
        "knock_limit",
        "deadwood",
        "melds",
        "layoffs",
        "deadwood_cards",
    } <= set(out)
    assert out["melds"]["A"] == [["AH", "2H", "3H"], ["7S", "7D", "7C"], ["9C", "TC", "JC"]]
    assert out["deadwood_cards"] == {"A": ["8D"], "B": ["TD"]}


def test_defender_melds_as_laid_down_are_kept():
    """With the defender's melds given, only his other cards may be laid off."""
    knocker = ["5C", "6C", "7C", "5H", "6H", "7H", "QS", "QD", "QC", "AD"]
    defender = ["8S", "8C", "8H", "9C", "9H", "2S", "3S", "4S", "KD", "4D"]
    laid = {"B": [["8S", "8C", "8H"], ["2S", "3S", "4S"]]}
    result = score(knocker, defender, rules="standard", up=None, melds=laid)
    assert result.layoffs == []  # 9♣ 9♥ cannot reach 5-6-7 without the 8s
    assert result.deadwood["B"] == 9 + 9 + 10 + 4


hand_pairs = st.lists(st.sampled_from(DECK), min_size=20, max_size=20, unique=True)


@settings(max_examples=examples(60), deadline=None)
@given(hand_pairs, st.randoms(use_true_random=False))
def test_properties_of_scored_hands(cards, rnd):
    """Points never negative; winner is a player; gin takes no layoffs; layoffs never raise the
    defender's count; the knocker's spread scores at least what the least-deadwood spread
    scores (issue 14 item 2); card order and player names do not matter."""
    a, b = cards[:10], cards[10:]
    rules = {"preset": "standard", "knock_limit": 100}  # any hand may knock: test the scoring
    result = score_hand(rules, up_card=None, knocker="A", hands={"A": a, "B": b})
    assert result.points >= 0 and result.winner in {"A", "B", None}
    assert result.deadwood["A"] >= best_melds(a).deadwood
    least = best_melds(a).arrangements[0]
    plain = score_hand(rules, up_card=None, knocker="A", hands={"A": a, "B": b},
                       melds={"A": [[c.code for c in m] for m in least]})

    def net(r):
        return 0 if r.winner is None else r.points if r.winner == "A" else -r.points

    assert net(result) >= net(plain)
    assert result.deadwood["B"] <= best_melds(b).deadwood
    if result.outcome == "gin":
        assert result.layoffs == [] and result.deadwood["B"] == best_melds(b).deadwood
    rnd.shuffle(a)
    rnd.shuffle(b)
    again = score_hand(rules, up_card=None, knocker="X", hands={"Y": b, "X": a})
    assert (again.outcome, again.points) == (result.outcome, result.points)
    assert again.deadwood == {"X": result.deadwood["A"], "Y": result.deadwood["B"]}


def test_invalid_defender_melds_are_bad_input_not_an_improper_knock():
    with pytest.raises(InputError) as info:
        score(melds={"B": [["4S", "5S", "KS"]]})
    assert info.value.code == "invalid_meld" and "defender" in info.value.message


def test_big_gin_is_not_penalised_for_its_eleventh_card():
    """Issue 14: a legal big gin printed "penalties": {"A": {"extra_cards": 1}}. Big gin is
    eleven cards that all meld (seed rule descriptions: big gin), so no card is extra."""
    result = score_hand(
        "standard",
        hands={
            "A": ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"],
            "B": ["4S", "5S", "6S", "KS", "KD", "KH", "4C", "5C", "TD", "QD"],
        },
        knocker="A",
        up_card="8S",
    )
    assert result.outcome == "big_gin"
    assert result.to_json()["penalties"] == {}


def test_an_extra_card_counts_even_when_the_defenders_melds_are_given():
    """Issue 14 item 1, seed 000 rule 8: the extra card counts at face value either way. B
    holds 11 cards; giving B's melds must not hide the extra card (it gave an undercut by B
    for 27; without melds it is A's knock for 1)."""
    hands = {
        "A": ["4H", "5H", "6H", "7S", "7D", "7C", "9C", "TC", "JC", "2D"],
        "B": ["3H", "7H", "8H", "8C", "QS", "QD", "QH", "QC", "KS", "KD", "KH"],
    }
    given = score_hand(
        "tournament", up_card="JD", knocker="A", hands=hands,
        melds={"B": [["QS", "QD", "QH", "QC"], ["KS", "KD", "KH"]]},
    )  # fmt: skip
    free = score_hand("tournament", up_card="JD", knocker="A", hands=hands)
    assert (given.outcome, given.winner, given.points) == ("knock", "A", 1)
    assert (free.outcome, free.winner, free.points) == ("knock", "A", 1)
    assert given.to_json()["penalties"] == {"B": {"extra_cards": 1}}


# Issue 35 item 6 (the demo hand): Ann knocks with 1; Ben holds three eights and the fourth,
# 8H, which he may meld as a set of four or lay off onto Ann's 5-6-7H: the same count.
DEMO_A = ["5H", "6H", "7H", "6C", "6D", "6S", "9S", "TS", "JS", "AC"]
DEMO_B = ["8C", "8D", "8S", "2H", "3H", "4H", "KD", "TD", "3C", "8H"]


def test_a_card_seen_laid_off_is_reported_as_a_layoff_at_the_same_count():
    """``laid_off`` (a camera's reading) only chooses among the defender's answers of one
    count: the seen layoff rather than a set of four, never a different score."""
    melded = score(DEMO_A, DEMO_B, up="4C")
    assert melded.layoffs == [] and ["8S", "8H", "8D", "8C"] in [
        [c.code for c in m] for m in melded.melds["B"]]
    seen = score(DEMO_A, DEMO_B, up="4C", laid_off={"B": ["8H"]})
    assert [(lay.card.code, [c.code for c in lay.onto]) for lay in seen.layoffs] == [
        ("8H", ["5H", "6H", "7H"])]
    assert (seen.points, seen.deadwood) == (melded.points, melded.deadwood) == (22, {"A": 1,
                                                                                  "B": 23})
    # a card seen laid off that would cost the defender points is not laid off
    kept = score(DEMO_A, swap(DEMO_B, "8H", "4D"), up="4C", laid_off={"B": ["4H"]})
    assert kept.deadwood["B"] == score(DEMO_A, swap(DEMO_B, "8H", "4D"), up="4C").deadwood["B"]
    with pytest.raises(InputError, match="not in the hand: 9D"):
        score(DEMO_A, DEMO_B, up="4C", laid_off={"B": ["9D"]})


def test_the_result_names_its_bonus():
    """The points are the counts' difference plus ``bonus`` (gin, big gin, undercut)."""
    assert score().bonus == 0
    gin = score(["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "QC"])
    assert (gin.outcome, gin.bonus, gin.points) == ("gin", 25, 25 + gin.deadwood["B"])
    assert gin.to_json()["bonus"] == 25
