"""``gintray sync --adopt`` made safe (issue 27 item 5): it only asks, the director decides at
the hall, and an approval that would orphan the event's history is refused: while the
original still syncs (a copy), or when the asking database is behind. The original keeps
syncing throughout. A real PostgreSQL event database, table databases on SQLite."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import hall_helpers
from hall_helpers import new_table, play_hand, stream
from sqlalchemy import update

from webui.hall import adoption
from webui.hall.cli import sync_main
from webui.hall.schema import OriginSeen, TableSync
from webui.hall.sync import open_store, sync_once
from webui.store import Store

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def database(folder: Path) -> str:
    return f"sqlite:///{folder / 'table.sqlite3'}"


def copy_folder(src: Path, dst: Path) -> str:
    shutil.copytree(src, dst)
    return database(dst)


def post(client: Any, path: str) -> str:
    return client.post(path, data={"csrf_token": client.csrf},
                       follow_redirects=True).get_data(as_text=True)


def silence(central: Store) -> None:
    """The original's last good sync an hour ago: it is gone (no waiting in the test)."""
    from datetime import UTC, datetime

    then = datetime.now(UTC) - timedelta(hours=1)
    with central.Session() as s:
        s.execute(update(TableSync).values(synced_at=then))
        s.execute(update(OriginSeen).values(synced_at=then))  # the station as a whole too
        s.commit()


def test_adopting_a_copy_cannot_lock_the_original_out(hall, tmp_path, capsys):
    _app, client, central = hall
    (tmp_path / "orig").mkdir()
    original = open_store(database(tmp_path / "orig"))
    table = new_table(original, "Table 1", "Ann", "Bob")
    play_hand(original, table, "A")
    assert sync_main(["--from", database(tmp_path / "orig"), "--to", central_url(central)]) == 0
    copy = copy_folder(tmp_path / "orig", tmp_path / "copy")

    capsys.readouterr()
    assert sync_main(["--from", copy, "--to", central_url(central), "--adopt"]) == 1
    assert "asked the director" in capsys.readouterr().out
    page = client.get("/").get_data(as_text=True)
    assert "asks to be adopted" in page and "it is alive" in page
    (asked,) = adoption.adoptions(central, adoption.AdoptionStatus.ASKED)
    assert "Not adopted: the database that syncs as this table synced" in post(
        client, f"/adoptions/{asked.id}/approve")

    play_hand(original, table, "B")  # the original plays and syncs on, untouched
    sync_once(original, central)
    mirror = max(t.id for t in central.tables())
    assert stream(central, mirror) == stream(original, table)

    # the original goes quiet: the copy is still behind the event (it lacks the last hand)
    silence(central)
    assert "Not adopted: it is behind the event database" in post(
        client, f"/adoptions/{asked.id}/approve")
    assert "refused" in post(client, f"/adoptions/{asked.id}/refuse")
    assert sync_main(["--from", copy, "--to", central_url(central)]) == 1
    sync_once(original, central)  # and the original still syncs
    assert stream(central, mirror) == stream(original, table)


def test_a_restored_original_is_adopted_once_the_director_approves(hall, tmp_path):
    _app, client, central = hall
    (tmp_path / "orig").mkdir()
    original = open_store(database(tmp_path / "orig"))
    table = new_table(original, "Table 1", "Ann", "Bob")
    play_hand(original, table, "A")
    sync_once(original, central)
    restored = copy_folder(tmp_path / "orig", tmp_path / "restored")
    shutil.rmtree(tmp_path / "orig")  # the table's computer died; the backup is current
    silence(central)
    assert sync_main(["--from", restored, "--to", central_url(central), "--adopt"]) == 1
    (asked,) = adoption.adoptions(central, adoption.AdoptionStatus.ASKED)
    assert "adopted: it syncs as its table from now on" in post(
        client, f"/adoptions/{asked.id}/approve")
    back = open_store(restored)
    play_hand(back, table, "B")
    sync_once(back, central)
    mirror = max(t.id for t in central.tables())
    assert stream(central, mirror) == stream(back, table)
    assert "adopted" in client.get("/audit").get_data(as_text=True)


def central_url(central: Store) -> str:
    return central.engine.url.render_as_string(hide_password=False)
