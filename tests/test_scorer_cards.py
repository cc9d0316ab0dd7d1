"""Cards and notation. Seeds: 002 (values), 003 "Scoring" (aces 1, faces 10), 004 "Rank/Value"."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scorer import Card, CardError, ScorerError, parse_card, parse_cards
from scorer.cards import DECK


def test_point_values_follow_the_seeds():
    """002: "Face CARDominoes and the 10s count as 10 points. All others count their numerical
    value"; 003: "Aces are scored at 1 point, face cards at 10"."""
    assert [parse_card(c).value for c in ["AS", "2S", "5H", "9D", "TC", "JC", "QH", "KD"]] == [
        1,
        2,
        5,
        9,
        10,
        10,
        10,
        10,
    ]
    assert sum(card.value for card in DECK) == 4 * (45 + 40)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("7D", "7D"),
        ("7d", "7D"),
        ("TD", "TD"),
        ("10D", "TD"),
        ("td", "TD"),
        ("as", "AS"),
        (" kc ", "KC"),
        ("Qh", "QH"),
        ("J S".replace(" ", ""), "JS"),
    ],
)
def test_notation_is_case_insensitive_and_accepts_10(text, code):
    assert parse_card(text).code == code
    assert str(parse_card(text)) == code


def test_card_fields_and_pretty_form():
    card = parse_card("TD")
    assert (card.rank, card.suit) == (10, "D")
    assert card.pretty() == "10♦"
    assert parse_card("AS").pretty() == "A♠"
    assert parse_card("7H").pretty() == "7♥"
    assert parse_card("KC").pretty() == "K♣"
    assert Card(12, "H") == parse_card("QH")


@pytest.mark.parametrize(
    "text", ["1D", "11H", "7X", "", "7", "D7", "7♦", "AS7", "0S", "KK", None, 7]
)
def test_bad_codes_are_rejected_with_a_clear_error(text):
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert info.value.code == "bad_card"
    assert repr(text) in info.value.message
    assert isinstance(info.value, ScorerError) and isinstance(info.value, ValueError)
    assert info.value.to_json() == {"error": {"code": "bad_card", "message": info.value.message}}


def test_cards_sort_by_rank_then_suit():
    cards = parse_cards(["KD", "2C", "2S", "AH", "TD"])
    assert [c.code for c in sorted(cards)] == ["AH", "2S", "2C", "TD", "KD"]


def test_card_constructor_validates():
    with pytest.raises(CardError):
        Card(14, "S")
    with pytest.raises(CardError):
        Card(5, "X")


def test_parse_cards_rejects_duplicates_naming_the_card():
    with pytest.raises(CardError) as info:
        parse_cards(["7D", "8D", "7d"])
    assert info.value.code == "duplicate_card"
    assert "7D" in info.value.message
    assert [c.code for c in parse_cards("AS 10H kd")] == ["AS", "TH", "KD"]


def test_import_scorer_uses_the_standard_library_only():
    """Issue 2: `import scorer` must work with the standard library alone."""
    code = (
        "import sys, scorer, scorer.cli;"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'torch', 'cv2', 'flask', 'ultralytics', 'onnxruntime')];"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
