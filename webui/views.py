"""Pages: table list, the tablet's table page (and its live panel), joining, the table screen."""

from __future__ import annotations

import io
import socket
from typing import Any

import segno
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from webui import sheetview
from webui.security import (
    current_device,
    is_director,
    may_act_for,
    may_see_screen,
    pin_limiter,
    remember_device,
    require_viewer,
    store,
)

bp = Blueprint("views", __name__)
NO_CAMERA = "camera unavailable (no camera is set for this table, or no demo footage found)"


def table_or_404(table_id: int) -> Any:
    table = store().table(table_id)
    if table is None:
        abort(404, description="no such table")
    return table


def page_context(table_id: int) -> dict[str, Any]:
    """Everything the table templates need."""
    table = table_or_404(table_id)
    state = store().state(table_id)
    cameras = current_app.extensions["gintray.cameras"]
    feed = cameras.get(table_id)
    return {"table": table, "state": state, "s": state.to_json(),
            "device": current_device(table_id), "director": is_director(),
            "sheets": [sheetview.game_view(state, g) for g in state.games],
            "camera": feed.status() if feed else {"state": "off", "message": NO_CAMERA},
            "players": state.players,
            "seats": [p for p in ("A", "B") if may_act_for(table_id, p)]}


@bp.get("/")
def index() -> Any:
    return render_template("index.html", tables=store().tables(), director=is_director(),
                           local=may_see_screen())


@bp.get("/t/<int:table_id>")
def table_page(table_id: int) -> Any:
    ctx = page_context(table_id)
    if ctx["device"] is None and not ctx["director"]:
        return redirect(url_for("views.join", table_id=table_id))
    return render_template("table.html", **ctx)


@bp.get("/t/<int:table_id>/panel")
def panel(table_id: int) -> Any:
    """The live part of the table page (fetched again on every server-sent change)."""
    ctx = page_context(table_id)
    if ctx["device"] is None and not ctx["director"]:
        abort(403, description="this device has not joined the table")
    return render_template("panel.html", **ctx)


@bp.route("/t/<int:table_id>/join", methods=["GET", "POST"])
def join(table_id: int) -> Any:
    table = table_or_404(table_id)
    state = store().state(table_id)
    error = None
    status = 200
    if request.method == "POST":
        limiter = pin_limiter()
        pin = (request.form.get("pin") or "").strip()
        seat = request.form.get("seat", "both")
        label = (request.form.get("label") or "tablet").strip()[:40] or "tablet"
        if limiter.blocked(table_id):
            error, status = "Too many wrong PINs. Wait a few minutes and try again.", 429
        elif seat not in ("A", "B", "both"):
            error, status = "Choose who uses this tablet.", 400
        elif pin != table.pin:
            limiter.failed(table_id)
            error, status = "Wrong PIN. Read it again from the table's screen.", 403
        else:
            limiter.reset(table_id)
            _device, token = store().add_device(table_id, label, seat)
            remember_device(table_id, token)
            flash(f"This tablet joined {table.name}.")
            return redirect(url_for("views.table_page", table_id=table_id))
    # on the table's own computer the PIN is on its screen anyway: fill it in
    suggested = request.args.get("pin", "") or (table.pin if may_see_screen() else "")
    return render_template("join.html", table=table, state=state, error=error,
                           pin=suggested), status


@bp.get("/t/<int:table_id>/screen")
def screen(table_id: int) -> Any:
    """The table's own screen: PIN, QR code to join, live score sheet."""
    if not may_see_screen():
        abort(403, description="the table screen (with its PIN) opens only on the table's "
                               "own computer or for the director")
    ctx = page_context(table_id)
    ctx["join_url"] = join_url(table_id, ctx["table"].pin)
    return render_template("screen.html", **ctx)


@bp.get("/t/<int:table_id>/qr.svg")
def qr_svg(table_id: int) -> Response:
    if not may_see_screen():
        abort(403, description="the join code is shown only on the table's own screen")
    table = table_or_404(table_id)
    buf = io.BytesIO()
    segno.make(join_url(table_id, table.pin), error="m").save(buf, kind="svg", scale=8,
                                                              border=2)
    return Response(buf.getvalue(), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


def lan_address() -> str:
    """This machine's address on the local network (falls back to 127.0.0.1)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # documentation address: nothing is sent
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def join_url(table_id: int, pin: str) -> str:
    base = current_app.config.get("PUBLIC_URL") or request.host_url.rstrip("/")
    return f"{base}/t/{table_id}/join?pin={pin}"


@bp.get("/t/<int:table_id>/sheet")
def sheet(table_id: int) -> Any:
    return render_template("sheet.html", **page_context(table_id))


@bp.get("/t/<int:table_id>/history")
def history(table_id: int) -> Any:
    require_viewer(table_id)
    ctx = page_context(table_id)
    ctx["events"] = store().events(table_id)
    return render_template("history.html", **ctx)


@bp.get("/t/<int:table_id>/games/<int:game_no>/sign")
def sign_page(table_id: int, game_no: int) -> Any:
    ctx = page_context(table_id)
    game = ctx["state"].game_by_number(game_no)
    if game is None:
        abort(404, description="no such game")
    if ctx["device"] is None and not ctx["director"]:
        return redirect(url_for("views.join", table_id=table_id))
    ctx["game"] = game
    ctx["view"] = sheetview.game_view(ctx["state"], game)
    return render_template("sign.html", **ctx)
