"""The app's settings (key -> text, e.g. the secret key), and whether the database takes writes."""

from __future__ import annotations

from sqlalchemy import delete, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import sessionmaker

from webui.store.db import Setting, commit_first


class DatabaseUnwritable(Exception):
    """The database refuses writes (read-only file or folder, read-only server, full disk)."""


def database_problem(exc: Exception) -> str:
    """What a database error means for the people at the table, with the database's words."""
    detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0][:200]
    if "readonly" in detail.replace("-", "").replace(" ", "").lower():
        return (f"the database is read-only ({detail}): nothing can be recorded until the "
                "director fixes its file or folder permissions")
    return f"the database cannot be used ({detail}); nothing was recorded"


class Settings:
    """The ``settings`` rows."""

    def __init__(self, session: sessionmaker) -> None:
        self.Session = session

    def get(self, key: str) -> str | None:
        with self.Session() as s:
            row = s.get(Setting, key)
            return row.value if row else None

    def set(self, key: str, value: str, only_if_missing: bool = False) -> str:
        """Store a setting; with only_if_missing, keep (and return) an existing value."""
        with self.Session() as s:
            row = s.get(Setting, key)
            if row is not None and only_if_missing:
                return row.value
            if row is None:
                s.add(Setting(key=key, value=value))
            else:
                row.value = value
            if not commit_first(s):  # another process stored it first
                return self.get(key) or value
            return value

    def compare_and_set(self, key: str, old: str | None, new: str | None) -> bool:
        """Set (or delete, ``new`` None) setting ``key`` only if it is ``old`` (None: missing);
        whether it was. Two processes doing so at once: exactly one succeeds."""
        with self.Session() as s:
            if old is None:
                if new is None:
                    return s.get(Setting, key) is None
                s.add(Setting(key=key, value=new))
                return commit_first(s)
            where = (Setting.key == key) & (Setting.value == old)
            stmt = delete(Setting).where(where) if new is None else (
                update(Setting).where(where).values(value=new))
            done = s.execute(stmt).rowcount == 1
            s.commit()
            return done

    def check_writable(self) -> None:
        """Raise ``DatabaseUnwritable`` (with the database's reason) unless a write can be
        committed; nothing is kept."""
        with self.Session() as s:
            try:
                s.add(Setting(key="_write_check", value=""))
                s.flush()
            except DBAPIError as exc:
                raise DatabaseUnwritable(database_problem(exc)) from exc
            finally:
                s.rollback()
