"""The table app's parts (``app.extensions["gintray"]``): the kit's store and signing identity,
the notifier the live streams wait on, each table's camera, the open streams' slots, the
pictures of laid-out decks waiting to be taught."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import Flask

from webui.common.app import AppParts, app_parts
from webui.table.deck_teaching import DeckTeaching
from webui.table.live import Notifier, StreamSlots

if TYPE_CHECKING:
    from webui.table.camera_feed import TableCamera


@dataclass
class TableParts(AppParts):
    """What the table app holds: see the module's docstring."""

    notifier: Notifier
    cameras: dict[int, TableCamera]
    streams: StreamSlots
    deck_teaching: DeckTeaching


def table_parts(app: Flask | None = None) -> TableParts:
    """The table app's parts, by default of the app answering the current request."""
    return app_parts(app, TableParts)
