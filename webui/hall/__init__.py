"""gintray's tournament hall: one event database for every table, and the director's page.

``create_hall_app(config)`` builds the director's Flask app; ``webui.hall.cli`` has
``gintray hall`` (serve it) and ``gintray sync`` (upload a table's database to the event's).
The hall builds on the kit both apps share (``webui.common``) and the store, nothing else of
the table app's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from sqlalchemy.exc import InterfaceError, OperationalError

from webui.common.words import local_time

SESSION_COOKIE = "gintray_hall_session"  # not the table app's "session": one host runs both


def create_hall_app(config: dict[str, Any] | None = None) -> Flask:
    """The director's page of a whole event.

    Config keys: ``DATABASE_URL`` (the event database, required; ``postgresql://...`` uses
    psycopg 3), ``DATA_DIR`` (the hall's signing key; default ./hall-instance), ``TIMEZONE``
    (an IANA zone for times on the pages; default this machine's), ``STALL_MINUTES`` (a synced
    table is stalled after this long without a sync; default 3), plus any Flask setting.
    """
    from webui.common.app import PARTS, app_parts, kit_app
    from webui.hall.bundler import Bundler
    from webui.hall.offline import OfflineWatch
    from webui.hall.parts import HallParts
    from webui.hall.sync import open_store, prepare_event_database
    from webui.hall.views import blueprints

    url = (config or {}).get("DATABASE_URL")
    if not url:
        raise ValueError("the hall needs the event's database URL (DATABASE_URL)")

    def event_store(app: Flask) -> Any:
        store = open_store(url)
        prepare_event_database(store)
        app.config["DATABASE_URL"] = str(store.engine.url)
        return store

    app = kit_app(__name__, config, data_dir="hall-instance",
                  settings={"SESSION_COOKIE_NAME": SESSION_COOKIE,
                            "MAX_CONTENT_LENGTH": 1024 * 1024},
                  open_store=event_store, secret_setting="hall_secret_key",
                  error_template="hall/error.html", blueprints=blueprints(),
                  refused_home="hall.index")
    kit = app_parts(app)
    app.extensions[PARTS] = HallParts(
        kit.store, kit.identity, offline=OfflineWatch(),
        bundler=Bundler(kit.store.engine.url.render_as_string(hide_password=False),
                        Path(app.config["DATA_DIR"])))
    zone = app.config.get("TIMEZONE")
    app.jinja_env.filters["local_time"] = lambda value, fmt="%H:%M:%S": local_time(
        value, fmt, zone)
    _register_database_errors(app)
    return app


LIVE_HEADER = "X-Hall-Live"  # sent by static/hall.js's refresh and heartbeat


def _register_database_errors(app: Flask) -> None:
    """The event database away: a clear 503 saying since when (``offline.OfflineWatch``), as
    JSON to an open page's refresh (which turns it into its "hall offline since" banner), or
    as a page that tries again by itself; the refresh's answers carry the hall's time
    (``X-Hall-Now``) so the page can say when the hall is back."""
    from flask import jsonify, render_template, request

    from webui.common.errors import wants_json
    from webui.hall.parts import hall_parts

    watch = hall_parts(app).offline

    def shown(at: Any) -> str:
        return local_time(at, "%H:%M:%S", app.config.get("TIMEZONE"))

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def database_away(exc: Exception) -> Any:
        app.logger.warning("event database unreachable: %s", str(exc).splitlines()[0])
        outage = watch.failed()
        since = shown(outage.since)
        message = (f"The event database cannot be reached since {since} (PostgreSQL stopped "
                   "or the network is down). The tables keep scoring on their own databases "
                   "and their syncs catch up when it is back.")
        headers = {"Retry-After": "5", "Cache-Control": "no-store"}
        if request.headers.get(LIVE_HEADER) or wants_json():
            body = {"error": {"code": "database_unavailable", "message": message,
                              "since": outage.since.isoformat(), "since_local": since}}
            return jsonify(body), 503, headers
        page = render_template("hall/error.html", code=503, retry=5,
                               message=message + " This page reloads by itself.")
        return page, 503, headers

    @app.after_request
    def database_answered(response: Any) -> Any:
        if (request.method == "GET" and response.status_code == 200
                and not (request.endpoint or "").endswith("static")):
            watch.answered()
        if request.headers.get(LIVE_HEADER):
            response.headers["X-Hall-Now"] = shown(watch.clock())
            response.headers["Cache-Control"] = "no-store"
        return response
