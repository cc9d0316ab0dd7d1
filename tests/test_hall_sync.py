"""Sync of table databases to a real PostgreSQL event database: idempotent, cut off and
reconnected, many tables at once, the director correcting while a table confirms."""

from __future__ import annotations

import threading
from pathlib import Path

import hall_helpers
import pytest
from hall_helpers import (
    PLAYER_B,
    TcpCut,
    confirmed_hands,
    new_table,
    play_hand,
    stream,
)
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from scorer import parse_card
from webui.common.proposal_form import parse_proposal
from webui.hall.schema import DirectorRequest
from webui.hall.sync import SyncConflict, linked_tables, open_store, sync_once
from webui.store import Actor, Store, commands

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures


def local_store(tmp_path: Path, name: str = "table") -> Store:
    return open_store(f"sqlite:///{tmp_path / f'{name}.sqlite3'}")


def mirror_of(central: Store, local: Store, local_id: int) -> int | None:
    """The event database's id of a local table (None before its first sync)."""
    from webui.hall.sync import origin_of

    origin = origin_of(local)
    return next((t for t, link in linked_tables(central).items()
                 if link.origin == origin and link.origin_table_id == local_id), None)


def test_sync_uploads_every_event_once_and_again_adds_nothing(tmp_path, pg_url):
    local = local_store(tmp_path)
    t1, t2 = new_table(local, "Table 1"), new_table(local, "Table 2", "Cy", "Di")
    for w in "ABA":
        play_hand(local, t1, w)
    play_hand(local, t2, "B")
    central = open_store(pg_url)
    first = sync_once(local, central)
    assert first.tables == 2 and first.uploaded == len(stream(local, t1)) + len(stream(local, t2))
    again = sync_once(local, central)
    assert again.uploaded == 0
    for t in (t1, t2):
        remote = mirror_of(central, local, t)
        assert stream(central, remote) == stream(local, t)
        assert confirmed_hands(central, remote) == confirmed_hands(local, t)
    assert len(central.tables()) == 2


def test_table_cut_off_and_reconnected_loses_and_doubles_nothing(tmp_path, pg_url):
    host, port = pg_url.split("@", 1)[1].split("/", 1)[0].split(":")
    relay = TcpCut(host, int(port))
    local = local_store(tmp_path)
    table = new_table(local, "Table 7")
    central = open_store(relay.url(pg_url))
    play_hand(local, table, "A")
    sync_once(local, central)
    relay.cut()  # the network goes away; the table keeps scoring on its own database
    for w in "BAB":
        play_hand(local, table, w)
        with pytest.raises(OperationalError):
            sync_once(local, central)
    relay.connect()
    report = sync_once(local, central)
    assert report.uploaded > 0
    remote = mirror_of(central, local, table)
    assert confirmed_hands(central, remote) == confirmed_hands(local, table)
    assert [h[1] for h in confirmed_hands(central, remote)] == [1, 2, 3, 4]
    assert stream(central, remote) == stream(local, table)
    relay.cut()


def test_two_syncs_of_one_table_at_once_store_each_event_once(tmp_path, pg_url):
    local = local_store(tmp_path)
    table = new_table(local, "Table 3")
    for w in "ABAB":
        play_hand(local, table, w)
    centrals = [open_store(pg_url) for _ in range(3)]
    errors: list[BaseException] = []

    def run(c: Store) -> None:
        try:
            sync_once(local, c)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(c,)) for c in centrals]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(centrals[0].tables()) == 1
    remote = mirror_of(centrals[0], local, table)
    assert stream(centrals[0], remote) == stream(local, table)


def test_many_tables_confirming_and_syncing_at_once(tmp_path, pg_url):
    n_tables, n_hands = 6, 4
    open_store(pg_url)  # the event database's schema, made once
    locals_ = [local_store(tmp_path, f"t{i}") for i in range(n_tables)]
    ids = [new_table(s, f"Table {i + 1}", f"P{i}a", f"P{i}b") for i, s in enumerate(locals_)]
    errors: list[BaseException] = []

    def table_life(i: int) -> None:
        try:
            central = open_store(pg_url)
            for h in range(n_hands):
                play_hand(locals_[i], ids[i], "AB"[(h + i) % 2])
                sync_once(locals_[i], central)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=table_life, args=(i,)) for i in range(n_tables)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    central = open_store(pg_url)
    assert len(central.tables()) == n_tables
    for s, t in zip(locals_, ids, strict=True):
        remote = mirror_of(central, s, t)
        assert len(confirmed_hands(central, remote)) == n_hands
        assert stream(central, remote) == stream(s, t)


def test_tables_on_the_event_database_confirm_at_once(pg_url):
    """Tables whose app runs on the event database itself (one Store each, as separate
    table apps would): concurrent confirmations all land, each exactly once."""
    stores = [open_store(pg_url) for _ in range(5)]
    ids = [new_table(s, f"Direct {i}") for i, s in enumerate(stores)]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            for h in range(3):
                play_hand(stores[i], ids[i], "AB"[h % 2])
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    check = open_store(pg_url)
    for t in ids:
        assert [h[:3] for h in confirmed_hands(check, t)] == [(1, 1, "A"), (1, 2, "B"),
                                                              (1, 3, "A")]


def test_director_corrects_a_hand_while_the_table_confirms_the_next(pg_url):
    """Both on the event database: the director (hall's Store) rewrites hand 1 while the
    players (table's Store) confirm hand 2; the (table, seq) constraint serialises them."""
    table_store, hall_store = open_store(pg_url), open_store(pg_url)
    table = new_table(table_store, "Table 9")
    for _ in range(5):
        play_hand(table_store, table, "A")
    state = table_store.state(table)
    game, number = 1, len(state.game.hands) + 1
    table_store.execute(table, commands.set_knock_card(game, number, parse_card("TC")), PLAYER_B)
    proposal = parse_proposal({"kind": "score", "knocker": "B", "cards": {
        "B": ["AS", "2S", "3S", "4H", "5H", "6H", "7C", "7D", "7S", "2D"],
        "A": ["KC", "QC", "JC", "9H", "9D", "9S", "2H", "3D", "5C", "6S"]}})
    table_store.execute(table, commands.propose(game, number, proposal), PLAYER_B)
    barrier = threading.Barrier(3)
    errors: list[BaseException] = []

    def director() -> None:
        barrier.wait()
        try:
            for h in (1, 2, 3):
                fix = parse_proposal({"kind": "manual", "winner": "B", "points": 40 + h,
                                               "note": "miscount"})
                hall_store.execute(table, commands.propose(1, h, fix, director=True),
                                   Actor("director"), request_id=f"fix-{h}")
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    def player(p: str) -> None:
        barrier.wait()
        try:
            for _attempt in range(50):
                rev = table_store.state(table).hand(game, number).revision
                try:
                    table_store.execute(table, commands.confirm(game, number, p, rev), PLAYER_B)
                    return
                except commands.Refusal as exc:
                    if exc.code not in ("changed",):
                        raise
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=director)] + [
        threading.Thread(target=player, args=(p,)) for p in "AB"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    hands = confirmed_hands(open_store(pg_url), table)
    assert hands[:3] == [(1, 1, "B", 41), (1, 2, "B", 42), (1, 3, "B", 43)]
    assert hands[number - 1] == (1, number, "B", 14)
    seqs = [e.seq for e in hall_store.events(table)]
    assert seqs == list(range(1, len(seqs) + 1))


def test_director_request_reaches_a_synced_table_once(tmp_path, pg_url):
    """A synced table: the director's correction waits in the event database, the table's
    sync applies it while the players go on confirming, and both databases agree."""
    local = local_store(tmp_path)
    table = new_table(local, "Table 4")
    play_hand(local, table, "A")
    central = open_store(pg_url)
    sync_once(local, central)
    remote = mirror_of(central, local, table)
    with central.Session() as s:
        s.add(DirectorRequest(request_id="hall-fix-1", table_id=remote, kind="correct",
                              payload={"game": 1, "hand": 1, "proposal": {
                                  "kind": "manual", "winner": "B", "points": 33}},
                              actor="director"))
        s.commit()
    done = threading.Event()

    def players() -> None:
        for w in "AB":
            play_hand(local, table, w)
        done.set()

    t = threading.Thread(target=players)
    t.start()
    reports = [sync_once(local, central)]
    t.join()
    reports.append(sync_once(local, central))
    reports.append(sync_once(local, central))
    assert sum(len(r.applied) for r in reports) == 1
    assert confirmed_hands(local, table)[0] == (1, 1, "B", 33)
    assert stream(central, remote) == stream(local, table)
    assert [h[1] for h in confirmed_hands(central, remote)] == [1, 2, 3]


def test_a_diverged_event_database_is_reported_not_overwritten(tmp_path, pg_url):
    local = local_store(tmp_path)
    table = new_table(local, "Table 5")
    central = open_store(pg_url)
    sync_once(local, central)
    remote = mirror_of(central, local, table)
    # someone wrote into the mirror directly (not through a director request), past the
    # event database's guard (webui.hall.guard), which refuses such writes otherwise
    hall_helpers._admin(pg_url, "ALTER TABLE events DISABLE TRIGGER gintray_hall_mirror_guard")
    central.execute(remote, commands.set_knock_card(1, 1, parse_card("5H")), Actor("director"))
    hall_helpers._admin(pg_url, "ALTER TABLE events ENABLE TRIGGER gintray_hall_mirror_guard")
    play_hand(local, table, "A")
    before = stream(central, remote)
    with pytest.raises(SyncConflict):
        sync_once(local, central)
    assert stream(central, remote) == before


def test_cut_off_in_the_middle_of_uploads_still_stores_each_event_once(tmp_path, pg_url,
                                                                       monkeypatch):
    """The network drops while batches are being uploaded (after the 2nd, 3rd, ... batch);
    sync is simply run again: every event ends up stored exactly once."""
    from webui.hall import sync as sync_mod

    monkeypatch.setattr(sync_mod, "BATCH", 4)
    host, port = pg_url.split("@", 1)[1].split("/", 1)[0].split(":")
    relay = TcpCut(host, int(port))
    local = local_store(tmp_path)
    table = new_table(local, "Table 8")
    for w in "ABABABAB":
        play_hand(local, table, w)
    total = len(stream(local, table))
    central = open_store(relay.url(pg_url))
    direct = open_store(pg_url)  # looks at the event database past the relay
    batches = {"n": 0, "cut_at": 0}
    real_seqs = sync_mod._seqs

    def seqs_then_cut(*args):  # called once per batch, just before its insert
        batches["n"] += 1
        if batches["n"] == batches["cut_at"]:
            relay.cut()
        return real_seqs(*args)

    monkeypatch.setattr(sync_mod, "_seqs", seqs_then_cut)
    partial = []
    for cut_at in (2, 2, 3, 2):
        batches.update(n=0, cut_at=cut_at)
        with pytest.raises(OperationalError):
            sync_once(local, central)
        partial.append(len(stream(direct, mirror_of(direct, local, table))))
        relay.connect()
    batches.update(n=0, cut_at=0)
    sync_once(local, central)  # the network is back for good
    assert partial == sorted(partial) and 0 < partial[0] < partial[-1] < total, partial
    remote = mirror_of(central, local, table)
    assert stream(central, remote) == stream(local, table)
    assert [h[1] for h in confirmed_hands(central, remote)] == list(range(1, 9))
    relay.cut()


def test_sync_loop_survives_the_event_database_going_away(tmp_path, pg_url):
    from webui.hall.sync import sync_loop

    host, port = pg_url.split("@", 1)[1].split("/", 1)[0].split(":")
    relay = TcpCut(host, int(port))
    open_store(pg_url)
    db = tmp_path / "loop.sqlite3"
    local = open_store(f"sqlite:///{db}")
    table = new_table(local, "Table 6")
    lines: list[str] = []
    stop = threading.Event()
    loop = threading.Thread(target=sync_loop, args=(f"sqlite:///{db}", relay.url(pg_url), 0.1),
                            kwargs={"log": lines.append, "stop": stop})
    loop.start()
    try:
        play_hand(local, table, "A")
        relay.cut()
        play_hand(local, table, "B")
        wait_for(lambda: any("unreachable" in line for line in lines))
        relay.connect()
        play_hand(local, table, "A")
        central = open_store(pg_url)
        # a hang guard above the design's worst case: a session cut inside a transaction
        # holds its locks until the server ends it (30 s idle in a transaction), the next
        # upload waits at most 15 s on them and tries again (webui/store/db.py); usually 1 s
        wait_for(lambda: mirror_of(central, local, table) and stream(
            central, mirror_of(central, local, table)) == stream(local, table), seconds=90,
            said=lambda: f"the sync loop's last lines: {lines[-8:]}")
    finally:
        stop.set()
        loop.join()
        relay.cut()
    assert loop.is_alive() is False
    assert len(confirmed_hands(central, mirror_of(central, local, table))) == 3


def wait_for(condition, seconds: float = 30.0, said=None) -> None:
    """Wait for ``condition`` (a hang guard, not a speed bar); on a hang, say what ``said``
    returns (for a sync loop, its last log lines)."""
    import time

    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"timed out; {said() if said else ''}"
        time.sleep(0.05)


def test_a_session_dropped_mid_transaction_cannot_hold_the_events_locked_for_long(pg_url):
    """A table whose network dies inside a transaction leaves a session on the server: the
    server ends it after 30 s idle, and a write waiting on its locks gives up after 15 s, so
    the next sync is not stuck behind it for hours (TCP's own timeout)."""
    from sqlalchemy import text

    from webui.store.db import make_engine

    engine = make_engine(pg_url)
    with engine.connect() as conn:
        idle = conn.execute(text("SHOW idle_in_transaction_session_timeout")).scalar()
        lock = conn.execute(text("SHOW lock_timeout")).scalar()
        keepalive = conn.execute(text("SHOW tcp_keepalives_idle")).scalar()
    engine.dispose()
    assert (idle, lock) == ("30s", "15s")
    assert keepalive in ("10", "10s", "0")  # 0: a Unix socket, where keepalives do not apply


def copy_of(local: Store, tmp_path: Path, name: str) -> Store:
    """A copy of a table database's folder, as someone would make with cp -r."""
    import shutil

    local.engine.dispose()  # the open connections checkpoint nothing: copy the WAL too
    src = Path(local.engine.url.database).parent
    shutil.copytree(src, tmp_path / name)
    return open_store(f"sqlite:///{tmp_path / name / Path(local.engine.url.database).name}")


@pytest.mark.parametrize("copy_first", [True, False])
def test_a_copied_table_database_is_refused_and_the_original_keeps_syncing(tmp_path, pg_url,
                                                                           copy_first):
    (tmp_path / "orig").mkdir()
    local = open_store(f"sqlite:///{tmp_path / 'orig' / 'table.sqlite3'}")
    t = new_table(local, "Table 1", "Ann", "Bob")
    play_hand(local, t, "A")
    central = open_store(pg_url)
    sync_once(local, central)
    copy = copy_of(local, tmp_path, "copy")
    play_hand(copy, t, "B", gin=True)  # a different hand on each
    play_hand(local, t, "A")
    if copy_first:
        with pytest.raises(SyncConflict, match="copy"):
            sync_once(copy, central)
        sync_once(local, central)
    else:
        sync_once(local, central)
        with pytest.raises(SyncConflict, match="copy"):
            sync_once(copy, central)
    mirror = mirror_of(central, local, t)
    assert stream(central, mirror) == stream(local, t)  # the original's hands, nothing else
    assert [h[2] for h in confirmed_hands(central, mirror)] == ["A", "A"]
    play_hand(local, t, "B")
    sync_once(local, central)  # the original keeps syncing
    assert stream(central, mirror) == stream(local, t)
    with pytest.raises(SyncConflict):
        sync_once(copy, central)  # and the copy stays refused
    assert len(central.tables()) == 1
    from webui.hall.schema import SyncRefusal

    with central.Session() as s:  # the hall's page shows each refusal
        refusals = list(s.scalars(select(SyncRefusal)))
    assert len(refusals) == 2 and all("copy" in r.message for r in refusals)


def test_a_diverged_copy_that_claims_the_place_is_still_refused(tmp_path, pg_url):
    from webui.hall.identity import adopt_location

    (tmp_path / "orig").mkdir()
    local = open_store(f"sqlite:///{tmp_path / 'orig' / 'table.sqlite3'}")
    t = new_table(local, "Table 1", "Ann", "Bob")
    play_hand(local, t, "A")
    central = open_store(pg_url)
    sync_once(local, central)
    backup = copy_of(local, tmp_path, "backup")
    play_hand(local, t, "A")
    sync_once(local, central)
    adopt_location(backup)  # "this is the table's database now": but it is behind
    play_hand(backup, t, "B")
    with pytest.raises(SyncConflict, match="diverged"):
        sync_once(backup, central)
    mirror = mirror_of(central, local, t)
    assert stream(central, mirror) == stream(local, t)
    play_hand(local, t, "B")
    sync_once(local, central)
    assert stream(central, mirror) == stream(local, t)


def test_a_sync_cut_off_after_the_event_database_took_its_generation_goes_on(tmp_path, pg_url,
                                                                             monkeypatch):
    from webui.hall import identity
    from webui.store.settings import Settings

    local = local_store(tmp_path)
    t = new_table(local, "Table 1")
    central = open_store(pg_url)
    sync_once(local, central)
    real = Settings.compare_and_set

    def crash_on_local_commit(settings, key, old, new):
        if key == identity.SYNC_KEY:
            raise OperationalError("local write", {}, Exception("disk gone"))
        return real(settings, key, old, new)

    monkeypatch.setattr(Settings, "compare_and_set", crash_on_local_commit)
    play_hand(local, t, "A")
    with pytest.raises(OperationalError):
        sync_once(local, central)
    monkeypatch.setattr(Settings, "compare_and_set", real)
    sync_once(local, central)
    sync_once(local, central)
    assert stream(central, mirror_of(central, local, t)) == stream(local, t)


def test_cli_refuses_a_copy_saying_why_and_adopt_takes_a_moved_original(tmp_path, pg_url,
                                                                         capsys):
    from webui.hall.cli import sync_main

    (tmp_path / "orig").mkdir()
    local = open_store(f"sqlite:///{tmp_path / 'orig' / 'table.sqlite3'}")
    play_hand(local, new_table(local, "Table 1"), "A")
    src = f"sqlite:///{tmp_path / 'orig' / 'table.sqlite3'}"
    assert sync_main(["--from", src, "--to", pg_url]) == 0
    copy_of(local, tmp_path, "moved")
    (tmp_path / "orig" / "table.sqlite3").unlink()  # the original is gone: the folder moved
    moved = f"sqlite:///{tmp_path / 'moved' / 'table.sqlite3'}"
    capsys.readouterr()
    assert sync_main(["--from", moved, "--to", pg_url]) == 1
    err = capsys.readouterr().err
    assert "is a copy of table database" in err and "--adopt" in err
    assert sync_main(["--from", moved, "--to", pg_url, "--adopt"]) == 1  # asked, not yet
    assert "asked the director to adopt this database" in capsys.readouterr().out
    from datetime import timedelta

    from webui.hall import adoption

    central = open_store(pg_url)
    (asked,) = adoption.adoptions(central)
    adoption.decide(central, asked.id, True, "director", alive_within=timedelta(0))
    assert sync_main(["--from", moved, "--to", pg_url]) == 0


def test_a_sync_that_finishes_while_another_claims_its_generation_stops_neither(tmp_path,
                                                                               pg_url):
    """The race CI met: sync 1 writes its next generation; sync 2 takes it, claims it and
    clears it before sync 1 reads it back. Both must finish, each event stored once."""
    from sqlalchemy import event

    from webui.hall.identity import NEXT_KEY

    path = tmp_path / "table.sqlite3"
    first, second = (open_store(f"sqlite:///{path}") for _ in range(2))
    table = new_table(first, "Table 5")
    play_hand(first, table, "A")
    central = open_store(pg_url)
    sync_once(first, central)
    play_hand(first, table, "B")
    raced: list[bool] = []

    def other_sync_runs_meanwhile(session) -> None:
        if not raced and second.get_setting(NEXT_KEY) is not None:
            raced.append(True)
            sync_once(second, open_store(pg_url))

    event.listen(first.Session, "after_commit", other_sync_runs_meanwhile)
    sync_once(first, central)
    assert raced, "the other sync never ran inside this one's claim"
    assert sync_once(first, central).uploaded == 0
    remote = mirror_of(central, first, table)
    assert stream(central, remote) == stream(first, table)
    assert confirmed_hands(central, remote) == confirmed_hands(first, table)
