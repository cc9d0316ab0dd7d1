"""`gintray watch SOURCE [--layout FILE] [--json] [--frames N]`: a camera through the live reader.

How a director checks a camera before play: the reader the table app would run on this camera
(`vision.table.watch`), one line each time its read changes (frame, seconds, cards, doubts,
events), and at the end the reader's CPU a frame. SOURCE is any camera source of the app:
``replay:VIDEO_OR_FOLDER[?fps=N]`` (``fps=0``: as fast as it reads), ``usb:N``, ``picamera:N``,
``rtsp://...``, ``http(s)://...``. With ``--json`` each line is one JSON object. A replay's
seconds are its footage's (`vision.table.camera.footage_rate`), a live camera's its own.

Exit status: 0 when the footage ends, ``--frames`` are read or Ctrl-C stops it; 1 when the
camera drops out and is not back within ``--wait`` seconds (the last line says why); 2 for a
malformed source, an unusable layout or a missing detector.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vision.detector_options import add_detector_options, detector_from_options
from vision.table.camera import CameraSourceError, footage_rate, open_camera, parse_source
from vision.table.watch import Watch, WatchSummary, live_reader, set_idle_rereads


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gintray watch", description=__doc__.splitlines()[0])
    parser.add_argument("source", help="camera source: replay:PATH[?fps=N], usb:N, picamera:N, "
                                       "rtsp://..., http(s)://...")
    parser.add_argument("--layout", type=Path,
                        help="the table's layout JSON (without: the cards seen, no events)")
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    parser.add_argument("--frames", type=int, metavar="N", help="stop after N frames")
    parser.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                        help="how long a lost camera may take to come back before the watch "
                             "ends with status 1 (default 10)")
    parser.add_argument("--no-idle-rereads", action="store_true",
                        help="read a region only when its picture changed (the reader's idle "
                             "re-reads off), to compare the CPU a frame")
    add_detector_options(parser)
    return parser


def watch_main(argv: list[str]) -> int:
    """Entry point of `gintray watch`; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.frames is not None and args.frames < 1:
        return _fail("--frames must be at least 1")
    layout = None
    if args.layout:
        from vision.table.layout import LayoutError, load_layout

        try:
            layout = load_layout(args.layout)
        except LayoutError as exc:
            return _fail(str(exc))
    try:
        fps = footage_rate(parse_source(args.source))
        camera = open_camera(args.source)  # an absent device is a lost camera, not an error
    except CameraSourceError as exc:
        return _fail(str(exc))
    with camera:
        try:
            detector = detector_from_options(args)
        except Exception as exc:  # DetectorUnavailable, a missing backend: one clear message
            return _fail(f"detector unavailable: {exc}")
        reader, counted = live_reader(detector, layout)
        if args.no_idle_rereads and not set_idle_rereads(reader, False):
            _note("this reader has no idle re-reads: every frame is read as it always is")
        watch = Watch(camera, reader, counted, max_frames=args.frames, wait_back=args.wait,
                      footage_fps=fps)
        return run_watch(watch, args.source, args.json)


def run_watch(watch: Watch, source: str, as_json: bool,
              out: Callable[[str], Any] = print) -> int:
    """Print the watch's lines and its summary; the exit status (1: the camera dropped out)."""
    try:
        for line in watch.lines():
            out(json.dumps(line.to_json()) if as_json else line.text())
    except KeyboardInterrupt:  # a director stops a live camera with Ctrl-C: the summary follows
        pass
    except CameraSourceError as exc:  # picamera2 missing: the source cannot work here
        return _fail(str(exc))
    summary = watch.summary
    out(json.dumps(summary.to_json()) if as_json else describe_summary(summary))
    if summary.lost is None:
        return 0
    said = "gave no picture" if not summary.ever_connected else "dropped out"
    message = (f"camera {source} {said} ({summary.lost.reason}) and was not back within "
               f"{watch.wait_back:g} s")
    if as_json:
        out(json.dumps({"error": {"code": "camera_lost", "message": message}}))
    print(f"gintray watch: {message}", file=sys.stderr)
    return 1


def describe_summary(summary: WatchSummary) -> str:
    """The end line: frames, read changes, CPU a frame (the reader's, one thread unless
    GINTRAY_THREADS says more; and with capture), frames the detector read, idle re-reads."""
    from vision.demo.verify import detector_threads

    rereads = {None: "none in this reader", True: "on", False: "off"}[summary.idle_rereads]
    if not summary.frames:
        return f"no frame read; idle re-reads: {rereads}"
    return (f"{summary.frames} frames, {summary.lines} lines; CPU a frame "
            f"{summary.cpu_per_frame * 1000:.1f} ms in the reader "
            f"({summary.process_cpu_per_frame * 1000:.1f} ms with capture; "
            f"GINTRAY_THREADS={detector_threads()}); the detector read in "
            f"{summary.detector_frames} frames; idle re-reads: {rereads}")


def _fail(message: str) -> int:
    print(f"gintray watch: {message}", file=sys.stderr)
    return 2


def _note(message: str) -> None:
    print(f"gintray watch: {message}", file=sys.stderr)

