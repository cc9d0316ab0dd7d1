"""Error answers shared by the table app and the hall: JSON for API calls, a page for people.

Both apps register the same handlers (`register_error_pages`): a stale security token, a refused
command and any HTTP error; each adds its own database handler, which answers through
`error_answer` too.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from webui.store import CommandError


def wants_json() -> bool:
    """True for API calls and clients that ask for JSON."""
    return (
        request.path.startswith("/api/")
        or request.is_json
        or request.accept_mimetypes.best == "application/json"
    )


def error_answer(status: int, code: str, message: str, template: str) -> tuple[Any, int]:
    """``{"error": {"code", "message"}}`` for JSON clients, else `template` with the message."""
    if wants_json():
        return jsonify({"error": {"code": code, "message": message}}), status
    return render_template(template, code=status, message=message), status


def register_error_pages(app: Flask, template: str) -> None:
    """Answer stale security tokens, refused commands and HTTP errors in words or JSON."""

    @app.errorhandler(CSRFError)
    def csrf_error(exc: CSRFError) -> Any:
        return error_answer(
            400,
            "csrf",
            f"security token missing or stale ({exc.description}); reload the page",
            template,
        )

    @app.errorhandler(CommandError)
    def command_error(exc: CommandError) -> Any:
        return error_answer(exc.status, exc.code, exc.message, template)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        return error_answer(
            exc.code or 500,
            exc.name.lower().replace(" ", "_"),
            exc.description or exc.name,
            template,
        )
