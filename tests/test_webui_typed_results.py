"""The engine's types cross into the table app (issue 39 item 1): the engine door returns
``HandResult`` and ``Sheet``, a hand's state and the pages hold them, and the JSON is written
only at the edges, exactly as before: a signed sheet's record hashes as it always did, results
recorded by earlier engines (without ``bonus`` and ``alternatives``) included."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import scorer
from webui.common.sheetview import hand_text
from webui.common.words import OUTCOME_WORDS, knocker_verb
from webui.store import engine
from webui.store.proposal import ManualResult
from webui.store.record import RecordedProposal
from webui.store.state import fold, sheet_hash, sheet_record

# the demo footage's first hand: knock card 4C, Ann knocks with 1; Ben lays 8H off
ANN = ["5H", "6H", "7H", "6C", "6D", "6S", "9S", "TS", "JS", "AC"]
BEN = ["8C", "8D", "8S", "2H", "3H", "4H", "KD", "TD", "3C", "8H"]
#: the sheet hash of ``_events()``'s game, as computed before the engine's types crossed
#: the door: a change that moves it would void every signature given on such a sheet
HASH_BEFORE = "f5402521ea0692a2111e01b9af92648d09d4f535653036d60f41502f33bd0c3b"


@dataclass
class Ev:
    seq: int
    kind: str
    payload: dict[str, Any]
    actor: str = "device:x"


def _full_result() -> dict[str, Any]:
    return engine.score("tournament", up_card=scorer.parse_card("4C"), knocker="A",
                        hands={"A": ANN, "B": BEN}).to_json()


def _old_result() -> dict[str, Any]:
    """The same result as an engine before issue 14 and issue 35 recorded it."""
    return {k: v for k, v in _full_result().items() if k not in ("bonus", "alternatives")}


def _events() -> list[Ev]:
    def scored(result: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "score", "knocker": "A", "cards": {"A": ANN, "B": BEN},
                "result": result, "source": "camera"}

    proposals = [scored(_old_result()), scored(_full_result()),
                 {"kind": "manual", "result": {"winner": "B", "points": 12, "outcome": "manual",
                                               "note": "x"}, "source": "manual"},
                 {"kind": "dead", "source": "director"}]
    events = [Ev(1, "table_created", {"name": "T1", "players": {"A": "Ann", "B": "Ben"},
                                      "rules": "tournament"}),
              Ev(2, "game_started", {"game": 1, "dealer": "A"})]
    seq = 3
    for hand, proposal in enumerate(proposals, 1):
        events.append(Ev(seq, "knock_card_set", {"game": 1, "hand": hand, "card": "4C"}))
        events.append(Ev(seq + 1, "proposal_set",
                         {"game": 1, "hand": hand, "proposal": proposal}))
        events += [Ev(seq + 2 + i, "confirmed", {"game": 1, "hand": hand, "player": p,
                                                 "revision": seq + 1})
                   for i, p in enumerate("AB")]
        seq += 4
    return events


def test_the_engine_door_returns_the_engines_types():
    result = engine.score("tournament", up_card=scorer.parse_card("4C"), knocker="A",
                          hands={"A": ANN, "B": BEN})
    assert isinstance(result, scorer.HandResult) and result.outcome is scorer.Outcome.KNOCK
    sheet = engine.sheet("tournament", [engine.sheet_hand(result)])
    assert isinstance(sheet, scorer.Sheet) and sheet.games[0].totals["A"] == result.points
    assert engine.sheet_hand(ManualResult("B", 12)) == {"winner": "B", "points": 12}
    assert engine.sheet_hand(None) == {"dead": True}


def test_a_hand_result_reads_back_as_it_was_written():
    laid = engine.score("tournament", up_card=scorer.parse_card("4C"), knocker="A",
                        hands={"A": ANN, "B": BEN}, laid_off={"B": ["8H"]})
    assert laid.layoffs == [scorer.Layoff(scorer.parse_card("8H"),
                                          scorer.parse_cards(["5H", "6H", "7H"]))]
    # the knocker's aces as a set block two layoffs; the spread with them is an alternative
    blocked = engine.score("standard", up_card=None, knocker="A", hands={
        "A": ["AS", "AD", "AH", "2H", "3H", "7C", "8C", "9C", "TC", "JC"],
        "B": ["4H", "5H", "QS", "QD", "QH", "2S", "3S", "4S", "KC", "9D"]})
    assert blocked.alternatives and blocked.alternatives[0].layoffs
    for written in (laid.to_json(), _full_result(), blocked.to_json()):
        assert scorer.HandResult.from_json(written).to_json() == written
    assert scorer.HandResult.from_json(blocked.to_json()) == blocked


def test_state_and_pages_hold_types_and_the_signed_record_is_unchanged():
    state = fold(1, _events())
    game = state.games[0]
    old, full, manual, dead = (h.proposal for h in game.hands)
    assert all(h.confirmed for h in game.hands)
    assert isinstance(old.result, scorer.HandResult) and old.result.bonus == 0
    assert isinstance(full.result, scorer.HandResult) and full.result == old.result
    assert manual.result == ManualResult("B", 12, "x") and dead.result is None
    assert isinstance(game.sheet, scorer.Sheet) and game.winner is None
    # what a signature covers: the results exactly as recorded, the same hash as before
    record = sheet_record(state, game)
    assert record["hands"][0]["proposal"]["result"] == _old_result()
    assert "bonus" not in record["hands"][0]["proposal"]["result"]
    assert record["hands"][1]["proposal"]["result"] == _full_result()
    assert record["sheet"] == game.sheet.to_json()
    assert sheet_hash(state, game) == HASH_BEFORE
    # and the event log gets back what it held
    stored = _events()[3].payload["proposal"]
    assert json.dumps(RecordedProposal.from_json(stored).to_json(), sort_keys=True) == \
        json.dumps(stored, sort_keys=True)
    players = state.players
    assert hand_text(players, old) == "Ann knocks (1 v 23)"
    assert hand_text(players, manual) == "entered by hand: x"


def test_one_outcome_word_table_says_every_ending():
    assert set(OUTCOME_WORDS) == set(scorer.Outcome)
    assert knocker_verb(scorer.Outcome.BIG_GIN) == "goes big gin"
    assert knocker_verb(scorer.Outcome.UNDERCUT) == "knocks"
    assert OUTCOME_WORDS[scorer.Outcome.BIG_GIN].name == "big gin"


def test_the_match_and_the_knock_card_are_typed_and_written_as_before():
    state = fold(1, _events())
    match = state.match()
    assert isinstance(match.status, scorer.MatchStatus) and match.games_won == {"A": 0, "B": 0}
    assert state.match_json() == {"games": 1, "games_won": {"A": 0, "B": 0}, "complete": False,
                                  "winner": None, "best_of": 5, "decided": False}
    knock = engine.knock_card_info("tournament", scorer.parse_card("4C"))
    assert (knock.limit, knock.gin_only, knock.pretty, knock.red) == (4, False, "4♣", False)
    assert knock.to_json() == {"limit": 4, "gin_only": False, "code": "4C", "pretty": "4♣",
                               "red": False}
    # 000: an ace up is gin only
    assert engine.knock_card_info("tournament", scorer.parse_card("AS")).gin_only
    assert engine.knock_card_info("tournament", None).to_json() == {"limit": None,
                                                                    "gin_only": False}


def test_the_knock_card_is_the_engines_card_from_the_detector_to_the_state(tmp_path):
    """The knock card is parsed once, where the detector read it: the reader's ``HandDealt``
    carries the engine's ``Card``, the store records it without parsing it again (its code in
    the log), the state holds the ``Card``; a tablet's code is parsed at the HTTP edge, and a
    bad one refused there with the engine's words."""
    from webui_helpers import Tablet, make_app

    from vision.table.events import HandDealt
    from webui.table.camera_feed import TableCamera

    app = make_app(tmp_path)
    parts = app.extensions["gintray"]
    camera = TableCamera(parts.store, 1, "replay:none", tmp_path, parts.notifier.publish)
    dealt = HandDealt(up_card=scorer.parse_card("4C"), confidence=0.9,
                      alternative=scorer.parse_card("4S"))
    camera.handle(dealt)
    hand = parts.store.state(1).current_hand()
    assert hand.up_card is dealt.up_card and hand.up_alternative is dealt.alternative
    event = parts.store.events(1)[-1]
    assert (event.payload["card"], event.payload["alternative"]) == ("4C", "4S")
    tablet = Tablet(app)
    assert tablet.hand()["up_card"] == "4C"
    assert tablet.knock_card("10s").status_code == 200  # the players' fix, as they typed it
    assert parts.store.state(1).current_hand().up_card == scorer.parse_card("TS")
    refused = tablet.knock_card("1S")
    assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "bad_card"
    assert parts.store.state(1).current_hand().up_card == scorer.parse_card("TS")
