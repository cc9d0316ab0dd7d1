"""The event's deck (``webui.hall.decks``): the director pushes a table's taught deck profile,
or an uploaded DECK.json, to every table of the event, sees which table apps hold it, and can
withdraw it."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from webui.common.event_deck import event_deck
from webui.common.security import director_required, store
from webui.hall import decks
from webui.hall.audit import AuditAction
from webui.hall.views.base import director_name, done, refusals

bp = Blueprint("decks", __name__)
PAGE = "decks.page"


@bp.get("/deck")
@director_required
def page() -> Any:
    """The event's deck, the decks taught at the tables, and which table apps hold it."""
    return render_template("hall/deck.html", deck=event_deck(store()),
                           taught=decks.table_decks(store()),
                           stations=decks.station_decks(store()))


def _pushed(deck: Any) -> Any:
    return done(AuditAction.DECK, f"pushed {deck.words} ({deck.cards} cards taught, "
                f"{deck.source}) to every table of the event",
                f"Pushed {deck.words} to every table of the event: each table app reads with "
                "it after its next sync.", "event-deck", PAGE)


@bp.post("/deck/upload")
@director_required
@refusals("push-deck", prefix="Not pushed", endpoint=PAGE)
def upload() -> Any:
    """Push an uploaded deck profile file (checked whole first)."""
    sent = request.files.get("profile")
    if sent is None or not sent.filename:
        raise decks.DeckRefused("choose a deck profile file (DECK.json) to push")
    try:
        text = sent.read().decode("utf-8")
    except UnicodeDecodeError:
        raise decks.DeckRefused(f"{sent.filename} is not a gintray deck profile (not text); "
                                "nothing was pushed, the event keeps its deck") from None
    return _pushed(decks.push(store(), text, sent.filename,
                              f"uploaded by {director_name()}", director_name()))


@bp.post("/deck/taught/<int:deck_id>")
@director_required
@refusals("taught-decks", prefix="Not pushed", endpoint=PAGE)
def push_taught(deck_id: int) -> Any:
    """Push the deck taught at one of the tables."""
    return _pushed(decks.push_taught(store(), deck_id, director_name()))


@bp.post("/deck/withdraw")
@director_required
@refusals("event-deck", prefix="Not withdrawn", endpoint=PAGE)
def withdraw() -> Any:
    """Push no deck any more."""
    held = decks.withdraw(store())
    return done(AuditAction.DECK, f"withdrew {held.words}: the tables read with their own "
                "decks again", f"Withdrew {held.words}: each table reads with its own taught "
                "deck, else the shipped models, after its next sync.", "event-deck", PAGE)
