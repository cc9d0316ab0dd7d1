"""``gintray serve``: run the table web app with a production WSGI server (waitress)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

DEFAULT_THREADS = 64  # live streams (SSE, MJPEG) each hold a thread while open
STREAM_FREE_THREADS = 16  # threads live streams never take: pages and commands answer


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gintray serve", description="Run the table web app (score sheet, confirmations, "
        "signatures, signed export). Bind to your LAN (--host 0.0.0.0) so tablets reach it.")
    parser.add_argument("--demo", action="store_true",
                        help="open a ready demo table on the bundled demo footage")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--data-dir", default="instance",
                        help="folder for the database, signing key, snapshots (default ./instance;"
                             " it must exist unless --create is given)")
    parser.add_argument("--create", action="store_true",
                        help="create the data folder (a new, empty installation) if it does not "
                             "exist yet; without it a missing folder is refused")
    parser.add_argument("--camera", metavar="SOURCE",
                        help="camera of this machine's table (the demo table with --demo, else "
                             "--table-name, created on first start): usb:0, picamera:0, "
                             "replay:FOLDER, rtsp://...")
    parser.add_argument("--table-name", default="Table 1",
                        help="name of the table that --camera belongs to (default: Table 1)")
    parser.add_argument("--database-url",
                        help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
                        "(default: SQLite in the data dir)")
    parser.add_argument("--public-url", metavar="URL",
                        help="the address tablets open when the app is behind a proxy, e.g. "
                             "https://gin.example.org (put in the join link and its QR code; "
                             "default: this machine's LAN address with --host 0.0.0.0)")
    parser.add_argument("--no-camera", action="store_true", help="do not start camera threads")
    parser.add_argument("--deck", metavar="DECK.json",
                        help="read the cards with this deck profile (gintray deck learn); "
                             "without it the shipped models read as they are")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, help=argparse.SUPPRESS)
    return parser


def data_dir_problem(data_dir: Path, create: bool) -> str | None:
    """Why ``data_dir`` cannot hold this installation's data, or None when it can.

    A missing folder is made only when asked (``create``): a mistyped path must not start an
    empty installation beside the real one.
    """
    where = data_dir.resolve()
    if not data_dir.exists():
        if not create:
            return (f"the data folder {where} does not exist. Give the folder of this "
                    "installation with --data-dir, or add --create to start a new, empty one "
                    "there.")
        try:
            data_dir.mkdir(parents=True)
        except OSError as exc:
            return f"cannot create the data folder {where}: {exc}"
        print(f"created the data folder {where} (a new installation)", flush=True)
    if not data_dir.is_dir():
        return f"the data folder {where} is not a folder"
    try:
        with tempfile.TemporaryFile(dir=data_dir):
            pass
    except OSError as exc:
        return f"the data folder {where} cannot be written ({exc}); fix its permissions"
    return None


def deck_problem(path: Path) -> str | None:
    """Why the deck profile at ``path`` cannot be read with the shipped namer, or None."""
    from vision.inference.deck import DeckProfileError, load_profile
    from vision.inference.detector import check_shipped_namer

    try:
        check_shipped_namer(load_profile(path))
    except (DeckProfileError, OSError) as exc:
        return str(exc)
    return None


def serve_main(argv: list[str]) -> int:
    """Entry point of ``gintray serve``."""
    args = build_parser().parse_args(argv)
    from waitress import serve

    from webui.common.security import DIRECTOR_KEY
    from webui.store import DatabaseUnwritable
    from webui.table import create_app
    from webui.table.addresses import lan_address, lan_url, public_url
    from webui.table.parts import table_parts

    public = None
    if args.public_url:
        try:
            public = public_url(args.public_url)
        except ValueError as exc:
            print(f"gintray serve: cannot start: {exc}", file=sys.stderr)
            return 2
    if args.deck:
        problem = deck_problem(Path(args.deck))
        if problem:
            print(f"gintray serve: cannot start: {problem}", file=sys.stderr)
            return 2
    problem = data_dir_problem(Path(args.data_dir), args.create)
    if problem:
        print(f"gintray serve: cannot start: {problem}", file=sys.stderr)
        return 1
    config = {"DATA_DIR": args.data_dir, "DEMO": args.demo, "CAMERA": args.camera,
              "TABLE_NAME": args.table_name, "DECK": args.deck,
              "START_CAMERAS": not args.no_camera,
              "PUBLIC_URL": public, "LAN_URL": lan_url(args.host, args.port),
              # live streams may hold at most this many of the threads: pages keep answering
              "MAX_STREAMS": max(1, args.threads - STREAM_FREE_THREADS)}
    if args.database_url:
        config["DATABASE_URL"] = args.database_url
    try:
        app = create_app(config)
    except Exception as exc:  # a bad database URL or data dir: say so plainly
        print(f"gintray serve: cannot start: {exc}", file=sys.stderr)
        return 1
    store = table_parts(app).store
    try:
        store.check_writable()
    except DatabaseUnwritable as exc:
        print(f"gintray serve: cannot start: {exc}", file=sys.stderr)
        return 1
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    print(f"gintray table app on http://{shown_host}:{args.port}/", flush=True)
    tablets = public or app.config["LAN_URL"]
    if tablets:
        print(f"tablets on your network: {tablets}/ (the join links and QR codes use it)",
              flush=True)
    else:
        print(f"LAN address of this machine: http://{lan_address()}:{args.port}/ (tablets "
              "reach it only when started with --host 0.0.0.0 or --host <that address>)",
              flush=True)
    if store.get_setting(DIRECTOR_KEY) is None:
        print(f"first run: set the director password at http://127.0.0.1:{args.port}"
              "/director/setup (on this machine)", flush=True)
    for table in store.tables():
        feed = table_parts(app).cameras.get(table.id)
        status = feed.status()["message"] if feed else "camera unavailable (none set)"
        print(f"  table {table.id} {table.name!r}: screen http://{shown_host}:{args.port}/t/"
              f"{table.id}/screen, tablets join at {tablets or f'http://{shown_host}:{args.port}'}"
              f"/t/{table.id}/join ({status})", flush=True)
    try:
        serve(app, host=args.host, port=args.port, threads=args.threads, ident="gintray",
              channel_timeout=120, clear_untrusted_proxy_headers=True)
    except OSError as exc:
        print(f"gintray serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0
