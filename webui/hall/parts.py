"""The hall's parts (``app.extensions["gintray"]``): the kit's store (the event database) and
signing identity, the background bundle builds, the event database's outages."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask

from webui.common.app import AppParts, app_parts
from webui.hall.bundler import Bundler
from webui.hall.offline import OfflineWatch


@dataclass
class HallParts(AppParts):
    """What the hall holds: see the module's docstring."""

    bundler: Bundler
    offline: OfflineWatch


def hall_parts(app: Flask | None = None) -> HallParts:
    """The hall's parts, by default of the app answering the current request."""
    return app_parts(app, HallParts)
