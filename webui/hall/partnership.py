"""Partnership matches (000, rules for partnership tournament): two teams of two, 250-point
games, a series of five that a team leaves after two losses.

Each pair of opponents plays on its own board, a table of the table app with partnership rules
where seat A is a member of the first team and seat B a member of the second. Hand n of the
match is hand n of both boards: the engine's ``team_hand`` nets the two boards (the team with
more points wins the difference), and the engine's sheet turns the team hands into games and
the series.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webui.common.refusal import Refusal
from webui.common.words import rules_words
from webui.hall.players import player_key
from webui.hall.schema import Partnership
from webui.hall.tournament import same_rules
from webui.store import Store, engine
from webui.store.engine import PLAYERS

PARTNERSHIP_RULES = "partnership"


class PartnershipError(Refusal):
    """A partnership that cannot be set up as asked."""


def check_teams(team_a: str, team_b: str, boards: list[int], tables: Mapping[int, Any]
                ) -> None:
    """Refuse blank or equal team names, boards that are not two distinct event tables, and
    boards that are not partnership tables (``tables``: each table's rules by its id)."""
    if not team_a.strip() or not team_b.strip():
        raise PartnershipError("both teams need a name")
    if player_key(team_a) == player_key(team_b):
        raise PartnershipError("the two teams need different names")
    if len(boards) != 2 or boards[0] == boards[1]:
        raise PartnershipError("a partnership match is played on two different boards")
    missing = [b for b in boards if b not in tables]
    if missing:
        raise PartnershipError(f"no table {missing[0]} in this event")
    for board in boards:
        if not same_rules(tables[board], PARTNERSHIP_RULES):
            raise PartnershipError(
                f"table {board} plays {rules_words(tables[board])} rules: a board of a "
                f"partnership match must be a table with the {PARTNERSHIP_RULES} rules (open "
                f"it with the {PARTNERSHIP_RULES} preset, or pick another table)")


def board_results(store: Store, table_id: int) -> list[dict[str, Any]]:
    """Every confirmed hand of a board, in order, as its sheet entry: ``{"winner", "points"}``
    or ``{"dead": True}``."""
    state = store.state(table_id)
    return [hand.sheet_entry() for game in state.games for hand in game.confirmed_hands]


def partnership_view(store: Store, match: Partnership) -> dict[str, Any]:
    """The team score sheet of a partnership match: each team hand with its two boards, the
    engine's games to 250 (``scorer.Game``) and its series result (``scorer.MatchStatus``),
    held as the engine's types and written by their ``to_json`` at the JSON edges (the API's
    jsonify, the bundle's manifest), and which teams reached the finals."""
    names = {seat: match.teams[seat]["name"] for seat in PLAYERS}
    boards = [board_results(store, t) for t in match.boards]
    count = min(len(b) for b in boards)
    hands = [{**engine.team_hand([b[i] for b in boards]), "boards": [b[i] for b in boards]}
             for i in range(count)]
    sheet = engine.sheet(PARTNERSHIP_RULES, [{k: h[k] for k in ("winner", "points", "dead")
                                              if k in h} for h in hands])
    status = sheet.match()
    series = status.series or {}
    return {"id": match.id, "name": match.name, "teams": match.teams, "names": names,
            "boards": match.boards, "board_hands": [len(b) for b in boards],
            "hands": hands, "games": sheet.games, "match": status,
            "winner_name": names.get(status.winner) if status.winner else None,
            "finalists": [names[s] for s in PLAYERS if s in series and series[s].finalist]}
