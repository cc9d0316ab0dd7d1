"""Issue 15 item 12: what players read is words, never JSON, problem codes or UTC stamps."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

from webui_helpers import KNOCK_B, KNOCK_MELDS_A, Tablet, make_app

from scorer import parse_card
from vision.table.notes import NoteKind, Problem
from webui.common import words
from webui.common.proposal_form import parse_proposal
from webui.store import Actor, commands

RAW = re.compile(r'\{["\']|_card[:_]|wrong_card_count|doubtful_card|\(player [AB]\)')

CAMERA_NOTES = [
    Problem(NoteKind.WRONG_CARD_COUNT, player="B", count=9, expected=(10,)),
    Problem(NoteKind.DOUBTFUL_CARD, player="B", cards=(parse_card("7S"),),
            alternative=parse_card("7C")),
    Problem(NoteKind.UNCERTAIN_CARD, player="B", cards=(parse_card("4H"),), share=0.4),
    Problem(NoteKind.DUPLICATE_CARD, player="B", other_player="A", cards=(parse_card("QD"),)),
    Problem(NoteKind.LAYOFF_NOT_ON_MELD, player="A", cards=(parse_card("8D"),)),
    Problem(NoteKind.UP_CARD_UNKNOWN),
]
# the same notes as readers wrote them before notes were typed (kept in old databases)
OLD_CAMERA_NOTES = [
    "wrong_card_count: player B has 9 cards, expected 10",
    "doubtful_card: 7S may be 7C (player B)",
    "uncertain_card: 4H in B's area is seen in only 40% of recent frames",
    "duplicate_card: QD is in both A's and B's spread",
    "layoff_not_on_meld: 8D lies apart from A's melds",
    "up_card_unknown: the deal was not seen; enter the knock card",
]


def camera_proposal(app, problems, cards_b=KNOCK_B):
    store = app.extensions["gintray"].store
    hand = store.state(1).current_hand()
    store.execute(1, commands.set_knock_card(hand.game, hand.number, parse_card("9H")),
                  Actor("camera"))
    proposal = parse_proposal({"kind": "score", "knocker": "A",
                                        "cards": {"A": "5S", "B": " ".join(cards_b)},
                                        "melds": {"A": KNOCK_MELDS_A}})
    proposal = replace(proposal, problems=tuple(problems))
    store.execute(1, commands.propose(hand.game, hand.number, proposal, source="camera",
                                      strict=False), Actor("camera"))


def test_the_cameras_notes_are_sentences_on_the_tablet(app, tablet):
    camera_proposal(app, CAMERA_NOTES)
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert not RAW.search(panel), RAW.search(panel)
    assert "The camera sees 9 of Ben&#39;s cards (10 expected): it may have missed a card" \
        in panel
    assert "The camera is unsure of 7♠ in Ben&#39;s cards: it may be 7♣." in panel
    assert "The camera did not see the deal: enter the knock card." in panel


def test_notes_kept_as_text_by_old_readers_read_as_the_same_sentences():
    """A database written before notes were typed holds them as text: they read as the
    typed notes do."""
    names = {"A": "Ann", "B": "Ben"}
    assert [Problem.from_json(n) for n in OLD_CAMERA_NOTES] == CAMERA_NOTES
    assert words.problem_sentences(OLD_CAMERA_NOTES, names) == words.problem_sentences(
        [p.to_json() for p in CAMERA_NOTES], names)


def test_each_note_reads_as_a_sentence_naming_its_cards_and_player():
    names = {"A": "Ann", "B": "Ben"}
    said = [words.problem_sentence(p, names) for p in CAMERA_NOTES]
    assert said == [
        "The camera sees 9 of Ben's cards (10 expected): it may have missed a card.",
        "The camera is unsure of 7♠ in Ben's cards: it may be 7♣.",
        "The camera saw 4♥ in Ben's cards only now and then (40% of the time): check it is "
        "there.",
        "The camera sees Q♦ in both Ann's and Ben's cards. Check the cards.",
        "A card laid off lies apart from Ann's melds: 8♦.",
        "The camera did not see the deal: enter the knock card.",
    ]


def test_a_short_hand_from_the_camera_is_said_in_words(app, tablet):
    """The engine's penalty (``{"missing_cards": 1, "points": 10}``) reached the page raw."""
    camera_proposal(app, [], cards_b=KNOCK_B[:-1])
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert "missing_cards" not in panel and not RAW.search(panel)
    assert "Ben is 1 card short (10 points): the camera may have missed a card" in panel


def test_history_is_sentences_in_local_time(app, tablet, monkeypatch):
    tablet.play_manual_hand("A", 22)
    store = app.extensions["gintray"].store
    created = store.events(1)[-1].created_at
    page = tablet.client.get("/t/1/history").get_data(as_text=True)
    assert "UTC)" not in page and "{&#34;" not in page and '{"' not in page
    assert not re.search(r"&#34;\w+&#34;:", page)
    assert "result of hand 1 of game 1 entered: Ann scores 22 (entered by hand)" in page
    assert "Ben confirmed hand 1 of game 1" in page
    assert "Ben&#39;s tablet (tablet B)" in page
    assert "knock card of hand 1 entered: 9♥" in page
    assert words.local_time(created) in page


def test_local_time_says_its_zone():
    moment = datetime(2026, 11, 23, 17, 5, 9, tzinfo=UTC)
    assert words.local_time(moment, zone="Europe/Berlin") == "2026-11-23 18:05:09 CET"
    assert words.local_time(moment.replace(tzinfo=None), zone="Europe/Berlin").startswith(
        "2026-11-23 18:05:09")


def test_the_history_page_uses_the_tables_time_zone(tmp_path):
    app = make_app(tmp_path, TIMEZONE="Asia/Tokyo")
    tablet = Tablet(app)
    page = tablet.client.get("/t/1/history").get_data(as_text=True)
    assert " JST" in page


def test_rules_are_named_not_dumped(tmp_path):
    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    table = store.create_table("Hollywood", {"name": "Hollywood",
                                             "players": {"A": "Ann", "B": "Ben"},
                                             "rules": {"preset": "tournament", "hollywood": True},
                                             "camera": None}, Actor("test"))
    tablet = Tablet(app, table_id=table)
    page = tablet.client.get(f"/t/{table}/sheet").get_data(as_text=True)
    assert "preset" not in page and "(Hollywood)" in page


def test_undo_names_the_knock_card_as_people_write_it(app, tablet):
    tablet.knock_card("TH")
    panel = tablet.client.get("/t/1/panel").get_data(as_text=True)
    assert "Undo the knock card 10♥ of hand 1" in panel
