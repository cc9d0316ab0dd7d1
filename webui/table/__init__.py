"""gintray's table web app: score sheet, confirmations on the tablet, signatures, signed export.

``create_app(config)`` builds the Flask application; ``webui.table.cli.serve_main`` runs it.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, request
from sqlalchemy.exc import DBAPIError

from webui.common.app import PARTS, app_parts, kit_app
from webui.store import Store, database_problem
from webui.table.deck_teaching import DeckTeaching
from webui.table.live import Notifier, StreamSlots
from webui.table.parts import TableParts

STATIC = Path(__file__).resolve().parent / "static"  # the table app's scripts


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The table web app.

    Config keys: ``DATA_DIR`` (default ./instance), ``DATABASE_URL`` (default SQLite in the data
    dir), ``DEMO`` (create the demo table), ``CAMERA`` (camera source of the demo table, or
    without ``DEMO`` of the table named ``TABLE_NAME``, created on first start),
    ``START_CAMERAS`` (read each table's camera in a background thread; default True),
    ``DECK`` (a deck profile file the cameras' detector reads with, `gintray deck learn`),
    ``PUBLIC_URL`` (base address put in join links and QR codes, for a proxy), ``LAN_URL``
    (the LAN base address when listening on the LAN: join links use it on a loopback screen),
    ``MAX_STREAMS_PER_DEVICE``, ``MAX_STREAMS_PER_TABLE`` and ``MAX_STREAMS`` (open live
    streams allowed per device, per table and overall; more get 429),
    ``TIMEZONE`` (IANA name the pages show times in; default the machine's), plus any Flask
    setting.
    """
    from webui.table.api import bp as api_bp
    from webui.table.calibration import bp as calibration_bp
    from webui.table.director import bp as director_bp
    from webui.table.exports import bp as exports_bp
    from webui.table.seat_asks import bp as seat_asks_bp
    from webui.table.views import bp as views_bp

    app = kit_app(
        __name__, config, data_dir="instance",
        settings={"DEMO": False, "CAMERA": None, "TABLE_NAME": "Table 1", "DECK": None,
                  "START_CAMERAS": True, "PUBLIC_URL": None, "LAN_URL": None,
                  "PERMANENT_SESSION_LIFETIME": timedelta(days=30),
                  "MAX_CONTENT_LENGTH": 2 * 1024 * 1024, "JSON_SORT_KEYS": False,
                  "MAX_STREAMS_PER_DEVICE": 3, "MAX_STREAMS_PER_TABLE": 12, "MAX_STREAMS": 48},
        open_store=_open_store, secret_setting="secret_key", error_template="error.html",
        blueprints=[views_bp, seat_asks_bp, api_bp, director_bp, exports_bp, calibration_bp],
        static_folder=STATIC)
    kit = app_parts(app)
    store = kit.store
    notifier = Notifier()
    store.listeners.append(notifier.publish)
    app.extensions[PARTS] = TableParts(
        store, kit.identity, notifier=notifier, cameras={},
        streams=StreamSlots(app.config["MAX_STREAMS_PER_DEVICE"], app.config["MAX_STREAMS"],
                            app.config["MAX_STREAMS_PER_TABLE"], joined=store.device_joined),
        deck_teaching=DeckTeaching())
    from webui.common import words

    words.register(app)
    _register_database_errors(app)

    if app.config["DEMO"]:
        from webui.table.demo import ensure_demo_table

        ensure_demo_table(store, app.config["CAMERA"])
    elif app.config["CAMERA"]:
        from webui.table.demo import ensure_table

        ensure_table(store, app.config["TABLE_NAME"], {"A": "Player A", "B": "Player B"},
                     app.config["CAMERA"])
    if app.config["START_CAMERAS"]:
        from webui.table.camera_feed import start_cameras

        start_cameras(app)
        from webui.table.deck_choice import EventDeckFollower

        EventDeckFollower(app).start()  # a deck the hall pushes reaches the running cameras
    return app


def _open_store(app: Flask) -> Store:
    """The table app's database: ``DATABASE_URL``, by default SQLite in the data folder."""
    app.config.setdefault("DATABASE_URL",
                          f"sqlite:///{Path(app.config['DATA_DIR']) / 'gintray.sqlite3'}")
    return Store(app.config["DATABASE_URL"])


def _register_database_errors(app: Flask) -> None:
    from webui.common.errors import error_answer

    @app.errorhandler(DBAPIError)
    def database_error(exc: DBAPIError) -> Any:
        app.logger.error("database error on %s %s: %s", request.method, request.path, exc)
        return error_answer(503, "database", database_problem(exc), "error.html")
