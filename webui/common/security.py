"""Who may do what, in both apps: the director (password, session, ``director_required``),
this machine, a request's address, safe redirects and the security headers on every answer."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from functools import wraps
from typing import Any

from flask import current_app, request, session
from werkzeug.security import check_password_hash, generate_password_hash

from webui.common.errors import refuse
from webui.store import Store

DIRECTOR_KEY = "director_password_hash"


def store() -> Store:
    """The store of the app answering the current request."""
    from webui.common.app import app_parts  # the app module imports this one

    return app_parts().store


def is_local() -> bool:
    """True when the request comes from this machine (the table's own screen)."""
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def director_password_set() -> bool:
    return store().get_setting(DIRECTOR_KEY) is not None


def set_director_password(password: str) -> None:
    store().set_setting(DIRECTOR_KEY, generate_password_hash(password))


def check_director_password(password: str) -> bool:
    stored = store().get_setting(DIRECTOR_KEY)
    return bool(stored) and check_password_hash(stored, password)


def _director_mark() -> str:
    """A keyed digest of the director's password hash: the session carries this, never the
    hash (the session cookie is signed, not encrypted). A new password ends old logins."""
    stored = store().get_setting(DIRECTOR_KEY) or ""
    key = str(current_app.secret_key or "").encode()
    return hmac.new(key, b"director:" + stored.encode(), hashlib.sha256).hexdigest()


def is_director() -> bool:
    mark = session.get("director_mark")
    return (bool(session.get("director")) and isinstance(mark, str)
            and hmac.compare_digest(mark, _director_mark()))


def login_director() -> None:
    session.pop("director_hash", None)  # the earlier form, which carried part of the hash
    session["director"] = True
    session["director_mark"] = _director_mark()
    session.permanent = True


def logout_director() -> None:
    for key in ("director", "director_mark", "director_hash"):
        session.pop(key, None)


_UNSAFE_IN_PATH = re.compile(r"[\x00-\x20\x7f\\]")


def safe_next(target: object) -> str | None:
    """``target`` if it is a path of this site ("/t/1/sheet"), else None.

    Refused: other sites ("//host", "https://host"), and anything a browser could read as one
    once it drops tabs and newlines or reads "\\" as "/" (control characters, spaces,
    backslashes anywhere in it).
    """
    if not isinstance(target, str) or not target.startswith("/") or target.startswith("//"):
        return None
    if _UNSAFE_IN_PATH.search(target) or len(target) > 500:
        return None
    return target


CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'")


def security_headers(response: Any) -> Any:
    """No framing (clickjacking), a Content-Security-Policy that allows only this site's own
    scripts, styles and pictures (plus the signatures' data: URLs), no MIME sniffing."""
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def director_required(view: Any) -> Any:
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not is_director():
            refuse(403, "director only: log in as the director")
        return view(*args, **kwargs)

    return wrapped


def client_address() -> str:
    """The address a request comes from (the key of the PIN and password back-off)."""
    return request.remote_addr or "unknown"
