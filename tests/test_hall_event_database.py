"""A table app pointed at the event database (issue 18 item 3), on a real PostgreSQL: the
event database is recognised as such (so the table app can refuse to start), synced tables'
copies do not carry the table's real PIN, and nothing but the table's own sync can write into
them, so the real table keeps syncing."""

from __future__ import annotations

import hall_helpers
import pytest
from hall_helpers import confirmed_hands, new_table, play_hand, stream
from sqlalchemy.exc import DBAPIError

from scorer import parse_card
from webui.hall import create_hall_app
from webui.hall.guard import (
    EventDatabaseRefused,
    event_database_info,
    is_event_database,
    refuse_event_database,
)
from webui.hall.sync import linked_tables, open_store, sync_once
from webui.store import Actor, Store, commands

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures
empty_pg_url = hall_helpers.empty_pg_url


def test_the_event_database_is_recognised_and_a_table_database_is_not(tmp_path,
                                                                   empty_pg_url):
    pg_url = empty_pg_url  # no tables at all: the sync below creates them
    assert not is_event_database(pg_url)  # a fresh PostgreSQL database may be anything yet
    missing = tmp_path / "nothing.sqlite3"
    assert not is_event_database(f"sqlite:///{missing}") and not missing.exists()
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    play_hand(local, new_table(local, "Table 1"), "A")
    sync_once(local, open_store(pg_url))
    assert not is_event_database(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    assert event_database_info(pg_url).mirrored == 1
    for url in (pg_url, pg_url.replace("postgresql://", "postgresql+psycopg://")):
        assert is_event_database(url)
        with pytest.raises(EventDatabaseRefused) as refused:
            refuse_event_database(url)
        message = str(refused.value)
        assert "is the event database of a tournament hall" in message
        assert "gintray sync --from" in message and "gintray hall --database-url" in message
    refuse_event_database(f"sqlite:///{tmp_path / 'table.sqlite3'}")  # no refusal


def test_an_event_database_the_hall_opened_is_recognised_before_any_sync(tmp_path, pg_url):
    assert not is_event_database(pg_url)  # the apps' tables, no rows: not an event yet
    create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    assert is_event_database(pg_url) and event_database_info(pg_url).mirrored == 0


def test_a_table_app_on_the_event_database_cannot_fork_a_synced_table(tmp_path, pg_url):
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    table = new_table(local, "Table 1", "Ann", "Bob")
    play_hand(local, table, "A")
    central = open_store(pg_url)
    sync_once(local, central)
    (mirror,) = linked_tables(central)
    # what `gintray serve --database-url <event db>` runs: the table app's own Store
    table_app = Store(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    assert table_app.table(mirror).pin != local.table(table).pin  # the real PIN stays home
    before = stream(central, mirror)
    with pytest.raises(DBAPIError, match="only its gintray sync writes here"):
        table_app.execute(mirror, commands.set_knock_card(1, 2, parse_card("5H")),
                          Actor("device:x", 9))
    assert stream(central, mirror) == before
    play_hand(local, table, "B")
    report = sync_once(local, central)  # was SyncConflict: the real table keeps syncing
    assert report.uploaded > 0
    assert stream(central, mirror) == stream(local, table)
    assert confirmed_hands(central, mirror) == confirmed_hands(local, table)
    # a table opened on the event database itself (a direct table) still scores there
    direct = new_table(table_app, "Direct", "Cy", "Di")
    play_hand(table_app, direct, "A")
    assert len(confirmed_hands(central, direct)) == 1
