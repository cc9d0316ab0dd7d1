"""gintray's table web app: score sheet, confirmations on the tablet, signatures, signed export.

``create_app(config)`` builds the Flask application; ``webui.cli.serve_main`` runs it.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, request
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.exc import DBAPIError
from werkzeug.routing import IntegerConverter

from webui.common.security import security_headers
from webui.live import Notifier, StreamSlots
from webui.store import Store, database_problem

csrf = CSRFProtect()
MAX_ID = 2**31 - 1  # table and game numbers in URLs: larger ones are simply not found


class BoundedInt(IntegerConverter):
    """``<int:...>`` in URLs, at most MAX_ID (a larger number is a 404, not a database
    overflow)."""

    def __init__(self, url_map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(url_map, *args, **kwargs)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The table web app.

    Config keys: ``DATA_DIR`` (default ./instance), ``DATABASE_URL`` (default SQLite in the data
    dir), ``DEMO`` (create the demo table), ``CAMERA`` (camera source of the demo table, or
    without ``DEMO`` of the table named ``TABLE_NAME``, created on first start),
    ``START_CAMERAS`` (read each table's camera in a background thread; default True),
    ``PUBLIC_URL`` (base address put in join links and QR codes, for a proxy), ``LAN_URL``
    (the LAN base address when listening on the LAN: join links use it on a loopback screen),
    ``MAX_STREAMS_PER_DEVICE``, ``MAX_STREAMS_PER_TABLE`` and ``MAX_STREAMS`` (open live
    streams allowed per device, per table and overall; more get 429),
    ``TIMEZONE`` (IANA name the pages show times in; default the machine's), plus any Flask
    setting.
    """
    app = Flask(__name__)
    app.url_map.converters["int"] = BoundedInt
    cfg = dict(config or {})
    data_dir = Path(cfg.pop("DATA_DIR", "instance")).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config.update(
        DATA_DIR=str(data_dir),
        DATABASE_URL=f"sqlite:///{data_dir / 'gintray.sqlite3'}",
        DEMO=False,
        CAMERA=None,
        TABLE_NAME="Table 1",
        START_CAMERAS=True,
        PUBLIC_URL=None,
        LAN_URL=None,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        WTF_CSRF_TIME_LIMIT=None,
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        JSON_SORT_KEYS=False,
        MAX_STREAMS_PER_DEVICE=3,
        MAX_STREAMS_PER_TABLE=12,
        MAX_STREAMS=48,
    )
    app.config.update(cfg)

    store = Store(app.config["DATABASE_URL"])
    app.config.setdefault("SECRET_KEY", None)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = store.set_setting("secret_key", secrets.token_hex(32),
                                                     only_if_missing=True)
    notifier = Notifier()
    store.listeners.append(notifier.publish)
    app.extensions["gintray.store"] = store
    app.extensions["gintray.notifier"] = notifier
    app.extensions["gintray.cameras"] = {}
    app.extensions["gintray.streams"] = StreamSlots(app.config["MAX_STREAMS_PER_DEVICE"],
                                                    app.config["MAX_STREAMS"],
                                                    app.config["MAX_STREAMS_PER_TABLE"])

    from webui.common import signing

    app.extensions["gintray.identity"] = signing.ensure_identity(data_dir)

    from markupsafe import Markup

    from webui.store.engine import card_html

    app.jinja_env.filters["card"] = lambda code: Markup(card_html(str(code)))
    from webui import words

    words.register(app)
    csrf.init_app(app)
    from webui.api import bp as api_bp
    from webui.calibration import bp as calibration_bp
    from webui.director import bp as director_bp
    from webui.exports import bp as exports_bp
    from webui.views import bp as views_bp

    app.register_blueprint(views_bp)
    app.register_blueprint(api_bp)
    app.register_blueprint(director_bp)
    app.register_blueprint(exports_bp)
    app.register_blueprint(calibration_bp)
    _register_errors(app)
    app.after_request(security_headers)

    if app.config["DEMO"]:
        from webui.demo import ensure_demo_table

        ensure_demo_table(store, app.config["CAMERA"])
    elif app.config["CAMERA"]:
        from webui.demo import ensure_table

        ensure_table(store, app.config["TABLE_NAME"], {"A": "Player A", "B": "Player B"},
                     app.config["CAMERA"])
    if app.config["START_CAMERAS"]:
        from webui.camera_feed import start_cameras

        start_cameras(app)
    return app


def _register_errors(app: Flask) -> None:
    from webui.common.errors import error_answer, register_error_pages

    register_error_pages(app, "error.html")

    @app.errorhandler(DBAPIError)
    def database_error(exc: DBAPIError) -> Any:
        app.logger.error("database error on %s %s: %s", request.method, request.path, exc)
        return error_answer(503, "database", database_problem(exc), "error.html")
