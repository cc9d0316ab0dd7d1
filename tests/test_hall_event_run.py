"""A whole event on synced table apps (issue 27): the hall seats each round at the table apps
that sync (no name typed at any table), and its clock, board and projector follow the tables
they actually play, never empty tables opened beside them. A real PostgreSQL event database,
table apps on SQLite, traffic on loopback only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hall_helpers
from flask import Flask
from hall_helpers import win_match
from webui_helpers import _shared_identity

from webui import create_app
from webui.hall.sync import sync_once
from webui.store import Store

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def table_app(data_dir: Path) -> Flask:
    """A table app with no table of its own yet (the hall seats its rounds)."""
    data_dir.mkdir(parents=True)
    _shared_identity(data_dir)
    return create_app({"DATA_DIR": str(data_dir), "START_CAMERAS": False, "TESTING": True})


def local_of(app: Flask) -> Store:
    return app.extensions["gintray"].store


def post(client: Any, path: str, **data: Any) -> Any:
    return client.post(path, data={**data, "csrf_token": client.csrf}, follow_redirects=True)


def ev(client: Any) -> dict[str, Any]:
    return client.get("/api/event").get_json()


def test_rounds_are_pushed_to_synced_table_apps_and_the_clock_follows_them(hall, tmp_path):
    _app, client, central = hall
    apps = [table_app(tmp_path / f"app{i}") for i in (1, 2)]
    stores = [local_of(a) for a in apps]
    for store in stores:  # each table app syncs once before the event: stations 1 and 2
        sync_once(store, central)

    post(client, "/draw", entrants="Ann\nBen\nCy\nDi")
    page = post(client, "/draw/seat").get_data(as_text=True)
    assert "tables 1, 2 sent to their table apps" in page
    assert central.tables() == []  # nothing opened beside the table apps
    post(client, "/round", number=1, minutes=60)
    clock = ev(client)["round"]
    assert clock["table_count"] == 2 and len(clock["waiting"]) == 2

    for store in stores:
        sync_once(store, central)
    for store in stores:  # each table app opened round 1's table with the drawn names
        (table,) = store.tables()
        assert table.name.startswith("Round 1 Table ")
    drawn = {frozenset(s.state(1).players.values()) for s in stores}
    pairs = {frozenset((p["A"], p["B"])) for p in ev(client)["draw"]["pairs"]}
    assert drawn == pairs
    screen = apps[0].test_client().get("/t/1/screen").get_data(as_text=True)
    first = stores[0].state(1).players
    assert f"Round 1: {first['A']} vs {first['B']}" in screen
    assert len(central.tables()) == 2
    clock = ev(client)["round"]
    assert (len(clock["playing"]), clock["table_count"], clock["waiting"]) == (2, 2, [])

    for store in stores:  # seat A wins every match; the table apps sync the results
        win_match(store, 1, "A")
        sync_once(store, central)
    clock = ev(client)["round"]
    assert clock["playing"] == [] and clock["table_count"] == 2
    assert "every match is over and signed" in client.get("/").get_data(as_text=True)

    post(client, "/pairing")
    pairing = ev(client)["pairing"]
    post(client, f"/pairing/{pairing['id']}/approve")
    assert len(central.tables()) == 2  # no ghost tables: round 2 waits for the table apps
    post(client, "/round", number=2, minutes=60)
    assert ev(client)["round"]["table_count"] == 2
    assert "Sent to the table apps, not synced back yet" in client.get("/").get_data(
        as_text=True)

    for store in stores:
        sync_once(store, central)
    assert len(central.tables()) == 4
    for store, pair in zip(stores, pairing["pairs"], strict=True):
        assert store.state(2).players == {"A": pair["A"]["name"], "B": pair["B"]["name"]}
    clock = ev(client)["round"]
    assert (len(clock["playing"]), clock["table_count"], clock["waiting"]) == (2, 2, [])
    board = client.get("/board").get_data(as_text=True)
    assert "Round 2 Table 1" in board

    # the finished round-1 screen moves on to round 2's table, named, with no typing
    screen = apps[0].test_client().get("/t/1/screen", follow_redirects=True)
    a, b = pairing["pairs"][0]["A"]["name"], pairing["pairs"][0]["B"]["name"]
    assert f"Round 2: {a} vs {b}" in screen.get_data(as_text=True)
    projector = client.get("/projector/live").get_data(as_text=True)
    assert "2 of 2 table(s) still playing" in projector and a in projector

    win_match(stores[0], 2, "B")  # one round-2 match over: the clock says so
    sync_once(stores[0], central)
    clock = ev(client)["round"]
    assert len(clock["playing"]) == 1 and clock["table_count"] == 2
    rows = {r["name"]: r for r in ev(client)["standings"]}
    assert rows[b]["matches_won"] == 2 and rows[b]["matches"] == 2
