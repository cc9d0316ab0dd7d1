"""The types that cross into a table's records (issue 16 item 4): Proposal, Problem, Doubt,
Phase, Outcome; the stored JSON stays as it was."""

from __future__ import annotations

import pytest

from scorer import Card, Outcome, parse_card, parse_cards
from vision.table.notes import NoteKind, Problem, problems_from_json
from webui.common.proposal_form import parse_proposal
from webui.store.proposal import (
    Doubt,
    Kind,
    Phase,
    Proposal,
)
from webui.store.record import RecordedProposal, swaps
from webui.store.state import HandState

CAMERA_JSON = {
    "kind": "score", "knocker": "A",
    "cards": {"A": ["2C", "3C", "4C", "5S"], "B": ["8D", "9S"]},
    "melds": {"A": [["2C", "3C", "4C"]]},
    "problems": [{"kind": "doubtful_card", "player": "B", "cards": ["8D"],
                  "alternative": "8H"}],
    "confidence": 0.812, "arranged_by_engine": True, "snapshot": "read-1.jpg",
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
    proposal = parse_proposal(body)
    assert proposal.kind is Kind.SCORE
    assert proposal.to_json() == {"kind": "score", "knocker": "A",
                                  "cards": {"A": ["2C", "3C", "4C", "5S", "TD"], "B": ["8D"]},
                                  "improper_accepted": True,
                                  "melds": {"A": [["2C", "3C", "4C"]]}}
    manual = parse_proposal({"kind": "manual", "winner": "B", "points": "7"})
    assert manual.to_json() == {"kind": "manual", "result": {
        "winner": "B", "points": 7, "outcome": "manual", "note": ""}}
    assert parse_proposal({"kind": "dead"}).to_json() == {"kind": "dead"}


def test_the_one_tap_swap_is_computed_not_spliced_in_a_template():
    (swap,) = swaps(RecordedProposal.from_json(CAMERA_JSON))
    assert swap.doubt == Doubt("B", parse_card("8D"), parse_card("8H"))
    assert swap.fields == {"melds_A": "2C 3C 4C", "cards_A": "5S", "melds_B": "",
                           "cards_B": "8H 9S"}
    assert swaps(RecordedProposal.from_json({**CAMERA_JSON, "kind": "dead"})) == []
    assert swaps(None) == []


def test_the_doubts_are_the_cameras_doubtful_card_notes_still_in_the_hand():
    """One fact, one channel: the cards to swap are read from the notes, and a doubt whose
    card was corrected away, or whose alternative is already on the table, offers nothing."""
    doubt = Problem(NoteKind.DOUBTFUL_CARD, player="B", cards=(parse_card("8D"),),
                    alternative=parse_card("8H"))
    other = Problem(NoteKind.UNCERTAIN_CARD, player="A", cards=(parse_card("5S"),), share=0.4)
    proposal = Proposal.from_json({**CAMERA_JSON, "problems": [doubt.to_json(),
                                                               other.to_json()]})
    assert proposal.problems == (doubt, other)
    assert proposal.doubts == (Doubt("B", parse_card("8D"), parse_card("8H")),)
    on_table = {**CAMERA_JSON, "cards": {"A": ["2C", "3C", "4C", "8H"], "B": ["8D", "9S"]}}
    assert Proposal.from_json(on_table).doubts == ()
    corrected = {**CAMERA_JSON, "cards": {"A": ["2C", "3C", "4C", "5S"], "B": ["8C", "9S"]}}
    assert Proposal.from_json(corrected).doubts == ()


def test_a_doubt_carries_the_readers_cards_to_the_proposal_and_codes_only_to_the_log():
    """The reader names a doubtful card as the engine's ``Card`` where it knows the fact; the
    proposal's doubt is that very card (no code read back in between), and only the stored
    JSON holds codes, read back into equal cards."""
    from vision.inference.detection import Detection
    from vision.table.reader import read_detections

    read = read_detections([Detection("7S", (10, 10, 30, 60), 0.8, alternative="7C"),
                            Detection("8S", (40, 10, 60, 60), 0.9)])
    (note,) = [p for p in read.problems if p.kind is NoteKind.DOUBTFUL_CARD]
    assert isinstance(note.card, Card) and isinstance(note.alternative, Card)
    proposal = Proposal(Kind.SCORE, knocker="table",
                        cards={"table": parse_cards(["7S", "8S"])}, problems=(note,))
    (doubt,) = proposal.doubts
    assert doubt.card is note.card and doubt.alternative is note.alternative
    stored = proposal.to_json()["problems"]
    assert stored == [{"kind": "doubtful_card", "player": "table", "cards": ["7S"],
                       "alternative": "7C"}]
    assert Proposal.from_json(proposal.to_json()).doubts == (doubt,)


def test_a_stored_note_naming_no_card_is_refused_clearly_and_the_others_kept():
    bad = {"kind": "doubtful_card", "player": "B", "cards": ["8D"], "alternative": "8Z"}
    with pytest.raises(ValueError, match="names no card"):
        Problem.from_json(bad)
    kept = {"kind": "uncertain_card", "player": "A", "cards": ["5S"], "share": 0.4}
    assert problems_from_json([bad, kept]) == (
        Problem(NoteKind.UNCERTAIN_CARD, player="A", cards=(parse_card("5S"),), share=0.4),)


def test_an_old_database_with_notes_as_text_still_offers_the_swap():
    old = {**CAMERA_JSON, "problems": ["doubtful_card: 8D may be 8H (player B)"],
           "doubts": [{"player": "B", "card": "8D", "alternative": "8H"}]}
    (swap,) = swaps(RecordedProposal.from_json(old))
    assert swap.doubt == Doubt("B", parse_card("8D"), parse_card("8H"))


def test_a_hands_phase():
    hand = HandState(game=1, number=1, dealer="A")
    assert hand.phase is Phase.DEALING
    hand.up_card = parse_card("9H")
    assert hand.phase is Phase.PLAYING
    hand.proposal = RecordedProposal.from_json(
        {"kind": "score", "error": {"code": "card_count", "message": "?"}})
    assert hand.phase is Phase.UNPLAYABLE
    hand.proposal = RecordedProposal(Proposal(Kind.DEAD))
    assert hand.phase is Phase.PROPOSED
    hand.director_confirmed = True
    assert hand.phase is Phase.CONFIRMED


def test_outcomes():
    assert Outcome.of("big_gin") is Outcome.BIG_GIN and Outcome.of(None) is None
    assert Outcome.of("undercut") == "undercut"


SHEET_KEYS = ("kind", "knocker", "cards", "melds", "result", "improper_accepted")


@pytest.mark.parametrize("stored", [
    {**CAMERA_JSON, "result": {"winner": "A", "points": 9, "outcome": "knock"},
     "source": "camera", "changes": ["Ann scores 9 (was 7)"]},
    {**CAMERA_JSON, "problems": ["doubtful_card: 8D may be 8H (player B)"],
     "doubts": [{"player": "B", "card": "8D", "alternative": "8H"}], "source": "camera",
     "result": None, "question": "which is missing?",
     "error": {"code": "card_count", "message": "which is missing?"}},
    {"kind": "manual", "result": {"winner": "B", "points": 12, "outcome": "manual",
                                  "note": ""}, "source": "manual"},
    {"kind": "dead", "source": "director"},
])
def test_what_a_signature_covers_reads_back_unchanged(stored):
    """A signature's sheet hash covers these fields of each confirmed hand: the typed record
    must write them back exactly as events (old ones too) hold them."""
    again = RecordedProposal.from_json(stored).to_json()
    assert {k: again.get(k) for k in SHEET_KEYS} == {k: stored.get(k) for k in SHEET_KEYS}
    assert RecordedProposal.from_json(again) == RecordedProposal.from_json(stored)


def test_a_proposal_holds_the_engines_cards_from_a_form_and_from_the_log():
    """Codes are parsed once, at the HTTP edge or where the log is read back; the proposal
    and the engine's door hold the engine's ``Card`` (a "10d" typed on a tablet is TD)."""
    typed = parse_proposal({"knocker": "A", "melds": {"A": "8c 9c 10c"},
                            "cards": {"A": "KS", "B": "2H"}, "laid_off": {"B": "2H"}})
    assert typed.cards == {"A": [parse_card(c) for c in ("8C", "9C", "TC", "KS")],
                           "B": [parse_card("2H")]}
    assert typed.melds == {"A": [[parse_card("8C"), parse_card("9C"), parse_card("TC")]]}
    assert typed.laid_off == {"B": [parse_card("2H")]}
    assert typed.to_json()["cards"]["A"] == ["8C", "9C", "TC", "KS"]  # codes only in the JSON
    stored = Proposal.from_json(CAMERA_JSON)
    assert all(isinstance(c, type(parse_card("2C"))) for hand in stored.cards.values()
               for c in hand)
    assert stored.melds == {"A": [[parse_card("2C"), parse_card("3C"), parse_card("4C")]]}
