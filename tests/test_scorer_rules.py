"""Rule presets, overrides and knock limits. Seeds: 000 (GRA), 001, 002, 003, 004."""

from __future__ import annotations

import pytest

from scorer import (
    PRESETS,
    RulesError,
    RuleSet,
    Shutout,
    knock_limit_for,
    parse_card,
    rules_from_spec,
)


def test_presets_exist():
    assert set(PRESETS) == {
        "tournament",
        "family",
        "standard",
        "oklahoma",
        "straight",
        "partnership",
    }
    assert all(isinstance(r, RuleSet) and r.name == name for name, r in PRESETS.items())


def test_tournament_preset():
    """000 rules 4 and 6 (up-card knock, gin 25, undercut 25 on ties), 003 [4] (best of five
    250-point games), 002/004 (game bonus 100, 25 per box), 002 (shutout doubles); no big gin."""
    r = PRESETS["tournament"]
    assert (r.knock_limit, r.gin_bonus, r.undercut_bonus, r.undercut_on_tie) == (
        "up_card",
        25,
        25,
        True,
    )
    assert (r.game_target, r.game_bonus, r.box_bonus) == (250, 100, 25)
    assert r.shutout is Shutout.SCORE_AND_GAME_BONUS
    assert r.big_gin_bonus is None and not r.spade_double and r.match_games == 5


def test_family_preset():
    """004 Family scoring: gin 20, undercut 10, "When a player's score reaches 100 or higher,
    they have won" (no bonuses)."""
    r = PRESETS["family"]
    assert (r.gin_bonus, r.undercut_bonus, r.game_target) == (20, 10, 100)
    assert (r.game_bonus, r.box_bonus, r.shutout) == (0, 0, Shutout.NONE)


def test_standard_oklahoma_straight_partnership():
    """001: standard knocks with 10 or fewer, Oklahoma from the up card, gin-only; 003: big gin
    31, spade doubles in Oklahoma; 000 partnership: 250-point games, no box/blitz/spade bonus."""
    assert PRESETS["standard"].knock_limit == 10 and PRESETS["standard"].big_gin_bonus == 31
    assert PRESETS["oklahoma"].knock_limit == "up_card" and PRESETS["oklahoma"].spade_double
    assert PRESETS["straight"].knock_limit == 0
    p = PRESETS["partnership"]
    assert p.game_target == 250 and p.box_bonus == 0 and not p.spade_double
    assert p.shutout is Shutout.NONE
    assert p.next_deal == "loser" and p.match_stop_after_losses == 2


@pytest.mark.parametrize(
    ("up", "limit"), [("7D", 7), ("2C", 2), ("TD", 10), ("KS", 10), ("JH", 10), ("AS", 0)]
)
def test_knock_limit_from_the_up_card(up, limit):
    """000 rule 4: "its numerical value determines the number of points with which a hand can be
    knocked. If the up card is an ACE, the game must be played for gin"."""
    assert knock_limit_for(PRESETS["tournament"], parse_card(up)) == limit
    assert knock_limit_for(PRESETS["oklahoma"], parse_card(up)) == limit


def test_fixed_knock_limits_ignore_the_up_card():
    assert knock_limit_for(PRESETS["standard"], parse_card("3D")) == 10
    assert knock_limit_for(PRESETS["straight"], None) == 0
    with pytest.raises(RulesError) as info:
        knock_limit_for(PRESETS["tournament"], None)
    assert info.value.code == "missing_up_card"


def test_overrides():
    r = rules_from_spec(
        {
            "preset": "tournament",
            "knock_limit": 10,
            "big_gin_bonus": 50,
            "hollywood": True,
            "game_target": 100,
        }
    )
    assert (r.name, r.knock_limit, r.big_gin_bonus, r.hollywood, r.game_target) == (
        "tournament",
        10,
        50,
        True,
        100,
    )
    assert rules_from_spec({"preset": "standard", "big_gin_bonus": None}).big_gin_bonus is None
    assert rules_from_spec("Family") is PRESETS["family"]
    assert rules_from_spec(None) is PRESETS["tournament"]
    assert rules_from_spec({"knock_limit": "up_card"}).name == "tournament"


@pytest.mark.parametrize(
    ("spec", "code", "names"),
    [
        ("gin-rummy", "unknown_preset", "gin-rummy"),
        ({"preset": "nope"}, "unknown_preset", "nope"),
        ({"preset": "tournament", "gin_bonus": "25"}, "bad_rules", "gin_bonus"),
        ({"preset": "tournament", "knock_limit": "ten"}, "bad_rules", "knock_limit"),
        ({"preset": "tournament", "knock_limit": -1}, "bad_rules", "knock_limit"),
        ({"preset": "tournament", "shutout": 1}, "bad_rules", "shutout"),
        ({"preset": "tournament", "shutout": "HAND_POINTS"}, "bad_rules", "hand_points"),
        ({"preset": "tournament", "knock_lmit": 10}, "bad_rules", "knock_lmit"),
        ({"preset": "tournament", "game_target": 0}, "bad_rules", "game_target"),
        (42, "bad_rules", "42"),
    ],
)
def test_bad_specs_name_the_field(spec, code, names):
    with pytest.raises(RulesError) as info:
        rules_from_spec(spec)
    assert info.value.code == code
    assert names in info.value.message


def test_shutout_order_round_trips_through_rules_json():
    """Issue 14 item 5: 003's shutout order can be chosen by name and survives the JSON that
    tables and the hall store; true and false keep meaning 002's order and no shutout."""
    rules = rules_from_spec({"preset": "standard", "shutout": "hand_points"})
    assert rules.shutout is Shutout.HAND_POINTS
    assert rules.to_json()["shutout"] == "hand_points"
    assert rules_from_spec(rules.to_json()) == rules
    assert rules_from_spec({"shutout": True}).shutout is Shutout.SCORE_AND_GAME_BONUS
    assert rules_from_spec({"shutout": False}).shutout is Shutout.NONE


def test_readme_rules_table_names_tests_that_exist():
    """scorer/README.md's rules table points at real tests (a renamed test breaks the link)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "scorer" / "README.md").read_text(encoding="utf-8")
    table = text[text.index("## Every rule, its seed and its test") :]
    table = table[: table.index("\n## ")]
    named = 0
    for row in table.splitlines():
        if not row.startswith("| ") or "`test_" not in row:
            continue
        cell = row.rsplit("|", 2)[1]
        current = None
        for ref in re.findall(r"`([^`]+)`", cell):
            file_part, _, test = ref.rpartition("::") if "::" in ref else (ref, "", "")
            current = file_part or current
            assert current is not None, ref
            source = (root / "tests" / current).read_text(encoding="utf-8")
            if test:
                assert f"def {test}(" in source, ref
            named += 1
    assert named >= 40


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rules_json_reads_back_what_it_wrote(preset):
    rules = rules_from_spec({"preset": preset, "gin_bonus": 30, "shutout": "hand_points"})
    data = rules.to_json()
    assert data["shutout"] == "hand_points" and isinstance(data["shutout"], str)
    assert RuleSet.from_json(data) == rules
    assert RuleSet.from_json(PRESETS[preset].to_json()) == PRESETS[preset]


def test_rules_from_json_refuses_what_is_not_a_rule_set():
    with pytest.raises(RulesError):
        RuleSet.from_json(["tournament"])
    with pytest.raises(RulesError):
        RuleSet.from_json({"preset": "family"})  # a spec, not a rule set's JSON
    with pytest.raises(RulesError):
        RuleSet.from_json({"gin_bonus": -1})
    assert RuleSet.from_json({"gin_bonus": 30}) == rules_from_spec({"gin_bonus": 30})


def test_which_rule_sets_play_a_match():
    assert PRESETS["tournament"].plays_match and PRESETS["partnership"].plays_match
    assert not PRESETS["family"].plays_match and not PRESETS["standard"].plays_match
    assert rules_from_spec({"preset": "family", "match_games": 3}).plays_match


def test_same_play_ignores_only_the_name():
    tournament = PRESETS["tournament"]
    renamed = rules_from_spec({"preset": "tournament", "name": "club night"})
    assert tournament.same_play(renamed) and renamed.same_play(tournament)
    assert rules_from_spec({"preset": "tournament", "gin_bonus": 25}).same_play(tournament)
    assert not tournament.same_play(rules_from_spec({"preset": "tournament", "gin_bonus": 20}))
    assert not tournament.same_play(PRESETS["partnership"])
