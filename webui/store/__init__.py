"""A table's records, one package for the table app and the hall.

- ``db``: the schema and the connection (SQLite by default, PostgreSQL by URL).
- ``log``: appending events and reading a table's state under concurrent requests (``EventLog``).
- ``tables``: creating, listing and looking up tables, their PINs (``Tables``).
- ``devices``: the tablets joined to a table and their hashed tokens (``Devices``).
- ``settings``: the app's settings, and whether the database takes writes (``Settings``).
- ``facade``: ``Store``, the one object callers hold, composed of the four parts above.
- ``state``: a table's state folded from its events (pure).
- ``commands``: a request checked against the state, returning the events that record it.
- ``engine``: the only door to the rules engine (``scorer``).
- ``proposal``: the types that cross into the records (``Proposal``, ``Doubt``, ``Missing``,
  ``Phase``); the camera's notes are ``vision.table.notes.Problem``, a hand's ending is the
  engine's ``Outcome``. A command's result is ``log.CommandResult``.

The names most callers need are importable from here (``from webui.store import Store``).
"""

from webui.store.devices import hash_token
from webui.store.facade import Store
from webui.store.log import Actor, Command, CommandResult, NewEvent
from webui.store.settings import DatabaseUnwritable, database_problem
from webui.store.tables import new_pin

__all__ = [
    "Actor",
    "Command",
    "CommandResult",
    "DatabaseUnwritable",
    "NewEvent",
    "Store",
    "database_problem",
    "hash_token",
    "new_pin",
]
