"""JSON command line of the rules engine: ``gintray melds|score|sheet``.

Each ``*_main(argv)`` returns an exit status: 0 on success, 2 on bad input (or a hand the
rules refuse to score, e.g. an improper knock), with ``{"error": {"code", "message"}}`` on
stdout. ``--text`` prints a human summary with suit symbols instead of JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from scorer.cards import Card, parse_cards
from scorer.errors import CardError, InputError, ScorerError, shown
from scorer.hand import HandResult, score_hand
from scorer.melds import MeldAnalysis, best_melds
from scorer.sheet import BoardResult, Sheet, score_sheet, team_hand

EXIT_OK = 0
EXIT_BAD_INPUT = 2
# A whole tournament match is a few hundred hands, some 100 kB of JSON: far below this.
MAX_INPUT_BYTES = 1_000_000
MAX_INDENT = 16

_SCORE_KEYS = {
    "rules",
    "up_card",
    "knocker",
    "hands",
    "melds",
    "layout",
    "laid_off",
    "accept_improper_knock",
    "declared",
}
_SHEET_KEYS = {"rules", "hands", "players", "dealer", "teams", "record"}
_TEAM_HAND_KEYS = {"boards", "up_card", "dealer", "note"}
_BOARD_RESULT_KEYS = {"winner", "points", "dead"}


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as JSON errors (exit 2) instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{self.prog}: {message}", "bad_arguments")


def _emit(obj: Any, out: TextIO, indent: int | None) -> None:
    out.write(json.dumps(obj, indent=indent, ensure_ascii=False) + "\n")


def _run(argv: list[str], parser: _Parser, body: Callable[[argparse.Namespace], Any]) -> int:
    out = sys.stdout
    indent = None
    try:
        args = parser.parse_args(argv)
        if args.indent is not None and not 0 <= args.indent <= MAX_INDENT:
            raise InputError(f"--indent must be from 0 to {MAX_INDENT}", "bad_arguments")
        indent = args.indent
        result = body(args)
    except ScorerError as exc:
        _emit(exc.to_json(), out, indent)
        return EXIT_BAD_INPUT
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    if isinstance(result, str):
        out.write(result + "\n")
    else:
        _emit(result, out, indent)
    return EXIT_OK


def _read_json(path: str | None) -> Any:
    """The JSON document in the file `path` (stdin for None or "-").

    :raises InputError: unreadable, over MAX_INPUT_BYTES, not UTF-8, or not JSON (including
        numbers too long to convert and nesting too deep to parse).
    """
    try:
        if path in (None, "-"):
            raw = getattr(sys.stdin, "buffer", None)  # bytes, so that bad UTF-8 is caught
            data = (
                raw.read(MAX_INPUT_BYTES + 1)
                if raw is not None
                else sys.stdin.read(MAX_INPUT_BYTES + 1).encode("utf-8", "surrogateescape")
            )
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", "bad_input") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(
            f"input is over {MAX_INPUT_BYTES:,} bytes; a whole match is far smaller", "too_large"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"input is not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r})",
            "bad_json",
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"input is not valid JSON: {exc}", "bad_json") from None
    except RecursionError:
        raise InputError("input is nested too deeply to be a hand or a sheet", "bad_json") from None
    except ValueError as exc:  # an integer literal too long to convert
        raise InputError(f"input has a number that cannot be read: {exc}", "bad_json") from None


def _object(doc: Any, allowed: set[str], what: str) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise InputError(f"{what} input must be a JSON object", "bad_input")
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise InputError(
            f"unknown field {shown(unknown[0])} (known: {', '.join(sorted(allowed))})", "bad_field"
        )
    return doc


def _common(parser: _Parser) -> _Parser:
    parser.add_argument("--indent", type=int, default=None, help="pretty-print JSON")
    parser.add_argument("--text", action="store_true", help="human summary with ♠♥♦♣")
    return parser


def _pretty(cards: list[Card]) -> str:
    return " ".join(card.pretty() for card in cards)


def _melds_text(analysis: MeldAnalysis) -> str:
    lines = [f"deadwood {analysis.deadwood}"]
    lines += [f"  meld   {_pretty(m)}" for m in analysis.melds]
    if analysis.deadwood_cards:
        lines.append(f"  loose  {_pretty(analysis.deadwood_cards)}")
    if analysis.big_gin is not None:
        lines.append(
            "big gin"
            if analysis.big_gin
            else f"best discard {_pretty(analysis.best_discards or [])} "
            f"-> deadwood {analysis.min_deadwood_after_discard}"
        )
    return "\n".join(lines)


def _melds_json(analysis: MeldAnalysis) -> dict[str, Any]:
    return analysis.to_json()


def melds_main(argv: list[str]) -> int:
    """``gintray melds CARD...``: best melds of 10 cards (11: also big gin and best discards)."""
    parser = _common(_Parser(prog="gintray melds", description=melds_main.__doc__))
    parser.add_argument("cards", nargs="*", help="card codes, e.g. 7D TD 10H AS (10 or 11)")

    def body(args: argparse.Namespace) -> Any:
        if any(not arg.replace(",", " ").strip() for arg in args.cards):
            raise InputError("an empty card argument was given (say every card)", "bad_card")
        items = [code for arg in args.cards for code in arg.replace(",", " ").split()]
        cards = parse_cards(items)
        if len(cards) not in (10, 11):
            raise CardError(
                f"{len(cards)} cards given: melds analyses 10 cards (a hand) or 11 (after the "
                "draw)",
                "wrong_card_count",
            )
        analysis = best_melds(cards)
        return _melds_text(analysis) if args.text else _melds_json(analysis)

    return _run(argv, parser, body)


def _score_text(result: HandResult) -> str:
    who = result.winner or "nobody"
    lines = [
        f"{result.outcome}: {who} scores {result.points} (knock limit {result.knock_limit})",
    ]
    for player, melds in result.melds.items():
        role = "knocker" if player == result.knocker else "defender"
        lines.append(f"{player} ({role}) deadwood {result.deadwood[player]}")
        lines += [f"  meld   {_pretty(m)}" for m in melds]
        if result.deadwood_cards[player]:
            lines.append(f"  loose  {_pretty(result.deadwood_cards[player])}")
    lines += [f"  lays off {lay.card.pretty()} onto {_pretty(lay.onto)}" for lay in result.layoffs]
    return "\n".join(lines)


def score_from_document(doc: Any) -> HandResult:
    """Score a ``gintray score`` input document (already parsed from JSON)."""
    doc = _object(doc, _SCORE_KEYS, "score")
    for key in ("knocker", "hands"):
        if key not in doc:
            raise InputError(f"missing field {shown(key)}", "missing_field")
    accept = doc.get("accept_improper_knock", False)
    if not isinstance(accept, bool):
        raise InputError("accept_improper_knock must be true or false", "bad_field")
    declared = doc.get("declared", "knock")
    if declared not in ("knock", "gin"):
        raise InputError('declared must be "knock" or "gin"', "bad_field")
    if not isinstance(doc["knocker"], str):
        raise InputError("knocker must be a player name (string)", "bad_field")
    melds = doc.get("melds")
    if melds is not None and not isinstance(melds, dict):
        raise InputError("melds must be an object {player: [[card, ...], ...]}", "bad_field")
    layout = doc.get("layout")
    if layout is not None and not isinstance(layout, dict):
        raise InputError("layout must be an object {player: [[card, ...], ...]}", "bad_field")
    laid_off = doc.get("laid_off")
    if laid_off is not None and not isinstance(laid_off, dict):
        raise InputError("laid_off must be an object {player: [card, ...]}", "bad_field")
    return score_hand(
        doc.get("rules", "tournament"),
        up_card=doc.get("up_card"),
        knocker=doc["knocker"],
        hands=doc["hands"],
        melds=melds,
        accept_improper_knock=accept,
        declared_gin=declared == "gin",
        layout=layout,
        laid_off=laid_off,
    )


def _document_main(argv: list[str], prog: str, description: str | None,
                   read: Callable[[Any], Any], as_text: Callable[[Any], str]) -> int:
    """A command that reads one JSON document (FILE or stdin) into an engine object and
    prints it as JSON, or as text with ``--text``."""
    parser = _common(_Parser(prog=prog, description=description))
    parser.add_argument("file", nargs="?", default=None, help="input JSON (default: stdin)")

    def body(args: argparse.Namespace) -> Any:
        value = read(_read_json(args.file))
        return as_text(value) if args.text else value.to_json()

    return _run(argv, parser, body)


def score_main(argv: list[str]) -> int:
    """``gintray score [FILE]``: score one hand (JSON from FILE or stdin)."""
    return _document_main(argv, "gintray score", score_main.__doc__, score_from_document,
                          _score_text)


def _sheet_text(sheet: Sheet) -> str:
    lines = []
    for game in sheet.games:
        title = f"game {game.number}" + (f" (column {game.column})" if game.column else "")
        lines.append(f"{title}: totals {game.totals}, boxes {game.boxes}")
        if game.complete:
            lines.append(f"  winner {game.winner}, finals {game.finals}")
    return "\n".join(lines)


def sheet_from_document(doc: Any) -> Sheet:
    """Score a ``gintray sheet`` input document (already parsed from JSON).

    With ``teams`` (000 partnership: ``{"North": ["Ann", "Bob"], "South": ["Cy", "Di"]}``)
    each hand is ``{"boards": [board, board], "up_card"?}``; a board is a ``gintray score``
    document or a result ``{"winner": player, "points": n}`` / ``{"dead": true}``; the team
    with more points over its boards wins the difference (``team_hand``, 000 rules 8, 12).
    """
    doc = _object(doc, _SHEET_KEYS, "sheet")
    if "hands" not in doc:
        raise InputError("missing field 'hands'", "missing_field")
    hands, players = doc["hands"], doc.get("players")
    if "teams" in doc:
        if players is not None:
            raise InputError("give teams or players, not both", "bad_field")
        team_of = _teams(doc["teams"])
        players = list(dict.fromkeys(team_of.values()))
        if not isinstance(hands, list):
            raise InputError("hands must be a list", "bad_field")
        rules = doc.get("rules", "partnership")
        hands = [_team_hand(i, h, team_of, rules) for i, h in enumerate(hands)]
    else:
        rules = doc.get("rules", "tournament")
    record = doc.get("record")
    if record is not None and not isinstance(record, dict):
        raise InputError("record must be an object {team: [won, lost]}", "bad_field")
    return score_sheet(
        rules, hands, players=players, dealer=doc.get("dealer"), record_before=record
    )


def _teams(value: Any) -> dict[str, str]:
    """Player -> team from ``{"team": [player, player], "team": [...]}``: two teams of two."""
    if not isinstance(value, dict) or len(value) != 2:
        raise InputError('teams must name two teams: {"North": [...], "South": [...]}', "bad_field")
    team_of: dict[str, str] = {}
    for team, members in value.items():
        if not team or not isinstance(members, list) or len(members) != 2:
            raise InputError(f"team {shown(team)} must list its two players", "bad_field")
        for player in members:
            if not isinstance(player, str) or not player:
                raise InputError(f"team {shown(team)}: players are non-empty names", "bad_field")
            if player in team_of or player in value:
                raise InputError(f"{shown(player)} is named twice in the teams", "bad_field")
            team_of[player] = team
    return team_of


def _team_hand(index: int, hand: Any, team_of: dict[str, str], rules: Any) -> dict[str, Any]:
    """One partnership hand: its boards scored or read, netted by ``team_hand``."""
    where = f"hands[{index}]"
    if not isinstance(hand, dict):
        raise InputError(f'{where} must be an object {{"boards": [board, board]}}', "bad_field")
    unknown = sorted(set(hand) - _TEAM_HAND_KEYS)
    if unknown:
        raise InputError(f"{where}: unknown field {shown(unknown[0])}", "bad_field")
    boards = hand.get("boards")
    if not isinstance(boards, list) or len(boards) != 2:
        raise InputError(f"{where}: boards must list the two boards' hands", "bad_field")
    results = []
    for number, board in enumerate(boards, 1):
        try:
            results.append(_board(board, hand.get("up_card"), team_of, rules))
        except ScorerError as exc:
            raise type(exc)(f"{where} board {number}: {exc.message}", exc.code) from None
    net = team_hand(results, team_of)
    return {**net, **{k: hand[k] for k in ("up_card", "dealer", "note") if k in hand}}


def _board(board: Any, up_card: Any, team_of: dict[str, str], rules: Any) -> BoardResult:
    """A board's result: scored from a ``gintray score`` document, or as recorded."""
    if not isinstance(board, dict):
        raise InputError("a board is a score document or {winner, points}", "bad_field")
    if "hands" in board or "knocker" in board:
        doc = {"rules": rules, **board}
        if up_card is not None:
            doc.setdefault("up_card", up_card)  # 000 partnership rule 7: one centre deck
        result = score_from_document(doc)
        players = set(result.deadwood)
    else:
        unknown = sorted(set(board) - _BOARD_RESULT_KEYS)
        if unknown:
            raise InputError(f"unknown field {shown(unknown[0])}", "bad_field")
        if board.get("dead") is True:
            return BoardResult(None, 0)
        winner, points = board.get("winner"), board.get("points")
        if not isinstance(points, int) or isinstance(points, bool) or not 0 <= points <= 10_000:
            raise InputError("points must be a whole number 0..10000", "bad_field")
        result = BoardResult(winner, points)
        players = {winner}
    strangers = sorted(p for p in players if p not in team_of)
    if strangers:
        raise InputError(f"{shown(strangers[0])} is in neither team", "unknown_player")
    return BoardResult(result.winner, result.points)


def sheet_main(argv: list[str]) -> int:
    """``gintray sheet [FILE]``: running totals, boxes, bonuses and winner of a game."""
    return _document_main(argv, "gintray sheet", sheet_main.__doc__, sheet_from_document,
                          _sheet_text)
