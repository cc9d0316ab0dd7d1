"""gintray's tournament hall: one event database for every table, and the director's page.

``create_hall_app(config)`` builds the director's Flask app; ``webui.hall.cli`` has
``gintray hall`` (serve it) and ``gintray sync`` (upload a table's database to the event's).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from flask import Flask
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.exc import InterfaceError, OperationalError

from webui.words import local_time

csrf = CSRFProtect()
SESSION_COOKIE = "gintray_hall_session"  # not the table app's "session": one host runs both
WEBUI_STATIC = Path(__file__).resolve().parent.parent / "static"


def create_hall_app(config: dict[str, Any] | None = None) -> Flask:
    """The director's page of a whole event.

    Config keys: ``DATABASE_URL`` (the event database, required; ``postgresql://...`` uses
    psycopg 3), ``DATA_DIR`` (the hall's signing key; default ./hall-instance), ``TIMEZONE``
    (an IANA zone for times on the pages; default this machine's), ``STALL_MINUTES`` (a synced
    table is stalled after this long without a sync; default 3), plus any Flask setting.
    """
    from webui.common import signing
    from webui.common.security import security_headers
    from webui.hall.sync import open_store, prepare_event_database
    from webui.store import engine

    cfg = dict(config or {})
    url = cfg.pop("DATABASE_URL", None)
    if not url:
        raise ValueError("the hall needs the event's database URL (DATABASE_URL)")
    data_dir = Path(cfg.pop("DATA_DIR", "hall-instance")).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, static_folder=str(WEBUI_STATIC), static_url_path="/static")
    app.config.update(DATA_DIR=str(data_dir), SESSION_COOKIE_NAME=SESSION_COOKIE,
                      SESSION_COOKIE_HTTPONLY=True,
                      SESSION_COOKIE_SAMESITE="Lax", WTF_CSRF_TIME_LIMIT=None,
                      MAX_CONTENT_LENGTH=1024 * 1024)
    app.config.update(cfg)
    store = open_store(url)
    prepare_event_database(store)
    app.config["DATABASE_URL"] = str(store.engine.url)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = store.set_setting("hall_secret_key", secrets.token_hex(32),
                                                     only_if_missing=True)
    app.extensions["gintray.store"] = store
    app.extensions["gintray.identity"] = signing.ensure_identity(data_dir)
    from webui.hall.bundler import Bundler

    app.extensions["gintray.bundler"] = Bundler(
        store.engine.url.render_as_string(hide_password=False), data_dir)

    from markupsafe import Markup

    app.jinja_env.filters["card"] = lambda code: Markup(engine.card_html(str(code)))
    zone = app.config.get("TIMEZONE")
    app.jinja_env.filters["local_time"] = lambda value, fmt="%H:%M:%S": local_time(
        value, fmt, zone)
    csrf.init_app(app)
    from webui.hall.views import bp

    app.register_blueprint(bp)
    _register_errors(app)
    app.after_request(security_headers)  # the table app's: no framing, CSP, no sniffing
    return app



def _register_errors(app: Flask) -> None:
    from webui.common.errors import error_answer, register_error_pages

    register_error_pages(app, "hall/error.html")

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def database_away(exc: Exception) -> Any:
        app.logger.warning("event database unreachable: %s", str(exc).splitlines()[0])
        reply = error_answer(503, "database_unavailable", "The event database cannot be reached "
                             "(PostgreSQL stopped or the network is down). The tables keep "
                             "scoring on their own databases and their syncs catch up when it "
                             "is back; reload this page then.", "hall/error.html")
        return reply[0], reply[1], {"Retry-After": "5"}
