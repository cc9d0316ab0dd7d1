"""A pulled plug loses nothing (issue 40): the table app's data folder on LazyFS, power cuts.

A ``kill -9`` is not a power cut: the kernel still writes out what the process left in the
page cache. LazyFS keeps every write in its own cache until it is synced and drops the rest on
command, as a pulled plug would. Ann's and Ben's tablets play, correct, undo, confirm and sign
over HTTP while the app is cut at random moments (``power_cut_helpers``); after each cut every
command the tablets were told succeeded is in the database exactly once, the database passes
``PRAGMA integrity_check``, each table's events run without a gap, the signing key is whole
and unchanged and every signed PDF still verifies, and the app starts again by itself.

Runs in `make test` (marked ``power_cut`` and ``slow``); it skips, saying why, without root,
FUSE or the LazyFS build (`bash .ci/lazyfs` builds it from ../shared/tools/lazyfs). The
200-cut figures come from ``benchmarks/bench_power_cut.py``, the same loop.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import hall_helpers
import pytest
from power_cut_helpers import REPO, LazyFS, PowerCuts, lazyfs_missing, wait_for

CUTS = 12  # each costs an app start (a few seconds); 200 run in the benchmark
SEED = 20261128
pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures

needs_lazyfs = pytest.mark.skipif(lazyfs_missing() is not None,
                                  reason=f"power-cut tests: {lazyfs_missing()}")


def test_every_sqlite_connection_is_opened_in_wal_with_full_sync(tmp_path):
    """The table app's store and the hall's sync reading a table database open SQLite the one
    way (``webui.store.db.sqlite_connection_setup``)."""
    from sqlalchemy import text

    from webui.hall.sync import open_store
    from webui.store import Store

    url = f"sqlite:///{tmp_path / 'table.sqlite3'}"

    def modes(engine):
        with engine.connect() as conn:
            return [conn.execute(text(f"PRAGMA {p}")).scalar() for p in
                    ("journal_mode", "synchronous")]

    for store in (Store(url), open_store(url)):
        assert modes(store.engine) == ["wal", 2]  # 2: FULL
        store.engine.dispose()


def test_a_signing_key_a_cut_left_empty_is_replaced_and_the_app_signs_again(tmp_path):
    """An installation whose key and certificate a cut emptied (written before they were
    synced) starts by itself: the damaged pair is kept aside and a new one signs."""
    from webui.common.signing import ensure_identity, sign_pdf, verify_pdf

    first = ensure_identity(tmp_path)
    first.key_path.write_bytes(b"")
    first.cert_path.write_bytes(b"")
    again = ensure_identity(tmp_path)
    assert verify_pdf(sign_pdf(_blank_pdf(), again, "after the cut"), again).ok
    kept = sorted(p.name.split(".damaged-")[0] for p in (tmp_path / "signing").iterdir()
                  if ".damaged-" in p.name)
    assert kept == ["cert.pem", "key.pem"]


def _blank_pdf() -> bytes:
    """A one-page PDF to sign."""
    import io

    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out)
    page.drawString(72, 720, "a sheet")
    page.save()
    return out.getvalue()


@pytest.mark.power_cut
@pytest.mark.slow
@needs_lazyfs
def test_a_power_cut_loses_no_answered_command_and_leaves_the_store_whole(tmp_path):
    rig = PowerCuts(tmp_path, cuts=CUTS, seed=SEED)
    state = rig.run()
    assert len(rig.cuts_done) == CUTS
    problems = [(n, cut.interrupted, cut.check) for n, cut in enumerate(rig.cuts_done, 1)
                if not cut.check.clean]
    assert problems == [], problems
    assert state["signing_problems"] == []
    # every hand the tablets were told was confirmed is on its game's sheet once, with its
    # points, in order; every game both signed stays locked (its signatures on its sheet)
    for game in state["games"]:
        confirmed = [(h["number"], h["proposal"]["result"]["points"])
                     for h in game["hands"] if h["confirmed"]]
        assert confirmed == rig.ledger.hands.get(game["number"], []), game["number"]
    locked = [g["number"] for g in state["games"] if g["locked"]]
    assert locked == rig.ledger.signed_games
    assert rig.ledger.signed_games, "no game was signed during the cuts"
    kinds = {kind for kind in rig.ledger.acked.values()}
    assert {"confirm", "undo", "sign", "proposal"} <= kinds
    print(f"{CUTS} cuts; interrupted: {[c.interrupted for c in rig.cuts_done]}; "
          f"{len(rig.ledger.acked)} commands answered, games signed {rig.ledger.signed_games}")


@pytest.mark.power_cut
@needs_lazyfs
def test_only_a_synced_file_survives_the_cut(tmp_path):
    """The rig's own check: LazyFS drops what was not synced; the app's one way of writing a
    file (``webui.common.durable``) leaves the old or the new file whole, and SQLite (opened
    as the app opens it) keeps every commit."""
    from sqlalchemy import text

    from webui.common.durable import write_atomically
    from webui.store.db import sqlite_engine

    fs = LazyFS(tmp_path)
    fs.mount()
    data = fs.mount_point
    try:
        write_atomically(data / "keep" / "old.txt", "the old text")
        (data / "plain.txt").write_text("written, never synced")
        write_atomically(data / "keep" / "new.txt", "first")
        write_atomically(data / "keep" / "new.txt", "second")
        engine = sqlite_engine(f"sqlite:///{data / 'db.sqlite3'}")
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE t (x INTEGER)"))
        for i in range(20):
            with engine.begin() as conn:
                conn.execute(text("INSERT INTO t VALUES (:x)"), {"x": i})
        with engine.connect() as conn:
            modes = [conn.execute(text(f"PRAGMA {p}")).scalar() for p in
                     ("journal_mode", "synchronous")]
        engine.dispose()
        fs.drop_unsynced()
    finally:
        fs.unmount()
    disk = fs.disk
    assert modes == ["wal", 2]  # 2: FULL
    assert (disk / "plain.txt").read_bytes() == b""  # the cut is real
    assert (disk / "keep" / "old.txt").read_text() == "the old text"
    assert (disk / "keep" / "new.txt").read_text() == "second"
    assert not [p for p in os.listdir(disk / "keep") if p.endswith(".part")]
    con = sqlite3.connect(disk / "db.sqlite3")
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert con.execute("SELECT count(*) FROM t").fetchone() == (20,)
    finally:
        con.close()


@pytest.mark.power_cut
@needs_lazyfs
def test_the_signing_key_is_written_to_survive_a_cut(tmp_path: Path):
    """The first start makes the installation's key; a cut right after leaves it whole."""
    from power_cut_helpers import signing_problems

    from webui.common.signing import ensure_identity

    fs = LazyFS(tmp_path)
    fs.mount()
    try:
        ensure_identity(fs.mount_point)
        fs.drop_unsynced()
    finally:
        fs.unmount()
    assert signing_problems(fs.disk, {}, None) == []


SYNC_CUTS = 8


@pytest.mark.power_cut
@pytest.mark.slow
@needs_lazyfs
def test_a_power_cut_during_a_sync_to_the_hall_loses_and_doubles_nothing_there(tmp_path, pg_url):
    """The table's database on LazyFS, `gintray sync --loop` uploading it to the hall's
    PostgreSQL; hands are confirmed, the plug pulled while the sync runs, everything started
    again. The hall never holds an event the table lost, and in the end holds every confirmed
    hand once: the table's sync state (its origin and generation claims) survives the cuts."""
    from hall_helpers import confirmed_hands, new_table, play_hand, stream
    from test_hall_sync import mirror_of

    from webui.hall.identity import HOME_KEY, adopt_location, home_of
    from webui.hall.sync import open_store

    fs = LazyFS(tmp_path)
    fs.mount()
    url = f"sqlite:///{fs.mount_point / 'gintray.sqlite3'}"
    rng = random.Random(SEED)
    log = tmp_path / "sync.log"
    sync: subprocess.Popen | None = None
    central = open_store(pg_url)

    def start_sync() -> subprocess.Popen:
        with open(log, "w") as out:
            return subprocess.Popen([sys.executable, "-m", "gintray_cli", "sync", "--from", url,
                                     "--to", pg_url, "--loop", "0.01"], cwd=REPO, stdout=out,
                                    stderr=subprocess.STDOUT)

    def table_side() -> tuple[list, list, str]:
        local = open_store(url)
        try:
            with local.engine.connect() as conn:
                integrity = conn.exec_driver_sql("PRAGMA integrity_check").scalar()
            return stream(local, table), confirmed_hands(local, table), integrity
        finally:
            local.engine.dispose()

    def hall_copy() -> int | None:
        """The hall's id of the table (None before its first sync)."""
        local = open_store(url)
        try:
            return mirror_of(central, local, table)
        finally:
            local.engine.dispose()

    try:
        local = open_store(url)
        table = new_table(local, "Table 1")
        local.engine.dispose()
        played: list[tuple[int, int]] = []
        refused_homes = 0
        for _cut in range(SYNC_CUTS):
            local = open_store(url)
            # a FUSE mount's device number is the kernel's, normally the same again at a
            # remount; if another mount took it, the sync would read the file as a copy (a
            # rig artefact: an SD card's number does not change at a reboot)
            if local.get_setting(HOME_KEY) not in (None, home_of(local)):
                adopt_location(local)
                refused_homes += 1
            for _ in range(2):
                played.append(play_hand(local, table, "AB"[len(played) % 2]))
            local.engine.dispose()
            sync = start_sync()
            wait_for(lambda sync=sync: "table(s)" in log.read_text(errors="replace")
                     or sync.poll() is not None, "the sync to run")
            assert sync.poll() is None, log.read_text()
            time.sleep(rng.uniform(0.0, 0.1))  # in the middle of a pass, mostly
            sync.kill()
            sync.wait()
            sync = None
            fs.drop_unsynced()
            fs.unmount()
            fs.mount()
            events, hands, integrity = table_side()
            assert integrity == "ok"
            assert [(g, h) for g, h, _w, _p in hands] == played  # nothing confirmed was lost
            remote = hall_copy()
            if remote is not None:  # the hall holds nothing the table does not
                at_hall = stream(central, remote)
                assert at_hall == events[:len(at_hall)]
        sync = start_sync()
        events, hands, _ = table_side()
        remote = hall_copy()
        wait_for(lambda: remote is not None and stream(central, remote) == events,
                 "the hall to catch up")
        assert confirmed_hands(central, remote) == hands
        assert len(hands) == 2 * SYNC_CUTS
        print(f"{SYNC_CUTS} cuts during syncs; {len(events)} events at the hall, once each; "
              f"locations adopted for the rig: {refused_homes}")
    finally:
        if sync is not None:
            sync.kill()
            sync.wait()
        central.engine.dispose()
        fs.unmount()
