"""The same event store on PostgreSQL (by URL): a throw-away cluster started for the test."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest
from webui_helpers import GIN_A, GIN_B, Tablet, make_app

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def postgres_url():
    """A PostgreSQL server in tmp_path (run as the 'postgres' user when we are root)."""
    pytest.importorskip("psycopg")
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL server binaries are not installed")
    prefix: list[str] = []
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root without a 'postgres' user to run the server")
        prefix = ["runuser", "-u", "postgres", "--"]
    # not under tmp_path: pytest's folders are closed to other users
    folder = Path(tempfile.mkdtemp(prefix="gintray-pg-"))
    if prefix:
        shutil.chown(folder, "postgres")
    data = folder / "data"
    port = _free_port()
    subprocess.run([*prefix, initdb, "-D", str(data), "-U", "gintray", "--auth=trust", "-E",
                    "UTF8"], check=True, capture_output=True)
    subprocess.run([*prefix, pg_ctl, "-D", str(data), "-w", "-l", str(folder / "log"), "-o",
                    f"-p {port} -k {folder} -c listen_addresses=127.0.0.1", "start"],
                   check=True, capture_output=True)
    try:
        url = f"postgresql+psycopg://gintray@127.0.0.1:{port}/postgres"
        yield url
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_hands_confirmed_concurrently_on_postgres(tmp_path, postgres_url):
    app = make_app(tmp_path / "data", DATABASE_URL=postgres_url)
    assert app.extensions["gintray"].store.engine.dialect.name == "postgresql"
    ann, ben = Tablet(app, seat="A"), Tablet(app, seat="B")
    for _ in range(3):
        ann.knock_card("9H")
        ann.propose(kind="score", knocker="A", cards={"A": " ".join(GIN_A),
                                                      "B": " ".join(GIN_B)})
        codes: list[int] = []

        def tap(tablet, player, codes=codes):
            codes.append(tablet.confirm(player).status_code)

        threads = [threading.Thread(target=tap, args=pair) for pair in ((ann, "A"), (ben, "B"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert codes == [200, 200]
    state = ann.state()
    hands = state["games"][0]["hands"]
    assert [h["confirmed"] for h in hands] == [True, True, True]
    assert [r["totals"]["A"] for r in state["games"][0]["sheet"]["hands"]] == [55, 110, 165]
    # a second app on the same database sees the same history
    again = make_app(tmp_path / "other", DATABASE_URL=postgres_url)
    assert again.extensions["gintray"].store.state(1).to_json()["games"] == state["games"]
