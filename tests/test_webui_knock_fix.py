"""Issue 35 item 1: a knock card the players corrected keeps the camera for that hand.

The camera read the up card as 4C; the players corrected it to 4S. The camera's later readings
of the same deal still carry its own 4C: they are this hand's readings (the proposal is scored
with the players' 4S), not a later deal's. A deal of another card is still a new hand.
The camera's events are the reader's own types, handed to the feed as the camera thread does.
"""

from __future__ import annotations

from reader_helpers import spread_of
from webui_helpers import Tablet, make_app

from scorer import parse_card
from vision.table.events import HandDealt, TableRead
from webui.table.camera_feed import TableCamera

# Ann knocks with 1 (AD) over Ben's 23 (KD QD 3D); Ben lays 8H off onto Ann's 5H 6H 7H:
# Ann scores 23 - 1 = 22 (no 4 anywhere in the hands: the knock card is a 4)
ANN_MELDS = [["5H", "6H", "7H"], ["9S", "9D", "9C"], ["JC", "QC", "KC"]]
ANN_LOOSE = ["AD"]
BEN_MELDS = [["2S", "2D", "2H"], ["TS", "TD", "TH"]]
BEN_LOOSE = ["KD", "QD", "3D"]
BEN_LAYOFFS = ["8H"]


def spreads_read(up_card: str) -> TableRead:
    """The camera's reading of both spreads at the end of the hand dealt with ``up_card``."""
    spreads = {"A": spread_of("A", ANN_MELDS, ANN_LOOSE, 0.95),
               "B": spread_of("B", BEN_MELDS, BEN_LOOSE, 0.95, layoffs=BEN_LAYOFFS)}
    return TableRead(up_card=parse_card(up_card), spreads=spreads, problems=[], confidence=0.95,
                     knocker="A")


def camera_of(app, tmp_path, table_id: int = 1) -> TableCamera:
    """A table's camera, its thread not started: the test hands it the reader's events."""
    return TableCamera(app.extensions["gintray"].store, table_id, "replay:none", tmp_path,
                       app.extensions["gintray"].notifier.publish)


def test_the_camera_proposes_after_the_players_fix_its_misread_knock_card(tmp_path):
    app = make_app(tmp_path)
    camera, tablet = camera_of(app, tmp_path), Tablet(app)
    camera.handle(HandDealt(up_card=parse_card("4C"), confidence=0.9))
    assert tablet.hand()["up_card"] == "4C"
    assert tablet.knock_card("4S").status_code == 200  # the players' fix
    camera.handle(spreads_read("4C"))  # the camera still sees its own 4C in its reading
    hand = tablet.hand()
    proposal = hand["proposal"]
    assert proposal is not None, "the camera's reading was dropped after the fix"
    assert hand["up_card"] == "4S" and hand["up_source"] == "manual"  # the fix stands
    assert proposal["source"] == "camera" and "error" not in proposal
    result = proposal["result"]
    assert (result["winner"], result["points"], result["knock_limit"]) == ("A", 22, 4)
    assert result["layoffs"] == [{"card": "8H", "onto": ["5H", "6H", "7H"]}]
    panel = tablet.tablets["A"].client.get("/t/1/panel").get_data(as_text=True)
    assert "proposed by the camera" in panel


def test_the_proposal_is_scored_with_the_corrected_knock_card(tmp_path):
    """The camera read a 9 as a 3: Ann's knock with 5 would be improper against a 3; against
    the real 9 it scores. The camera's re-seen deal (its own 3H again) is no new hand."""
    app = make_app(tmp_path)
    camera, tablet = camera_of(app, tmp_path), Tablet(app)
    camera.handle(HandDealt(up_card=parse_card("3H"), confidence=0.9))
    assert tablet.knock_card("9C").status_code == 200
    camera.handle(HandDealt(up_card=parse_card("3H"), confidence=0.9))  # the deal seen again
    spreads = {"A": spread_of("A", [["2C", "3C", "4C"], ["7H", "7S", "7D"],
                                     ["9D", "TD", "JD"]], ["5S"], 0.95),
               "B": spread_of("B", [["KS", "KH", "KC"], ["4H", "5H", "6H"]],
                               ["QS", "2D"], 0.95, layoffs=["8D", "QD"])}
    camera.handle(TableRead(up_card=parse_card("3H"), spreads=spreads, problems=[], confidence=0.95,
                            knocker="A"))
    hand = tablet.hand()
    assert hand["up_card"] == "9C"
    proposal = hand["proposal"]
    assert proposal is not None and "error" not in proposal, proposal
    assert proposal["result"]["knock_limit"] == 9
    assert (proposal["result"]["winner"], proposal["result"]["points"]) == ("A", 7)


def test_a_new_deal_is_still_a_new_hand_after_a_fixed_knock_card(tmp_path):
    """A deal of another card while the fixed hand is unconfirmed is a later hand: its
    readings never score the hand being played."""
    app = make_app(tmp_path)
    camera, tablet = camera_of(app, tmp_path), Tablet(app)
    camera.handle(HandDealt(up_card=parse_card("4C"), confidence=0.9))
    assert tablet.knock_card("4S").status_code == 200
    # the next deal, hand 1 unconfirmed
    camera.handle(HandDealt(up_card=parse_card("JS"), confidence=0.9))
    camera.handle(spreads_read("JS"))
    camera.handle(spreads_read("4C"))  # an old reading of hand 1 waits with the later deal too
    hand = tablet.hand()
    assert hand["number"] == 1 and hand["up_card"] == "4S" and hand["proposal"] is None
    # a reading of a deal the camera never recorded for this hand is not this hand's either
    camera2 = camera_of(app, tmp_path)
    camera2.handle(spreads_read("JS"))
    assert tablet.hand()["proposal"] is None


def test_a_short_hands_answers_leave_out_the_corrected_knock_card(tmp_path):
    """Ben's spread is read a card short: the one-tap answers offer the cards that would meld
    with his, never the knock card lying face up: the players' 4S, not the camera's 4C."""
    from vision.table.notes import NoteKind, Problem

    app = make_app(tmp_path)
    camera, tablet = camera_of(app, tmp_path), Tablet(app)
    camera.handle(HandDealt(up_card=parse_card("4C"), confidence=0.9))
    assert tablet.knock_card("4S").status_code == 200
    short = Problem(NoteKind.WRONG_CARD_COUNT, player="B", count=9, expected=(10,))
    spreads = {"A": spread_of("A", ANN_MELDS, ANN_LOOSE, 0.95),
               "B": spread_of("B", BEN_MELDS, ["4H", "4D", "KD"], 0.95)}
    camera.handle(TableRead(up_card=parse_card("4C"), spreads=spreads, problems=[short],
                            confidence=0.95, knocker="A"))
    proposal = tablet.hand()["proposal"]
    assert proposal is not None and proposal.get("question")
    offered = {m["card"] for m in proposal["missing"] if m["player"] == "B"}
    assert "4C" in offered and "4S" not in offered, offered
