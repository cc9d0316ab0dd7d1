"""The director's password pages, shared by the table app and the tournament hall, and the
mark of a browser that logged in as a director before (``device_token``, ``device_nonce``).

A known browser's mark lets its director in while the login limits hold everyone else back
(the hall's login, ``webui.hall.views.directors``): it is a signed cookie the browser got on a
right password, naming the account and a mark of that account's password hash (so a new
password ends it), with a random id that has a count of wrong passwords of its own."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import current_app, flash, redirect, render_template, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer

from webui.common import attempts
from webui.common.errors import refuse
from webui.common.security import (
    DIRECTOR_KEY,
    check_director_password,
    director_password_set,
    is_local,
    login_director,
    set_director_password,
    store,
)

MIN_PASSWORD = 8
LOOPBACK = "loopback"  # the one address count of every loopback address
DEVICE_TRUST = timedelta(days=30)  # how long a browser stays known without logging in again
_DEVICE_SALT = "gintray-director-device"


def password_mark() -> str:
    """A keyed digest of the shared director password's hash (changes with the password)."""
    stored = store().get_setting(DIRECTOR_KEY) or ""
    key = str(current_app.secret_key or "").encode()
    return hmac.new(key, b"director-device:" + stored.encode(), hashlib.sha256).hexdigest()


def device_token(account: str, mark: str, at: datetime) -> str:
    """A new known browser's cookie for ``account`` (its password's ``mark``), made at
    ``at``: signed with the app's secret key, with a fresh random id."""
    body = {"a": account, "m": mark, "n": secrets.token_hex(16), "t": int(at.timestamp())}
    return URLSafeSerializer(str(current_app.secret_key), salt=_DEVICE_SALT).dumps(body)


def device_nonce(token: str | None, account: str, mark: str | None, at: datetime) -> str | None:
    """The random id of a known browser's cookie ``token`` when it is signed, for ``account``
    with its password as it is now (``mark``), and younger than ``DEVICE_TRUST``; else None."""
    if not token or mark is None or len(token) > 1000:
        return None
    try:
        body = URLSafeSerializer(str(current_app.secret_key), salt=_DEVICE_SALT).loads(token)
    except BadSignature:
        return None
    if not isinstance(body, dict) or body.get("a") != account:
        return None
    nonce, their_mark, made = body.get("n"), body.get("m"), body.get("t")
    if not (isinstance(nonce, str) and isinstance(their_mark, str) and isinstance(made, int)):
        return None
    if not hmac.compare_digest(their_mark, mark):
        return None
    if not 0 <= at.timestamp() - made <= DEVICE_TRUST.total_seconds():
        return None
    return nonce[:64]


@dataclass(frozen=True)
class LoginGuard:
    """How one app counts its director's login attempts (``webui.common.attempts``): its
    scopes for the address, the account and a known browser, and the known browser's cookie.
    The hall and the table app each have one; the counting is the same."""

    login_scope: str
    account_scope: str
    device_scope: str
    cookie: str

    def limits(self, account: str, nonce: str | None) -> list[attempts.Limit]:
        """The counts one attempt goes through. A known browser (``nonce``): its own count
        alone (5 free, then a doubling wait). Else its address's (the same; every loopback
        address counts as one, ``LOOPBACK``), and, unless it
        comes from the app's own computer, the account's (``ACCOUNT_FREE`` free, then a
        doubling wait) and everyone's (``GLOBAL_FREE`` free, then one every
        ``GLOBAL_WAIT_S``)."""
        if nonce is not None:
            return [attempts.Limit(self.device_scope, nonce, attempts.wait_for, "browser")]
        # every loopback address is this computer (and whatever a reverse proxy on it
        # forwards): one count, so 127.0.0.2 ... 127.0.0.40 get no 5 free tries each
        address = LOOPBACK if is_local() else (request.remote_addr or "unknown")
        limits = [attempts.Limit(self.login_scope, address, attempts.wait_for, "address")]
        if not is_local():
            limits += [attempts.Limit(self.account_scope, account, attempts.account_wait,
                                      "account"),
                       attempts.Limit(self.login_scope, attempts.EVERYONE,
                                      attempts.global_wait, "everyone")]
        return limits

    def nonce(self, account: str, mark: str | None) -> str | None:
        """This browser's known-browser id for ``account``, if it has a valid cookie."""
        return device_nonce(request.cookies.get(self.cookie), account, mark, attempts.now())

    def forgive(self, taken: list[attempts.Taken]) -> None:
        """A right password: its attempt given back, its address (or browser) forgiven; the
        account's count stays (a guesser's other tries still count)."""
        attempts.give_back(store(), taken)
        for t in taken:
            if t.limit.who in ("address", "browser"):
                attempts.clear(store(), t.limit.scope, t.limit.address)

    def know_browser(self, response: Any, account: str, mark: str | None) -> None:
        """Mark this browser as known to ``account`` (a fresh cookie on each right
        password)."""
        if mark is None:
            return
        response.set_cookie(self.cookie, device_token(account, mark, attempts.now()),
                            max_age=int(DEVICE_TRUST.total_seconds()), httponly=True,
                            samesite="Strict", secure=request.is_secure, path="/")


def block_words(block: attempts.Block, account_words: str) -> str:
    """Why a login waits, and for how long."""
    whom = {"address": "from this address", "browser": "from this browser",
            "account": f"{account_words} (from every address together)",
            "everyone": "from all addresses together"}[block.who]
    seconds = block.retry_after_s
    wait = f"{seconds} s" if seconds < 120 else f"{(seconds + 59) // 60} min"
    return f"Too many wrong passwords {whom}: try again in {wait}."


def setup_page(*, template: str, login_endpoint: str, home_endpoint: str, place: str) -> Any:
    """First run: choose the director password (only on ``place``'s own computer, only once)."""
    if director_password_set():
        return redirect(url_for(login_endpoint))
    if not is_local():
        refuse(403, f"set the director password on the {place}'s own computer")
    error = None
    if request.method == "POST":
        password = request.form.get("password", "")
        if len(password) < MIN_PASSWORD:
            error = f"Use at least {MIN_PASSWORD} characters."
        elif password != request.form.get("again", ""):
            error = "The two passwords differ."
        else:
            set_director_password(password)
            login_director()
            flash("Director password set.")
            return redirect(url_for(home_endpoint))
    return render_template(template, error=error), (400 if error else 200)


def login_page(*, template: str, setup_endpoint: str, home_endpoint: str) -> Any:
    """The director's login: a wrong password is refused with 403 and said plainly."""
    if not director_password_set():
        return redirect(url_for(setup_endpoint))
    error = None
    if request.method == "POST":
        if check_director_password(request.form.get("password", "")):
            login_director()
            return redirect(url_for(home_endpoint))
        error = "Wrong password."
    return render_template(template, error=error), (403 if error else 200)
