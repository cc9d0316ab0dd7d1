"""Issue 38, event day as a director runs it: a table computer reused from an earlier event,
``--adopt`` on a copy of a live station, an undone pairing at the table apps, the draw from the
registration list. A real PostgreSQL event database per event, table apps on SQLite."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hall_helpers
import pytest
from hall_helpers import _admin, new_table, play_hand, stream, win_match

from webui.common.membership import archived_events, current_tables, held_event
from webui.hall import stations
from webui.hall.cli import sync_main
from webui.hall.joining import OtherEvent
from webui.hall.sync import linked_tables, open_store, sync_once
from webui.store import Store

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


@pytest.fixture
def earlier_event(pg_server: str) -> Iterator[str]:
    """The event database of an earlier event (another database on the same server)."""
    name = f"earlier_{uuid.uuid4().hex[:10]}"
    _admin(pg_server, f'CREATE DATABASE "{name}"')
    yield f"{pg_server.rsplit('/', 1)[0]}/{name}"
    _admin(pg_server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def url_of(store: Store) -> str:
    return store.engine.url.render_as_string(hide_password=False)


def post(client: Any, path: str, **data: Any) -> str:
    r = client.post(path, data={**data, "csrf_token": client.csrf}, follow_redirects=True)
    assert r.status_code == 200, (path, r.status_code)
    return r.get_data(as_text=True)


# 1. a table computer reused from an earlier event -----------------------------------------------

def test_a_table_app_from_an_earlier_event_is_refused_until_it_joins(hall, earlier_event,
                                                                      tmp_path, capsys):
    _app, client, central = hall
    folder = tmp_path / "table"
    folder.mkdir()
    local_url = f"sqlite:///{folder / 'gintray.sqlite3'}"
    local = open_store(local_url)
    old = open_store(earlier_event)
    ben = new_table(local, "Round 1 Table 1", "Ben", "Cy")
    win_match(local, ben, "A")  # Ben won a match at the earlier event
    sync_once(local, old)
    old_stream = stream(local, ben)

    # syncing it to the new event is refused, and nothing reaches the new event
    with pytest.raises(OtherEvent) as refused:
        sync_once(local, central)
    words = str(refused.value)
    assert "this table app holds event" in words and "join event" in words
    assert f'"{old.engine.url.database}"' in words and f'"{central.engine.url.database}"' in words
    assert central.tables() == [] and stations.station_numbers(central) == []
    event = client.get("/api/event").get_json()
    assert event["standings"] == []
    assert any("this table app holds event" in r["message"] for r in event["sync_refusals"])
    assert "this table app holds event" in client.get("/").get_data(as_text=True)
    capsys.readouterr()
    assert sync_main(["--from", local_url, "--to", url_of(central)]) == 1
    assert "join event" in capsys.readouterr().err

    # joining is the explicit step: the old event's table is archived, never deleted
    assert sync_main(["--from", local_url, "--to", url_of(central), "--join-event"]) == 0
    out = capsys.readouterr().out
    assert "left event" in out and "1 table(s) are archived" in out
    assert held_event(local).id == central.get_setting("hall_event_id")
    (left,) = archived_events(local)
    assert left.tables == (ben,) and left.event.id == old.get_setting("hall_event_id")
    assert stream(local, ben) == old_stream  # kept in the database as it was
    copy = open_store(f"sqlite:///{left.archive}")
    assert Path(left.archive).parent == folder and stream(copy, ben) == old_stream
    assert current_tables(local) == []
    assert central.tables() == [] and stations.station_numbers(central) == [1]
    assert client.get("/api/event").get_json()["standings"] == []

    # the new event's draw opens one "Round 1 Table 1" at this table app: the new one
    post(client, "/draw", entrants="Ann\nDi")
    post(client, "/draw/seat")
    sync_once(local, central)
    (table,) = current_tables(local)
    assert table.name == "Round 1 Table 1" and table.id != ben
    assert [t.name for t in central.tables()] == ["Round 1 Table 1"]
    assert set(local.state(table.id).players.values()) == {"Ann", "Di"}
    play_hand(local, table.id, "A")
    sync_once(local, central)
    rows = client.get("/api/event").get_json()["standings"]
    assert {r["name"]: r["matches_won"] for r in rows} == {"Ann": 0, "Di": 0}  # no Ben

    # and it is the new event's now: the earlier event's database refuses it
    with pytest.raises(OtherEvent):
        sync_once(local, old)
    assert len(old.tables()) == 1 and stream(old, linked_tables(old).popitem()[0]) == old_stream


def test_a_table_app_that_synced_before_events_were_recorded_is_refused_elsewhere(
        hall, earlier_event, tmp_path):
    """A table database from before this check (an origin, no event recorded) is this event's
    when the event database knows its origin, another event's when it does not."""
    _app, _client, central = hall
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    new_table(local, "Table 1", "Ben", "Cy")
    old = open_store(earlier_event)
    sync_once(local, old)
    local.settings.compare_and_set("hall_event", local.get_setting("hall_event"), None)
    sync_once(local, old)  # its own event knows it: recorded again, synced
    assert held_event(local).id == old.get_setting("hall_event_id")
    local.settings.compare_and_set("hall_event", local.get_setting("hall_event"), None)
    with pytest.raises(OtherEvent, match="synced to another event before"):
        sync_once(local, central)
    assert central.tables() == []


# 2. --adopt on a copy of a live station ---------------------------------------------------------

def test_a_copy_of_a_live_station_without_tables_cannot_be_adopted(hall, tmp_path, capsys):
    """A cloned SD card after its first sync, before the draw: the original syncs on, so
    "Adopt it" is refused with both databases named, and the original gets its round."""
    import shutil

    from webui.hall import adoption

    _app, client, central = hall
    (tmp_path / "orig").mkdir()
    orig_url = f"sqlite:///{tmp_path / 'orig' / 'gintray.sqlite3'}"
    original = open_store(orig_url)
    sync_once(original, central)  # station 1, no table yet
    shutil.copytree(tmp_path / "orig", tmp_path / "clone")
    clone_url = f"sqlite:///{tmp_path / 'clone' / 'gintray.sqlite3'}"
    assert sync_main(["--from", clone_url, "--to", url_of(central)]) == 1  # a copy: refused
    assert sync_main(["--from", clone_url, "--to", url_of(central), "--adopt"]) == 1
    sync_once(original, central)  # the original syncs on
    (asked,) = adoption.adoptions(central, adoption.AdoptionStatus.ASKED)
    page = client.get("/").get_data(as_text=True)
    assert "as station 1" in page and "it is alive" in page
    assert asked.home in page and adoption.syncing(central, asked.origin).home in page
    assert asked.home != adoption.syncing(central, asked.origin).home
    refused = post(client, f"/adoptions/{asked.id}/approve")
    assert "Not adopted: the database that syncs as this table synced" in refused
    assert "station 1 syncs from" in refused
    assert adoption.adoptions(central, adoption.AdoptionStatus.APPROVED) == []

    # the clone stays refused; the original gets round 1's table and plays it
    capsys.readouterr()
    assert sync_main(["--from", clone_url, "--to", url_of(central)]) == 1
    post(client, "/draw", entrants="Ann\nBen")
    post(client, "/draw/seat")
    sync_once(original, central)
    (table,) = original.tables()
    play_hand(original, table.id, "A")
    sync_once(original, central)
    (mirror,) = central.tables()
    assert stream(central, mirror.id) == stream(original, table.id)
