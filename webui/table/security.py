"""Who may do what at a table: joined devices, the players they act for, the table's own
screen (the director and this machine: ``webui.common.security``)."""

from __future__ import annotations

import hashlib
import json

from flask import g, request, session

from webui.common.errors import refuse
from webui.common.security import is_director, is_local, store
from webui.store import Actor
from webui.store.db import Device
from webui.store.engine import PLAYERS
from webui.store.log import RequestKey
from webui.table.live import stream_slots


def current_device(table_id: int) -> Device | None:
    """The joined device making this request for ``table_id``, if any."""
    token = (session.get("devices") or {}).get(str(table_id))
    device = store().device_for(token)
    if device is None or device.table_id != table_id:
        return None
    return device


def remember_device(table_id: int, token: str) -> None:
    devices = dict(session.get("devices") or {})
    devices[str(table_id)] = token
    session["devices"] = devices
    session.permanent = True


def forget_device(table_id: int) -> None:
    devices = dict(session.get("devices") or {})
    devices.pop(str(table_id), None)
    session["devices"] = devices


def sign_out(table_id: int, device_id: int | None = None) -> int:
    """Sign a device of the table out (all its devices: ``device_id`` None): its token stops
    working, its seat is free and its live streams end now. How many were signed out."""
    count = store().revoke_devices(table_id, device_id)
    stream_slots().end_device(table_id, device_id)
    return count


def actor_for(table_id: int) -> Actor:
    """The actor recorded on events: the director, or the joined device."""
    if is_director():
        return Actor("director")
    device = current_device(table_id)
    if device is None:
        refuse(403, "this device has not joined the table; enter the table's PIN")
    return Actor(f"device:{device.label}", device.id)


def seats_of(table_id: int) -> tuple[str, ...]:
    """The players this request acts for: both for the director, a joined tablet's own
    player while it holds that player's seat, nobody otherwise (a device joined for "both"
    before tablets were bound to one player confirms and signs for nobody: it joins again for
    its player)."""
    if is_director():
        return PLAYERS
    device = current_device(table_id)
    if device is None or device.seat not in PLAYERS or not store().holds_seat(device):
        return ()
    return (device.seat,)


def may_act_for(table_id: int, player: object) -> bool:
    """Whether this request may confirm, undo a confirmation or sign for ``player``."""
    return player in seats_of(table_id)


def require_viewer(table_id: int) -> None:
    """History, exports, camera and raw state: joined tablets, the director, this machine."""
    if not (is_local() or is_director() or current_device(table_id) is not None):
        refuse(403, "join the table with its PIN to see this")


def may_see_screen() -> bool:
    """The table screen shows the PIN: only on this machine or for the director."""
    return is_local() or is_director()


def request_id() -> RequestKey | None:
    """A client-chosen id that makes a retried request land once (letters, digits, - and _),
    with a fingerprint of the request's body: the same id sent with another body is refused,
    not answered as a retry."""
    body = g.get("body") or {}
    rid = body.get("request_id") or request.headers.get("X-Request-Id")
    if not rid:
        return None
    rid = str(rid)
    if not (1 <= len(rid) <= 48) or not all(c.isalnum() or c in "-_" for c in rid):
        refuse(400, "request_id: 1-48 letters, digits, - or _")
    asked = {k: v for k, v in dict(body).items() if k not in ("request_id", "csrf_token")}
    text = json.dumps(asked, sort_keys=True, default=str, ensure_ascii=True)
    return RequestKey(rid, hashlib.sha256(text.encode()).hexdigest()[:10])
