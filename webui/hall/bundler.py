"""The event bundle built in the background, so the hall's pages keep answering.

``/bundle.zip`` serves the last built zip when the signed games have not changed since;
otherwise it starts a build and answers at once with its progress (games done of all). The
build runs in a child process at a lower CPU priority (``python -m webui.hall.bundler``):
signing PDFs is CPU work that would otherwise hold the hall's threads. It is incremental:
each signed game's files are kept in a cache keyed by the game's sheet hash
(``bundle.build_bundle``), so only games signed since the last build are signed now.
Progress and the zip live in ``DATA_DIR/bundle``; the event database URL reaches the child in
its environment, never on its command line.
"""

from __future__ import annotations

import argparse
import enum
import json
import os
import subprocess
import sys
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from webui.common.app import typed_json
from webui.common.durable import write_atomically
from webui.store import Store
from webui.store.state import sheet_hash

URL_ENV = "GINTRAY_BUNDLE_DATABASE_URL"


class BuildState(enum.Enum):
    IDLE = "idle"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class BuildStatus:
    """A build's state, how far it is, how many games were signed now (the rest from the
    cache), the signed games it covers, and its error."""

    state: BuildState
    done: int = 0
    total: int = 0
    signed_now: int = 0
    started_at: str | None = None
    finished_at: str | None = None
    covers: tuple[str, ...] = ()
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["state"] = self.state.value
        out["covers"] = list(self.covers)
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> BuildStatus:
        return BuildStatus(BuildState(data["state"]), int(data["done"]), int(data["total"]),
                           int(data["signed_now"]), data.get("started_at"),
                           data.get("finished_at"), tuple(data.get("covers", ())),
                           str(data.get("error", "")))


def signed_set(store: Store) -> tuple[str, ...]:
    """Every signed game as ``table:game:sheet hash``: a bundle covering these is current."""
    out = []
    for table in store.tables():
        state = store.state(table.id)
        out += [f"{table.id}:{g.number}:{sheet_hash(state, g)}" for g in state.games if g.locked]
    return tuple(out)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """``data`` as a JSON file; typed values (the engine's match, games) by their ``to_json``."""
    write_atomically(path, json.dumps(data, default=typed_json))


class Bundler:
    """The hall's background bundle builds (one at a time) in ``folder``."""

    def __init__(self, database_url: str, data_dir: Path) -> None:
        self.url = database_url
        self.data_dir = Path(data_dir)
        self.folder = self.data_dir / "bundle"
        self.folder.mkdir(parents=True, exist_ok=True)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    @property
    def zip_path(self) -> Path:
        return self.folder / "bundle.zip"

    @property
    def progress_path(self) -> Path:
        return self.folder / "progress.json"

    def status(self) -> BuildStatus:
        if not self.progress_path.exists():
            return BuildStatus(BuildState.IDLE)
        status = BuildStatus.from_json(json.loads(self.progress_path.read_text()))
        if status.state is BuildState.RUNNING and not self.running():
            return BuildStatus(BuildState.FAILED, status.done, status.total, status.signed_now,
                               status.started_at, None, (), "the build stopped unfinished")
        return status

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def current(self, covers: tuple[str, ...]) -> Path | None:
        """The built zip when it covers exactly these signed games, else None."""
        status = self.status()
        if status.state is BuildState.DONE and status.covers == covers and self.zip_path.exists():
            return self.zip_path
        return None

    def start(self, extra: dict[str, Any]) -> bool:
        """Start a build (False: one is running already); ``extra`` goes in the manifest."""
        with self._lock:
            if self.running():
                return False
            _write_json(self.folder / "extra.json", extra)
            _write_json(self.progress_path, BuildStatus(
                BuildState.RUNNING, started_at=datetime.now(UTC).isoformat()).to_json())
            env = {**os.environ, URL_ENV: self.url}
            with open(self.folder / "build.log", "wb") as log:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", "webui.hall.bundler", "--data-dir",
                     str(self.data_dir)], env=env, stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT)
            return True

    def wait(self, timeout: float) -> BuildStatus:
        """Wait for the running build (tests, the benchmark)."""
        if self._proc is not None:
            self._proc.wait(timeout)
        return self.status()


def build(store: Store, data_dir: Path) -> BuildStatus:
    """The child's job: build the zip from the cache and the newly signed games, writing
    progress after each game."""
    from webui.common.signing import ensure_identity
    from webui.hall.bundle import Progress, build_bundle

    folder = data_dir / "bundle"
    started = datetime.now(UTC).isoformat()
    extra_path = folder / "extra.json"
    extra = json.loads(extra_path.read_text()) if extra_path.exists() else {}
    covers = signed_set(store)

    def report(p: Progress) -> None:
        _write_json(folder / "progress.json", BuildStatus(
            BuildState.RUNNING, p.done, p.total, p.signed_now, started).to_json())

    seen: list[Progress] = []
    data = build_bundle(store, ensure_identity(data_dir), extra, cache=folder / "cache",
                        progress=lambda p: (seen.append(p), report(p)))
    write_atomically(folder / "bundle.zip", data)
    last = seen[-1] if seen else Progress(0, 0, 0)
    done = BuildStatus(BuildState.DONE, last.done, last.total, last.signed_now, started,
                       datetime.now(UTC).isoformat(), covers)
    _write_json(folder / "progress.json", done.to_json())
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webui.hall.bundler",
                                     description="build the hall's event bundle")
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args(argv)
    url = os.environ.get(URL_ENV)
    if not url:
        print(f"bundler: {URL_ENV} is not set", file=sys.stderr)
        return 2
    if hasattr(os, "nice"):
        os.nice(10)  # the hall's pages first
    from webui.hall.sync import open_store

    data_dir = Path(args.data_dir)
    try:
        build(open_store(url), data_dir)
    except Exception as exc:  # said on the page, the build can be started again
        status = BuildStatus(BuildState.FAILED, error=f"{type(exc).__name__}: {exc}"[:500])
        _write_json(data_dir / "bundle" / "progress.json", status.to_json())
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
