"""Issue 38, event day as a director runs it: a table computer reused from an earlier event,
``--adopt`` on a copy of a live station, an undone pairing at the table apps, the draw from the
registration list. A real PostgreSQL event database per event, table apps on SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hall_helpers
import pytest
from hall_helpers import new_table, play_hand, stream, win_match

from webui.common.membership import archived_events, current_tables, held_event
from webui.hall import stations
from webui.hall.cli import sync_main
from webui.hall.joining import OtherEvent
from webui.hall.sync import linked_tables, open_store, sync_once
from webui.store import Store

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall
earlier_event = hall_helpers.earlier_event


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


# 3. an undone pairing reaches the tables ---------------------------------------------------------

def _stations(client: Any, central: Store, tmp_path: Path, count: int) -> list[Any]:
    from test_hall_whole_event import table_app

    apps = [table_app(tmp_path / f"table{n}") for n in range(1, count + 1)]
    for a in apps:
        sync_once(a.extensions["gintray"].store, central)
    return apps


def _round_table(store: Store, number: int) -> int | None:
    from webui.common.seating import seating_of

    found = [t.id for t in store.tables()
             if (s := seating_of(store, t.id)) is not None and s.round == number]
    return found[-1] if found else None


def _play_round_one(client: Any, central: Store, stores: list[Store]) -> None:
    post(client, "/draw", entrants="Ann\nBen\nCy\nDi")
    post(client, "/draw/seat")
    for store in stores:
        sync_once(store, central)
        win_match(store, _round_table(store, 1), "A")
        sync_once(store, central)


def _last_sync_ago(central: Store, store: Store, seconds: int) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from webui.hall.schema import OriginSeen, TableSync
    from webui.store.db import utcnow

    then = utcnow() - timedelta(seconds=seconds)
    mirrors = [t for t, link in linked_tables(central).items()
               if link.origin == store.get_setting("hall_origin")]
    with central.Session() as s:
        s.execute(update(OriginSeen).where(OriginSeen.origin == store.get_setting(
            "hall_origin")).values(synced_at=then))
        s.execute(update(TableSync).where(TableSync.table_id.in_(mirrors))
                  .values(synced_at=then))
        s.commit()


def test_an_undone_pairing_reaches_the_tables_and_a_hand_played_is_kept_and_said(hall,
                                                                                  tmp_path):
    _app, client, central = hall
    apps = _stations(client, central, tmp_path, 2)
    one, two = (a.extensions["gintray"].store for a in apps)
    _play_round_one(client, central, [one, two])
    post(client, "/pairing")
    pairing = client.get("/api/event").get_json()["pairing"]
    post(client, f"/pairing/{pairing['id']}/approve")
    sync_once(one, central)
    sync_once(two, central)
    first, second = _round_table(one, 2), _round_table(two, 2)
    assert first and second

    # table app 2 went quiet after opening its table: it may have played, the undo is refused
    _last_sync_ago(central, two, 300)
    page = post(client, f"/pairing/{pairing['id']}/undo")
    assert "Not undone: table app 2 opened Round 2 Table 2 and last synced 300 s ago" in page
    assert client.get("/api/event").get_json()["pairing"]["status"] == "approved"

    # table app 1 confirms a hand while its sync is briefly down; table app 2 syncs again:
    # the hall has heard from both lately, the undo goes through
    play_hand(one, first, "A")
    sync_once(two, central)
    assert "Round 2 pairing undone" in post(client, f"/pairing/{pairing['id']}/undo")
    event = client.get("/api/event").get_json()
    undone = [t for t in event["tables"] if t["undone"]]
    assert len(undone) == 2 and not any(t["playing"] for t in undone)
    board = client.get("/board").get_data(as_text=True)
    assert "Round 2 Table" not in board  # undone tables leave the board

    # the tables are told at their next sync: the screen stops sending players there
    screen = apps[0].test_client().get(f"/t/{first}/screen").get_data(as_text=True)
    assert "Round 2:" in screen and 'id="pin"' in screen  # not told yet
    sync_once(one, central)
    screen = apps[0].test_client().get(f"/t/{first}/screen").get_data(as_text=True)
    assert "The director undid this pairing" in screen and 'id="pin"' not in screen
    sync_once(two, central)
    screen = apps[1].test_client().get(f"/t/{second}/screen").get_data(as_text=True)
    assert "The director undid this pairing" in screen
    # the hand played meanwhile is kept and said so, never silently dropped
    event = client.get("/api/event").get_json()
    (mine,) = [t for t in event["tables"] if t["undone"] and t["undone"]["hands"]]
    assert mine["undone"]["told_at"] and not mine["playing"]
    (left,) = [t for t in event["standings_left_out"] if t["table"] == mine["id"]]
    assert "after 1 hand(s) were recorded there" in left["reason"] and "kept" in left["reason"]
    assert "before it learned that its pairing was undone" in client.get(
        "/audit").get_data(as_text=True)
    assert event["sync_problems"] == []
    assert "Round 2 Table" not in client.get("/board").get_data(as_text=True)

    # the round paired again reaches both table apps; the undone screens move on to it
    post(client, "/pairing")
    again = client.get("/api/event").get_json()["pairing"]
    post(client, f"/pairing/{again['id']}/approve")
    sync_once(one, central)
    moved = apps[0].test_client().get(f"/t/{first}/screen")
    assert moved.status_code == 302 and moved.location.endswith(
        f"/t/{_round_table(one, 2)}/screen")


# 4. the draw takes the registration list -------------------------------------------------------

def test_the_draw_takes_the_registered_entries_and_catches_a_name_not_registered(hall,
                                                                                  tmp_path):
    _app, client, central = hall
    _stations(client, central, tmp_path, 2)
    registered = ["Ann", "Ben", "Cy", "Di", "Eve", "Finn", "Gus", "Hal"]
    assert "Entered from round 1" in post(client, "/entries", names="\n".join(registered))
    ids = {e["name"]: e["player_id"] for e in client.get("/api/event").get_json()["entries"]}
    page = post(client, f"/entries/{ids['Gus']}/withdraw")  # did not come
    assert "no-show (not drawn)" in page

    # typed with a typo: caught, nothing drawn, no 9th player
    typo = post(client, "/draw", entrants="\n".join(
        ["Fin" if n == "Finn" else n for n in registered if n != "Gus"]))
    assert "&#39;Fin&#39; is not registered (did you mean &#39;Finn&#39;?)" in typo
    event = client.get("/api/event").get_json()
    assert event["draw"] is None and len(event["entries"]) == 8
    # a registered player left out of a typed list is caught too
    left_out = post(client, "/draw", entrants="\n".join(
        n for n in registered if n not in ("Gus", "Finn")))
    assert "registered but not in this draw: Finn" in left_out
    assert client.get("/api/event").get_json()["draw"] is None

    # nothing typed: the registered players who came are drawn
    post(client, "/draw", entrants="")
    drawn = client.get("/api/event").get_json()["draw"]
    names = sorted(n for p in drawn["pairs"] for n in (p["A"], p.get("B")) if n)
    assert names == sorted(set(registered) - {"Gus"})
    assert sum(1 for p in drawn["pairs"] if p.get("bye")) == 1
    # the seat button says what it does for synced tables
    page = client.get("/").get_data(as_text=True)
    assert "Seat round 1: send tables 1–2 to the table apps, open tables 3–3 on the event " \
           "database" in page
    assert "nothing is typed at the tables" in page
    post(client, "/draw/seat")
    event = client.get("/api/event").get_json()
    assert len(event["entries"]) == 8 and "Fin" not in {e["name"] for e in event["entries"]}
    assert {r["name"] for r in event["standings"]} <= set(registered) - {"Gus"}


# 5. forfeits and byes shown right on every screen -----------------------------------------------

def test_a_forfeit_and_the_round_one_bye_are_shown_alike_everywhere(hall, tmp_path):
    _app, client, central = hall
    apps = _stations(client, central, tmp_path, 2)
    one, two = (a.extensions["gintray"].store for a in apps)
    post(client, "/entries", names="Ann\nBen\nCy\nDi\nEve")
    post(client, "/draw", entrants="")
    drawn = client.get("/api/event").get_json()["draw"]
    (bye,) = [p["A"] for p in drawn["pairs"] if p.get("bye")]
    post(client, "/draw/seat")
    post(client, "/round", number=1, minutes=60)
    sync_once(one, central)
    sync_once(two, central)
    local = _round_table(two, 1)
    (mirror,) = [t for t, link in linked_tables(central).items()
                 if link.origin == two.get_setting("hall_origin")]
    players = two.state(local).players
    page = post(client, f"/tables/{mirror}/forfeit", absent="B")
    words = f"{players['A']} wins by forfeit: {players['B']} did not show"
    assert words in page

    def shown() -> None:
        event = client.get("/api/event").get_json()
        assert [p["table"] for p in event["round"]["playing"]] != [mirror]
        assert mirror not in [p["table"] for p in event["round"]["playing"]]
        board = client.get("/board").get_data(as_text=True)
        tile = board.split(f'data-table="{mirror}">', 1)[1].split('<div class="tile', 1)[0]
        assert f"match over: {words}" in tile and "playing game" not in tile
        assert "stalled" not in tile
        assert "<strong>1</strong> of 2 table(s) still playing" in board
        live = client.get("/projector/live").get_data(as_text=True)
        assert "1 of 2 table(s) still playing" in live
        assert f"<td>bye</td><td>{bye}</td>" in live  # the draw's bye, round 1
        assert all(p["table"] != mirror for p in event["sync_problems"])

    shown()
    # the table app is told at its next sync: its screen stops waiting for a result
    screen = apps[1].test_client().get(f"/t/{local}/screen").get_data(as_text=True)
    assert "Decided by the director" not in screen
    sync_once(two, central)
    screen = apps[1].test_client().get(f"/t/{local}/screen").get_data(as_text=True)
    assert f"Decided by the director: {words}" in screen and 'id="pin"' not in screen
    # its table app goes quiet afterwards: a decided table is no sync problem
    _last_sync_ago(central, two, 600)
    shown()


# 6. smaller -----------------------------------------------------------------------------------

def test_a_second_directors_refused_correction_is_in_the_audit(hall):
    from hall_helpers import director_client_again

    app, client, central = hall
    t = new_table(central, "Direct", "Ann", "Bob")
    play_hand(central, t, "A")
    seen = central.state(t).hand(1, 1).revision
    body = {"game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 20,
            "revision": seen}
    other = director_client_again(app)
    for who, status in ((client, 200), (other, 409)):
        r = who.post(f"/tables/{t}/correct", json=body, headers={"X-CSRFToken": who.csrf})
        assert r.status_code == status
    audit = client.get("/audit").get_data(as_text=True)
    assert "correct of game 1, hand 1 refused: " in audit and "corrected since you looked" \
        in audit


# 7. the director's page at scale ---------------------------------------------------------------

def test_the_pages_refresh_reads_every_table_in_a_fixed_number_of_queries(hall):
    """The live refresh and the board fold only the tables with a new event, and read every
    table's last event in one query: their queries do not grow with the tables (they were
    two a table, 768 at 384 tables). Counted, not timed."""
    from sqlalchemy import event as sa_event

    _app, client, central = hall
    queries: list[str] = []

    def count(*args: Any) -> None:
        queries.append(args[2])

    def refresh_queries(path: str) -> int:
        client.get(path)  # folds what changed
        queries.clear()
        sa_event.listen(central.engine, "before_cursor_execute", count)
        try:
            assert client.get(path).status_code == 200
        finally:
            sa_event.remove(central.engine, "before_cursor_execute", count)
        return len(queries)

    for n in range(2):
        play_hand(central, new_table(central, f"Table {n + 1}"), "A")
    few = {p: refresh_queries(p) for p in ("/live", "/board", "/")}
    for n in range(2, 12):
        play_hand(central, new_table(central, f"Table {n + 1}"), "B")
    many = {p: refresh_queries(p) for p in ("/live", "/board", "/")}
    assert many == few, (few, many)
    # a new event at one table is folded: the page shows it
    table = central.tables()[0].id
    play_hand(central, table, "B")
    (row,) = [t for t in client.get("/api/event").get_json()["tables"] if t["id"] == table]
    assert row["last_seq"] == central.last_seq(table) and row["hand"] == 3


def test_a_first_sync_that_never_completed_does_not_bind_the_table_app(hall, earlier_event,
                                                                       tmp_path):
    """A first sync cut off before it sent anything (the event recorded, no generation
    claimed) sent nothing to that event: a sync to another event goes on, no join needed."""
    _app, _client, central = hall
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    table = new_table(local, "Practice", "Ann", "Ben")
    from webui.hall.joining import check

    check(local, open_store(earlier_event))  # what the cut-off first sync got to do
    sync_once(local, central)
    assert held_event(local).id == central.get_setting("hall_event_id")
    assert len(central.tables()) == 1 and current_tables(local)[0].id == table
