"""The event's signed score sheets in one zip, built in the background."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, jsonify, render_template, send_file

from webui.common.errors import wants_json
from webui.common.security import director_required, store
from webui.hall.bundler import Bundler, signed_set
from webui.hall.parts import hall_parts
from webui.hall.views.overview import tournament_json

bp = Blueprint("exports", __name__)


@bp.get("/bundle.zip")
@director_required
def bundle() -> Any:
    """Every signed score sheet of the event in one zip (signed PDFs, JSON, manifest): the
    last built zip when no game was signed (or reopened) since; else a build starts in the
    background and this answers 202 with its progress (the page reloads until it is done)."""
    bundler: Bundler = hall_parts().bundler
    built = bundler.current(signed_set(store()))
    if built is not None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
        return send_file(built, mimetype="application/zip", as_attachment=True,
                         download_name=f"gintray-event-{stamp}.zip", max_age=0)
    if not bundler.running():
        ev = tournament_json()
        bundler.start({"standings": ev["standings"], "partnerships": ev["partnerships"]})
    status = bundler.status()
    if wants_json():
        return jsonify(status.to_json()), 202
    return render_template("hall/bundle.html", status=status), 202


@bp.get("/bundle/status")
@director_required
def bundle_status() -> Any:
    """The background bundle build's progress (JSON)."""
    return jsonify(hall_parts().bundler.status().to_json())
