"""The director: password set on first run (from this machine), tables, settings, PINs."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from webui.common import attempts
from webui.common.director_auth import (
    LoginGuard,
    block_words,
    login_page,
    password_mark,
    setup_page,
)
from webui.common.errors import refuse
from webui.common.refusal import Refusal
from webui.common.security import director_required, logout_director, store
from webui.common.validate import plain_text
from webui.store import Actor, commands, engine
from webui.table.security import sign_out
from webui.table.views import table_or_404

bp = Blueprint("director", __name__, url_prefix="/director")
#: the table app's director login, counted as the hall's (scope "director": the address's and
#: everyone's counts, as before)
GUARD = LoginGuard("director", "director-account", "director-device", "gintray_director_device")
SHARED = "shared"  # the one account: the table's director password
NAME_MAX = 40  # a player's name (a table's name: TABLE_NAME_MAX); longer is refused, not cut
TABLE_NAME_MAX = 60


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Any:
    """First run: choose the director password (only on this machine, only once)."""
    return setup_page(template="director_setup.html", login_endpoint="director.login",
                      home_endpoint="director.dashboard", place="table")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The director's login, counted as the hall's is (``LoginGuard``: each attempt counted
    before the password is checked, on its address, on the director password from every
    address together and on everyone's count; a browser that logged in before, on its own
    count alone, so the real director gets in while a guesser is held back)."""
    taken: list[attempts.Taken] = []
    mark = password_mark()
    if request.method == "POST":
        taken, block = attempts.take(store(), GUARD.limits(SHARED, GUARD.nonce(SHARED, mark)))
        if block is not None:
            words = block_words(block, "for the director password")
            return (render_template("director_login.html", error=words), 429,
                    {"Retry-After": str(block.retry_after_s)})
    response = make_response(login_page(template="director_login.html",
                                        setup_endpoint="director.setup",
                                        home_endpoint="director.dashboard"))
    if request.method == "POST":
        if response.status_code in (302, 303):
            GUARD.forgive(taken)
            GUARD.know_browser(response, SHARED, mark)
        elif response.status_code != 403:  # no password was checked (none set yet): no guess
            attempts.give_back(store(), taken)
    return response


@bp.post("/logout")
def logout() -> Any:
    logout_director()
    return redirect(url_for("views.index"))


@bp.get("/")
@director_required
def dashboard() -> Any:
    tables = store().tables()
    states = {t.id: store().state(t.id) for t in tables}
    return render_template("director.html", tables=tables, states=states,
                           presets=engine.preset_names())


def _settings_from_form() -> dict[str, Any]:
    form = request.form
    players = {"A": plain_text(form.get("player_A"), "player_A", NAME_MAX, "Player A"),
               "B": plain_text(form.get("player_B"), "player_B", NAME_MAX, "Player B")}
    rules = form.get("rules", "tournament")
    if rules not in engine.preset_names():
        refuse(400, f"unknown rule set {rules!r}")
    if form.get("hollywood"):
        rules = {"preset": rules, "hollywood": True}
    camera = form.get("camera", "").strip() or None
    layout = form.get("layout", "").strip() or None
    return {"name": plain_text(form.get("name"), "name", TABLE_NAME_MAX, "Table"),
            "players": players,
            "rules": rules, "camera": camera, "layout": layout}


@bp.post("/tables")
@director_required
def new_table() -> Any:
    settings = _settings_from_form()
    table_id = store().create_table(settings["name"], settings, Actor("director"))
    from flask import current_app

    from webui.table.camera_feed import start_camera

    if current_app.config["START_CAMERAS"]:
        start_camera(current_app._get_current_object(), table_id)
    flash(f"Table {settings['name']} created.")
    return redirect(url_for("views.screen", table_id=table_id))


@bp.post("/tables/<int:table_id>/settings")
@director_required
def table_settings(table_id: int) -> Any:
    table_or_404(table_id)
    s = _settings_from_form()
    try:
        store().execute(table_id, commands.change_settings(s["name"], s["players"], s["rules"],
                                                           s["camera"], s["layout"]),
                        Actor("director"))
    except Refusal as exc:
        flash(exc.message, "error")
    else:
        flash("Settings saved.")
        from flask import current_app

        from webui.table.camera_feed import start_camera

        if current_app.config["START_CAMERAS"]:
            start_camera(current_app._get_current_object(), table_id)
    return redirect(url_for("director.dashboard"))


@bp.post("/tables/<int:table_id>/pin")
@director_required
def new_pin(table_id: int) -> Any:
    """A new PIN; the tablets that joined with the old one are signed out unless the
    director ticks "keep them" (``keep_devices``)."""
    table_or_404(table_id)
    store().set_pin(table_id)
    if request.form.get("keep_devices"):
        flash("New PIN made: the tablets that already joined stay joined.")
    else:
        count = sign_out(table_id)
        flash(f"New PIN made: {count} joined tablet{'s were' if count != 1 else ' was'} "
              "signed out and must join again with the new PIN.")
    return redirect(url_for("views.screen", table_id=table_id))


@bp.get("/tables/<int:table_id>/devices")
@director_required
def devices(table_id: int) -> Any:
    """The tablets that joined the table (and those signed out), each with a sign-out button."""
    table = table_or_404(table_id)
    return render_template("director_devices.html", table=table,
                           players=store().state(table_id).players,
                           devices=store().devices(table_id))


@bp.post("/tables/<int:table_id>/devices/<int:device_id>/revoke")
@director_required
def revoke_device(table_id: int, device_id: int) -> Any:
    table_or_404(table_id)
    if sign_out(table_id, device_id):
        flash("The tablet was signed out: it must join again with the table's PIN.")
    else:
        flash("No such joined tablet (already signed out?).", "error")
    return redirect(url_for("director.devices", table_id=table_id))
