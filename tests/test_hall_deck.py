"""Issue 37 item 3: the hall takes the deck profile taught at one table (or an uploaded
DECK.json) and pushes it to every table of the event through the stations' syncs; each table
app's cameras read with it and its screen names it; a bad profile is refused and loses
nothing (PostgreSQL lane)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import cv2
import hall_helpers
import pytest
from deck_helpers import card_face, card_photo
from hall_helpers import director_client
from webui_helpers import make_app

from gintray_cli import main as gintray
from vision.inference.deck import content_checksum
from vision.inference.detector import load_detector
from webui.common.event_deck import event_deck, event_deck_stamp, record_taught
from webui.hall import create_hall_app, decks
from webui.hall.audit import AuditAction, entries
from webui.hall.sync import open_store, sync_once
from webui.store import Actor
from webui.table.deck_choice import EventDeckFollower, deck_for, table_deck_file

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures

SUITS = "CDHS"


@pytest.fixture(scope="module")
def german_jacks(tmp_path_factory) -> Path:
    """A deck whose jacks say "B" taught from one photo a jack (gintray deck learn)."""
    folder = tmp_path_factory.mktemp("jacks")
    for suit in SUITS:
        assert cv2.imwrite(str(folder / f"J{suit}.png"),
                           card_photo(card_face("J" + suit, "B"), 1.0, 10.0))
    out = folder / "deck.json"
    assert gintray(["deck", "learn", str(folder), "--out", str(out)]) == 0
    return out


def table_app(folder: Path, camera: str | None = None):
    """A table app on its own SQLite database (its table 1 watching ``camera``), and that
    database as its sync opens it."""
    folder.mkdir(parents=True, exist_ok=True)
    local = open_store(f"sqlite:///{folder / 'gintray.sqlite3'}")
    local.create_table("Table 1", {"name": "Table 1", "players": {"A": "Ann", "B": "Ben"},
                                   "rules": "tournament", "camera": camera}, Actor("test"))
    return make_app(folder), local


def hall(pg_url: str, tmp_path: Path):
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    return app, director_client(app)


def flashed(page: str) -> str:
    """A page's words, as read."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def read_jack(deck: str | None) -> set[str]:
    detector = load_detector(deck=deck)
    return {d.card for d in detector.detect(card_photo(card_face("JH", "B"), 0.8, -30.0))}


def test_a_deck_taught_at_one_table_reaches_every_table(tmp_path, pg_url, german_jacks):
    footage = tmp_path / "footage"
    footage.mkdir()
    cv2.imwrite(str(footage / "frame_000.png"), card_photo(card_face("JH", "B"), 0.8, -30.0))
    first, first_db = table_app(tmp_path / "t1")
    second, second_db = table_app(tmp_path / "t2", f"replay:{footage}?fps=0")
    central = open_store(pg_url)
    sync_once(first_db, central)
    sync_once(second_db, central)
    _, director = hall(pg_url, tmp_path)
    assert "No table app has brought up a taught deck yet" in director.get("/deck").get_data(
        as_text=True)
    # the first table is taught its deck (as its calibration page records it) and syncs
    saved = table_deck_file(Path(first.config["DATA_DIR"]), 1)
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(german_jacks.read_text())
    record_taught(first_db, 1, saved.name, saved.read_text())
    sync_once(first_db, central)
    [taught] = decks.table_decks(central)
    assert (taught.table, taught.cards) == ("Table 1", 4)
    r = director.post(f"/deck/taught/{taught.id}", data={"csrf_token": director.csrf})
    assert r.status_code == 303
    page = director.get("/deck").get_data(as_text=True)
    checksum = json.loads(german_jacks.read_text())["checksum"]
    assert f'the event\'s deck "table-1.deck.json" ({checksum[:12]})' in flashed(page)
    assert "waiting for its sync" in page  # no table app holds it yet
    # the second table app, which never saw the deck, gets it at its next sync
    assert read_jack(deck_for(second, 1)) != {"JH"}  # the shipped namer never saw a "B"
    sync_once(second_db, central)
    assert event_deck(second_db).checksum == checksum
    stamp = event_deck_stamp(second_db)
    sync_once(second_db, central)  # a pass with nothing new leaves the deck held as it was
    assert event_deck_stamp(second_db) == stamp
    held = {s.station: s.holds for s in decks.station_decks(central)}
    assert held == {1: "no deck", 2: "the event's deck"}
    sync_once(first_db, central)  # the table taught has it too
    assert {s.holds for s in decks.station_decks(central)} == {"the event's deck"}
    chosen = deck_for(second, 1)
    assert chosen and Path(chosen).read_text() == german_jacks.read_text()
    assert read_jack(chosen) == {"JH"}  # reads the jack printed "B" as taught at table 1
    # its camera (running before the push) is restarted with it, and its screen names it
    camera = second.extensions["gintray"].cameras
    from webui.table.camera_feed import start_camera

    start_camera(second, 1)
    camera[1].deck = None  # as it ran before the deck was pushed
    assert EventDeckFollower(second).check() == [1]
    feed = camera[1]
    feed.thread.join(timeout=300)
    words = f'the event\'s deck "table-1.deck.json" ({checksum[:12]}) from the hall'
    assert feed.status()["deck"].startswith(words)
    assert EventDeckFollower(second).check() == []  # nothing changed since
    assert any(e.action is AuditAction.DECK and "pushed" in e.detail for e in entries(central))


def test_a_table_taught_after_the_push_reads_its_own_and_a_withdrawn_deck_goes(
        tmp_path, pg_url, german_jacks):
    table, local = table_app(tmp_path / "t")
    central = open_store(pg_url)
    decks.push(central, german_jacks.read_text(), "spring.json", "uploaded", "director")
    sync_once(local, central)
    assert Path(deck_for(table, 1)).parts[-3:-1][0] == "event-decks"
    own = table_deck_file(Path(table.config["DATA_DIR"]), 1)
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(german_jacks.read_text())  # taught here after the push arrived
    assert deck_for(table, 1) == str(own)
    own.unlink()
    _, director = hall(pg_url, tmp_path)
    r = director.post("/deck/withdraw", data={"csrf_token": director.csrf},
                      follow_redirects=True)
    assert "Withdrew the event's deck" in flashed(r.get_data(as_text=True))
    sync_once(local, central)
    assert event_deck(local) is None and deck_for(table, 1) is None  # the shipped models
    r = director.post("/deck/withdraw", data={"csrf_token": director.csrf},
                      follow_redirects=True)
    assert "Not withdrawn: the event has no deck to withdraw" in flashed(
        r.get_data(as_text=True))


def edited(text: str) -> str:
    data = json.loads(text)
    data["bias"][0] += 1.0  # one number changed, the checksum kept
    return json.dumps(data)


def other_namer(text: str) -> str:
    data = json.loads(text)
    data.pop("checksum")
    data["namer_sha256"] = "0" * 64
    return json.dumps({**data, "checksum": content_checksum(data)})


def test_a_bad_profile_is_refused_and_the_event_keeps_its_deck(tmp_path, pg_url,
                                                               german_jacks):
    _, director = hall(pg_url, tmp_path)
    table, local = table_app(tmp_path / "t")
    central = open_store(pg_url)
    good = german_jacks.read_text()

    def upload(name: str, body: bytes):
        import io

        return director.post("/deck/upload", data={
            "csrf_token": director.csrf, "profile": (io.BytesIO(body), name)},
            content_type="multipart/form-data", follow_redirects=True)

    assert upload("spring.json", good.encode()).status_code == 200
    before = event_deck(central)
    assert before is not None and before.name == "spring.json"
    sync_once(local, central)
    bad = {"edited.json": (edited(good).encode(), "does not match its checksum"),
           "layout.json": (b'{"markers": []}', "is not a gintray deck profile"),
           "photo.jpg": (b"\xff\xd8\xff\xe0 not text", "not a gintray deck profile"),
           "cut.json": (good[: len(good) // 2].encode(), "not readable JSON"),
           "old.json": (other_namer(good).encode(), "taught with another namer")}
    for name, (body, why) in bad.items():
        page = flashed(upload(name, body).get_data(as_text=True))
        assert "Not pushed: " in page and why in page, (name, page[:2000])
        assert "the event keeps its deck" in page, name
        assert event_deck(central) == before, name  # nothing changed
    sync_once(local, central)
    assert event_deck(local).checksum == before.checksum
    assert Path(deck_for(table, 1)).read_text() == good
    r = director.post("/deck/upload", data={"csrf_token": director.csrf},
                      content_type="multipart/form-data", follow_redirects=True)
    assert "choose a deck profile file" in r.get_data(as_text=True)
    pushes = [e for e in entries(central) if e.action is AuditAction.DECK]
    assert len(pushes) == 1  # the refused ones are not audited as pushed


def test_only_the_director_pushes_a_deck(tmp_path, pg_url, german_jacks):
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    client = app.test_client()
    assert client.get("/deck").status_code in (302, 401, 403)
    r = client.post("/deck/withdraw")
    assert r.status_code in (302, 400, 401, 403)
    assert event_deck(open_store(pg_url)) is None
