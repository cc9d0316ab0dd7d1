"""Error answers shared by the table app and the hall: JSON for API calls, a page for people.

Both apps register the same handlers (`register_error_pages`): a stale security token, a
``Refusal`` (``webui.common.refusal``: the one way to refuse, in both apps and the store) and
any HTTP error; each adds its own database handler, which answers through
`error_answer` too.
"""

from __future__ import annotations

from typing import Any, NoReturn

from flask import Flask, flash, g, jsonify, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES

from webui.common.refusal import Refusal


def wants_json() -> bool:
    """True for clients that ask for JSON (a JSON body, or JSON first in ``Accept``) and for
    API calls other than a page's plain form posts (those go back to their page)."""
    return (
        request.is_json
        or request.accept_mimetypes.best == "application/json"
        or (request.path.startswith("/api/") and not request.form)
    )


def error_answer(status: int, code: str, message: str, template: str) -> tuple[Any, int]:
    """``{"error": {"code", "message"}}`` for JSON clients, else `template` with the message."""
    if wants_json():
        return jsonify({"error": {"code": code, "message": message}}), status
    return render_template(template, code=status, message=message), status


def answer_refusal(exc: Refusal, template: str, home: str | None) -> Any:
    """The one answer to a ``Refusal``: ``{"error": {"code", "message"}}`` with its status to
    a JSON client; to a person the message flashed as an error, See Other back to the page
    it came from (``exc.back``, or for a refused form post the app's ``home`` endpoint when
    it has one), else (and always for ``exc.page``) ``template`` with the message and the
    status."""
    if wants_json():
        return jsonify(exc.to_json()), exc.status
    if exc.page:
        return render_template(template, code=exc.status, message=exc.message), exc.status
    back = exc.back or g.get("refused_back")
    if back is None and home is not None and request.method == "POST":
        back = url_for(home)
    if back is not None:
        flash(exc.message, "error")
        return redirect(back, 303)
    return render_template(template, code=exc.status, message=exc.message), exc.status


def refuse(status: int, message: str) -> NoReturn:
    """Refuse a request no page makes with an HTTP status and a plain message (``code`` the
    status's name: ``not_found``, ``forbidden``...): JSON to a JSON client, else the error
    page with the status (``Refusal.page``)."""
    raise Refusal(message, code=HTTP_STATUS_CODES[status].lower().replace(" ", "_"),
                  status=status, page=True)


def register_error_pages(app: Flask, template: str, home: str | None = None) -> None:
    """Answer stale security tokens, refusals and HTTP errors in words or JSON; ``home``:
    the endpoint a refused form post without a page of its own goes back to."""

    @app.errorhandler(CSRFError)
    def csrf_error(exc: CSRFError) -> Any:
        return error_answer(
            400,
            "csrf",
            f"security token missing or stale ({exc.description}); reload the page",
            template,
        )

    @app.errorhandler(Refusal)
    def refused(exc: Refusal) -> Any:
        return answer_refusal(exc, template, home)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        return error_answer(
            exc.code or 500,
            exc.name.lower().replace(" ", "_"),
            exc.description or exc.name,
            template,
        )
