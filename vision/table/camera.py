"""Camera sources behind one interface, chosen by a URL-like string.

``open_camera(source)`` understands:

- ``replay:PATH[?fps=N&loop=1]`` a folder of images (played in name order) or a video file;
  ``fps=0`` plays as fast as frames are asked for (tests), the default is 2 frames per second.
- ``usb:N`` or a bare integer ``N``: a local webcam through OpenCV.
- ``rtsp://...``, ``http://...``, ``https://...``: a network stream through OpenCV.
- ``picamera:N``: a Raspberry Pi camera through picamera2 (imported only when asked for).

The returned :class:`Camera` never raises on a lost device: ``read()`` returns ``None`` while the
device is away, reopens it with exponential backoff, and queues :class:`CameraLost` /
:class:`CameraBack` events (``pop_events()``) so the page can say so. Nothing else stops.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, urlsplit

import cv2
import numpy as np

from vision.table.events import CameraBack, CameraLost

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
REPLAY_FPS = 2.0  # a replay's frames a second unless its source says (``?fps=N``)
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".webm", ".mjpeg", ".mjpg"}


class CameraError(OSError):
    """A source could not be opened or stopped delivering frames (the device is away)."""


class CameraSourceError(ValueError):
    """The source string itself is malformed (a configuration mistake, not a lost device)."""


@dataclass(frozen=True)
class Frame:
    """One picture from a camera: BGR image, running index, wall-clock timestamp (seconds)."""

    image: np.ndarray = field(repr=False)
    index: int
    timestamp: float
    name: str = ""


class Source(Protocol):
    """A raw device: ``grab`` returns a BGR image, ``None`` at the end of a finite replay,
    or raises :class:`CameraError` when the device is gone."""

    def grab(self) -> tuple[np.ndarray, str] | None: ...

    def close(self) -> None: ...


class ReplaySource:
    """Plays a folder of images (in name order) or a video file; optionally loops."""

    def __init__(self, path: Path, loop: bool = False, start: int = 0) -> None:
        self.path = path
        self.loop = loop
        self.position = start
        self._video: cv2.VideoCapture | None = None
        self._files: list[Path] = []
        self._open()

    def _open(self) -> None:
        if self.path.is_dir():
            self._files = sorted(
                p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
            )
            if not self._files:
                raise CameraError(f"replay folder {self.path} holds no images")
        elif self.path.is_file():
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                raise CameraError(f"cannot open video {self.path}")
            if self.position:
                self._video.set(cv2.CAP_PROP_POS_FRAMES, self.position)
        else:
            raise CameraError(f"replay source {self.path} does not exist")

    def grab(self) -> tuple[np.ndarray, str] | None:
        if self._video is not None:
            ok, image = self._video.read()
            if not ok:
                if not self.loop:
                    return None
                self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._video.read()
                if not ok:
                    raise CameraError(f"video {self.path} stopped delivering frames")
            self.position += 1
            return image, f"{self.path.name}#{self.position}"
        if self.position >= len(self._files):
            if not self.loop:
                return None
            self.position = 0
        path = self._files[self.position]
        if not path.exists():
            raise CameraError(f"replay frame {path} disappeared")
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"replay frame {path} is unreadable")
        self.position += 1
        return image, path.name

    def close(self) -> None:
        if self._video is not None:
            self._video.release()


class OpenCVSource:
    """A webcam (device index) or a network stream (URL) through ``cv2.VideoCapture``."""

    def __init__(self, target: int | str) -> None:
        self.target = target
        self._capture = cv2.VideoCapture(target)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"cannot open camera {target!r}")

    def grab(self) -> tuple[np.ndarray, str]:
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"camera {self.target!r} stopped delivering frames")
        return image, str(self.target)

    def close(self) -> None:
        self._capture.release()


class PiCameraSource:
    """A Raspberry Pi camera through picamera2 (only importable on a Pi)."""

    def __init__(self, number: int) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:  # not a Pi: a configuration error, retrying will not help
            raise CameraSourceError("picamera sources need picamera2 (Raspberry Pi OS)") from exc
        try:
            self._camera = Picamera2(number)
            config = self._camera.create_still_configuration(main={"format": "RGB888"})
            self._camera.configure(config)
            self._camera.start()
        except Exception as exc:  # picamera2 raises RuntimeError and friends
            raise CameraError(f"cannot open Pi camera {number}: {exc}") from exc
        self.number = number

    def grab(self) -> tuple[np.ndarray, str]:
        try:
            image = self._camera.capture_array()
        except Exception as exc:
            raise CameraError(f"Pi camera {self.number} stopped: {exc}") from exc
        return np.ascontiguousarray(image), f"picamera:{self.number}"

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a dead camera must not raise
            self._camera.stop()


@dataclass(frozen=True)
class SourceSpec:
    """A parsed source string: ``kind`` in replay/opencv/picamera, the target, pacing options."""

    kind: str
    target: str | int
    fps: float = 0.0
    loop: bool = False


def parse_source(source: str | int) -> SourceSpec:
    """Parse a camera source string (see module docstring); raise CameraSourceError if malformed."""
    if isinstance(source, int) or str(source).strip().isdigit():
        return SourceSpec("opencv", int(source))
    text = str(source).strip()
    scheme, _, rest = text.partition(":")
    scheme = scheme.lower()
    if scheme == "replay":
        path, _, query = rest.partition("?")
        if not path:
            raise CameraSourceError("replay source needs a path: replay:FOLDER_OR_VIDEO")
        params = parse_qs(query)
        try:
            fps = float(params.get("fps", [str(REPLAY_FPS)])[0])
        except ValueError as exc:
            raise CameraSourceError(f"bad fps in {text!r}") from exc
        if fps < 0:
            raise CameraSourceError(f"fps must be >= 0 in {text!r}")
        loop = params.get("loop", ["0"])[0].lower() in {"1", "true", "yes"}
        return SourceSpec("replay", path, fps=fps, loop=loop)
    if scheme == "usb":
        if not rest.strip().isdigit():
            raise CameraSourceError(f"usb source needs a device number: {text!r}")
        return SourceSpec("opencv", int(rest))
    if scheme == "picamera":
        number = rest.strip() or "0"
        if not number.isdigit():
            raise CameraSourceError(f"picamera source needs a camera number: {text!r}")
        return SourceSpec("picamera", int(number))
    if scheme in {"rtsp", "rtsps", "http", "https"} and urlsplit(text).netloc:
        return SourceSpec("opencv", text)
    raise CameraSourceError(
        f"unknown camera source {text!r} "
        "(use replay:PATH, usb:N, rtsp://..., http://..., picamera:N)"
    )


def footage_rate(spec: SourceSpec) -> float | None:
    """The frames a second a replay's footage was filmed at, for a camera clock that does not
    depend on how fast frames are read: the replay's pace (``?fps=N``), else (``fps=0``) a
    video's own frame rate, else `REPLAY_FPS`. None for a live camera (its frames' own time)."""
    if spec.kind != "replay":
        return None
    if spec.fps > 0:
        return spec.fps
    path = Path(str(spec.target))
    if path.is_file():
        video = cv2.VideoCapture(str(path))
        rate = video.get(cv2.CAP_PROP_FPS) if video.isOpened() else 0.0
        video.release()
        if rate > 0:  # (NaN and 0 where the container does not say)
            return float(rate)
    return REPLAY_FPS


def source_opener(spec: SourceSpec) -> Callable[[], Source]:
    """A function that opens (or reopens) the raw device described by ``spec``."""
    if spec.kind == "replay":
        path = Path(str(spec.target))
        last: list[ReplaySource] = []

        def open_replay() -> ReplaySource:
            # a replay that comes back resumes where it stopped, like a live camera would
            start = last[-1].position if last else 0
            last[:] = [ReplaySource(path, loop=spec.loop, start=start)]
            return last[0]

        return open_replay
    if spec.kind == "picamera":
        return lambda: PiCameraSource(int(spec.target))
    return lambda: OpenCVSource(spec.target)


class Camera:
    """A camera that survives its device: retries with backoff and reports lost/back events.

    ``read()`` returns the next :class:`Frame`, or ``None`` when no frame is available now (device
    away, waiting for the next retry) or the replay has ended (``finished`` is then True).
    """

    def __init__(
        self,
        opener: Callable[[], Source],
        *,
        fps: float = 0.0,
        name: str = "camera",
        first_retry: float = 0.5,
        max_retry: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = name
        self.fps = fps
        self.first_retry = first_retry
        self.max_retry = max_retry
        self._opener = opener
        self._clock = clock
        self._sleep = sleep
        self._source: Source | None = None
        self._events: list[CameraLost | CameraBack] = []
        self._index = 0
        self._lost_since: float | None = None
        self._retry_delay = first_retry
        self._next_retry = 0.0
        self._last_frame_at: float | None = None
        self.finished = False
        self._connect()

    @property
    def connected(self) -> bool:
        return self._source is not None

    def pop_events(self) -> list[CameraLost | CameraBack]:
        """Camera events since the last call (oldest first)."""
        events, self._events = self._events, []
        return events

    def _connect(self) -> bool:
        try:
            self._source = self._opener()
        except CameraSourceError:
            raise
        except Exception as exc:  # absent device, driver error: retry later
            self._lost(str(exc) or type(exc).__name__)
            return False
        if self._lost_since is not None:
            self._events.append(CameraBack(downtime=self._clock() - self._lost_since))
            self._lost_since = None
        self._retry_delay = self.first_retry
        return True

    def _lost(self, reason: str) -> None:
        if self._source is not None:
            with contextlib.suppress(Exception):  # a dead device may fail to close
                self._source.close()
            self._source = None
        now = self._clock()
        if self._lost_since is None:
            self._lost_since = now
            self._retry_delay = self.first_retry
            self._events.append(CameraLost(reason=reason, retry_in=self._retry_delay))
        else:
            self._retry_delay = min(self._retry_delay * 2, self.max_retry)
        self._next_retry = now + self._retry_delay

    def _pace(self) -> None:
        if self.fps <= 0 or self._last_frame_at is None:
            return
        wait = self._last_frame_at + 1.0 / self.fps - self._clock()
        if wait > 0:
            self._sleep(wait)

    def read(self) -> Frame | None:
        """Next frame, or None (device away / replay finished); never raises CameraError."""
        if self.finished:
            return None
        if self._source is None:
            now = self._clock()
            if now < self._next_retry:
                self._sleep(min(self._next_retry - now, 0.2))
                return None
            if not self._connect():
                return None
        self._pace()
        assert self._source is not None
        try:
            grabbed = self._source.grab()
        except Exception as exc:  # any failure of the device is a lost camera, never a crash
            self._lost(str(exc) or type(exc).__name__)
            return None
        if grabbed is None:
            self.finished = True
            return None
        image, name = grabbed
        self._last_frame_at = self._clock()
        frame = Frame(image=image, index=self._index, timestamp=time.time(), name=name)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._source is not None:
            self._source.close()
            self._source = None
        self.finished = True

    def __enter__(self) -> Camera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_camera(source: str | int, **options: float) -> Camera:
    """Open a camera from a source string (see module docstring).

    A device that is absent right now is not an error: the camera starts in the lost state,
    queues a :class:`CameraLost` event and keeps retrying. A malformed string raises
    :class:`CameraSourceError`. ``options`` go to :class:`Camera` (first_retry, max_retry).
    """
    spec = parse_source(source)
    return Camera(source_opener(spec), fps=spec.fps, name=str(source), **options)
