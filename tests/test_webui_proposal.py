"""The types that cross into a table's records (issue 16 item 4): Proposal, Problem, Doubt,
Phase, Outcome; the stored JSON stays as it was."""

from __future__ import annotations

import pytest

from webui.store import commands
from webui.store.proposal import (
    Doubt,
    Kind,
    Outcome,
    Phase,
    Problem,
    Proposal,
    reader_cards,
    swaps,
)
from webui.store.state import HandState

READER_NOTES = [
    ("doubtful_card: 8D may be 8H (player B)", "doubtful_card", "B", ("8D", "8H")),
    ("wrong_card_count: player B has 9 cards, expected 10", "wrong_card_count", "B", ()),
    ("uncertain_card: QS in A's area is seen in only 40% of recent frames", "uncertain_card",
     "A", ("QS",)),
    ("duplicate_card: 7C is in both A's and B's spread", "duplicate_card", None, ("7C",)),
    ("up_card_unknown: the deal was not seen; enter the knock card", "up_card_unknown", None,
     ()),
    ("up_card_unclear: 2 cards in the up-card slot (9H TD)", "up_card_unclear", None,
     ("9H", "TD")),
    ("layoff_not_on_meld: 5S lies apart from A's melds", "layoff_not_on_meld", None, ("5S",)),
]


@pytest.mark.parametrize(("text", "code", "player", "cards"), READER_NOTES)
def test_a_reader_note_is_parsed_once_and_stored_as_it_came(text, code, player, cards):
    problem = Problem.parse(text)
    assert (problem.code, problem.player, problem.cards) == (code, player, cards)
    assert problem.to_json() == text


def test_problem_fields_the_sentences_need():
    doubt = Problem.parse("doubtful_card: 8D may be 8H (player B)")
    assert doubt.card == "8D" and doubt.alternative == "8H"
    count = Problem.parse("wrong_card_count: player A has 11 cards, expected 10")
    assert (count.count, count.expected) == (11, "10")
    assert Problem.parse("uncertain_card: QS in A's area is seen in only 40% of recent "
                         "frames").share == "40%"


def test_reader_cards_go_through_the_engines_parser():
    assert reader_cards(["10D", "td", "AS"]) == ["TD", "TD", "AS"]
    assert reader_cards(["??"]) == ["??"]  # kept: scoring names it


CAMERA_JSON = {
    "kind": "score", "knocker": "A",
    "cards": {"A": ["2C", "3C", "4C", "5S"], "B": ["8D", "9S"]},
    "melds": {"A": [["2C", "3C", "4C"]]},
    "problems": ["doubtful_card: 8D may be 8H (player B)"], "confidence": 0.812,
    "arranged_by_engine": True, "snapshot": "read-1.jpg",
    "doubts": [{"player": "B", "card": "8D", "alternative": "8H"}],
}


@pytest.mark.parametrize("stored", [
    CAMERA_JSON,
    {"kind": "score", "knocker": "B", "cards": {"A": ["2C"], "B": ["3C"]},
     "improper_accepted": True, "melds": {"B": []}},
    {"kind": "dead"},
    {"kind": "manual", "result": {"winner": "A", "points": 12, "outcome": "manual",
                                  "note": "x"}},
])
def test_a_stored_proposal_reads_and_writes_the_same_json(stored):
    assert Proposal.from_json(stored).to_json() == stored


def test_a_request_becomes_the_proposal_it_always_was():
    body = {"kind": "score", "knocker": "A", "cards": {"A": "5s 10d", "B": ["8D"]},
            "melds": {"A": "2c 3c 4c"}, "improper_accepted": "1"}
    proposal = commands.parse_proposal(body)
    assert proposal.kind is Kind.SCORE
    assert proposal.to_json() == {"kind": "score", "knocker": "A",
                                  "cards": {"A": ["2C", "3C", "4C", "5S", "TD"], "B": ["8D"]},
                                  "improper_accepted": True,
                                  "melds": {"A": [["2C", "3C", "4C"]]}}
    manual = commands.parse_proposal({"kind": "manual", "winner": "B", "points": "7"})
    assert manual.to_json() == {"kind": "manual", "result": {
        "winner": "B", "points": 7, "outcome": "manual", "note": ""}}
    assert commands.parse_proposal({"kind": "dead"}).to_json() == {"kind": "dead"}


def test_the_one_tap_swap_is_computed_not_spliced_in_a_template():
    (swap,) = swaps(CAMERA_JSON)
    assert swap.doubt == Doubt("B", "8D", "8H")
    assert swap.fields == {"melds_A": "2C 3C 4C", "cards_A": "5S", "melds_B": "",
                           "cards_B": "8H 9S"}
    assert swaps({**CAMERA_JSON, "kind": "dead"}) == [] and swaps(None) == []


def test_a_hands_phase():
    hand = HandState(game=1, number=1, dealer="A")
    assert hand.phase is Phase.DEALING
    hand.up_card = "9H"
    assert hand.phase is Phase.PLAYING
    hand.proposal = {"kind": "score", "error": {"code": "card_count", "message": "?"}}
    assert hand.phase is Phase.UNPLAYABLE
    hand.proposal = {"kind": "dead"}
    assert hand.phase is Phase.PROPOSED
    hand.director_confirmed = True
    assert hand.phase is Phase.CONFIRMED


def test_outcomes():
    assert Outcome.of("big_gin") is Outcome.BIG_GIN and Outcome.of(None) is None
    assert Outcome.of("undercut") == "undercut"
