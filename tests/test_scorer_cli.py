"""The JSON CLI (issue 2): `gintray melds|score|sheet`, exit 2 + {"error"} on bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.cli import melds_main, score_main, sheet_main

KNOCK = {
    "rules": "tournament",
    "up_card": "8S",
    "knocker": "A",
    "hands": {
        "A": ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "8D"],
        "B": ["4S", "5S", "6S", "KS", "KD", "KH", "4H", "5H", "TD", "QD"],
    },
}


def run(main, argv, capsys, monkeypatch, stdin=None):
    if stdin is not None:
        text = stdin if isinstance(stdin, str) else json.dumps(stdin)
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status = main(argv)
    out = capsys.readouterr().out
    return status, out


def test_melds_ten_cards(capsys, monkeypatch):
    status, out = run(
        melds_main,
        ["AH", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "QH"],
        capsys,
        monkeypatch,
    )
    assert status == 0
    doc = json.loads(out)
    assert doc["deadwood"] == 29
    assert doc["melds"] == [["AH", "2H", "3H"], ["9S", "9D", "9C"]]
    assert doc["deadwood_cards"] == ["4C", "5D", "QH", "KS"]
    assert "big_gin" not in doc


def test_melds_eleven_cards_and_ten_notation(capsys, monkeypatch):
    argv = ["AH", "2H", "3H", "4H", "7S", "7D", "7C", "QS", "QD", "QC", "10c"]
    status, out = run(melds_main, argv, capsys, monkeypatch)
    doc = json.loads(out)
    assert status == 0
    assert doc["big_gin"] is False
    assert doc["best_discards"] == ["TC"]
    assert doc["min_deadwood_after_discard"] == 0


@pytest.mark.parametrize(
    ("argv", "code", "named"),
    [
        (["AH", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "QX"], "bad_card", "QX"),
        (["AH", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "AH"], "duplicate_card", "AH"),
        (["AH", "2H", "3H"], "wrong_card_count", "3 cards"),
        (["--bogus"], "bad_arguments", "--bogus"),
        # issue 14: a look-alike (U+017F, which upper-cases to S) is no spade
        (["A\u017f", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "QD"], "bad_card", "A"),
        # issue 14: 11 arguments with one empty are not 10 cards
        (["AH", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "QD", ""], "bad_card", "empty"),
        (["AH", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "Q" + "D" * 5000], "bad_card", "…"),
    ],
)
def test_melds_bad_input(argv, code, named, capsys, monkeypatch):
    status, out = run(melds_main, argv, capsys, monkeypatch)
    assert status == 2
    error = json.loads(out)["error"]
    assert error["code"] == code and named in error["message"]


def test_melds_text_uses_suit_symbols(capsys, monkeypatch):
    status, out = run(
        melds_main,
        ["--text", *["AH", "2H", "3H", "9S", "9D", "9C", "4C", "5D", "KS", "QH"]],
        capsys,
        monkeypatch,
    )
    assert status == 0 and "A♥ 2♥ 3♥" in out and "deadwood 29" in out


def test_score_reads_stdin(capsys, monkeypatch):
    status, out = run(score_main, [], capsys, monkeypatch, KNOCK)
    assert status == 0
    doc = json.loads(out)
    assert doc["outcome"] == "knock" and doc["winner"] == "A"
    assert doc["knock_limit"] == 8
    assert doc["deadwood"] == {"A": 8, "B": 20}  # 4♥ then 5♥ laid off onto A-2-3♥
    assert doc["layoffs"] == [
        {"card": "4H", "onto": ["AH", "2H", "3H"]},
        {"card": "5H", "onto": ["AH", "2H", "3H"]},
    ]
    assert doc["points"] == 12
    assert set(doc["melds"]) == {"A", "B"} and set(doc["deadwood_cards"]) == {"A", "B"}


def test_score_with_overrides_and_melds(capsys, monkeypatch):
    doc = dict(KNOCK, rules={"preset": "tournament", "knock_limit": 10})
    doc["melds"] = {"A": [["AH", "2H", "3H"], ["7S", "7D", "7C"], ["9C", "TC", "JC"]]}
    status, out = run(score_main, [], capsys, monkeypatch, doc)
    assert status == 0 and json.loads(out)["knock_limit"] == 10


def test_score_from_a_file(tmp_path: Path, capsys, monkeypatch):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(KNOCK))
    status, out = run(score_main, [str(path)], capsys, monkeypatch)
    assert status == 0 and json.loads(out)["points"] == 12


@pytest.mark.parametrize(
    ("doc", "code", "named"),
    [
        ("{not json", "bad_json", "JSON"),
        ([1, 2], "bad_input", "object"),
        (dict(KNOCK, up_card="8Z"), "bad_card", "8Z"),
        (dict(KNOCK, rules="gin"), "unknown_preset", "gin"),
        (dict(KNOCK, rules={"preset": "tournament", "gin_bonus": -3}), "bad_rules", "gin_bonus"),
        (dict(KNOCK, knocker="C"), "unknown_player", "C"),
        (dict(KNOCK, colour="red"), "bad_field", "colour"),
        ({k: v for k, v in KNOCK.items() if k != "hands"}, "missing_field", "hands"),
        (dict(KNOCK, up_card="5S"), "improper_knock", "knock limit is 5"),
        (dict(KNOCK, melds={"A": [["AH", "2H", "4H"]]}), "invalid_meld", "AH 2H 4H"),
        (dict(KNOCK, accept_improper_knock="yes"), "bad_field", "accept_improper_knock"),
        (dict(KNOCK, declared="gin"), "not_gin", "declared gin"),
        (dict(KNOCK, declared="rummy"), "bad_field", "declared"),
    ],
)
def test_score_bad_input(doc, code, named, capsys, monkeypatch):
    status, out = run(score_main, [], capsys, monkeypatch, doc)
    assert status == 2
    error = json.loads(out)["error"]
    assert error["code"] == code and named in error["message"]


def test_score_accepts_an_improper_knock_when_asked(capsys, monkeypatch):
    """000 rule 9 through the CLI: the opponent accepts and gets the undercut."""
    doc = {
        "rules": "tournament",
        "up_card": "8S",
        "knocker": "A",
        "accept_improper_knock": True,
        "hands": {
            "A": ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "KD"],
            "B": ["4H", "AD", "QS", "QD", "QH", "6S", "6D", "6C", "2S", "3S"],
        },
    }
    status, out = run(score_main, [], capsys, monkeypatch, doc)
    result = json.loads(out)
    assert status == 0 and result["outcome"] == "undercut" and result["points"] == 29
    assert result["improper_knock_accepted"] is True


def test_sheet(capsys, monkeypatch):
    doc = {
        "rules": "tournament",
        "hands": [
            {"winner": "A", "points": 150},
            {"dead": True},
            {"winner": "B", "points": 30},
            {"winner": "A", "points": 120},
        ],
    }
    status, out = run(sheet_main, [], capsys, monkeypatch, doc)
    assert status == 0
    sheet = json.loads(out)
    assert [h["totals"] for h in sheet["hands"]] == [
        {"A": 150, "B": 0},
        {"A": 150, "B": 0},
        {"A": 150, "B": 30},
        {"A": 270, "B": 30},
    ]
    assert sheet["winner"] == "A" and sheet["finals"] == {"A": 420, "B": 55}
    assert sheet["games"][0]["bonuses"]["A"] == {"game": 100, "shutout": 0, "boxes": 50}


def test_sheet_hollywood_columns(capsys, monkeypatch):
    doc = {
        "rules": {"preset": "standard", "hollywood": True},
        "hands": [{"winner": "A", "points": 20}, {"winner": "A", "points": 20}],
    }
    status, out = run(sheet_main, [], capsys, monkeypatch, doc)
    assert status == 0
    assert [g["totals"]["A"] for g in json.loads(out)["hollywood"]] == [40, 20, 0]


def test_sheet_bad_input(capsys, monkeypatch):
    status, out = run(sheet_main, [], capsys, monkeypatch, {"rules": "tournament"})
    assert status == 2 and json.loads(out)["error"]["code"] == "missing_field"
    status, out = run(
        sheet_main, [], capsys, monkeypatch, {"hands": [{"winner": "A", "points": 1.5}]}
    )
    assert status == 2 and "points" in json.loads(out)["error"]["message"]


def test_help_exits_zero(capsys, monkeypatch):
    status, out = run(score_main, ["--help"], capsys, monkeypatch)
    assert status == 0 and "usage" in out


def test_console_script_end_to_end():
    """The installed `gintray` command dispatches to scorer.cli (exit status and JSON)."""
    gintray = Path(sys.executable).with_name("gintray")
    if not gintray.exists():
        pytest.skip("gintray console script not installed in this environment")
    done = subprocess.run(
        [str(gintray), "score"], input=json.dumps(KNOCK), capture_output=True, text=True
    )
    assert done.returncode == 0 and json.loads(done.stdout)["points"] == 12
    bad = subprocess.run([str(gintray), "melds", "ZZ"], capture_output=True, text=True)
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["code"] == "bad_card"


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"rules": 1' + b"0" * 5000 + b"}", "number that cannot be read"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"rules": "tourn\xffament"}', "not UTF-8"),
        (b'{"rules": "' + b"x" * 1_000_001 + b'"}', "over 1,000,000 bytes"),
    ],
)
@pytest.mark.parametrize("command", ["score", "sheet"])
def test_hostile_input_is_a_clear_error_not_a_traceback(command, data, message, tmp_path):
    """Issue 14's bad inputs, from a file and on stdin, through the real command line."""
    path = tmp_path / "in.json"
    path.write_bytes(data)
    for argv, stdin in (([str(path)], None), ([], data)):
        done = subprocess.run(
            [sys.executable, "-m", "gintray_cli", command, *argv],
            input=stdin, capture_output=True, timeout=60,
            cwd=Path(__file__).resolve().parents[1],
        )  # fmt: skip
        assert done.returncode == 2, done.stderr[-500:]
        assert b"Traceback" not in done.stderr
        error = json.loads(done.stdout)["error"]
        assert message in error["message"] and error["code"] in {"bad_json", "too_large"}
        assert len(done.stdout) < 1000  # the input is not echoed back


def test_huge_indent_is_refused(capsys, monkeypatch):
    status, out = run(score_main, ["--indent", "100000000"], capsys, monkeypatch, KNOCK)
    assert status == 2
    assert "--indent must be from 0 to 16" in json.loads(out)["error"]["message"]


def test_hands_given_as_objects_are_refused(capsys, monkeypatch):
    """Issue 14: {"7D": 1, ...} must not be read as the cards 7D, ... (keys used as cards)."""
    hand = {**KNOCK, "hands": {p: dict.fromkeys(cards, 1) for p, cards in KNOCK["hands"].items()}}
    status, out = run(score_main, [], capsys, monkeypatch, hand)
    assert status == 2
    error = json.loads(out)["error"]
    assert error["code"] == "bad_card" and "not an object" in error["message"]


TEAMS = {"North": ["Ann", "Bob"], "South": ["Cy", "Di"]}
ANN_KNOCKS = {  # Ann knocks with 8 (8♦), Cy holds 10 (10♦) and nothing to lay off: Ann +2
    "knocker": "Ann",
    "hands": {
        "Ann": ["AH", "2H", "3H", "7S", "7D", "7C", "9C", "TC", "JC", "8D"],
        "Cy": ["4S", "5S", "6S", "KS", "KD", "KH", "2C", "3C", "4C", "TD"],
    },
}


def test_partnership_sheet_nets_the_two_boards_of_each_hand(capsys, monkeypatch):
    """Issue 14 item 4. 000 partnership rule 7: one centre deck gives the knock card (8♠ for
    both boards); rule 12: a count of both teams' score; rule 8: "the team that lost the points".
    Board 1: Ann (North) wins 10 - 8 = 2; board 2: Di (South) 5. South wins the hand by 3."""
    doc = {
        "teams": TEAMS,
        "hands": [
            {"up_card": "8S", "boards": [ANN_KNOCKS, {"winner": "Di", "points": 5}]},
            {"boards": [{"winner": "Bob", "points": 240}, {"dead": True}]},
        ],
    }
    status, out = run(sheet_main, [], capsys, monkeypatch, stdin=doc)
    sheet = json.loads(out)
    assert status == 0 and sheet["rules"] == "partnership"
    assert sheet["players"] == ["North", "South"]
    assert [(h["winner"], h["points"]) for h in sheet["hands"]] == [("South", 3), ("North", 240)]
    assert sheet["hands"][0]["up_card"] == "8S"
    assert sheet["games"][0]["totals"] == {"North": 240, "South": 3}


def test_partnership_series_four_wins_and_no_loss_plays_the_fifth_game(capsys, monkeypatch):
    """Issue 14 item 4. 000 partnership rule 1: "Five (5) 250 point games. Must stop if you lose
    2 games"; rule 3: "If a team has 4 wins and no losses, they must play the 5th game"; rule 2:
    4 and 5 game winners are in the finals. North comes in 3-0 and wins a game: 4-0, not done."""
    doc = {
        "teams": TEAMS,
        "record": {"North": [3, 0], "South": [1, 1]},
        "hands": [{"boards": [{"winner": "Ann", "points": 250}, {"dead": True}]}],
    }
    status, out = run(sheet_main, [], capsys, monkeypatch, stdin=doc)
    match = json.loads(out)["match"]
    assert status == 0
    north, south = match["series"]["North"], match["series"]["South"]
    assert (north["won"], north["lost"]) == (4, 0)
    assert north["finalist"] and not north["finished"]
    assert "must play game 5" in north["reason"]
    assert (south["won"], south["lost"], south["finished"]) == (1, 2, True)  # second loss
    assert match["complete"]  # South has stopped: this pairing is over

    doc["record"] = {"North": [3, 0], "South": [0, 0]}
    status, out = run(sheet_main, [], capsys, monkeypatch, stdin=doc)
    assert not json.loads(out)["match"]["complete"]  # 4-0 and 0-1: both play on


@pytest.mark.parametrize(
    ("doc", "code", "fragment"),
    [
        ({"teams": {"N": ["Ann", "Ann"], "S": ["Cy", "Di"]}, "hands": []}, "bad_field", "twice"),
        ({"teams": {"N": ["Ann"], "S": ["Cy", "Di"]}, "hands": []}, "bad_field", "two players"),
        ({"teams": TEAMS, "players": ["North", "South"], "hands": []}, "bad_field", "not both"),
        ({"teams": TEAMS, "hands": [{"boards": [{"winner": "Zed", "points": 3}, {"dead": True}]}]},
         "unknown_player", "Zed"),
        ({"teams": TEAMS, "hands": [{"boards": [{"winner": "Ann", "points": 1e400},
                                                {"dead": True}]}]}, "bad_field", "points"),
        ({"teams": TEAMS, "hands": [{"boards": [{"winner": "Ann", "points": 3}]}]},
         "bad_field", "two boards"),
        ({"teams": TEAMS, "record": {"North": [9, 0]}, "hands": []}, "bad_field", "0..5"),
    ],
)
def test_bad_partnership_input_is_a_clear_error(doc, code, fragment, capsys, monkeypatch):
    status, out = run(sheet_main, [], capsys, monkeypatch, stdin=json.dumps(doc))
    error = json.loads(out)["error"]
    assert status == 2 and error["code"] == code and fragment in error["message"]


def test_score_takes_the_cards_seen_laid_off_and_its_output_feeds_the_sheet(capsys, monkeypatch):
    """Issue 35: ``laid_off`` reaches the engine; the result's ``bonus`` is a field the sheet
    reads back (a score's output is a sheet hand)."""
    demo = {"rules": "tournament", "up_card": "4C", "knocker": "A",
            "hands": {"A": ["5H", "6H", "7H", "6C", "6D", "6S", "9S", "TS", "JS", "AC"],
                      "B": ["8C", "8D", "8S", "2H", "3H", "4H", "KD", "TD", "3C", "8H"]},
            "laid_off": {"B": ["8H"]}}
    status, out = run(score_main, [], capsys, monkeypatch, stdin=demo)
    result = json.loads(out)
    assert status == 0 and result["layoffs"] == [{"card": "8H", "onto": ["5H", "6H", "7H"]}]
    assert (result["points"], result["bonus"]) == (22, 0)
    status, out = run(sheet_main, [], capsys, monkeypatch,
                      stdin={"rules": "tournament", "dealer": "B", "hands": [result]})
    assert status == 0, out
    bad = run(score_main, [], capsys, monkeypatch, stdin={**demo, "laid_off": ["8H"]})
    assert bad[0] == 2 and "laid_off must be an object" in bad[1]
