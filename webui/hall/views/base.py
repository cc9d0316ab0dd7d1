"""What the hall's blueprints share: the director's name, the answer to a director action
done (``done``) or refused (``refusals``; the one handler is ``webui.common.errors``'), and the
event's standings and partnerships as the pages read them."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import flash, redirect, session, url_for
from sqlalchemy import select

from webui.common.refusal import Refusal
from webui.common.security import store
from webui.hall import audit, tournament
from webui.hall.audit import AuditAction
from webui.hall.schema import Partnership

HOME = "hall.index"  # the director's page


def director_name() -> str:
    """The logged-in director's name (a named account's; "director" for the shared
    password), for the audit, the round clock and pairings."""
    account = session.get("director_account")
    return str(account["name"]) if isinstance(account, dict) else "director"


def back_to(endpoint: str = HOME, anchor: str = "", **values: Any) -> str:
    """The address of a page (the director's by default), at the section ``anchor``."""
    return url_for(endpoint, **values) + (f"#{anchor}" if anchor else "")


def done(action: AuditAction, record: str, message: str, anchor: str = "",
         endpoint: str = HOME, **values: Any) -> Any:
    """A director action done: written to the audit log (``record``), ``message`` flashed,
    See Other back to the page (the director's by default) at ``anchor``."""
    audit.record(store(), director_name(), action, record)
    flash(message)
    return redirect(back_to(endpoint, anchor, **values), 303)


def refusals(anchor: str = "", *, prefix: str = "", endpoint: str = HOME,
             args: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """A director action's refusals, said one way: whatever the view refuses (a
    ``Refusal``, or a ``Refusal``: a bad number, a command the table refuses) goes
    back to ``endpoint`` (with the view's arguments named in ``args``) at ``anchor``, worded
    "``prefix``: why." when there is a prefix."""

    def wrap(view: Any) -> Any:
        @wraps(view)
        def run(**kwargs: Any) -> Any:
            try:
                return view(**kwargs)
            except Refusal as exc:
                if exc.page:  # a request no page makes: its error page, not sent back
                    raise
                message = f"{prefix}: {exc.message}." if prefix else exc.message
                back = back_to(endpoint, anchor, **{a: kwargs[a] for a in args})
                raise Refusal(message, code=exc.code, status=exc.status, back=back) from exc

        return run

    return wrap


def partnerships() -> list[Partnership]:
    with store().Session() as s:
        return list(s.scalars(select(Partnership).order_by(Partnership.id)))


def singles_tables() -> list[int]:
    """The event's tables that are not a partnership match's boards."""
    boards = {b for p in partnerships() for b in p.boards}
    return [t.id for t in store().tables() if t.id not in boards]


def standings_now() -> tournament.Standings:
    """The standings of the event's singles tables on the event's rules."""
    return tournament.standings_of(store(), singles_tables(), tournament.rules_of(store()))
