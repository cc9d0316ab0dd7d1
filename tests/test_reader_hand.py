"""The reader follows a whole hand: knock card on the deal, spreads, layoffs, the next hand."""

from __future__ import annotations

from reader_helpers import (
    A_LOOSE,
    A_RUN,
    A_SET,
    B_LAYOFF,
    B_LOOSE,
    B_RUN,
    B_SET,
    defender_spread,
    knocker_spread,
    laid_card,
    table_layout,
    up_card_in_tray,
)

from scorer import parse_card, parse_cards
from vision.table.events import HandDealt, SpreadRead, TableRead
from vision.table.notes import NoteKind, Problem
from vision.table.reader import TableReader


def _play(frames, reader=None):
    reader = reader or TableReader(detector=None, layout=table_layout(), stable_frames=3)
    events = []
    for dets in frames:
        events += reader.feed_detections(dets)
    return reader, events


def _hand_frames():
    empty: list = []
    return (
        [empty] * 3
        + [up_card_in_tray("7D")] * 4  # the deal: 7D alone in the slot, spread areas empty
        + [up_card_in_tray("KS")] * 4  # play: discards cover the up card
        + [up_card_in_tray("2H")] * 4
        + [up_card_in_tray("2H") + knocker_spread()] * 5  # A knocks and spreads
        + [up_card_in_tray("2H") + knocker_spread() + defender_spread()] * 5  # B spreads
        + [up_card_in_tray("2H") + knocker_spread(True) + defender_spread()] * 5  # B lays off 9H
    )


def test_up_card_is_recorded_once_and_not_changed_by_discards():
    _, events = _play(_hand_frames())
    dealt = [e for e in events if isinstance(e, HandDealt)]
    assert [e.up_card.code for e in dealt] == ["7D"]
    tables = [e for e in events if isinstance(e, TableRead)]
    assert tables and all(t.up_card.code == "7D" for t in tables)


def test_up_card_needs_several_stable_frames():
    flicker = [up_card_in_tray("7D"), up_card_in_tray("7D"), up_card_in_tray("7S")] * 3
    _, events = _play(flicker)
    assert not [e for e in events if isinstance(e, HandDealt)]


def test_up_card_is_not_recorded_while_spreads_lie_on_the_table():
    """A card in the slot next to laid-down spreads is a discard, not a fresh deal."""
    _, events = _play([up_card_in_tray("7D") + knocker_spread()] * 6)
    assert not [e for e in events if isinstance(e, HandDealt)]


def test_spreads_are_grouped_and_the_layoff_goes_to_the_defender():
    _, events = _play(_hand_frames())
    final = [e for e in events if isinstance(e, TableRead)][-1]
    assert final.knocker == "A"
    a, b = final.spreads["A"].to_json(), final.spreads["B"].to_json()  # as codes
    assert a["groups"] == [A_RUN, A_SET] and sorted(a["loose"]) == sorted(A_LOOSE)
    assert a["layoffs"] == []
    assert parse_card(B_LAYOFF) not in final.spreads["A"].cards
    assert sorted(map(sorted, b["groups"])) == sorted([sorted(B_SET), sorted(B_RUN)])
    assert sorted(b["loose"]) == sorted(B_LOOSE)
    assert b["layoffs"] == [B_LAYOFF]
    assert final.problems == []
    assert len(final.hands()["A"]) == 10 and len(final.hands()["B"]) == 10
    first = next(e for e in events if isinstance(e, TableRead))
    assert first.spreads["B"].layoffs == [] and len(first.spreads["B"].cards) == 9
    assert Problem(NoteKind.WRONG_CARD_COUNT, player="B", count=9, expected=(10,)) \
        in first.problems


def test_spread_events_come_per_player_when_their_reading_settles():
    _, events = _play(_hand_frames())
    spreads = [(e.player, len(e.cards)) for e in events if isinstance(e, SpreadRead)]
    assert spreads == [("A", 10), ("B", 9), ("B", 10)]


def test_next_hand_starts_after_the_table_is_cleared():
    reader, _ = _play(_hand_frames())
    _, events = _play([[]] * 8 + [up_card_in_tray("AS")] * 4, reader)
    assert [e.up_card.code for e in events if isinstance(e, HandDealt)] == ["AS"]


def test_a_hand_covering_the_spread_for_a_moment_changes_nothing():
    frames = _hand_frames()
    full = up_card_in_tray("2H") + knocker_spread(True) + defender_spread()
    covered = [d for d in full if d.box[0] > 400]  # a hand hides the left part of the table
    reader, _ = _play(frames)
    _, later = _play([covered] * 2 + [full] * 5, reader)
    assert not [e for e in later if isinstance(e, TableRead)]  # the settled read still stands


def test_a_card_misread_in_single_frames_never_enters_the_read():
    clean = up_card_in_tray("2H") + knocker_spread(True) + defender_spread()
    misread = [d if d.card != "6H" else type(d)("9H" if i % 2 else "6D", d.box, d.confidence)
               for i, d in enumerate(clean)]
    frames = _hand_frames() + [clean, clean, misread] * 4
    _, events = _play(frames)
    final = [e for e in events if isinstance(e, TableRead)][-1]
    assert final.spreads["A"].groups[0] == parse_cards(A_RUN)


def test_a_low_confidence_spread_reports_missing_cards_instead_of_inventing():
    """Glare wipes out two of the knocker's cards for good: counts are reported as a problem."""
    glare = [d for d in knocker_spread() if d.card not in {"2C", "AD"}]
    frames = ([[]] * 2 + [up_card_in_tray("7D")] * 4
              + [glare] * 5 + [glare + defender_spread() + laid_card(B_LAYOFF, 144, 620)] * 5)
    _, events = _play(frames)
    final = [e for e in events if isinstance(e, TableRead)][-1]
    assert Problem(NoteKind.WRONG_CARD_COUNT, player="A", count=8, expected=(10, 11)) \
        in final.problems


def test_a_reader_started_mid_hand_does_not_take_the_discard_for_the_knock_card():
    frames = [up_card_in_tray("KS")] * 6 + [[]] * 3 + [up_card_in_tray("7D")] * 4
    _, events = _play(frames)
    assert [e.up_card.code for e in events if isinstance(e, HandDealt)] == ["7D"]
