"""Commands: check a request against a table's state and return the events that record it.

Each builder returns a function ``state -> [(kind, payload), ...]`` for ``Store.execute``; it
raises ``Refusal`` (nothing is written) when the request does not fit the table as it is.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from webui.common import signature_image
from webui.common.refusal import Refusal
from webui.store import Command, engine
from webui.store.event_kind import UNDOABLE, EventKind
from webui.store.proposal import Kind, ManualResult, Phase, Proposal
from webui.store.record import CARD_COUNT, EngineError, RecordedProposal
from webui.store.state import PLAYERS, HandState, TableState, sheet_hash

MAX_SIGNATURE_BYTES = signature_image.MAX_BYTES


def _player(player: Any) -> str:
    if player not in PLAYERS:
        raise Refusal(f"player must be one of {', '.join(PLAYERS)}", code="bad_player", status=400)
    return player


def _open_hand(state: TableState, game_no: int, hand_no: int) -> HandState:
    """The current hand if (game_no, hand_no) names it, else a clear conflict."""
    game = state.game
    if game is None:
        raise Refusal("this table has no game yet", code="no_game", status=409)
    if game.locked:
        raise Refusal(f"game {game.number} is signed and locked; "
                      "a director must reopen it", code="game_locked", status=423)
    hand = state.current_hand()
    if hand is None:
        raise Refusal(f"game {game.number} is over; start the next game",
                      code="game_over", status=409)
    if (game_no, hand_no) != (hand.game, hand.number):
        raise Refusal(f"that is not the hand being played (now game "
                      f"{hand.game}, hand {hand.number}); reload",
                      code="stale_hand", status=409)
    return hand


def _scored(state: TableState, up_card: engine.Card | None, proposal: Proposal, source: str,
            question: str | None = None) -> RecordedProposal:
    """A proposal scored with the table's rules, as recorded: the engine's result, or its
    refusal kept as the record's error. ``question``: the camera's question about the card
    count, which stands in for a score until the players correct the cards."""
    if proposal.kind is Kind.MANUAL:
        return RecordedProposal(proposal, source, result=proposal.result)
    if proposal.kind is not Kind.SCORE:
        return RecordedProposal(proposal, source)
    if question:
        return RecordedProposal(proposal, source, error=EngineError(CARD_COUNT, question),
                                question=question)
    try:
        result = engine.score(state.rules, up_card=up_card, knocker=proposal.knocker,
                              hands=proposal.cards, melds=proposal.melds,
                              accept_improper_knock=proposal.improper_accepted,
                              layout=proposal.layout, laid_off=proposal.laid_off)
    except engine.ScorerError as exc:
        return RecordedProposal(proposal, source, error=EngineError(exc.code, exc.message))
    return RecordedProposal(proposal, source, result=result)


def _rescored(state: TableState, up_card: engine.Card,
              record: RecordedProposal) -> RecordedProposal:
    return _scored(state, up_card, record.proposal, record.source, record.question)


def set_knock_card(game: int, hand: int, card: engine.Card, source: str = "manual",
                   alternative: engine.Card | None = None) -> Command:
    """Record (or correct) the hand's knock card; the camera records it only once per hand,
    with the card its runner-up reading says it may be (``alternative``: a one-tap swap).
    The cards come typed (the detector's, or parsed at the HTTP edge): the log gets codes."""

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        current = _open_hand(state, game, hand)
        if source == "camera" and current.up_card is not None:
            return []
        if current.up_card == card:
            return []
        payload: dict[str, Any] = {"game": current.game, "hand": current.number,
                                   "card": card.code, "source": source}
        if alternative and source == "camera" and alternative != card:
            payload["alternative"] = alternative.code
        if current.proposal is not None:
            rescored = _rescored(state, card, current.proposal)
            changes = [f"knock card {card} (was {current.up_card or 'none'})",
                       *describe_changes(state.players, current.proposal, rescored)]
            voided = [state.players[p] for p in current.confirmed_by]
            payload["rescored"] = rescored.reworded(changes, voided).to_json()
        return [(EventKind.KNOCK_CARD_SET, payload)]

    return run


def propose(game: int, hand: int, proposal: Proposal | dict[str, Any], source: str = "manual",
            director: bool = False, strict: bool = True, question: str | None = None
            ) -> Command:
    """Set the hand's proposed result (engine-scored). Players then confirm it.

    ``proposal``: a ``Proposal`` (a stored proposal's JSON is read with ``Proposal.from_json``).
    ``strict`` (hand input) refuses a proposal the engine rejects; camera readings keep the
    engine's error on the proposal so people see what to fix. ``director`` confirms it at once.
    ``question``: the camera's question about the card count (nothing is scored until the
    players answer it).
    """
    if not isinstance(proposal, Proposal):
        proposal = Proposal.from_json(proposal)

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        pick = _director_hand if director else _open_hand
        current = pick(state, game, hand)
        scored = _scored(state, current.up_card, proposal, source, question)
        if strict and scored.error is not None:
            raise Refusal(scored.error.message, code=scored.error.code, status=422)
        if current.proposal is not None and _same(current.proposal, scored) and not director:
            return []  # an unchanged re-read (cards in another order): nothing to confirm again
        if current.proposal is not None:
            changes = describe_changes(state.players, current.proposal, scored)
            if changes:
                voided = [state.players[p] for p in current.confirmed_by]
                scored = scored.reworded(changes, voided)
        payload = {"game": current.game, "hand": current.number, "proposal": scored.to_json()}
        if director:
            payload["director"] = True
        return [(EventKind.PROPOSAL_SET, payload)]

    return run


def _canonical(record: RecordedProposal) -> dict[str, Any]:
    """What players confirm in a proposal, independent of the order cards were read in."""
    result = record.result
    note = result.note if isinstance(result, ManualResult) else None
    return {
        "kind": record.kind.value, "knocker": record.knocker,
        "cards": {p: sorted(engine.codes(c)) for p, c in record.cards.items()},
        "melds": {p: sorted(sorted(engine.codes(g)) for g in groups)
                  for p, groups in (record.melds or {}).items() if groups},
        "improper_accepted": record.improper_accepted,
        "result": {} if result is None else {"winner": result.winner, "points": result.points,
                                             "outcome": result.outcome, "note": note},
        "error": record.error.code if record.error else None, "question": record.question,
    }


def _same(a: RecordedProposal, b: RecordedProposal) -> bool:
    return _canonical(a) == _canonical(b)


def describe_changes(players: dict[str, str], old: RecordedProposal,
                     new: RecordedProposal) -> list[str]:
    """What a new proposal changes from the one it replaces, in words for both tablets, e.g.
    ["Ben's cards: 8H instead of 8D", "Ann scores 9 (was 7)"]."""
    out: list[str] = []
    a, b = _canonical(old), _canonical(new)
    if a["kind"] != b["kind"]:
        words = {"score": "scored from the cards", "dead": "a dead hand", "manual":
                 "an outcome entered by hand"}
        out.append(f"now {words.get(b['kind'], b['kind'])} (was {words.get(a['kind'], a['kind'])})")
    if a["knocker"] != b["knocker"] and b["knocker"] in players:
        out.append(f"{players[b['knocker']]} is the knocker")
    for p, name in players.items():
        before, after = set(a["cards"].get(p, [])), set(b["cards"].get(p, []))
        gone, came = sorted(before - after), sorted(after - before)
        if gone and came:
            out.append(f"{name}'s cards: {' '.join(came)} instead of {' '.join(gone)}")
        elif came:
            out.append(f"{name}'s cards: {' '.join(came)} added")
        elif gone:
            out.append(f"{name}'s cards: {' '.join(gone)} taken away")
        if a["melds"].get(p) != b["melds"].get(p) and before == after:
            out.append(f"{name}'s melds are laid differently")
    if a["improper_accepted"] != b["improper_accepted"]:
        out.append("improper knock " + ("accepted" if b["improper_accepted"] else "no longer "
                                        "accepted"))

    def outcome(c: dict[str, Any]) -> str:
        r = c["result"]
        if c["kind"] == "dead":
            return "no score"
        if c["error"] or r.get("winner") not in players:
            return "not scored"
        return f"{players[r['winner']]} scores {r['points']}"

    if outcome(a) != outcome(b):
        out.append(f"{outcome(b)} (was {outcome(a)})")
    return out


def _director_hand(state: TableState, game_no: int, hand_no: int) -> HandState:
    game = state.game_by_number(game_no)
    found = state.hand(game_no, hand_no) if game else None
    if game is None or found is None:
        return _open_hand(state, game_no, hand_no)
    if game.locked:
        raise Refusal("reopen the game before correcting it", code="game_locked", status=423)
    return found


def confirm(game: int, hand: int, player: Any, revision: int) -> Command:
    """One player's confirmation of the hand exactly as they saw it (``revision``)."""

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        p = _player(player)
        current = _open_hand(state, game, hand)
        if current.phase in (Phase.DEALING, Phase.PLAYING):
            raise Refusal("there is no result to confirm yet",
                          code="nothing_to_confirm", status=409)
        if current.phase is Phase.UNPLAYABLE:
            raise Refusal("the proposal has an error; correct it first",
                          code="unplayable", status=409)
        rev = revision
        if rev != current.revision:
            raise Refusal("the hand was corrected since you looked at it; "
                          "check it again", code="changed", status=409)
        if p in current.confirmed_by:
            raise Refusal(f"{state.players[p]} already confirmed "
                          "this hand", code="already_confirmed", status=409)
        return [(EventKind.CONFIRMED, {"game": current.game, "hand": current.number, "player": p,
                                         "revision": rev})]

    return run


def undo(target_seq: int, events: list[Any], seats: tuple[str, ...] = PLAYERS) -> Command:
    """Undo one event of the latest hand (the undo itself is an event; history stays).

    A player's confirmation of the hand before stays undoable while the next hand has only
    its knock card: that knock card is taken back with it (it was read before the hand it
    follows was settled). ``seats``: the players this device acts for; a confirmation can be
    undone only by its own player's tablet (or the director, who acts for both): 403
    otherwise.
    """

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        target = target_seq
        ev = next((e for e in events if e.seq == target), None)
        if ev is None or ev.kind not in UNDOABLE:
            raise Refusal("only a knock card, a proposal or a "
                          "confirmation can be undone", code="not_undoable", status=400)
        if ev.kind == EventKind.CONFIRMED and ev.payload.get("player") not in seats:
            name = state.players.get(ev.payload.get("player"), "the other player")
            raise Refusal(f"only {name}'s own tablet (or the "
                          f"director) can undo {name}'s confirmation",
                          code="not_your_confirmation", status=403)
        game = state.game_by_number(int(ev.payload["game"]))
        if game is None or game is not state.game or game.locked:
            raise Refusal("that game is closed", code="game_locked", status=423)
        undone = [(EventKind.UNDO, {"target_seq": target, "kind": ev.kind, "game": game.number})]
        latest = game.hands[-1] if game.hands else None
        if latest is not None and target in latest.seqs:
            return undone
        if latest is not None and reopens_previous(game.hands, target, ev.kind):
            kinds = {e.seq: e.kind for e in events}
            taken_back = [(EventKind.UNDO, {"target_seq": seq, "kind": kinds.get(seq),
                                            "game": game.number})
                          for seq in reversed(latest.seqs)]
            return taken_back + undone
        raise Refusal("only the latest hand's changes can be undone (or a "
                      "confirmation of the hand before, until the next hand has a "
                      "result); the director can correct an earlier hand",
                      code="not_latest", status=409)

    return run


def reopens_previous(hands: list[HandState], target: int, kind: str) -> bool:
    """Whether ``target`` is a confirmation of the hand before the latest, and the latest has
    nothing but its knock card (no result yet): then the confirmation may still be undone."""
    if len(hands) < 2 or kind != EventKind.CONFIRMED:
        return False
    previous, latest = hands[-2], hands[-1]
    return target in previous.seqs and latest.proposal is None


def sign(game: int, player: Any, png_data_url: Any, seen_sheet: Any = None) -> Command:
    """A player's drawn signature under a finished game, bound to the sheet as it stands
    (its ``sheet_hash``); both signatures on the same sheet lock the game.

    ``seen_sheet`` is the sheet hash the signing page showed: a sheet that changed since is
    refused (409 ``changed``), so nobody signs what they did not see. Once the game was
    reopened it is required (409 ``sheet_needed``): the reopening is part of the sheet, so a
    request captured before it (with the old hash, or none) signs nothing.
    """

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        p = _player(player)
        g = state.game_by_number(game)
        if g is None:
            raise Refusal("no such game", code="no_game", status=404)
        if not g.ended:
            raise Refusal("a game can be signed only when it is over", code="not_over", status=409)
        if p in g.signatures:
            raise Refusal(f"{state.players[p]} already signed", code="already_signed", status=409)
        now = sheet_hash(state, g)
        if g.reopened and seen_sheet in (None, ""):
            raise Refusal("this game was reopened: sign from its signing "
                          "page, which names the sheet your signature covers",
                          code="sheet_needed", status=409)
        if seen_sheet not in (None, "") and seen_sheet != now:
            raise Refusal("the score sheet changed since you looked at it; "
                          "check it again before signing", code="changed", status=409)
        png = decode_png(png_data_url)
        return [(EventKind.SIGNED, {"game": g.number, "player": p, "name": state.players[p],
                            "sheet_hash": now, "png": base64.b64encode(png).decode()})]

    return run


def decode_png(data_url: Any) -> bytes:
    """The normalised PNG of a ``data:image/png;base64,...`` URL: decoded and checked by
    ``webui.common.signature_image`` (bounded bytes and pixels, a real picture), re-encoded."""
    prefix = "data:image/png;base64,"
    if not isinstance(data_url, str) or not data_url.startswith(prefix):
        raise Refusal("the signature must be a PNG data URL", code="bad_signature", status=400)
    if len(data_url) > 2 * MAX_SIGNATURE_BYTES:
        raise Refusal("the signature is too large", code="bad_signature", status=400)
    try:
        png = base64.b64decode(data_url[len(prefix):], validate=True)
    except (binascii.Error, ValueError):
        raise Refusal("the signature is not valid base64",
                      code="bad_signature", status=400) from None
    try:
        return signature_image.normalise(png).png
    except signature_image.BadSignature as exc:
        raise Refusal(str(exc), code="bad_signature", status=400) from None


REOPEN_REASON_MAX = 300


def reopen(game: int, reason: str) -> Command:
    """A director reopens a signed game (recorded with the ``reason``: one line of at most
    ``REOPEN_REASON_MAX`` characters, checked where the request comes in with
    ``webui.common.validate.plain_text``: longer, control characters or direction overrides
    are refused with a message, never cut or cleaned); signatures are void, and the sheet a
    signature covers from then on counts the reopening (``state.sheet_record``), so a
    signature request made before it is refused."""

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        g = state.game_by_number(game)
        if g is None:
            raise Refusal("no such game", code="no_game", status=404)
        if not g.locked:
            raise Refusal("the game is not signed", code="not_locked", status=409)
        text = reason
        if not text:
            raise Refusal("say why the game is reopened", code="reason_needed", status=400)
        return [(EventKind.REOPENED, {"game": g.number, "reason": text})]

    return run


def next_game(dealer: Any = None) -> Command:
    """Start the next game once the current one is over; ``dealer`` won the cut (default:
    as the rule set passes the deal on)."""

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        g = state.game
        if g is None or not g.ended:
            raise Refusal("the current game is not over", code="not_over", status=409)
        if not g.locked:
            missing = [state.players[p] for p in PLAYERS if p not in g.signatures]
            raise Refusal(f"game {g.number} must be signed by both players "
                          f"first (still to sign: {', '.join(missing)})",
                          code="not_signed", status=409)
        if state.match().decided:
            raise Refusal("the match is decided", code="match_over", status=409)
        if dealer in PLAYERS:
            first = dealer
        else:
            last = g.confirmed_hands[-1]
            first = engine.dealer_after(state.rules, last.dealer, last.winner)
        return [(EventKind.GAME_STARTED, {"game": g.number + 1, "dealer": first})]

    return run


def change_settings(name: str, players: dict[str, str], rules: Any, camera: str | None,
                    layout: str | None = None) -> Command:
    """Change a table's names, rules, camera or calibration file (director)."""

    def run(state: TableState) -> list[tuple[str, dict[str, Any]]]:
        try:
            engine.rules_json(rules)
        except engine.ScorerError as exc:
            raise Refusal(exc.message, code=exc.code, status=400) from None
        if layout:
            try:
                from vision.table.layout import load_layout

                load_layout(layout)
            except ImportError:
                pass
            except Exception as exc:
                raise Refusal(f"layout file: {exc}", code="bad_layout", status=400) from None
        return [(EventKind.SETTINGS_CHANGED, {"name": name, "players": players, "rules": rules,
                                      "camera": camera, "layout": layout})]

    return run
