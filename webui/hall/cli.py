"""``gintray hall`` (the director's page of an event) and ``gintray sync`` (a table's database
up to the event's database)."""

from __future__ import annotations

import argparse
import os
import sys

ENV_URL = "GINTRAY_EVENT_DATABASE_URL"


def hall_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gintray hall", description="Run the tournament director's page: every table "
        "live, standings, blind draw, best-of-five matches, partnerships, bundle export.")
    parser.add_argument("--database-url", default=os.environ.get(ENV_URL),
                        help=f"the event database, e.g. postgresql://user@host/event "
                        f"(default: ${ENV_URL})")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5050, help="port (default 5050)")
    parser.add_argument("--data-dir", default="hall-instance",
                        help="folder for the hall's signing key (default ./hall-instance)")
    parser.add_argument("--add-director", metavar="NAME",
                        help="make the director account NAME (or set its new password: asked "
                        "twice, or one line on stdin) and exit; once the event has accounts, "
                        "each director logs in with their own name and the audit names them")
    return parser


def add_director(url: str, name: str) -> int:
    """``gintray hall --add-director NAME``: make (or re-password) a director account."""
    import getpass

    from webui.hall.directors import AccountError, set_account
    from webui.hall.sync import open_store, prepare_event_database

    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {name}: ")
        if getpass.getpass("again: ") != password:
            print("gintray hall: the two passwords differ", file=sys.stderr)
            return 2
    else:
        password = sys.stdin.readline().rstrip("\n")
    store = open_store(url)
    prepare_event_database(store)
    try:
        new = set_account(store, name, password)
    except AccountError as exc:
        print(f"gintray hall: {exc}", file=sys.stderr)
        return 2
    print(f"director {' '.join(name.split())!r} {'made' if new else 'has a new password'}; "
          "log in with this name at the hall", flush=True)
    return 0


def hall_main(argv: list[str]) -> int:
    """Entry point of ``gintray hall``."""
    args = hall_parser().parse_args(argv)
    if not args.database_url:
        print(f"gintray hall: give --database-url (or set {ENV_URL})", file=sys.stderr)
        return 2
    if args.add_director is not None:
        return add_director(args.database_url, args.add_director)
    from waitress import serve

    from webui.common.security import DIRECTOR_KEY
    from webui.hall import create_hall_app
    from webui.hall.parts import hall_parts

    try:
        app = create_hall_app({"DATABASE_URL": args.database_url, "DATA_DIR": args.data_dir})
    except Exception as exc:  # unreachable database, bad URL: say so plainly
        print(f"gintray hall: cannot start: {exc}", file=sys.stderr)
        return 1
    store = hall_parts(app).store
    print(f"gintray hall on http://{args.host}:{args.port}/ "
          f"({len(store.tables())} table(s) in the event database)", flush=True)
    if store.get_setting(DIRECTOR_KEY) is None:
        print(f"first run: set the director password at http://127.0.0.1:{args.port}/setup "
              "(on this machine)", flush=True)
    try:
        serve(app, host=args.host, port=args.port, threads=8, ident="gintray-hall",
              clear_untrusted_proxy_headers=True)
    except OSError as exc:
        print(f"gintray hall: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0


def sync_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gintray sync", description="Upload a table's events to the event database "
        "(idempotent: run it as often as you like; a table cut off catches up when back) and "
        "apply the director's corrections at the table.")
    parser.add_argument("--from", dest="source", required=True,
                        help="the table's database, e.g. sqlite:///instance/gintray.sqlite3")
    parser.add_argument("--to", dest="target", default=os.environ.get(ENV_URL),
                        help=f"the event database (default: ${ENV_URL})")
    parser.add_argument("--loop", type=float, metavar="SECONDS",
                        help="keep syncing every SECONDS (an unreachable event database is "
                        "retried); without it, sync once")
    parser.add_argument("--adopt", action="store_true",
                        help="ask the director to take this database file as the table's "
                        "database (it was moved, or restored after the original was lost); it "
                        "syncs once approved at the hall, which refuses while the original "
                        "still syncs or when this one is behind the event database")
    parser.add_argument("--join-event", action="store_true",
                        help="make this table app leave the event it holds and join the --to "
                        "event (a table app belongs to one event at a time): the old event's "
                        "tables are archived, kept in the database and in a copy of its file "
                        "beside it, never deleted and never synced to the new event; then it "
                        "syncs")
    return parser


def sync_main(argv: list[str]) -> int:
    """Entry point of ``gintray sync``."""
    args = sync_parser().parse_args(argv)
    if not args.target:
        print(f"gintray sync: give --to (or set {ENV_URL})", file=sys.stderr)
        return 2
    if args.loop is not None and args.loop <= 0:
        print("gintray sync: --loop needs a positive number of seconds", file=sys.stderr)
        return 2
    from sqlalchemy.exc import OperationalError

    from webui.hall import adoption
    from webui.hall.sync import SyncConflict, open_store, sync_loop, sync_once

    if args.join_event:
        from webui.hall import joining
        from webui.hall.sync import prepare_event_database

        try:
            central = open_store(args.target)
            prepare_event_database(central)
            print(joining.join(open_store(args.source), central).line(), flush=True)
        except OperationalError as exc:
            print(f"gintray sync: event database unreachable: {str(exc).splitlines()[0]}",
                  file=sys.stderr)
            return 1
    if args.adopt:
        try:
            asked = adoption.ask(open_store(args.source), open_store(args.target))
        except OperationalError as exc:
            print(f"gintray sync: event database unreachable: {str(exc).splitlines()[0]}",
                  file=sys.stderr)
            return 1
        print(f"asked the director to adopt this database (request {asked.id}): approve it "
              "at the hall under \"Syncs refused\"; it syncs from then on", flush=True)
    if args.loop is not None:
        try:
            sync_loop(args.source, args.target, args.loop,
                      log=lambda line: print(line, flush=True))
        except KeyboardInterrupt:
            return 0
        except SyncConflict as exc:
            print(f"gintray sync: {exc}", file=sys.stderr)
            return 1
        return 0
    try:
        local = open_store(args.source)
        central = open_store(args.target)
        print(sync_once(local, central).line(), flush=True)
    except SyncConflict as exc:
        print(f"gintray sync: {exc}", file=sys.stderr)
        return 1
    except OperationalError as exc:
        print(f"gintray sync: event database unreachable: {str(exc).splitlines()[0]}",
              file=sys.stderr)
        return 1
    return 0
