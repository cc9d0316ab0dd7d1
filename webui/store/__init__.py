"""A table's records, one package for the table app and the hall.

- ``db``: the schema and the connection (SQLite by default, PostgreSQL by URL).
- ``log``: appending events and reading a table's state under concurrent requests (``Store``).
- ``state``: a table's state folded from its events (pure).
- ``commands``: a request checked against the state, returning the events that record it.
- ``engine``: the only door to the rules engine (``scorer``).
- ``proposal``: the types that cross into the records (``Proposal``, ``Problem``, ``Doubt``,
  ``Phase``, ``Outcome``).

The names most callers need are importable from here (``from webui.store import Store``).
"""

from webui.store.log import (
    Actor,
    Command,
    CommandError,
    DatabaseUnwritable,
    NewEvent,
    Outcome,
    Store,
    database_problem,
    hash_token,
    new_pin,
)

__all__ = [
    "Actor",
    "Command",
    "CommandError",
    "DatabaseUnwritable",
    "NewEvent",
    "Outcome",
    "Store",
    "database_problem",
    "hash_token",
    "new_pin",
]
