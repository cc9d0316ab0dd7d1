"""One background thread per table: camera frames -> table reader -> proposals on the page.

``TableCamera`` owns the frames: the thread and its loop, the status (lost and back with their
times), its ``Picture`` (the latest frame, outlined, for the MJPEG view) and the detector's
self-check. Each event
of the table reader goes to its ``CameraClerk`` (``webui.table.camera_clerk``), which records it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
from flask import Flask

from vision.inference import detector as card_detector  # load_detector: patched in tests
from vision.inference.mirror import unmirror
from vision.inference.tiling import configured
from vision.table.camera import open_camera
from vision.table.events import CameraBack, CameraLost, Event, FrameRead
from vision.table.layout import load_layout
from vision.table.picture import draw_detections, prepare
from vision.table.reader import Onlooker, TableReader
from vision.table.speed import measure_table_speed
from webui.store import Store
from webui.table.camera_clerk import CameraClerk
from webui.table.deck_choice import deck_for, deck_line
from webui.table.live import Lease
from webui.table.parts import table_parts

log = logging.getLogger(__name__)
# What the table screen says of a camera that stopped: a player's sentence (the device's or
# the program's own words, e.g. "replay frame /tmp/.../frame_013.jpg disappeared", are logged)
CAMERA_LOST_WORDS = ("The camera stopped sending pictures; check its cable. Scoring by hand "
                     "still works. (It keeps trying to reconnect.)")
CAMERA_STOPPED_WORDS = ("The camera stopped; restart the table app to try again. Scoring by "
                        "hand still works.")


def layout_path_for(source: str, explicit: str | None = None) -> Path | None:
    """The table layout file: the one given, or ``layout.json`` beside replayed footage."""
    if explicit:
        return Path(explicit)
    if source.startswith("replay:"):
        folder = Path(source[len("replay:"):].split("?", 1)[0])
        for candidate in (folder / "layout.json", folder.parent / "layout.json"):
            if candidate.is_file():
                return candidate
    return None


def reader_for(detector: Any, path: Path | None) -> tuple[TableReader | None, str]:
    """(the table reader for the layout file, or None and what is missing)."""
    if path is None:
        return None, "not calibrated: cards are shown, not read"
    try:
        layout = load_layout(path)
        return TableReader(configured(detector, layout.detector_settings()), layout), ""
    except Exception as exc:
        return None, f"layout unusable: {exc}"


def self_check(detector: Any, backend: str) -> dict[str, Any]:
    """The doctor's check frame read once with the shipped detector: the verdict for the table
    screen, ``{"passed", "line"}`` (a failure says what to do; the camera keeps running)."""
    try:
        from vision.inference.doctor import check_detector

        report = check_detector(detector, backend, measure_table_speed)
        verdict = {"passed": report.passed, "line": report.summary()}
    except Exception as exc:  # the check must never stop the camera
        verdict = {"passed": False, "line": f"Card reader self-check failed: {exc}"}
    if not verdict["passed"]:
        log.warning("%s", verdict["line"])
    return verdict


def read_frame(reader: TableReader | Onlooker | None, frame: Any) -> FrameRead:
    """One frame through the table reader (or, not calibrated, the onlooker: the cards are
    shown); a failure is logged and reads as nothing."""
    try:
        if isinstance(reader, TableReader):
            return reader.feed(frame)
        if reader is not None:
            return reader.look(frame)
    except Exception as exc:
        log.warning("reader failed on frame %s: %s", frame.index, exc)
    return FrameRead(frame.index)


class Picture:
    """The camera's latest frame and its picture (the cards the reader used, outlined), when
    it was taken, and the MJPEG stream of pictures as they come."""

    def __init__(self) -> None:
        self.jpeg: bytes | None = None
        self.raw: Any = None  # the latest frame as captured (for calibration)
        self.taken: datetime | None = None  # when the latest frame came (UTC)
        self._cond = threading.Condition()
        self._number = 0

    def publish(self, image: Any, read: FrameRead) -> None:
        """Keep the frame and its picture."""
        self.raw, self.taken = image, datetime.now(UTC)
        annotated = draw_detections(image, read.detections)
        ok, buf = cv2.imencode(".jpg", annotated, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if not ok:
            return
        with self._cond:
            self.jpeg = buf.tobytes()
            self._number += 1
            self._cond.notify_all()

    def wake(self) -> None:
        """Wake the streams (the camera stops, or a stream's lease ends)."""
        with self._cond:
            self._cond.notify_all()

    def mjpeg(self, stopped: threading.Event, max_seconds: float,
              lease: Lease | None = None) -> Iterator[bytes]:
        """A multipart JPEG stream of the pictures, until ``stopped``, ``max_seconds`` or the
        stream's ``lease`` ends (asked before each picture; its end wakes the stream)."""
        started = time.monotonic()
        seen = -1
        if lease is not None:
            lease.on_end(self.wake)
        while (time.monotonic() - started < max_seconds and not stopped.is_set()
               and (lease is None or lease.alive())):
            with self._cond:
                last = seen
                self._cond.wait_for(
                    lambda last=last: (self._number != last or stopped.is_set()
                                       or (lease is not None and lease.ended is not None)),
                    timeout=5)
                seen, jpeg = self._number, self.jpeg
            if jpeg is None or (lease is not None and not lease.alive()):
                continue
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                   + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")


class TableCamera:
    """Reads one table's camera in a daemon thread; see the module docstring."""

    def __init__(self, store: Store, table_id: int, source: str, data_dir: Path,
                 notify: Any, layout: str | None = None, detector: Any = None,
                 deck: str | None = None) -> None:
        self.table_id, self.source, self.layout_file = table_id, source, layout
        self.deck = deck  # the deck profile file the detector reads with (gintray serve --deck)
        self._deck_line: str | None = None  # what the table screen says of it, once loaded
        self._given_detector, self.notify = detector, notify
        self._status = {"state": "starting", "message": f"starting {source}"}
        # the detector's self-check on this CPU (``self_check``), once run
        self._self_check: dict[str, Any] | None = None
        self.checked = threading.Event()  # set once the self-check's verdict is in
        self.checker: threading.Thread | None = None  # the self-check's thread, once started
        self.picture = Picture()
        self._stop = threading.Event()
        self.clerk = CameraClerk(store, table_id, data_dir, self.latest_jpeg)
        self.thread = threading.Thread(target=self._run, name=f"camera-{table_id}", daemon=True)

    # public -------------------------------------------------------------------------------
    def start(self) -> TableCamera:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.picture.wake()

    def status(self) -> dict[str, Any]:
        """What the table screen says of the camera: ``state`` (starting, running, lost,
        unavailable, finished), ``message``; while lost, ``lost_since`` and ``last_seen`` (the
        latest picture's time, ISO UTC); the self-check's verdict once in."""
        status = dict(self._status)
        if status["state"] == "lost" and self.picture.taken is not None:
            status["last_seen"] = self.picture.taken.isoformat()
        if self._self_check is not None:
            status["self_check"] = dict(self._self_check)
        if self._deck_line is not None:
            status["deck"] = self._deck_line
        return status

    def latest_jpeg(self) -> bytes | None:
        return self.picture.jpeg

    @property
    def detector(self) -> Any:
        """The card detector this camera reads with (None before it is loaded)."""
        return self._given_detector

    def latest_frame(self) -> Any:
        """The latest frame as captured (BGR array), without drawings; None before the first."""
        return self.picture.raw

    def mjpeg(self, max_seconds: float = 600.0, lease: Lease | None = None) -> Iterator[bytes]:
        """A multipart JPEG stream of the annotated frames (while ``lease`` lasts)."""
        return self.picture.mjpeg(self._stop, max_seconds, lease)

    # thread -------------------------------------------------------------------------------
    def _set_status(self, state: str, message: str, **more: str) -> None:
        if self._status.get("state") != state or self._status.get("message") != message:
            self._status = {"state": state, "message": message, **more}
            self.notify(self.table_id, 0)

    def _run(self) -> None:
        try:
            self._loop()
        except Exception:  # the web app keeps working without its camera
            log.exception("camera thread of table %s stopped", self.table_id)
            self._set_status("unavailable", CAMERA_STOPPED_WORDS)

    def _loop(self) -> None:
        try:
            camera = open_camera(self.source)
        except Exception as exc:
            self._set_status("unavailable", f"camera unavailable: {exc}")
            return
        for ev in camera.pop_events():  # a device absent at start is told before anything loads
            self.handle(ev)
        prepare()  # the picture's drawing library, before the first card is seen
        detector, table_reader, why = self._make_reader()
        # a camera set to mirror its picture: each frame is flipped back before it is read,
        # shown or kept for calibration (the layout says so, `TableLayout.mirrored`)
        mirrored = table_reader is not None and table_reader.layout.mirrored
        if camera.connected:  # else "lost" stands until the camera's "back"
            self._set_status("running",
                             "camera on" + (f"; {why}" if why else ", reading the table"))
        reader: TableReader | Onlooker | None = table_reader
        if reader is None and detector is not None:
            reader = Onlooker(detector)
        try:
            while not self._stop.is_set():
                frame = camera.read()
                for ev in camera.pop_events():
                    self.handle(ev)
                if frame is None:
                    if getattr(camera, "finished", False):
                        self._set_status("finished", "the recorded footage has ended")
                        return
                    continue
                if mirrored:
                    frame = replace(frame, image=unmirror(frame.image))
                if self.picture.jpeg is None:  # the first picture never waits for the reader
                    self.picture.publish(frame.image, FrameRead(frame.index))
                read = read_frame(reader, frame)
                self.picture.publish(frame.image, read)
                for ev in read.events:
                    self.handle(ev)
        finally:
            camera.close()

    def _make_reader(self) -> tuple[Any, TableReader | None, str]:
        """(the detector, the table reader when the table is calibrated, what is missing)."""
        try:
            if self._given_detector is None:
                self._given_detector = card_detector.load_detector(deck=self.deck)
                # the self-check (a few reads) runs beside the camera, never before its first
                # picture; the table screen shows its verdict when it is done
                self.checker = threading.Thread(
                    target=self._check_detector, args=(self._given_detector,),
                    name=f"self-check-{self.table_id}", daemon=True)
                self.checker.start()
            detector = self._given_detector
            self._deck_line = deck_line(detector, self.deck)
        except Exception as exc:
            return None, None, f"cards are not read (detector unavailable: {exc})"
        return (detector, *reader_for(detector, layout_path_for(self.source, self.layout_file)))

    def _check_detector(self, detector: Any) -> None:
        """The detector's self-check on this CPU, then the table screen is told. It runs at
        the lowest CPU priority (this thread only, Linux): the camera's reads come first."""
        with contextlib.suppress(AttributeError, OSError):  # not Linux: same priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        shipped = getattr(detector, "without_deck", lambda: detector)()  # the reference's models
        self._self_check = self_check(shipped, card_detector.default_backend())
        self.checked.set()
        self.notify(self.table_id, 0)

    def handle(self, ev: Event) -> None:
        """The camera's own events set the status; the reader's go to the clerk."""
        match ev:
            case CameraLost(reason=reason):  # the device's own words go to the log only
                log.warning("camera of table %s lost: %s", self.table_id, reason)
                self._set_status("lost", CAMERA_LOST_WORDS,
                                 lost_since=datetime.now(UTC).isoformat())
            case CameraBack():
                self._set_status("running", "camera back: reading the table again",
                                 back_since=datetime.now(UTC).isoformat())
            case _:
                self.clerk.on_event(ev)


def start_camera(app: Flask, table_id: int) -> TableCamera | None:
    """Start (or restart) the camera thread of one table if it has a camera source."""
    cameras = table_parts(app).cameras
    store = table_parts(app).store
    state = store.state(table_id)
    old = cameras.pop(table_id, None)
    if old is not None:
        old.stop()
    if not state.camera:
        return None
    feed = TableCamera(store, table_id, state.camera, Path(app.config["DATA_DIR"]),
                       table_parts(app).notifier.publish, layout=state.layout,
                       deck=deck_for(app, table_id)).start()
    cameras[table_id] = feed
    return feed


def start_cameras(app: Flask) -> None:
    """Start every table's camera thread."""
    for table in table_parts(app).store.tables():
        start_camera(app, table.id)
