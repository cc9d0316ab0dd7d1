"""Score sheets: totals, boxes, bonuses, shutout, dead hands, dealing, matches, Hollywood.

Seeds: 000 (GRA: rule 2 cut for deal each game, rule 6 fiftieth card, partnership rules),
002 (Box, Game Score, No Game), 003 (Hollywood gin, Line bonus, best of five), 004 (Deal,
Tie, Tournament and Family scoring).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scorer_helpers import examples

from scorer import InputError, hand_winner, next_dealer, score_hand, score_sheet, sheet_hand
from scorer.errors import CardError
from scorer.sheet import team_hand


def win(player, points):
    return {"winner": player, "points": points}


def test_running_totals_and_boxes():
    """002 Box: "A running total is kept of each player's score. When a player wins a hand, a
    horizontal line called a box is drawn under his score"."""
    sheet = score_sheet("tournament", [win("A", 20), win("B", 35), win("A", 5)]).to_json()
    assert [h["totals"] for h in sheet["hands"]] == [
        {"A": 20, "B": 0},
        {"A": 20, "B": 35},
        {"A": 25, "B": 35},
    ]
    assert sheet["hands"][-1]["boxes"] == {"A": 2, "B": 1}
    assert sheet["winner"] is None and sheet["finals"] is None
    assert sheet["games"][0]["complete"] is False


def test_game_bonus_and_boxes_for_both_players():
    """002 Game Score: first to the target "has 100 points added"; 004: "give both players 25
    points for each hand they won"; 003 [4]: tournament games are 250 points."""
    sheet = score_sheet("tournament", [win("A", 150), win("B", 30), win("A", 120)]).to_json()
    game = sheet["games"][0]
    assert game["winner"] == "A" and sheet["winner"] == "A"
    assert game["bonuses"] == {
        "A": {"game": 100, "shutout": 0, "boxes": 50},
        "B": {"game": 0, "shutout": 0, "boxes": 25},
    }
    assert sheet["finals"] == {"A": 270 + 100 + 50, "B": 30 + 25}
    assert game["margin"] == 420 - 55


def test_shutout_doubles_score_with_game_bonus_then_adds_boxes():
    """002: "If his opponent has failed to win a hand, the winner then doubles his score
    (including the 100 point bonus). Finally, for every hand ... an additional 25-point bonus"."""
    sheet = score_sheet("tournament", [win("A", 100), win("A", 100), win("A", 60)]).to_json()
    assert sheet["finals"] == {"A": (260 + 100) * 2 + 3 * 25, "B": 0}
    assert sheet["games"][0]["bonuses"]["A"]["shutout"] == 360


def test_shutout_in_seed_003_order_doubles_hand_points_only():
    """Issue 14 item 5. 003 "Shutout Bonus": "the points for each hand are doubled before
    adding the line bonus"; 003 "Game Bonus" 100 is not doubled. A wins 100 + 100 + 60 = 260
    without B winning a hand: 260 x 2 + 100 + 3 boxes of 25 = 695 (002's order gives 795)."""
    rules = {"preset": "tournament", "shutout": "hand_points"}
    sheet = score_sheet(rules, [win("A", 100), win("A", 100), win("A", 60)]).to_json()
    assert sheet["finals"] == {"A": 260 * 2 + 100 + 3 * 25, "B": 0}
    assert sheet["games"][0]["bonuses"]["A"] == {"game": 100, "shutout": 260, "boxes": 75}


def test_no_shutout_bonus_once_the_loser_has_won_a_hand_in_either_order():
    """002 and 003 both require that the loser won no hand."""
    for order in ("score_and_game_bonus", "hand_points"):
        hands = [win("B", 10), win("A", 200), win("A", 60)]
        sheet = score_sheet({"preset": "tournament", "shutout": order}, hands).to_json()
        assert sheet["games"][0]["bonuses"]["A"]["shutout"] == 0


def test_family_scoring_has_no_bonuses():
    """004 Family: "When a player's score reaches 100 or higher, they have won"."""
    sheet = score_sheet("family", [win("A", 60), win("A", 45)]).to_json()
    assert sheet["winner"] == "A" and sheet["finals"] == {"A": 105, "B": 0}


def test_partnership_has_no_box_or_shutout_bonus():
    """000 partnership rule 9: "No bonus for boxes, blitzes, or spades"; rule 1: 250 points."""
    sheet = score_sheet("partnership", [win("A", 200), win("A", 60)]).to_json()
    assert sheet["finals"] == {"A": 260 + 100, "B": 0}


def test_dead_hand_scores_nothing_and_the_same_dealer_deals():
    """000 rule 6 (fiftieth card), 002 No Game: "no points are scored. The same dealer deals
    for the next hand"; 004 Tie: "The dealer of that hand deals again"."""
    sheet = score_sheet(
        "tournament", [win("A", 10), {"dead": True}, win("B", 5)], dealer="B"
    ).to_json()
    assert sheet["hands"][1]["dead"] is True
    assert sheet["hands"][1]["totals"] == {"A": 10, "B": 0}
    assert sheet["hands"][1]["boxes"] == {"A": 1, "B": 0}
    assert [h["dealer"] for h in sheet["hands"]] == ["B", "A", "A"]
    assert sheet["next_dealer"] == "B"


@pytest.mark.parametrize(
    ("preset", "expected"),
    [("tournament", "A"), ("family", "A"), ("standard", "A"), ("partnership", "B")],
)
def test_who_deals_next(preset, expected):
    """004: "Remaining deals by the winner of the previous hand"; 003: "Dealership alternates";
    000 partnership rule 8: "The team that lost the points deals the next hand". B dealt, A won:
    winner deals -> A, alternate -> A, loser deals -> B."""
    assert next_dealer(preset, "B", "A") == expected
    assert next_dealer(preset, "B", None) == "B"


def test_alternate_dealing_ignores_the_winner():
    assert next_dealer("standard", "A", "A") == "B"
    assert next_dealer("tournament", "A", "A") == "A"
    assert next_dealer("partnership", "X", "X", players=("X", "Y")) == "Y"


def test_new_game_starts_with_a_cut_and_a_match_is_best_of_five():
    """000 rule 2: "CUT FOR DEAL each new game"; 003: "best of five with 250 points per game"."""
    hands = [win("A", 250), win("B", 250), win("A", 250), win("A", 250)]
    sheet = score_sheet("tournament", hands, dealer="A").to_json()
    assert [g["winner"] for g in sheet["games"]] == ["A", "B", "A", "A"]
    assert sheet["match"] == {
        "games": 5,
        "games_won": {"A": 3, "B": 1},
        "complete": True,
        "winner": "A",
    }
    assert sheet["next_dealer"] is None  # cut for the next game


def test_partnership_series_stops_after_two_losses():
    """000 partnership rule 1: "Five (5) 250 point games. Must stop if you lose 2 games"."""
    hands = [win("A", 250), win("B", 250), win("B", 250)]
    match = score_sheet("partnership", hands).match()
    assert match.complete and match.games_won == {"A": 1, "B": 2}


def test_hollywood_three_games_at_once():
    """003 Hollywood: "A player's first win will be recorded in their column in Game One. A
    player's second win ... in both Game One and Game Two. Their third win ... all three"."""
    rules = {"preset": "standard", "hollywood": True}
    hands = [win("A", 20), win("B", 10), win("A", 30), win("A", 5), win("B", 7)]
    sheet = score_sheet(rules, hands).to_json()
    g1, g2, g3 = sheet["hollywood"]
    assert g1["totals"] == {"A": 55, "B": 17}
    assert g2["totals"] == {"A": 35, "B": 7}
    assert g3["totals"] == {"A": 5, "B": 0}
    assert [g["column"] for g in sheet["hollywood"]] == [1, 2, 3]


def test_hollywood_games_finish_separately_with_their_own_bonuses():
    """003: each game ends in the usual way; after a game has ended, scores go to the games
    still open; a player shut out of game 1 enters game 2 with his next win."""
    rules = {"preset": "standard", "hollywood": True}
    hands = [win("A", 60), win("A", 50), win("B", 30), win("A", 70)]
    sheet = score_sheet(rules, hands).to_json()
    g1, g2, g3 = sheet["hollywood"]
    assert g1["complete"] and g1["winner"] == "A"  # 110 after hand 2
    assert g1["hands"] == [1, 2]  # hands 3 and 4 go to the games still open
    assert g1["finals"]["A"] == (110 + 100) * 2 + 2 * 25  # B never won in game 1: shutout
    assert g2["totals"] == {"A": 120, "B": 30} and g2["complete"]
    assert g2["finals"] == {"A": 120 + 100 + 2 * 25, "B": 30 + 25}
    assert g3["totals"] == {"A": 70, "B": 0} and not g3["complete"]
    assert sheet["hands"][2]["games"][0]["game"] == 2


def test_team_hand_nets_the_boards():
    """000 partnership: each hand is a pair of boards; "the team that lost the points"."""
    knocker = ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "8D"]
    defender = ["4S", "5S", "6S", "KS", "KD", "KH", "2C", "3C", "4C", "TD"]
    board1 = score_hand(
        "partnership", up_card="8S", knocker="A1", hands={"A1": knocker, "B1": defender}
    )  # A1 +2
    board2 = score_hand(
        "partnership", up_card="8S", knocker="B2", hands={"B2": knocker, "A2": defender}
    )  # B2 +2
    teams = {"A1": "A", "A2": "A", "B1": "B", "B2": "B"}
    assert team_hand([board1, board2], teams) == {"dead": True}
    gin = ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "QC"]
    board2 = score_hand(
        "partnership", up_card="8S", knocker="B2", hands={"B2": gin, "A2": defender}
    )  # B2 +10+25
    assert team_hand([board1, board2], teams) == {"winner": "B", "points": 35 - 2}


@pytest.mark.parametrize(
    ("hands", "fragment"),
    [
        (
            [
                {"winner": "C", "points": 5},
                {"winner": "A", "points": 5},
                {"winner": "B", "points": 1},
            ],
            "players",
        ),
        ([{"winner": "A", "points": -5}], "points"),
        ([{"winner": "A", "points": "5"}], "points"),
        ([{"winer": "A", "points": 5}], "winer"),
        ([{"points": 5}], "without a winner"),
        (["A"], "hands[0]"),
        ([{"dead": True, "winner": "A"}], "dead"),
    ],
)
def test_bad_sheets_are_rejected_with_the_field_named(hands, fragment):
    with pytest.raises(InputError) as info:
        score_sheet("tournament", hands)
    assert fragment in info.value.message


def test_player_names_from_winners_or_given():
    sheet = score_sheet("family", [win("Lily", 30), win("John", 10)]).to_json()
    assert sheet["players"] == ["Lily", "John"]
    sheet = score_sheet("family", [win("Lily", 30)], players=["Lily", "John"]).to_json()
    assert sheet["hands"][0]["totals"] == {"Lily": 30, "John": 0}


def test_sheet_accepts_hand_results():
    """A scored hand's JSON can go straight onto the sheet."""
    knocker = ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "8D"]
    defender = ["4S", "5S", "6S", "KS", "KD", "KH", "2C", "3C", "4C", "TD"]
    result = score_hand(
        "tournament", up_card="8S", knocker="A", hands={"A": knocker, "B": defender}
    )
    sheet = score_sheet("tournament", [result.to_json(), result.to_json()]).to_json()
    assert sheet["hands"][-1]["totals"] == {"A": 4, "B": 0}


sheet_hands = st.lists(
    st.one_of(
        st.builds(win, st.sampled_from(["A", "B"]), st.integers(0, 120)),
        st.just({"dead": True}),
    ),
    max_size=30,
)


@settings(max_examples=examples(80), deadline=None)
@given(
    sheet_hands, st.sampled_from(["tournament", "family", "standard", "partnership"]), st.booleans()
)
def test_sheet_invariants(hands, preset, hollywood):
    """Every point won is in the game(s) it belongs to; finished games end at the target and
    their finals are totals plus bonuses; an unfinished game is the last one (002, 003, 004)."""
    rules = {"preset": preset, "hollywood": hollywood}
    sheet = score_sheet(rules, hands).to_json()
    target = {"tournament": 250, "partnership": 250}.get(preset, 100)
    for game in sheet["games"]:
        scored = [hands[n - 1] for n in game["hands"]]
        for player in ("A", "B"):
            mine = [h for h in scored if h["winner"] == player]
            assert game["totals"][player] == sum(h["points"] for h in mine)
            assert game["boxes"][player] == len(mine)
        if game["complete"]:
            winner = game["winner"]
            assert game["totals"][winner] >= target
            before_last = game["totals"][winner] - hands[game["hands"][-1] - 1]["points"]
            assert before_last < target or hands[game["hands"][-1] - 1]["winner"] != winner
            for player in ("A", "B"):
                bonus = sum(game["bonuses"][player].values())
                assert game["finals"][player] == game["totals"][player] + bonus
    if not hollywood:
        assert all(g["complete"] for g in sheet["games"][:-1])
        won = sum(h["points"] for h in hands if not h.get("dead"))
        assert sum(sum(g["totals"].values()) for g in sheet["games"]) == won


@pytest.mark.parametrize("hand", [{}, {"dead": False}, {"dead": False, "note": "?"}])
def test_a_hand_that_says_nothing_is_refused_not_scored_dead(hand):
    """Issue 14: {} or {"dead": false} was silently scored as a dead hand."""
    with pytest.raises(InputError) as info:
        score_sheet("tournament", [hand])
    assert 'must give "winner" and "points", or "dead": true' in info.value.message


def test_the_knock_card_goes_on_the_sheet():
    """Seed 000 rule 4: the knock card (the up card) is recorded on the score sheet."""
    sheet = score_sheet("tournament", [{"up_card": "7d", "winner": "A", "points": 12}])
    assert sheet.to_json()["hands"][0]["up_card"] == "7D"
    with pytest.raises(CardError):
        score_sheet("tournament", [{"up_card": "7X", "winner": "A", "points": 12}])


def test_a_hands_sheet_entry_and_winner_come_from_its_result():
    """A dead hand (no result) and a tie that scores nothing (no winner) go on the sheet as
    dead hands; otherwise the result's winner and points."""
    knock = score_hand(
        "family",
        up_card=None,
        knocker="A",
        hands={
            "A": ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "2D"],
            "B": ["4S", "5S", "6S", "KS", "KD", "KH", "2C", "3C", "4C", "TD"],
        },
    ).to_json()
    assert sheet_hand(knock) == {"winner": knock["winner"], "points": knock["points"]}
    assert hand_winner(knock) == knock["winner"] == "A"
    assert sheet_hand(None) == {"dead": True} and hand_winner(None) is None
    assert sheet_hand({"winner": None, "points": 0}) == {"dead": True}
    manual = {"winner": "B", "points": 40, "outcome": "manual", "note": "by hand"}
    assert sheet_hand(manual) == {"winner": "B", "points": 40} and hand_winner(manual) == "B"


def test_the_set_winner_of_hollywood_waits_for_all_three_games():
    rules = {"preset": "standard", "hollywood": True}
    running = score_sheet(rules, [win("A", 60), win("A", 50)])
    assert running.games[0].winner == "A" and running.set_winner is None
    done = score_sheet(rules, [win("A", 110), win("B", 100), win("A", 110)])
    assert [g.winner for g in done.games] == ["A", "B", "A"]
    assert done.set_winner == "A"
    single = score_sheet("standard", [win("B", 100)])
    assert single.set_winner == single.winner == "B"
    assert score_sheet("standard", []).set_winner is None
