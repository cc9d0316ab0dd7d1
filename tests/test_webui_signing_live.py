"""Issue 26 (at the table): the signing page did not update live, "Signed PDF" was offered
before anyone signed under the final file name, and `webui.verify` passed such a sheet. A
draft is named and said to be one; verification names the missing signatures; an open
signing page shows the other player's signature as it is given, keeping one being drawn."""

from __future__ import annotations

import pytest
import test_webui_browser
from test_webui_browser import draw_signature
from test_webui_phone import SIZES, TABLE, join_page, open_browser
from webui_helpers import PNG_DATA_URL, Tablet, make_app

from scorer import parse_card
from webui.common.proposal_form import parse_proposal
from webui.store import Actor, commands
from webui.verify import main as verify_main

served = test_webui_browser.served  # the browser test's server (app, base, table, feed, truth)


def test_an_unsigned_export_is_a_draft_and_verify_names_who_has_not_signed(tmp_path, capsys):
    app = make_app(tmp_path)
    tablet = Tablet(app)
    tablet.play_manual_hand("A", 300)
    answer = tablet.client.get("/t/1/games/1/export.pdf")
    assert 'filename=gintray-table-1-game-1-draft.pdf' in answer.headers["Content-Disposition"]
    for kind in ("csv", "json"):
        disposition = tablet.client.get(f"/t/1/games/1/export.{kind}").headers
        assert f"game-1-draft.{kind}" in disposition["Content-Disposition"]
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert "PDF draft (not signed yet)" in panel and ">signed PDF<" not in panel
    draft = tmp_path / "draft.pdf"
    draft.write_bytes(answer.data)
    assert verify_main([str(draft), "--data-dir", str(tmp_path)]) == 1
    said = capsys.readouterr().out
    assert "missing: Player A, Player B" in said or "not signed by" in said
    assert verify_main([str(draft), "--data-dir", str(tmp_path), "--draft"]) == 0
    assert tablet.post("sign", {"game": 1, "player": "A", "png": PNG_DATA_URL}).status_code == 200
    half = tmp_path / "half.pdf"
    half.write_bytes(tablet.client.get("/t/1/games/1/export.pdf").data)
    assert verify_main([str(half), "--data-dir", str(tmp_path)]) == 1
    names = tablet.state()["players"]
    assert f"not signed by {names['B']}" in capsys.readouterr().out
    assert tablet.post("sign", {"game": 1, "player": "B", "png": PNG_DATA_URL}).status_code == 200
    final = tablet.client.get("/t/1/games/1/export.pdf")
    assert 'filename=gintray-table-1-game-1.pdf' in final.headers["Content-Disposition"]
    signed = tmp_path / "signed.pdf"
    signed.write_bytes(final.data)
    assert verify_main([str(signed), "--data-dir", str(tmp_path)]) == 0


@pytest.mark.slow
@pytest.mark.browser
def test_the_signing_page_shows_the_other_signature_live_and_keeps_ones_own(served, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    app, base, _table, _feed, _truth = served
    store = app.extensions["gintray"].store
    hand = store.state(TABLE).current_hand()
    player = Actor("test")
    store.execute(TABLE, commands.set_knock_card(hand.game, hand.number, parse_card("9H")), player)
    proposal = parse_proposal({"kind": "manual", "winner": "A", "points": "300"})
    store.execute(TABLE, commands.propose(hand.game, hand.number, proposal), player)
    revision = store.state(TABLE).current_hand().revision
    for seat in ("A", "B"):
        store.execute(TABLE, commands.confirm(hand.game, hand.number, seat, revision), player)
    with sync_playwright() as p:
        browser = open_browser(p)
        ann = join_page(browser, base, app, "A", SIZES["tablet"])
        ann.goto(f"{base}/t/{TABLE}/games/1/sign")
        expect(ann.locator('section.signature[data-player="B"]')).to_contain_text(
            "signs on their own tablet")
        # the stream's first message, sent as it connects, changes nothing: the page is not
        # redrawn under a finger about to sign (it was, and a pad found on the page could be
        # gone when the finger came down)
        expect(ann.locator("#sign-live")).to_have_attribute("data-live", "on")
        draw_signature(ann, ann.locator('section.signature[data-player="A"] canvas.pad'))
        ben_png = PNG_DATA_URL
        store.execute(TABLE, commands.sign(1, "B", ben_png), player)  # Ben signs on his tablet
        expect(ann.locator('section.signature[data-player="B"]')).to_contain_text("✓ signed")
        assert ann.get_attribute("#sign-live", "data-redrawn") == "1"  # Ben's signature only
        inked = ann.evaluate("document.querySelector('section.signature[data-player=\"A\"]')"
                             "._pad.isEmpty()")
        assert inked is False  # Ann's signature being drawn is still there
        ann.screenshot(path=str(tmp_path / "signing-live.png"), full_page=True)
        ann.click('section.signature[data-player="A"] button.primary')
        expect(ann.locator("#export-pdf")).to_contain_text("Download the signed PDF")
        browser.close()
    assert store.state(TABLE).games[0].locked
