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
import sqlite3
from pathlib import Path

import pytest
from power_cut_helpers import LazyFS, PowerCuts, lazyfs_missing

CUTS = 12  # each costs an app start (a few seconds); 200 run in the benchmark
SEED = 20261128

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
