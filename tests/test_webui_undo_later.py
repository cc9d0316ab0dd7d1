"""Issue 26 (at the table): undo disappeared once the next knock card was read, and none was
offered after a game's last hand. A player can undo their own confirmation until the next hand
has a result (the next knock card is taken back with it); after that the page says the
director corrects it."""

from __future__ import annotations

import re

import pytest
import test_webui_browser
from test_webui_phone import SIZES, TABLE, join_page, open_browser
from webui_helpers import PNG_DATA_URL, Tablet, make_app

from scorer import parse_card
from webui.common.proposal_form import parse_proposal
from webui.store import Actor, commands


def undo_buttons(tablet: Tablet, seat: str) -> list[tuple[str, str]]:
    panel = tablet.tablets[seat].client.get("/t/1/panel").get_data(as_text=True)
    forms = re.findall(r'name="target_seq" value="(\d+)">\s*<button class="undo"[^>]*>([^<]*)<',
                       panel)
    return [(seq, label.replace("&#39;", "'")) for seq, label in forms]


def camera_deals(app, card: str, table: int = 1) -> None:
    store = app.extensions["gintray"].store
    hand = store.state(table).current_hand()
    store.execute(table, commands.set_knock_card(hand.game, hand.number, parse_card(card),
                                                        source="camera"),
                  Actor("camera"))


def test_a_confirmation_stays_undoable_until_the_next_hand_has_a_result(tmp_path):
    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.play_manual_hand("A", 20)
    camera_deals(app, "5C")  # the next deal is read at once
    assert tablet.hand()["number"] == 2 and tablet.hand()["up_card"] == "5C"
    offers = dict((label, seq) for seq, label in undo_buttons(tablet, "A"))
    label = "Undo Ann's confirmation of hand 1 (the knock card of hand 2 is taken back too)"
    assert label in offers, offers
    assert all("Ben's" not in label for label in offers)  # never the other player's
    answer = tablet.post("undo", {"target_seq": int(offers[label])})
    assert answer.status_code == 200, answer.get_json()
    hand = tablet.hand()
    assert hand["number"] == 1 and hand["confirmed_by"] == ["B"]  # Ben's still stands
    assert tablet.confirm("A").status_code == 200  # Ann confirms again: hand 1 recorded
    assert tablet.hand()["number"] == 2 and tablet.hand()["up_card"] is None
    # once the next hand has a result, hand 1 is the director's to correct
    tablet.play_manual_hand("B", 5)
    camera_deals(app, "7D")
    tablet.knock_card("7D")
    assert tablet.propose(kind="manual", winner="A", points="3").status_code == 200
    assert all("hand 2" not in label for _, label in undo_buttons(tablet, "A"))
    panel = tablet.tablets["A"].client.get("/t/1/panel").get_data(as_text=True)
    assert "Hand 2 recorded" in panel and "to correct it now, ask the director" in panel


def test_after_the_games_last_hand_a_player_can_undo_their_confirmation(tmp_path):
    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.play_manual_hand("A", 300)  # game over
    assert tablet.state()["games"][0]["ended"]
    offers = undo_buttons(tablet, "B")
    assert [label for _, label in offers] == ["Undo Ben's confirmation of hand 1"]
    assert tablet.post("undo", {"target_seq": int(offers[0][0])}).status_code == 200
    state = tablet.state()
    assert not state["games"][0]["ended"] and state["current_hand"]["confirmed_by"] == ["A"]
    assert tablet.confirm("B").status_code == 200
    for p in ("A", "B"):
        assert tablet.post("sign", {"game": 1, "player": p, "png": PNG_DATA_URL}).status_code \
            == 200
    assert undo_buttons(tablet, "B") == []  # a signed game is the director's


served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)


@pytest.mark.slow
@pytest.mark.browser
def test_a_tablet_undoes_its_confirmation_after_the_next_deal_was_read(served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    app, base, _table, _feed, _truth = served
    store = app.extensions["gintray"].store
    player = Actor("test")
    hand = store.state(TABLE).current_hand()
    store.execute(TABLE, commands.set_knock_card(hand.game, hand.number, parse_card("9H")), player)
    store.execute(TABLE, commands.propose(hand.game, hand.number, parse_proposal(
        {"kind": "manual", "winner": "A", "points": "20"})), player)
    revision = store.state(TABLE).current_hand().revision
    for seat in ("A", "B"):
        store.execute(TABLE, commands.confirm(hand.game, hand.number, seat, revision), player)
    with sync_playwright() as p:
        browser = open_browser(p)
        ann = join_page(browser, base, app, "A", SIZES["phone"])
        expect(ann.locator("#recorded")).to_contain_text("Hand 1 recorded")
        camera_deals(app, "5C", TABLE)  # the next deal is read while Ann looks
        expect(ann.locator("#knock-card")).to_contain_text("5")
        undo = ann.locator("button.undo", has_text="Undo Ann's confirmation of hand 1")
        expect(undo).to_contain_text("the knock card of hand 2 is taken back too")
        ann.screenshot(path=str(tmp_path / "undo-after-next-deal.png"), full_page=True)
        undo.click()
        expect(ann.locator("#proposal")).to_contain_text("Ben confirmed")
        browser.close()
    assert store.state(TABLE).current_hand().number == 1
