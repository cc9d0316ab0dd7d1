"""The power-cut rig: the table app's data folder on LazyFS, pulled plugs, and the checks after.

LazyFS (``../shared/tools/lazyfs``, built by ``.ci/lazyfs`` into ``.cache/lazyfs``) is a FUSE
file system that keeps every write in its own cache until the writer ``fsync``s it, and drops
what is not synced on ``lazyfs::clear-cache``: a power cut for the files above it. A cut here
is: the app ``kill -9``ed, the unsynced writes dropped, the file system unmounted and mounted
again on what reached the disk, the disk checked (``check_disk``), the app started again.

Two tablets (each player's own, ``tests/test_webui_kill.py``'s retrying ``Client``) play over
HTTP meanwhile (``Workload``): knock card, a result, its correction, confirmations (one undone
and given again every third hand), and at each game's end both signatures, the signed PDF and
the next game. Every command carries a request id and is retried with it until answered; each
answered one (HTTP 200) goes in the ``Ledger``. After every cut every answered command must be
in the database exactly once. Used by ``tests/test_power_cut.py`` and
``benchmarks/bench_power_cut.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import urllib.error
import weakref
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from test_webui_kill import Client, Server, free_port
from webui_helpers import PNG_DATA_URL

REPO = Path(__file__).resolve().parents[1]
LAZYFS = Path(os.environ.get("GINTRAY_LAZYFS", REPO / ".cache/lazyfs/lazyfs/build/lazyfs"))
DATABASE = "gintray.sqlite3"  # the table app's database in its data folder
GAME_TARGET = 25  # a game ends every few hands, so games are signed between cuts
RULES = {"preset": "tournament", "game_target": GAME_TARGET, "match_games": 999}
WAIT = 120.0  # seconds for anything to happen: against a hang only, never a pass/fail limit


def lazyfs_missing() -> str | None:
    """Why the power-cut rig cannot run here, or None when it can."""
    if os.geteuid() != 0:
        return "needs root (a FUSE mount with allow_other)"
    if not Path("/dev/fuse").exists():
        return "no /dev/fuse: FUSE is not available on this machine"
    if shutil.which("fusermount3") is None:
        return "no fusermount3 (Debian's fuse3)"
    if not LAZYFS.is_file():
        return (f"LazyFS is not built at {LAZYFS}: `bash .ci/lazyfs` builds it from "
                "../shared/tools/lazyfs (`make system-test-deps` runs it)")
    return None


def wait_for(condition: Any, what: str, timeout: float = WAIT) -> None:
    """Poll ``condition`` until true; an AssertionError naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


class LazyFS:
    """A LazyFS mount of ``work/disk`` (what reached the disk) at ``work/data``."""

    def __init__(self, work: Path, binary: Path = LAZYFS) -> None:
        self.binary = binary
        self.disk, self.mount_point = work / "disk", work / "data"
        self.fifo, self.log = work / "faults.fifo", work / "lazyfs.log"
        self.done_fifo = work / "faults-done.fifo"  # LazyFS says there when a fault is done
        self.done_fd: int | None = None
        # LazyFS ignores a --config-path holding "-o" anywhere (pytest's folders do: "pytest-of-
        # root"), so the config lives in a folder of its own
        folder = tempfile.mkdtemp(prefix="gintray_lazyfs_")
        weakref.finalize(self, shutil.rmtree, folder, True)
        self.config = Path(folder) / "lazyfs.toml"
        for folder in (self.disk, self.mount_point):
            folder.mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            f'[faults]\nfifo_path="{self.fifo}"\nfifo_path_completed="{self.done_fifo}"\n[cache]\napply_eviction=false\n'
            '[cache.simple]\ncustom_size="64mb"\nblocks_per_page=1\n'
            '[filesystem]\nlog_all_operations=false\nlogfile=""\n')
        self.proc: subprocess.Popen | None = None

    def mount(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [str(self.binary), str(self.mount_point), "--config-path", str(self.config),
                 "-o", "allow_other", "-o", "modules=subdir", "-o", f"subdir={self.disk}"],
                stdout=log, stderr=subprocess.STDOUT)
        wait_for(lambda: self.done_fifo.exists() or self.proc.poll() is not None,
                 "LazyFS to make its fifos")
        if self.done_fd is None and self.done_fifo.exists():
            self.done_fd = os.open(self.done_fifo, os.O_RDONLY | os.O_NONBLOCK)
        wait_for(lambda: os.path.ismount(self.mount_point) or self.proc.poll() is not None,
                 "LazyFS to mount")
        if not os.path.ismount(self.mount_point):
            raise RuntimeError(f"LazyFS did not mount (exit {self.proc.poll()}); see {self.log}")

    def drop_unsynced(self) -> None:
        """The power cut: every write not yet synced is gone (waits until LazyFS says so)."""
        with open(self.fifo, "w") as fifo:
            fifo.write("lazyfs::clear-cache\n")
        heard = b""

        def done() -> bool:
            nonlocal heard
            with contextlib.suppress(BlockingIOError):  # nothing said yet
                heard += os.read(self.done_fd, 4096)
            return b"finished::clear-cache" in heard

        wait_for(done, "LazyFS to drop its cache")

    def unmount(self) -> None:
        def unmounted() -> bool:
            return subprocess.run(["fusermount3", "-u", str(self.mount_point)],
                                  capture_output=True).returncode == 0

        wait_for(unmounted, "the data folder to unmount")
        if self.proc is not None:
            self.proc.wait(timeout=WAIT)
            self.proc = None
        if self.done_fd is not None:
            os.close(self.done_fd)
            self.done_fd = None


@dataclass
class Ledger:
    """What the tablets were told: request id -> command kind, for every HTTP 200."""

    acked: dict[str, str] = field(default_factory=dict)
    in_flight: str = "between requests"  # what a cut now would interrupt
    hands: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # game -> (hand, pts)
    signed_games: list[int] = field(default_factory=list)
    pdfs: dict[int, bytes] = field(default_factory=dict)  # game -> its signed PDF
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def progress(self) -> int:
        """Answers had so far (commands and PDFs): a cut waits for one more, so the play
        moves on however often the plug is pulled."""
        return len(self.acked) + len(self.pdfs)

    def snapshot(self) -> dict[str, str]:
        with self.lock:
            return dict(self.acked)


class WorkloadBroken(AssertionError):
    """A tablet was refused what the commands it was told succeeded allow: one was lost."""


class Workload:
    """Ann's and Ben's tablets playing, correcting, undoing and signing over HTTP."""

    def __init__(self, base: str, table_id: int, pin: str, ledger: Ledger) -> None:
        self.table_id, self.ledger = table_id, ledger
        self.api = f"/api/t/{table_id}"
        self.tablets = {seat: Client(base) for seat in ("A", "B")}
        for seat, tablet in self.tablets.items():
            tablet.csrf_from(f"/t/{table_id}/join")
            status, _ = tablet.call("POST", f"/t/{table_id}/join", form={
                "csrf_token": tablet.token, "pin": pin, "seat": seat,
                "label": f"power-cut {seat}"})
            assert status in (200, 302), status
            tablet.csrf_from(f"/t/{table_id}")
        self.game, self.hand = 1, 0

    def send(self, seat: str, kind: str, rid: str, body: dict[str, Any]) -> dict[str, Any]:
        """One command, retried with its request id until answered; it must succeed."""
        self.ledger.in_flight = kind
        status, text = self.tablets[seat].call("POST", f"{self.api}/{kind}",
                                               body={**body, "request_id": rid})
        self.ledger.in_flight = "between requests"
        if status != 200:
            raise WorkloadBroken(f"{kind} {rid} refused ({status}): {text[:300]}")
        with self.ledger.lock:
            self.ledger.acked[rid] = kind
        return json.loads(text)

    def get(self, path: str) -> tuple[int, bytes]:
        """A binary page (a PDF), retried like ``Client.call`` while the app is down."""
        self.ledger.in_flight = "a PDF export"
        tablet = self.tablets["A"]
        deadline = time.monotonic() + WAIT
        while True:
            try:
                with tablet.opener.open(tablet.base + path, timeout=30) as resp:
                    self.ledger.in_flight = "between requests"
                    return resp.status, resp.read()
            except urllib.error.HTTPError as exc:
                self.ledger.in_flight = "between requests"
                return exc.code, exc.read()
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def state(self) -> dict[str, Any]:
        status, text = self.tablets["A"].call("GET", f"{self.api}/state")
        assert status == 200, (status, text[:300])
        return json.loads(text)

    def play_hand(self) -> None:
        """One hand: knock card, a result and its correction, both confirmations (Ann's
        undone and given again every third hand); at a game's end both sign, the PDF is
        fetched and the next game starts."""
        self.hand += 1
        g, i = self.game, self.hand
        key = f"g{g}h{i}"
        points = 5 + (g + i) % 7
        winner = "A" if (g + i) % 2 else "B"
        self.send("A", "knock-card", f"k-{key}", {"game": g, "hand": i, "card": "9H"})
        self.send("A", "proposal", f"p-{key}", {"game": g, "hand": i, "kind": "manual",
                                               "winner": winner, "points": points + 1})
        fixed = self.send("B", "proposal", f"fix-{key}", {"game": g, "hand": i, "kind": "manual",
                                                         "winner": winner, "points": points})
        revision = fixed["state"]["current_hand"]["revision"]
        mine = self.send("A", "confirm", f"c-{key}-A", {"game": g, "hand": i, "player": "A",
                                                        "revision": revision})
        if i % 3 == 0:
            undone = self.send("A", "undo", f"u-{key}-A",
                               {"target_seq": mine["events"][0]["seq"]})
            revision = undone["state"]["current_hand"]["revision"]
            self.send("A", "confirm", f"c2-{key}-A", {"game": g, "hand": i, "player": "A",
                                                      "revision": revision})
        done = self.send("B", "confirm", f"c-{key}-B", {"game": g, "hand": i, "player": "B",
                                                        "revision": revision})
        with self.ledger.lock:
            self.ledger.hands.setdefault(g, []).append((i, points))
        game = done["state"]["games"][-1]
        if game["number"] == g and game["ended"]:
            self.finish_game(g)

    def finish_game(self, g: int) -> None:
        for seat in ("A", "B"):
            self.send(seat, "sign", f"s-g{g}-{seat}", {"game": g, "player": seat,
                                                       "png": PNG_DATA_URL})
        with self.ledger.lock:
            self.ledger.signed_games.append(g)
        status, pdf = self.get(f"/t/{self.table_id}/games/{g}/export.pdf")
        if status != 200 or not pdf.startswith(b"%PDF"):
            raise WorkloadBroken(f"the signed PDF of game {g} could not be made ({status})")
        self.ledger.pdfs[g] = pdf
        self.send("A", "next-game", f"n-g{g}", {})
        self.game, self.hand = g + 1, 0


@dataclass
class DiskCheck:
    """What one cut left on the disk."""

    integrity: str
    lost: list[str]
    doubled: list[str]
    seq_gaps: list[int]
    signing_problems: list[str]

    @property
    def clean(self) -> bool:
        return (self.integrity == "ok" and not self.lost and not self.doubled
                and not self.seq_gaps and not self.signing_problems)


def stored_request(stored: str) -> str | None:
    """The client's request id of an event's stored ``id.fingerprint#n`` (first event only)."""
    base, _, n = stored.rpartition("#")
    return base.split(".")[0] if n == "0" else None


def check_disk(data_dir: Path, acked: dict[str, str], pdfs: dict[int, bytes],
               cert_seen: bytes | None) -> DiskCheck:
    """The data folder as a restarted app finds it: the database whole, every acknowledged
    command there once, each table's events numbered without a gap, the signing key whole
    and the same as before, every signed PDF still verifying with it."""
    con = sqlite3.connect(data_dir / DATABASE)
    try:
        integrity = "; ".join(r[0] for r in con.execute("PRAGMA integrity_check"))
        rows = con.execute("SELECT table_id, seq, request_id FROM events "
                           "ORDER BY table_id, seq").fetchall()
    finally:
        con.close()
    counts = Counter(stored_request(r[2]) for r in rows if r[2])
    gaps = []
    by_table: dict[int, list[int]] = {}
    for table_id, seq, _rid in rows:
        by_table.setdefault(table_id, []).append(seq)
    for table_id, seqs in by_table.items():
        if seqs != list(range(1, len(seqs) + 1)):
            gaps.append(table_id)
    return DiskCheck(integrity=integrity,
                     lost=sorted(r for r in acked if counts[r] == 0),
                     doubled=sorted(r for r in acked if counts[r] > 1),
                     seq_gaps=gaps, signing_problems=signing_problems(data_dir, pdfs, cert_seen))


def signing_problems(data_dir: Path, pdfs: dict[int, bytes], cert_seen: bytes | None
                     ) -> list[str]:
    """Why the installation's key cannot sign, or an exported PDF no longer verifies."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    from webui.common.pdf import read_record
    from webui.common.signing import SigningIdentity, verify_pdf
    from webui.verify import record_problems

    key_path, cert_path = data_dir / "signing" / "key.pem", data_dir / "signing" / "cert.pem"
    try:
        key = serialization.load_pem_private_key(key_path.read_bytes(), None)
        cert_bytes = cert_path.read_bytes()
        cert = x509.load_pem_x509_certificate(cert_bytes)
    except (OSError, ValueError) as exc:
        return [f"the signing key or certificate is damaged: {exc}"]
    problems = []
    if key.public_key() != cert.public_key():
        problems.append("the signing key does not match its certificate")
    if cert_seen is not None and cert_bytes != cert_seen:
        problems.append("the certificate changed: earlier PDFs no longer verify")
    identity = SigningIdentity(key_path, cert_path)
    for game, pdf in sorted(pdfs.items()):
        result = verify_pdf(pdf, identity)
        if not result.ok or record_problems(read_record(pdf)):
            problems.append(f"game {game}'s PDF no longer verifies: {result.summary}")
    return problems


@dataclass
class Cut:
    """One pulled plug: what it interrupted and what it left on the disk."""

    interrupted: str
    check: DiskCheck


def start_table_app(data_dir: Path) -> tuple[int, str]:
    """A fresh installation in ``data_dir`` made by the app itself (database, signing key),
    with one table (Ann v Ben, short games): its id and PIN."""
    from webui import create_app
    from webui.store import Actor

    app = create_app({"DATA_DIR": str(data_dir), "START_CAMERAS": False})
    store = app.extensions["gintray"].store
    table_id = store.create_table("Power cut", {
        "name": "Power cut", "players": {"A": "Ann", "B": "Ben"}, "rules": RULES,
        "camera": None}, Actor("power-cut test"))
    pin = store.table(table_id).pin
    store.engine.dispose()
    return table_id, pin


class PowerCuts:
    """The table app on LazyFS, cut ``cuts`` times at random moments while ``Workload``
    plays (``run``); ``cuts_done`` lists what each cut interrupted and left."""

    def __init__(self, work: Path, cuts: int, seed: int) -> None:
        self.fs = LazyFS(work)
        self.wanted, self.rng = cuts, random.Random(seed)
        self.ledger = Ledger()
        self.cuts_done: list[Cut] = []
        self.cert: bytes | None = None
        self.failure: BaseException | None = None
        self.server: Server | None = None

    def run(self) -> dict[str, Any]:
        """Play until every cut is done; the table's final state (read over HTTP), with the
        signing checks of the live folder at the end under ``"signing_problems"``."""
        self.fs.mount()
        try:
            return self._play()
        finally:
            if self.server is not None:
                self.server.stop()
            self.fs.unmount()

    def _play(self) -> dict[str, Any]:
        data = self.fs.mount_point
        table_id, pin = start_table_app(data)
        self.server = Server(data, free_port())
        self.server.start()
        workload = Workload(f"http://127.0.0.1:{self.server.port}", table_id, pin,
                            self.ledger)
        stop = threading.Event()
        cutter = threading.Thread(target=self._cut_loop, args=(stop,), daemon=True)
        cutter.start()
        try:
            while cutter.is_alive():
                workload.play_hand()
        finally:
            stop.set()
            cutter.join()
        if self.failure is not None:
            raise self.failure
        self._wait_ready()
        state = workload.state()
        for g in self.ledger.signed_games:  # the key still signs after every cut
            status, pdf = workload.get(f"/t/{table_id}/games/{g}/export.pdf")
            assert status == 200, f"game {g}'s PDF could not be made after the cuts ({status})"
            self.ledger.pdfs[g] = pdf
        state["signing_problems"] = signing_problems(data, dict(self.ledger.pdfs), self.cert)
        return state

    def _cut_loop(self, stop: threading.Event) -> None:
        try:
            while not stop.is_set() and len(self.cuts_done) < self.wanted:
                seen, interrupted = self.ledger.progress, None
                if self.rng.random() < 0.1:  # now and then while the app is starting
                    time.sleep(self.rng.uniform(0.0, 0.5))
                    if not self._ready():
                        interrupted = "the app starting"
                if interrupted is None:
                    self._wait_ready()  # the app starts without help after every cut
                    wait_for(lambda seen=seen: self.ledger.progress > seen or stop.is_set(),
                             "the tablets to be answered again")
                    time.sleep(self.rng.uniform(0.0, 0.3))  # a random moment of the play
                if not stop.is_set():
                    self.cuts_done.append(self.cut(interrupted))
        except BaseException as exc:  # the main thread raises it
            self.failure = exc

    def _ready(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.server.port), timeout=0.2):
                return True
        except OSError:
            return False

    def _wait_ready(self) -> None:
        proc = self.server.proc
        wait_for(lambda: self._ready() or (proc is not None and proc.poll() is not None),
                 "the table app to start")
        if not self._ready():
            raise AssertionError(f"the table app did not start again (exit {proc.poll()})")

    def cut(self, interrupted: str | None) -> Cut:
        """Pull the plug now, check the disk, start the app again (not waited for)."""
        what = interrupted or self.ledger.in_flight
        self.server.kill()
        acked = self.ledger.snapshot()  # every answer the tablets had got is in here
        pdfs = dict(self.ledger.pdfs)
        self.fs.drop_unsynced()
        self.fs.unmount()
        self.fs.mount()
        check = check_disk(self.fs.mount_point, acked, pdfs, self.cert)
        if self.cert is None and not check.signing_problems:
            self.cert = (self.fs.mount_point / "signing" / "cert.pem").read_bytes()
        self.server.start()
        return Cut(what, check)
