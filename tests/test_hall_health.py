"""Sync health on the director's page, on a real PostgreSQL event database (issue 18 item 7):
each synced table's last sync, stalled, in conflict or refused syncs with what to do, and the
times of table databases (naive UTC in SQLite) stored and shown right."""

from __future__ import annotations

import shutil
from datetime import UTC, timedelta

import hall_helpers
import pytest
from hall_helpers import (
    PLAYER_A,
    PLAYER_B,
    PNG_DATA_URL,
    director_client,
    new_table,
    play_hand,
    stream,
)

from scorer import parse_card
from webui.hall import create_hall_app, local_time
from webui.hall.health import SyncState, table_health
from webui.hall.sync import SyncConflict, linked_tables, open_store, sync_once
from webui.hall.tournament import table_summary
from webui.store import Actor, commands

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures


def synced_table(tmp_path, pg_url):
    """A table database in ``tmp_path/t`` with one hand played and synced once: (event store,
    table store, table id, its copy's id in the event database)."""
    central = open_store(pg_url)
    (tmp_path / "t").mkdir()
    local = open_store(f"sqlite:///{tmp_path / 't' / 'table.sqlite3'}")
    table = new_table(local, "Synced", "Ann", "Bob")
    play_hand(local, table, "A")
    sync_once(local, central)
    (mirror,) = linked_tables(central)
    return central, local, table, mirror


def summaries(client) -> dict[int, dict]:
    return {t["id"]: t for t in client.get("/api/event").get_json()["tables"]}


def test_table_times_are_stored_as_utc_and_shown_in_local_time_with_the_zone(tmp_path, pg_url):
    # the event database's server is on New York time: a naive SQLite time read as that
    # zone would be 5 hours late
    hall_helpers._admin(pg_url, f"ALTER DATABASE \"{pg_url.rsplit('/', 1)[1]}\" "
                        "SET timezone = 'America/New_York'")
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    table = new_table(local, "Table 1")
    play_hand(local, table, "A")
    central = open_store(pg_url)
    sync_once(local, central)
    (mirror,) = linked_tables(central)
    written = [e.created_at for e in local.events(table)]
    assert all(w.tzinfo is None for w in written)  # SQLite keeps utcnow() without its zone
    stored = [e.created_at for e in central.events(mirror)]
    assert [s.astimezone(UTC) for s in stored] == [w.replace(tzinfo=UTC) for w in written]

    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall"),
                           "TIMEZONE": "Europe/Paris"})
    client = director_client(app)
    last = written[-1].replace(tzinfo=UTC)
    shown = local_time(last, "%H:%M:%S", zone="Europe/Paris")
    assert shown.endswith((" CET", " CEST")) and shown[:8] != last.strftime("%H:%M:%S")
    row = summaries(client)[mirror]
    assert row["last_at"] == last.isoformat()
    page = client.get("/").get_data(as_text=True)
    assert f"at {shown}" in page and " UTC" not in page


def test_sync_health_last_sync_stalled_conflict_and_refused_with_what_to_do(tmp_path, pg_url):
    central, local, table, mirror = synced_table(tmp_path, pg_url)
    direct = new_table(central, "Direct", "Cy", "Di")
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    client = director_client(app)

    rows = summaries(client)
    assert rows[direct]["sync"]["state"] == "direct"
    assert rows[mirror]["sync"]["state"] == "ok" and rows[mirror]["sync"]["synced_at"]
    assert "sync ok, last " in client.get("/").get_data(as_text=True)

    # no sync for 10 minutes while the match goes on: stalled, with what to do
    # the director's page model (typed), not its JSON
    models = [table_summary(central, tid, tid == mirror) for tid in (direct, mirror)]
    health = table_health(central, models)
    synced_at = health[mirror].synced_at
    later = table_health(central, models, now=synced_at + timedelta(minutes=10))
    assert later[mirror].state is SyncState.STALLED and later[direct].state is SyncState.DIRECT
    assert "no sync for 10 min while its match is still being played" in later[mirror].problem
    assert "gintray sync" in later[mirror].todo
    stalled_app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall"),
                                   "STALL_MINUTES": 0})
    page = director_client_again(stalled_app).get("/").get_data(as_text=True)
    assert "Sync problems" in page and "sync stalled" in page and "What to do:" in page

    # the event database's copy was written into (past its guard): the sync stops, and says so
    hall_helpers._admin(pg_url, "ALTER TABLE events DISABLE TRIGGER gintray_hall_mirror_guard")
    central.execute(mirror, commands.set_knock_card(1, 2, parse_card("5H")), Actor("director"))
    hall_helpers._admin(pg_url, "ALTER TABLE events ENABLE TRIGGER gintray_hall_mirror_guard")
    play_hand(local, table, "B")
    with pytest.raises(SyncConflict):
        sync_once(local, central)
    sync = summaries(client)[mirror]["sync"]
    assert sync["state"] == "conflict" and sync["unsynced"] > 0
    assert sync["problem"].startswith("sync stopped: table")
    assert "nothing was merged" in sync["todo"]
    page = client.get(f"/tables/{mirror}").get_data(as_text=True)
    assert "Sync: conflict" in page and "What to do:" in page


def test_a_refused_table_database_shows_until_the_table_syncs_again(tmp_path, pg_url):
    central, local, table, mirror = synced_table(tmp_path, pg_url)
    local.engine.dispose()
    shutil.copytree(tmp_path / "t", tmp_path / "copy")
    copy = open_store(f"sqlite:///{tmp_path / 'copy' / 'table.sqlite3'}")
    with pytest.raises(SyncConflict):
        sync_once(copy, central)
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    client = director_client(app)
    sync = summaries(client)[mirror]["sync"]
    assert sync["state"] == "refused" and "is a copy of table database" in sync["problem"]
    assert "--adopt" in sync["todo"]
    sync_once(local, central)  # the original syncs on
    assert summaries(client)[mirror]["sync"]["state"] == "ok"
    assert stream(central, mirror) == stream(local, table)


def director_client_again(app):
    """A client of a second hall app on the same event database (password already set)."""
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    csrf = hall_helpers.csrf_of(page)
    r = client.post("/login", data={"password": hall_helpers.PASSWORD, "csrf_token": csrf})
    assert r.status_code in (302, 303), r.status_code
    return client


def test_status_board_shows_which_tables_still_play_and_their_sync(tmp_path, pg_url):
    central = open_store(pg_url)
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    synced = new_table(local, "Synced", "Ann", "Bob")
    play_hand(local, synced, "A")
    sync_once(local, central)
    (mirror,) = linked_tables(central)
    over = new_table(central, "Over", "Cy", "Di")
    for _ in range(9):  # three games of three gins: Cy wins the match
        play_hand(central, over, "A", gin=True)
    for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):  # and both sign its last game
        central.execute(over, commands.sign(3, player, PNG_DATA_URL), actor)
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall"),
                           "STALL_MINUTES": 0})
    client = director_client(app)
    r = client.get("/board")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert f"<strong>1</strong> of 2 table(s) still playing: {mirror}." in page
    assert "match over: Cy" in page and 'http-equiv="refresh"' in page
    assert "sync stalled" in page and "What to do:" in page
    assert "/board" in client.get("/").get_data(as_text=True)
