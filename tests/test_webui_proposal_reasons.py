"""Issue 35 item 6 (the proposal's wording): the demo hand's laid-off 8H was shown inside Ben's
set of eights with no layoffs line, and the page never spelt out "23 - 1 = 22". A card the
camera saw laid off is reported as a layoff (the engine's choice among defences of the same
count), on its own line, and the points are spelt from the engine's own figures (the counts,
its bonus, the spade doubling)."""

from __future__ import annotations

from reader_helpers import spread_of
from test_webui_knock_fix import camera_of
from webui_helpers import GIN_A, GIN_B, KNOCK_A, KNOCK_B, Tablet, make_app

from scorer import parse_card
from vision.table.events import HandDealt, TableRead
from webui.common.words import count_sentence
from webui.store import engine

PLAYERS = {"A": "Ann", "B": "Ben"}
# the demo footage's first hand (vision/demo/ground_truth.json): knock card 4C, Ann knocks with
# 1 (AC); Ben holds three eights and lays the fourth, 8H, off onto Ann's 5H 6H 7H
ANN = spread_of("A", [["5H", "6H", "7H"], ["6C", "6D", "6S"], ["9S", "TS", "JS"]], ["AC"], 0.95)
BEN = spread_of("B", [["8C", "8D", "8S"], ["2H", "3H", "4H"]], ["KD", "TD", "3C"], 0.95,
                 layoffs=["8H"])


def panel_text(tablet: Tablet) -> str:
    page = tablet.client.get("/t/1/panel").get_data(as_text=True)
    return page.replace("&#39;", "'")


def demo_hand_read(tmp_path):
    """An app whose camera read the demo hand (dealt, then both spreads); (app, tablet)."""
    app = make_app(tmp_path)
    camera, tablet = camera_of(app, tmp_path), Tablet(app)
    camera.handle(HandDealt(up_card=parse_card("4C"), confidence=0.9))
    camera.handle(TableRead(up_card=parse_card("4C"), spreads={"A": ANN, "B": BEN}, problems=[],
                            confidence=0.95, knocker="A"))
    return app, tablet


def test_the_demo_hands_laid_off_8h_is_a_layoff_and_the_count_is_spelt_out(tmp_path):
    _app, tablet = demo_hand_read(tmp_path)
    proposal = tablet.hand()["proposal"]
    result = proposal["result"]
    assert (result["winner"], result["points"], result["deadwood"]) == ("A", 22, {"A": 1, "B": 23})
    assert result["layoffs"] == [{"card": "8H", "onto": ["5H", "6H", "7H"]}]
    assert all("8H" not in meld for meld in result["melds"]["B"])  # not inside Ben's set
    panel = panel_text(tablet)
    assert 'id="layoffs"' in panel and "Ben lays off" in panel
    layoffs = panel.split('id="layoffs"', 1)[1].split("</ul>", 1)[0]
    assert layoffs.count("<li>") == 1 and "onto Ann's" in layoffs and "8♥" in layoffs
    assert "Ben's count 23 - Ann's count 1 = 22 for Ann" in panel
    # the layoff the camera saw travels with a correction of another card (the form's fields)
    assert 'name="laid_off_B" value="8H"' in panel
    fixed = tablet.propose(kind="score", knocker="A",
                           cards={"A": " ".join(c.code for g in ANN.groups for c in g) + " AD",
                                  "B": " ".join(c.code for c in BEN.cards)},
                           layout={"A": " | ".join(" ".join(map(str, g)) for g in ANN.groups)},
                           laid_off={"B": "8H"})
    assert fixed.status_code == 200, fixed.get_json()
    assert tablet.hand()["proposal"]["result"]["layoffs"][0]["card"] == "8H"


def test_the_correction_forms_fields_keep_the_layoff_when_posted_as_a_form(tmp_path):
    """The page's own form post (fields laid_off_B, melds_A...) reaches the engine whole."""
    app, tablet = demo_hand_read(tmp_path)
    state = app.extensions["gintray"].store.state(1)
    hand = state.current_hand()
    fields = hand.proposal.proposal.form_fields()
    assert fields["laid_off_B"] == "8H"
    assert "AC" in fields["cards_A"]
    fields["cards_A"] = fields["cards_A"].replace("AC", "AD")  # it was the ace of diamonds
    answer = tablet.client.post("/api/t/1/proposal", headers={"X-CSRFToken": tablet.token},
                                data={**fields, "game": hand.game, "hand": hand.number,
                                      "kind": "score", "knocker": "A"})
    assert answer.status_code in (200, 303), answer.get_data(as_text=True)
    result = tablet.hand()["proposal"]["result"]
    assert "AD" in result["deadwood_cards"]["A"]
    assert result["layoffs"] == [{"card": "8H", "onto": ["5H", "6H", "7H"]}]


def _scored(rules, up_card, knocker, hands):
    return engine.score(rules, up_card=parse_card(up_card), knocker=knocker, hands=hands)


def test_the_count_sentence_spells_the_engines_own_sum():
    knock = _scored("tournament", "9H", "A", {"A": KNOCK_A, "B": KNOCK_B})
    assert count_sentence(knock, PLAYERS) == "Ben's count 12 - Ann's count 5 = 7 for Ann"
    gin = _scored("tournament", "9H", "A", {"A": GIN_A, "B": GIN_B})
    assert gin.bonus == 25
    assert count_sentence(gin, PLAYERS) == "Ben's count 30 + gin bonus 25 = 55 for Ann"
    # Ben lays 8D and QD off and holds 3: Ann's 5 is undercut
    undercut_b = ["KS", "KH", "KC", "4H", "5H", "6H", "8D", "QD", "AS", "2S"]
    undercut = _scored("tournament", "9H", "A", {"A": KNOCK_A, "B": undercut_b})
    assert undercut.outcome is engine.Outcome.UNDERCUT
    assert count_sentence(undercut, PLAYERS) == (
        "Ann's count 5 - Ben's count 3 + undercut bonus 25 = 27 for Ben")
    spade = _scored("oklahoma", "9S", "A", {"A": KNOCK_A, "B": KNOCK_B})
    assert spade.doubled and spade.points == 14
    assert count_sentence(spade, PLAYERS) == (
        "Ben's count 12 - Ann's count 5 = 7, x 2 (spade knock card) = 14 for Ann")


def test_a_result_recorded_before_the_engine_named_its_bonus_gets_no_wrong_sum():
    stored = _scored("tournament", "9H", "A", {"A": GIN_A, "B": GIN_B}).to_json()
    del stored["bonus"]  # as stored by earlier versions
    assert count_sentence(engine.HandResult.from_json(stored), PLAYERS) is None
