"""A proposed hand result as a request sends it (a tablet's form or JSON, a director's
correction in the hall), checked at the HTTP edge and made a ``Proposal`` for the store's
commands: ``parse_proposal``. Cards are read by the rules engine, here, once
(``engine.request_cards``); numbers and notes go through ``webui.common.validate``."""

from __future__ import annotations

from typing import Any

from webui.common.refusal import Refusal
from webui.common.validate import plain_text, whole_number
from webui.store import engine
from webui.store.engine import PLAYERS
from webui.store.proposal import Kind, ManualResult, Proposal


def _seat(player: Any) -> str:
    if player not in PLAYERS:
        raise Refusal(f"player must be one of {', '.join(PLAYERS)}", code="bad_player",
                      status=400)
    return str(player)


def _card_list(value: Any, what: str) -> list[str]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list):
        raise Refusal(f"{what}: expected a list of cards", code="bad_cards", status=400)
    return [str(v) for v in value]


def _groups(value: Any, what: str) -> list[list[str]]:
    if isinstance(value, str):
        value = [g for g in value.split("|") if g.strip()]
    if not isinstance(value, list):
        raise Refusal(f"{what}: expected groups of cards", code="bad_melds", status=400)
    return [_card_list(g, what) for g in value]


def parse_proposal(body: dict[str, Any]) -> Proposal:
    """A proposal from a request body: kind score (knocker, cards, melds), dead, or manual."""
    kind = body.get("kind", "score")
    if kind == "dead":
        return Proposal(Kind.DEAD)
    if kind == "manual":
        if body.get("winner") in (None, ""):
            raise Refusal("say who won the hand", code="no_winner", status=400)
        winner = _seat(body.get("winner"))
        points = whole_number(body.get("points"), "points", 0, 1000)
        note = plain_text(body.get("note"), "note", 200)
        return Proposal(Kind.MANUAL, result=ManualResult(winner, points, note))
    if kind != "score":
        raise Refusal("kind must be score, dead or manual", code="bad_kind", status=400)
    if body.get("knocker") in (None, ""):
        raise Refusal("say who knocked: the score depends on it", code="no_knocker", status=400)
    knocker = _seat(body.get("knocker"))
    cards: dict[str, list[engine.Card]] = {}
    melds: dict[str, list[list[engine.Card]]] = {}
    layout: dict[str, list[list[engine.Card]]] = {}
    laid_off: dict[str, list[engine.Card]] = {}
    raw_cards = body.get("cards") or {}
    raw_melds = body.get("melds") or {}
    raw_layout = body.get("layout") or {}
    raw_laid_off = body.get("laid_off") or {}
    if not all(isinstance(raw, dict) for raw in (raw_cards, raw_melds, raw_layout,
                                                  raw_laid_off)):
        raise Refusal("cards, melds, layout and laid_off map each player "
                      "(A, B) to cards", code="bad_cards", status=400)
    for p in PLAYERS:
        groups = _groups(raw_melds.get(p, []), f"melds of {p}")
        loose = _card_list(raw_cards.get(p, []), f"cards of {p}")
        flat = [c for g in groups for c in g] + loose
        try:
            cards[p] = engine.request_cards(flat)
            melds[p] = [engine.request_cards(g) for g in groups]
            laid = [engine.request_cards(g)
                    for g in _groups(raw_layout.get(p, []), f"layout of {p}")]
            off = engine.request_cards(_card_list(raw_laid_off.get(p, []),
                                                    f"cards laid off by {p}"))
        except engine.ScorerError as exc:
            raise Refusal(f"player {p}: {exc.message}", code=exc.code, status=400) from None
        # cards corrected since the camera saw them lie: no layout, no layoffs for them
        if off and set(off) <= set(cards[p]):
            laid_off[p] = off
        if laid and not {c for g in laid for c in g} <= set(cards[p]):
            continue
        layout[p] = laid
    overlap = set(cards["A"]) & set(cards["B"])
    if overlap:
        raise Refusal(f"{', '.join(sorted(c.code for c in overlap))} appears in both "
                      "hands", code="duplicate_card", status=400)
    improper = body.get("improper_accepted") not in (None, "", False, "0", "false")
    return Proposal(Kind.SCORE, knocker=knocker, cards=cards, improper_accepted=improper,
                    melds={knocker: melds[knocker]} if melds.get(knocker) else None,
                    layout={p: g for p, g in layout.items() if g} or None,
                    laid_off=laid_off or None)
