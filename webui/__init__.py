"""gintray's web apps, in rooms: ``webui.table`` (the table app: score sheet, confirmations on
the tablet, signatures, signed export, the camera), ``webui.hall`` (the tournament hall), the
kit both build on (``webui.common``) and the store (``webui.store``).

``from webui import create_app`` still gives the table app's factory; it is loaded on first use,
so ``import webui.hall`` loads neither the table app nor its camera.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """``create_app``: the table app's factory (``webui.table.create_app``), loaded on use."""
    if name == "create_app":
        from webui.table import create_app

        return create_app
    raise AttributeError(f"module 'webui' has no attribute {name!r}")
