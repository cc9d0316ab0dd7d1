"""``Store``: the one object the table app and the hall hold, composed of one part a job.

- ``log`` (``EventLog``): appending events under concurrency, reading them and a table's state;
- ``registry`` (``Tables``): creating, listing and looking up tables, their PINs;
- ``tablets`` (``Devices``): the tablets joined to a table and their tokens;
- ``seats`` (``Seats``): which tablet holds each player's seat (one tablet a seat);
- ``seat_asks`` (``SeatRequests``): tablets asking for a held seat back, allowed or refused;
- ``settings`` (``Settings``): the app's settings, and whether the database takes writes.

The parts share one engine and sessionmaker (``engine``, ``Session``, used by the hall's own
queries). The methods below are the names callers have always used, each handed to its part.
"""

from __future__ import annotations

from typing import Any

from webui.store import state as state_mod
from webui.store.db import Device, EventRow, TableRow, make_engine, make_sessionmaker
from webui.store.devices import Devices
from webui.store.log import Actor, Command, CommandResult, EventLog
from webui.store.seat_requests import SeatRequests
from webui.store.seats import Joined, Seats, SeatTaken
from webui.store.settings import Settings
from webui.store.tables import Tables


class Store:
    """The web app's persistence: events, tables, devices, settings (see the module)."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self.Session = make_sessionmaker(self.engine)
        self.log = EventLog(self.Session)
        self.listeners = self.log.listeners  # called with (table_id, seq) after each append
        self.registry = Tables(self.Session, self.log.notify)
        self.tablets = Devices(self.Session)
        self.seats = Seats(self.Session)
        self.seat_asks = SeatRequests(self.Session, self.seats)
        self.settings = Settings(self.Session)

    # events ---------------------------------------------------------------------------------
    def events(self, table_id: int, after: int = 0) -> list[EventRow]:
        return self.log.events(table_id, after)

    def event(self, table_id: int, seq: int) -> EventRow | None:
        return self.log.event(table_id, seq)

    def last_seq(self, table_id: int) -> int:
        return self.log.last_seq(table_id)

    def state(self, table_id: int) -> state_mod.TableState:
        return self.log.state(table_id)

    def execute(self, table_id: int, command: Command, actor: Actor,
                request_id: str | None = None, kind: str | None = None) -> CommandResult:
        return self.log.execute(table_id, command, actor, request_id, kind)

    # tables ---------------------------------------------------------------------------------
    def create_table(self, name: str, settings: dict[str, Any], actor: Actor) -> int:
        return self.registry.create(name, settings, actor)

    def tables(self) -> list[TableRow]:
        return self.registry.all()

    def table(self, table_id: int) -> TableRow | None:
        return self.registry.get(table_id)

    def set_pin(self, table_id: int) -> str:
        return self.registry.new_pin(table_id)

    # devices --------------------------------------------------------------------------------
    def add_device(self, table_id: int, label: str, seat: str) -> tuple[Device, str]:
        return self.tablets.add(table_id, label, seat)

    def join_seat(self, table_id: int, label: str, seat: str, current: Device | None = None,
                  director: bool = False) -> Joined | SeatTaken:
        return self.seats.join(table_id, label, seat, current, director)

    def holds_seat(self, device: Device) -> bool:
        return self.seats.holds(device)

    def seat_holders(self, table_id: int) -> dict[str, Device]:
        return self.seats.holders(table_id)

    def device_for(self, token: str | None) -> Device | None:
        return self.tablets.for_token(token)

    def device_joined(self, device_id: int) -> bool:
        return self.tablets.joined(device_id)

    def devices(self, table_id: int, joined_only: bool = False) -> list[Device]:
        return self.tablets.of_table(table_id, joined_only)

    def revoke_devices(self, table_id: int, device_id: int | None = None) -> int:
        return self.tablets.revoke(table_id, device_id)

    # settings -------------------------------------------------------------------------------
    def get_setting(self, key: str) -> str | None:
        return self.settings.get(key)

    def set_setting(self, key: str, value: str, only_if_missing: bool = False) -> str:
        return self.settings.set(key, value, only_if_missing)

    def check_writable(self) -> None:
        self.settings.check_writable()
