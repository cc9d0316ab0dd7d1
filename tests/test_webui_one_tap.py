"""Issue 29 item 2: one wrong card is fixed with one tap. The knock card and every card the
camera was unsure of offer the detector's runner-up reading as a swap; a card the camera
missed is a question whose likely answers (cards that would meld with those seen) are one tap
each. The taps themselves are counted in a browser in ``test_webui_browser_taps.py``."""

from __future__ import annotations

import re

from reader_helpers import fan, laid_card, stack
from webui_helpers import Tablet, make_app

from scorer import parse_card
from vision.inference.detection import Detection
from vision.table.deal import DealWatcher
from vision.table.grouping import SeenCard, cards_from_detections
from vision.table.layout import UP_CARD
from vision.table.spreads import Knock, read_spreads
from vision.table.voting import VoteResult
from webui.table.camera_feed import TableCamera

B_CARDS = ["2C", "4C", "6C", "8C", "QD", "6S", "TS", "9D", "JD", "QS"]


def _feed(tmp_path):
    app = make_app(tmp_path)
    feed = TableCamera(app.extensions["gintray"].store, 1, "replay:none", tmp_path,
                       app.extensions["gintray"].notifier.publish)
    return app, feed


def _form_fields(page: str, button_text: str) -> dict[str, str]:
    """The hidden fields of the form whose button says ``button_text``."""
    for form in re.findall(r"<form.*?</form>", page, flags=re.S):
        if button_text in form:
            return dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    raise AssertionError(f"no form with {button_text!r}")


def test_the_deal_carries_the_up_cards_runner_up_reading():
    watcher = DealWatcher(["A", "B"], window=5, stable_frames=3)
    nothing = VoteResult(cards=[], uncertain={}, duplicates=[], confidence=1.0, frames=5,
                         stable_for=5)
    empty = {"A": nothing, "B": nothing}
    regions = {UP_CARD: [], "A": [], "B": []}
    watcher.see_table(regions, empty)
    watcher.see_table(regions, empty)
    nine = SeenCard("9H", ((0, 0, 10, 20),), 0.6, (5, 10), alternative="9D")
    for index in range(3):
        watcher.see_slot([nine])
        dealt = watcher.watch(empty, index)
    assert dealt is not None and dealt.up_card.code == "9H" and dealt.alternative.code == "9D"
    assert dealt.to_json()["alternative"] == "9D"


def test_a_card_keeps_the_runner_up_of_whichever_corner_was_unsure():
    sure, unsure = laid_card("7S", 0, 0)
    cards, _ = cards_from_detections([Detection("7S", sure.box, 0.95),
                                      Detection("7S", unsure.box, 0.5, alternative="7C")])
    assert [(c.card, c.alternative) for c in cards] == [("7S", "7C")]


def test_the_knock_card_is_swapped_with_one_tap(tmp_path):
    app, feed = _feed(tmp_path)
    feed.clerk.dealt(parse_card("9H"), alternative=parse_card("9D"))
    tablet = Tablet(app)
    assert tablet.hand()["up_alternative"] == "9D"
    page = tablet.client.get("/t/1").get_data(as_text=True)
    assert 'id="knock-doubt"' in page
    fields = _form_fields(page, "is really")
    assert fields["card"] == "9D"
    assert tablet.knock_card(fields["card"]).status_code == 200
    hand = tablet.hand()
    assert hand["up_card"] == "9D" and hand["up_alternative"] is None
    assert 'id="knock-doubt"' not in tablet.client.get("/t/1").get_data(as_text=True)


def test_a_missed_card_is_a_question_with_one_tap_answers(tmp_path):
    """The 9 of clubs of a 9-K run is not seen: A has nine cards. The question offers the cards
    that would meld (9C extends the run, 7H the set), not the whole deck; one tap on 9C
    proposes the hand with ten cards and it is scored."""
    a_cards, _ = cards_from_detections(fan(["JC", "QC", "TC", "KC"], 0, 0)
                                       + stack(["7S", "7D", "7C"], 700, 0)
                                       + laid_card("2H", 1000, 0) + laid_card("AD", 1200, 0))
    b_cards, _ = cards_from_detections(
        [d for i, c in enumerate(B_CARDS) for d in laid_card(c, 200 * i, 900)])
    read = read_spreads({"A": a_cards, "B": b_cards}, knock=Knock("A", up_card="9H"))
    app, feed = _feed(tmp_path)
    feed.clerk.dealt(parse_card("9H"))
    feed.clerk.propose(read)
    tablet = Tablet(app)
    proposal = tablet.hand()["proposal"]
    assert proposal["question"] and proposal["result"] is None
    offered = [m["card"] for m in proposal["missing"] if m["player"] == "A"]
    assert "9C" in offered and len(offered) <= 6
    page = tablet.client.get("/t/1").get_data(as_text=True)
    assert 'id="missing-answers"' in page
    fields = _form_fields(page, "9♣")
    body = {"kind": "score", "knocker": "A",
            "cards": {p: fields[f"cards_{p}"] for p in "AB"},
            "melds": {p: fields[f"melds_{p}"] for p in "AB"},
            "layout": {p: fields.get(f"layout_{p}", "") for p in "AB"}}
    assert tablet.propose(**body).status_code == 200
    result = tablet.hand()["proposal"]["result"]
    assert result["deadwood"]["A"] == 3 and result["winner"] == "A"
