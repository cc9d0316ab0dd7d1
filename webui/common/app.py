"""The setup every gintray web app gets, in one place: the table app (``webui.create_app``)
and the hall (``webui.hall.create_hall_app``) each call ``kit_app`` and add only their own.

What it does: a data folder; the shared settings (session cookie, CSRF, whatever the app adds,
then the caller's config); ``<int:...>`` bounded to database integers; ``/static/`` from the
app's own folder and the kit's (``static/``: the style sheet and the alert box script both
apps' pages use); the store; a secret key kept in the store; the signing identity (the store
and the identity are the app's parts: ``AppParts``, ``app_parts()``); the ``card`` filter;
CSRF protection; the kit's templates (``templates/kit/``: the page and the print page every
app's pages extend); the app's blueprints; the error pages (``webui.common.errors``); the security
headers on every answer (``webui.common.security``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from flask import Blueprint, Flask, current_app, send_from_directory
from flask.json.provider import DefaultJSONProvider
from flask_wtf.csrf import CSRFProtect
from markupsafe import Markup
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from webui.common.errors import register_error_pages
from webui.common.security import security_headers
from webui.common.validate import MAX_WHOLE
from webui.store import Store

if TYPE_CHECKING:
    from webui.common.signing import SigningIdentity

csrf = CSRFProtect()
PARTS = "gintray"  # app.extensions[PARTS]: the app's parts, one typed object
KIT_STATIC = Path(__file__).resolve().parent / "static"
SHARED_SETTINGS: dict[str, Any] = {
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "WTF_CSRF_TIME_LIMIT": None,
}


@dataclass
class AppParts:
    """What every gintray app holds beside Flask's own: its store and its signing identity.
    Each app's parts extend these (``webui.table.parts.TableParts``,
    ``webui.hall.parts.HallParts``)."""

    store: Store
    identity: SigningIdentity


P = TypeVar("P", bound=AppParts)


def app_parts(app: Flask | None = None, kind: type[P] = AppParts) -> P:  # type: ignore[assignment]
    """The parts of ``app``, by default of the app answering the current request; ``kind``
    names the app's own parts class (an app of another kind is a programming error)."""
    parts = (current_app if app is None else app).extensions[PARTS]
    assert isinstance(parts, kind), f"not an app with {kind.__name__}"
    return parts


class BoundedInt(IntegerConverter):
    """``<int:...>`` in URLs, at most MAX_WHOLE (a larger number is a 404, not a database
    overflow)."""

    def __init__(self, url_map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_WHOLE)
        super().__init__(url_map, *args, **kwargs)


def kit_app(import_name: str, config: dict[str, Any] | None, *, data_dir: str,
            settings: dict[str, Any], open_store: Callable[[Flask], Store],
            secret_setting: str, error_template: str, blueprints: Iterable[Blueprint],
            static_folder: Path | None = None, refused_home: str | None = None) -> Flask:
    """A Flask app set up as every gintray app is.

    ``config``: the caller's settings (``DATA_DIR``, default ``data_dir``, is made and
    resolved), applied over ``SHARED_SETTINGS`` and the app's ``settings``. ``open_store``
    opens the app's store from the finished config; a missing ``SECRET_KEY`` is made once and
    kept in it (setting ``secret_setting``). ``error_template`` shows errors to people;
    ``static_folder`` holds the app's own static files, served at ``/static/`` before the
    kit's; ``refused_home`` the endpoint a refused form post goes back to when the refusal
    names no page (``webui.common.errors.answer_refusal``).
    """
    app = Flask(import_name, static_folder=None)
    app.json = TypedJSONProvider(app)
    app.url_map.converters["int"] = BoundedInt
    _serve_static(app, [*([static_folder] if static_folder else []), KIT_STATIC])
    cfg = dict(config or {})
    folder = Path(cfg.pop("DATA_DIR", data_dir)).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    app.config.update(DATA_DIR=str(folder), **SHARED_SETTINGS)
    app.config.update(settings)
    app.config.update(cfg)

    store = open_store(app)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = store.set_setting(secret_setting, secrets.token_hex(32),
                                                     only_if_missing=True)
    from webui.common import signing  # loads cryptography: only once an app is built
    from webui.common.words import outcome_words
    from webui.store.engine import Outcome, card_html
    from webui.store.proposal import Kind

    app.extensions[PARTS] = AppParts(store, signing.ensure_identity(folder))
    app.jinja_env.filters["card"] = lambda card: Markup(card_html(card))
    app.jinja_env.filters["outcome_words"] = outcome_words  # both apps say outcomes alike
    app.jinja_env.globals.update(Outcome=Outcome, Kind=Kind)  # templates compare types
    csrf.init_app(app)
    app.register_blueprint(Blueprint("kit", __name__, template_folder="templates"))
    for blueprint in blueprints:
        app.register_blueprint(blueprint)
    register_error_pages(app, error_template, refused_home)
    app.after_request(security_headers)
    return app


def typed_json(o: Any) -> Any:
    """A typed value (the engine's results, a page model's parts) as JSON, by its own
    ``to_json()``: the ``default`` of every JSON edge (``TypedJSONProvider``, the hall's
    bundle files); TypeError for a value that has none."""
    to_json = getattr(o, "to_json", None)
    if callable(to_json):
        return to_json()
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


class TypedJSONProvider(DefaultJSONProvider):
    """JSON as both apps answer it: a typed value is written by ``typed_json``, at the HTTP
    edge only (Flask's own conversions for the rest)."""

    @staticmethod
    def default(o: Any) -> Any:
        try:
            return typed_json(o)
        except TypeError:
            return DefaultJSONProvider.default(o)


def _serve_static(app: Flask, folders: list[Path]) -> None:
    """``/static/<file>`` (endpoint ``static``) from the first of ``folders`` that has it."""

    def static(filename: str) -> Any:
        for folder in folders[:-1]:
            try:
                return send_from_directory(folder, filename)
            except NotFound:
                continue
        return send_from_directory(folders[-1], filename)

    app.add_url_rule("/static/<path:filename>", endpoint="static", view_func=static)
