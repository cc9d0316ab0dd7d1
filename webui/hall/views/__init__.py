"""The hall's pages, one blueprint a feature:

``overview`` (blueprint ``hall``: the director's page, its live parts, the board, the audit,
the event as JSON, the hall's static files), ``directors`` (setup, login, logout),
``tables`` (a table's page, corrections, reopenings, forfeits), ``draw`` (the blind draw,
seating it, partnership matches), ``rounds`` (the round clock and the pairings),
``standings`` (rules, byes, tie-breaks, adjustments; printed and CSV), ``players``
(entries, withdrawals, merges), ``sync`` (adoptions), ``exports`` (the signed bundle) and
``projector`` (the public view), ``alive`` (the heartbeat open pages ask: is the event
database there) and ``decks`` (the event's deck profile pushed to every table).

A refused director action is the kit's one error, ``webui.common.refusal.Refusal``, answered
in one place (``webui.common.errors.answer_refusal``): flashed on the page the action came
from (``base.refusals`` names it), or JSON.
"""

from __future__ import annotations

from flask import Blueprint


def blueprints() -> list[Blueprint]:
    """Every blueprint of the hall, for ``create_hall_app``."""
    from webui.hall.views import (
        alive,
        decks,
        directors,
        draw,
        exports,
        overview,
        players,
        projector,
        rounds,
        standings,
        sync,
        tables,
    )

    return [overview.bp, directors.bp, tables.bp, draw.bp, rounds.bp, standings.bp,
            players.bp, sync.bp, exports.bp, projector.bp, alive.bp, decks.bp]
