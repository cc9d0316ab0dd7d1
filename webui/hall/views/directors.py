"""The director's way in: the event's shared password set once (``/setup``), the login (a
named account's, or the shared password's), the logout, and sessions that end when the
account changes."""

from __future__ import annotations

import hashlib
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
from webui.common.director_auth import (
    LoginGuard,
    block_words,
    login_page,
    password_mark,
    setup_page,
)
from webui.common.security import (
    director_password_set,
    is_director,
    login_director,
    logout_director,
    store,
)
from webui.hall import directors as accounts
from webui.hall.players import player_key
from webui.hall.views.base import HOME

bp = Blueprint("directors", __name__)
LOGIN_SCOPE = "hall-director"  # wrong director passwords at the hall (webui.common.attempts)
ACCOUNT_SCOPE = "hall-account"  # the same, per account tried (from every address)
DEVICE_SCOPE = "hall-device"  # the same, per known browser
DEVICE_COOKIE = "gintray_hall_device"  # a browser that logged in as a director before
GUARD = LoginGuard(LOGIN_SCOPE, ACCOUNT_SCOPE, DEVICE_SCOPE, DEVICE_COOKIE)
SHARED = "shared"  # the account of the event's shared password


@bp.before_app_request
def _end_stale_account_sessions() -> None:
    """A named director's session ends when the account's password changes (or it is gone);
    a session of the shared password ends once the event has named accounts. Not for the
    static files: a page loaded while the event database is away still gets its script and
    styles (and its "hall offline" banner)."""
    if not session.get("director") or (request.endpoint or "").endswith("static"):
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
    not once the event has named director accounts). The browser that sets it is known."""
    if accounts.has_accounts(store()):
        return redirect(url_for("directors.login"))
    response = make_response(setup_page(template="hall/setup.html",
                                        login_endpoint="directors.login",
                                        home_endpoint=HOME, place="hall"))
    if request.method == "POST" and is_director():
        GUARD.know_browser(response, SHARED, password_mark())
    return response


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """The director's login: own name and password (named accounts), or the event's shared
    password while it has no named account. Each attempt is counted before its password is
    checked (``webui.common.attempts``, in the event database): on its address, on the
    account it tries and on all addresses together, or, from a browser that logged in as
    this director before, on that browser's own count alone. A waiting attempt's password
    is never checked."""
    named = accounts.has_accounts(store())
    if request.method == "GET" and named:
        return render_template("hall/login.html", error=None, named=named)
    if request.method == "GET" or not (named or director_password_set()):
        return login_page(template="hall/login.html", setup_endpoint="directors.setup",
                          home_endpoint=HOME)
    name = request.form.get("name", "").strip()
    account = _account_key(name, named)
    mark = (accounts.mark_of(store(), name, str(current_app.secret_key)) if name or named
            else password_mark())
    taken, block = attempts.take(store(), GUARD.limits(account, GUARD.nonce(account, mark)))
    if block is not None:
        return (render_template("hall/login.html", error=_block_words(block, named),
                                named=named), 429, {"Retry-After": str(block.retry_after_s)})
    if name or named:
        response = _named_login(name, named)
    else:
        response = make_response(login_page(template="hall/login.html",
                                            setup_endpoint="directors.setup",
                                            home_endpoint=HOME))
    if is_director():  # right: this attempt was no guess; the address (or browser) forgiven
        GUARD.forgive(taken)
        GUARD.know_browser(response, account, mark)
    return response


def _named_login(name: str, named: bool) -> Any:
    """A director logging in with their own name and password."""
    account = accounts.check_login(store(), name, request.form.get("password", ""),
                                   str(current_app.secret_key)) if name else None
    if account is None:
        error = ("Wrong name or password." if name else
                 "This event has named director accounts: log in with your own name.")
        return make_response(render_template("hall/login.html", error=error, named=named),
                             403)
    login_director()
    session["director_account"] = {"id": account.id, "name": account.name,
                                   "mark": account.mark}
    return redirect(url_for(HOME))


def _account_key(name: str, named: bool) -> str:
    """The key of the account a login tries: the shared password, or a name's (hashed: the
    count keeps no typed text)."""
    if not (name or named):
        return SHARED
    return "name:" + hashlib.sha256(player_key(name).encode()).hexdigest()[:40]


def _block_words(block: attempts.Block, named: bool) -> str:
    return block_words(block, "for this director account" if named
                       else "for the director password")


@bp.post("/logout")
def logout() -> Any:
    session.clear()
    return redirect(url_for("directors.login"))
