"""The address tablets reach the table app at: what the join link and its QR code carry.

The table's own screen is usually opened on the table's computer as ``http://127.0.0.1:5000``,
an address no tablet can open. So the join link uses, in order: the ``--public-url`` given for
a proxy in front of the app (``PUBLIC_URL``); the machine's LAN address when the app listens
on the LAN (``LAN_URL``, set by ``gintray serve --host 0.0.0.0``) and the screen was opened on
a loopback address; else the address the screen itself was opened at.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

ALL_INTERFACES = ("0.0.0.0", "::", "")


def lan_address() -> str:
    """This machine's address on the local network (falls back to 127.0.0.1)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # documentation address: nothing is sent
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or address, without port) is this machine only."""
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """``host`` as written in a URL (IPv6 addresses in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def public_url(value: str) -> str:
    """A ``--public-url`` checked: http(s), a host, no query or fragment; no trailing slash.
    Raises ValueError saying what is wrong."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--public-url must be an http:// or https:// address with a host "
                         f"(got {value!r})")
    if parts.query or parts.fragment:
        raise ValueError(f"--public-url takes no ?query or #fragment (got {value!r})")
    try:
        parts.port  # noqa: B018 (a bad port raises)
    except ValueError:
        raise ValueError(f"--public-url has a bad port (got {value!r})") from None
    return value.strip().rstrip("/")


def lan_url(bind_host: str, port: int) -> str | None:
    """The base address tablets on the LAN use when the app listens on ``bind_host``: the
    machine's LAN address for all interfaces, the bound address for one LAN address, None
    when it listens on this machine only."""
    if bind_host in ALL_INTERFACES:
        host = lan_address()
        return None if is_loopback_host(host) else f"http://{url_host(host)}:{port}"
    if is_loopback_host(bind_host):
        return None
    return f"http://{url_host(bind_host)}:{port}"


def join_base(public: str | None, lan: str | None, request_base: str) -> str:
    """The base of the join link (see the module): ``request_base`` is the address the
    screen was opened at, e.g. ``http://127.0.0.1:5000``."""
    if public:
        return public.rstrip("/")
    host = urlsplit(request_base).hostname or ""
    if lan and is_loopback_host(host):
        return lan.rstrip("/")
    return request_base.rstrip("/")
