"""Named director accounts of the hall (``hall_directors``): each director logs in with their
own name and password, made on the hall's computer with ``gintray hall --add-director NAME``;
the name goes into the audit of everything they do."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from sqlalchemy import func, select
from werkzeug.security import check_password_hash, generate_password_hash

from webui.common.director_auth import MIN_PASSWORD
from webui.hall.players import player_key
from webui.hall.schema import HallDirector
from webui.store import Store
from webui.store.db import commit_first

MAX_NAME = 40
_NOBODY = generate_password_hash("no such director")  # same work for an unknown name


class AccountError(ValueError):
    """A director account that cannot be made (bad name, short password, name taken)."""


@dataclass(frozen=True)
class Director:
    """A logged-in director: the account's id and name, and a mark of its password hash (a
    changed password ends the account's sessions)."""

    id: int
    name: str
    mark: str


def _mark(secret: str, password_hash: str) -> str:
    key = secret.encode()
    return hmac.new(key, b"hall-director:" + password_hash.encode(), hashlib.sha256).hexdigest()


def has_accounts(store: Store) -> bool:
    """Whether the event has any named director account."""
    with store.Session() as s:
        return bool(s.scalar(select(func.count()).select_from(HallDirector)))


def set_account(store: Store, name: str, password: str) -> bool:
    """Make the account ``name`` or set its new password; True when it is new."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise AccountError(f"a director's name is 1 to {MAX_NAME} characters")
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"use at least {MIN_PASSWORD} characters for the password")
    key, hashed = player_key(name), generate_password_hash(password)
    with store.Session() as s:
        row = s.scalar(select(HallDirector).where(HallDirector.key == key))
        if row is not None:
            row.password_hash = hashed
            s.commit()
            return False
        s.add(HallDirector(key=key, name=name, password_hash=hashed))
        if not commit_first(s):
            raise AccountError(f"{name!r} was just made by someone else: run it again to set "
                               "the password")
        return True


def check_login(store: Store, name: str, password: str, secret: str) -> Director | None:
    """The account ``name`` (any case or spacing) when ``password`` is its password."""
    with store.Session() as s:
        row = s.scalar(select(HallDirector).where(HallDirector.key == player_key(name)))
    if row is None:
        check_password_hash(_NOBODY, password)
        return None
    if not check_password_hash(row.password_hash, password):
        return None
    return Director(row.id, row.name, _mark(secret, row.password_hash))


def mark_of(store: Store, name: str, secret: str) -> str | None:
    """The mark of the account ``name``'s password as it is now (None: no such account); a
    known browser's cookie must carry it."""
    with store.Session() as s:
        row = s.scalar(select(HallDirector).where(HallDirector.key == player_key(name)))
    return None if row is None else _mark(secret, row.password_hash)


def still_valid(store: Store, account_id: int, mark: str, secret: str) -> bool:
    """Whether a session's account still exists with the password it logged in with."""
    with store.Session() as s:
        row = s.get(HallDirector, account_id)
    return row is not None and hmac.compare_digest(mark, _mark(secret, row.password_hash))
