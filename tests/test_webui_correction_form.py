"""The tablet's correction form scores with the rules engine under the engine's guarantees
(issue 14): any cards typed give a scored result that keeps every card, or a clear 4xx error;
never a 500, never a silently changed card; the knocker's best spread with its alternatives."""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from scorer_helpers import code, meld_heavy_hand
from webui_helpers import KNOCK_A, KNOCK_B, KNOCK_MELDS_A, Tablet, make_app

from scorer.cards import DECK

CODES = [card.code for card in DECK]
LOOK_ALIKES = ["Aſ", "AＳ", "１0H", "7D\u200b", "", "10h", "td", "JOKER", "0S", "<b>", "5S 5S"]


def test_correction_without_melds_lays_the_knockers_best_spread_and_shows_the_others():
    """Issue 14 item 2 through the form. Seed 000 rule 9: spreading A♠ A♥ A♦ blocks B's 4♥ 5♥
    (A wins 28 - 5 = 23); the tablet also shows A-2-3♥, after which B lays off: A wins 17."""
    app = make_app(Path(tempfile.mkdtemp(prefix="gintray-form-")))
    tablet = Tablet(app)
    assert tablet.knock_card("TS").status_code == 200  # knock limit 10
    answer = tablet.propose(kind="score", knocker="A",
                            cards={"A": "AS AD AH 2H 3H 7C 8C 9C TC JC",
                                   "B": "4H 5H QS QD QH 2S 3S 4S KC 9D"})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    result = answer.get_json()["state"]["current_hand"]["proposal"]["result"]
    assert (result["winner"], result["points"]) == ("A", 23)
    assert (result["alternatives"][0]["winner"], result["alternatives"][0]["points"]) == ("A", 17)
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert 'id="alternatives"' in panel and "Ann scores 17" in panel


def test_with_no_proposal_the_form_chooses_no_knocker_and_asks_for_one(tablet):
    """Issue 16: the correction form ticked Ann as knocker when nothing was proposed yet, so a
    hand typed in for Ben's knock was scored as Ann's unless the player saw the tick."""
    assert tablet.knock_card("KS").status_code == 200
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    radios = re.findall(r'<input type="radio" name="knocker"[^>]*>', panel)
    assert len(radios) == 2 and not any("checked" in r for r in radios)
    assert all("required" in r for r in radios)  # the browser asks before sending
    answer = tablet.propose(kind="score", cards={"A": " ".join(KNOCK_A), "B": " ".join(KNOCK_B)})
    assert answer.status_code == 400
    assert answer.get_json()["error"] == {"code": "no_knocker",
                                          "message": "say who knocked: the score depends on it"}
    assert tablet.hand()["proposal"] is None
    # once proposed, the form shows the proposal's knocker
    assert tablet.propose(kind="score", knocker="B",
                          cards={"A": " ".join(KNOCK_B), "B": "5S"},
                          melds={"B": KNOCK_MELDS_A}).status_code == 200
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert re.search(r'name="knocker" value="B" required checked', panel)


def test_a_score_by_hand_chooses_no_winner_and_asks_for_one(tablet):
    """The same for the form that records a score by hand: nobody is pre-chosen as winner."""
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert '<select name="winner" required><option value="" selected disabled>' in panel
    answer = tablet.propose(kind="manual", winner="", points=20)
    assert answer.status_code == 400
    assert answer.get_json()["error"] == {"code": "no_winner", "message": "say who won the hand"}


cards_text = st.lists(st.one_of(st.sampled_from(CODES), st.sampled_from(LOOK_ALIKES)),
                      min_size=0, max_size=12).map(" ".join)


@st.composite
def typed_hands(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(A's cards, B's cards, knocker, knocker's melds) as typed: mostly a real deal, in any
    notation, sometimes with a typo, a look-alike, a missing or a doubled card."""
    knocker = draw(st.sampled_from(["A", "B"] * 5 + ["C", ""]))
    if draw(st.integers(0, 5)) == 0:
        return draw(cards_text), draw(cards_text), knocker, draw(cards_text)
    rng = random.Random(draw(st.integers(0, 2**32)))
    up = (13, "S")  # the knock card, KS, is in neither hand
    knocker_cards = meld_heavy_hand(rng, exclude=[up])
    other = meld_heavy_hand(rng, exclude=[up, *knocker_cards])
    hands = [[code(c) for c in h]
             for h in ([knocker_cards, other] if knocker != "B" else [other, knocker_cards])]
    style = draw(st.sampled_from([str.upper, str.lower, lambda c: c.replace("T", "10")]))
    hands = [[style(c) for c in h] for h in hands]
    mutation = draw(st.integers(0, 9))
    if mutation == 1:
        hands[0].pop()
    elif mutation == 2:
        hands[1].append(hands[0][0])
    elif mutation == 3:
        hands[0][draw(st.integers(0, 9))] = draw(st.sampled_from(LOOK_ALIKES))
    return " ".join(hands[0]), " ".join(hands[1]), knocker, ""


TYPED_EXAMPLES = 4 * settings.default.max_examples  # 400 under the full profile, 40 quick


@settings(max_examples=TYPED_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(typed_hands())
def test_any_cards_typed_into_the_form_are_scored_whole_or_refused_clearly(typed):
    a, b, knocker, melds = typed
    tablet = _tablet()
    tablet.knock_card("KS")
    answer = tablet.propose(kind="score", knocker=knocker, cards={"A": a, "B": b},
                            melds={knocker: melds} if knocker in ("A", "B") else {})
    assert answer.status_code in (200, 400, 409, 422), answer.status_code
    event(f"status {answer.status_code} {(answer.get_json().get('error') or {}).get('code')}")
    body = answer.get_json()
    if answer.status_code != 200:
        error = body["error"]
        assert error["code"] and 0 < len(error["message"]) <= 400
        return
    result = body["state"]["current_hand"]["proposal"]["result"]
    for player, typed in (("A", a), ("B", b)):
        given_cards = typed.split() + (melds.replace("|", " ").split() if player == knocker else [])
        shown = [c for m in result["melds"][player] for c in m] + result["deadwood_cards"][player]
        shown += [lay["card"] for lay in result["layoffs"] if result["defender"] == player]
        assert sorted(shown) == sorted(c.upper().replace("10", "T") for c in given_cards)


_TABLETS: list[Tablet] = []


def _tablet() -> Tablet:
    """One app and tablet for the whole property test (a fresh table per example is slow)."""
    if not _TABLETS:
        _TABLETS.append(Tablet(make_app(Path(tempfile.mkdtemp(prefix="gintray-form-fuzz-")))))
    return _TABLETS[0]
