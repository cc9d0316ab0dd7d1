"""The director's way in: the event's shared password set once (``/setup``), the login (a
named account's, or the shared password's), the logout, and sessions that end when the
account changes."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from webui.common import attempts
from webui.common.director_auth import login_page, setup_page
from webui.common.security import is_director, login_director, logout_director, store
from webui.hall import directors as accounts
from webui.hall.views.base import HOME

bp = Blueprint("directors", __name__)
LOGIN_SCOPE = "hall-director"  # wrong director passwords at the hall (webui.common.attempts)


@bp.before_app_request
def _end_stale_account_sessions() -> None:
    """A named director's session ends when the account's password changes (or it is gone);
    a session of the shared password ends once the event has named accounts."""
    if not session.get("director"):
        return
    account = session.get("director_account")
    if isinstance(account, dict):
        stale = not accounts.still_valid(store(), int(account.get("id", 0)),
                                         str(account.get("mark", "")),
                                         str(current_app.secret_key))
    else:
        stale = accounts.has_accounts(store())
    if stale:
        logout_director()
        session.pop("director_account", None)


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Any:
    """First run: the event's shared director password (only on this machine, only once;
    not once the event has named director accounts)."""
    if accounts.has_accounts(store()):
        return redirect(url_for("directors.login"))
    return setup_page(template="hall/setup.html", login_endpoint="directors.login",
                      home_endpoint=HOME, place="hall")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The director's login: own name and password (named accounts), or the event's shared
    password while it has no named account; wrong ones limited per address
    (``webui.common.attempts``, counted in the event database)."""
    address = request.remote_addr or "unknown"
    named = accounts.has_accounts(store())
    if request.method == "POST":
        block = attempts.blocked(store(), LOGIN_SCOPE, address)
        if block is not None:
            error = (f"Too many wrong passwords from this address: try again in "
                     f"{_duration(block.retry_after_s)}.")
            return (render_template("hall/login.html", error=error, named=named), 429,
                    {"Retry-After": str(block.retry_after_s)})
        name = request.form.get("name", "").strip()
        if name or named:
            return _named_login(name, address, named)
    elif named:
        return render_template("hall/login.html", error=None, named=named)
    response = make_response(login_page(template="hall/login.html",
                                         setup_endpoint="directors.setup",
                                         home_endpoint=HOME))
    if request.method == "POST":
        if response.status_code == 403:
            attempts.record_failure(store(), LOGIN_SCOPE, address)
        elif is_director():
            attempts.clear(store(), LOGIN_SCOPE, address)
    return response


def _named_login(name: str, address: str, named: bool) -> Any:
    """A director logging in with their own name and password."""
    account = accounts.check_login(store(), name, request.form.get("password", ""),
                                   str(current_app.secret_key)) if name else None
    if account is None:
        attempts.record_failure(store(), LOGIN_SCOPE, address)
        error = ("Wrong name or password." if name else
                 "This event has named director accounts: log in with your own name.")
        return render_template("hall/login.html", error=error, named=named), 403
    attempts.clear(store(), LOGIN_SCOPE, address)
    login_director()
    session["director_account"] = {"id": account.id, "name": account.name,
                                   "mark": account.mark}
    return redirect(url_for(HOME))


def _duration(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{(seconds + 59) // 60} min"


@bp.post("/logout")
def logout() -> Any:
    session.clear()
    return redirect(url_for("directors.login"))
