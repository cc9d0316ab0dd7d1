"""The public projector view: names, results and the clock only, no login."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from webui.common.security import store
from webui.hall import clock, projector
from webui.hall.views.base import standings_now

bp = Blueprint("projector", __name__)


def _view() -> projector.ProjectorView:
    return projector.build(store(), standings_now(), clock.now())


@bp.get("/projector")
def projector_page() -> Any:
    """The public projector view (no login: names, results and the clock only), refreshed
    by ``static/hall.js``."""
    return render_template("hall/projector.html", view=_view())


@bp.get("/projector/live")
def projector_live() -> Any:
    """The projector's content alone (the page refreshes it every 10 s)."""
    return render_template("hall/_projector.html", view=_view())
