"""Issue 29 item 1 through the web app: the camera's proposal is never worse than the cards
allow. The camera's groups reach the engine as a layout (how the cards lie), never as declared
melds: the engine's best spread is proposed, the layout only chooses among spreads that score
the same, and a spread as laid that scores otherwise is shown as an alternative."""

from __future__ import annotations

from reader_helpers import fan, laid_card, stack
from webui_helpers import Tablet, make_app

from scorer import score_hand
from vision.table.grouping import cards_from_detections
from vision.table.spreads import Knock, read_spreads
from webui.table.camera_feed import TableCamera

# B's ten cards, each apart: no meld among them.
B_CARDS = ["2C", "4C", "6C", "8C", "QD", "6S", "TS", "9D", "JD", "QS"]


def _read(a_detections, up_card: str = "9H"):
    """A live table read: A knocked with these cards lying so, B's ten cards in a row."""
    a_cards, _ = cards_from_detections(a_detections)
    b_cards, _ = cards_from_detections(
        [d for i, c in enumerate(B_CARDS) for d in laid_card(c, 200 * i, 900)])
    return read_spreads({"A": a_cards, "B": b_cards}, knock=Knock("A", up_card=up_card))


def _camera_proposal(tmp_path, read):
    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    feed = TableCamera(store, 1, "replay:none", tmp_path,
                       app.extensions["gintray"].notifier.publish)
    feed.clerk.dealt(read.up_card)
    feed.clerk.propose(read)
    tablet = Tablet(app)
    return tablet, tablet.hand()["proposal"]


def _engine_best(read):
    return score_hand("tournament", up_card=read.up_card, knocker="A",
                      hands=read.hands()).to_json()


def test_the_fifth_card_of_a_run_lying_apart_is_not_deadwood(tmp_path):
    """J Q 10 K of clubs fanned, the 9 apart (the real photos' case): the proposal counts the
    five-card run, as the engine's best spread does."""
    read = _read(fan(["JC", "QC", "TC", "KC"], 0, 0) + laid_card("9C", 400, 0)
                 + stack(["7S", "7D", "7C"], 700, 0) + laid_card("2H", 1000, 0)
                 + laid_card("AD", 1200, 0))
    tablet, proposal = _camera_proposal(tmp_path, read)
    best = _engine_best(read)
    assert proposal["result"]["deadwood"] == best["deadwood"] == {"A": 3, "B": 67}
    assert sorted(map(sorted, proposal["result"]["melds"]["A"])) == [
        ["7C", "7D", "7S"], ["9C", "JC", "KC", "QC", "TC"]]
    assert proposal["arranged_by_engine"] and "melds" not in proposal
    page = tablet.client.get("/t/1").get_data(as_text=True)
    assert 'id="arranged-by-engine"' in page
    # as laid (9 apart) it would count 12, over the knock card: no knock to offer
    assert not any(alt.get("as_laid") for alt in proposal["result"]["alternatives"])


def test_a_spread_as_laid_that_scores_worse_is_shown_beside_the_proposal(tmp_path):
    """The ace of spades lies apart from 2-3-4: as laid, a knock with 1; the cards are gin,
    which is proposed; the spread as laid is the first alternative on the page."""
    read = _read(laid_card("AS", 0, 0) + fan(["2S", "3S", "4S"], 300, 0)
                 + fan(["7H", "8H", "9H"], 700, 0) + stack(["KD", "KC", "KH"], 1100, 0))
    tablet, proposal = _camera_proposal(tmp_path, read)
    result = proposal["result"]
    assert result["outcome"] == "gin" == _engine_best(read)["outcome"]
    first = result["alternatives"][0]
    assert first["as_laid"] and first["outcome"] in ("knock", "undercut")
    assert first["deadwood"]["A"] == 1
    page = tablet.client.get("/t/1").get_data(as_text=True)
    assert "as laid on the table" in page


def test_the_layout_chooses_between_spreads_that_score_the_same(tmp_path):
    """3H fits the set of threes or the run of hearts: the proposal shows it where it lies."""
    hearts_run = _read(stack(["3S", "3D", "3C"], 0, 0) + fan(["3H", "4H", "5H", "6H"], 300, 0)
                       + laid_card("AS", 700, 0) + laid_card("AD", 900, 0)
                       + laid_card("5S", 1100, 0))
    _, proposal = _camera_proposal(tmp_path / "run", hearts_run)
    assert ["3H", "4H", "5H", "6H"] in proposal["result"]["melds"]["A"]
    threes_set = _read(stack(["3S", "3D", "3C", "3H"], 0, 0) + fan(["4H", "5H", "6H"], 300, 0)
                       + laid_card("AS", 700, 0) + laid_card("AD", 900, 0)
                       + laid_card("5S", 1100, 0))
    _, other = _camera_proposal(tmp_path / "set", threes_set)
    assert ["4H", "5H", "6H"] in other["result"]["melds"]["A"]
    for key in ("outcome", "winner", "points", "deadwood"):
        assert proposal["result"][key] == other["result"][key]
