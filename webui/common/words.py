"""What players read: the camera's notes, the rules and the history in sentences, times local.

Nothing machine-shaped (JSON, problem codes like ``doubtful_card:``, UTC stamps) reaches a page
for players; this module turns each into words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from vision.table.notes import NoteKind, Problem, problems_from_json
from webui.store import engine
from webui.store.engine import Card, HandResult, Outcome
from webui.store.event_kind import EventKind, taken_back
from webui.store.proposal import Kind, ManualResult
from webui.store.record import RecordedProposal, answers, swaps


def card_words(code: str) -> str:
    """A card code as people write it: "TD" -> "10♦" (unknown codes as they are)."""
    try:
        return str(engine.card_json(code)["pretty"])
    except engine.ScorerError:
        return code


def _cards_words(cards: Iterable[Card]) -> str:
    return " ".join(c.pretty() for c in cards)


def _expected_words(expected: Sequence[int]) -> str:
    return " or ".join(str(n) for n in expected)


def problem_sentence(problem: Problem, players: dict[str, str]) -> str:
    """One note of the table reader as a sentence for players and the director, e.g. a
    ``wrong_card_count`` note -> "The camera sees 9 of Ben's cards (10 expected): it may have
    missed a card." """
    kind = problem.kind
    who = players.get(problem.player or "", problem.player or "")
    card = problem.card.pretty() if problem.card else "a card"
    if kind is NoteKind.WRONG_CARD_COUNT and problem.count is not None and problem.expected:
        count, expected = problem.count, _expected_words(problem.expected)
        if count < min(problem.expected):
            return (f"The camera sees {count} of {who}'s cards ({expected} expected): it may "
                    "have missed a card.")
        return (f"The camera sees {count} cards for {who} ({expected} expected): it may have "
                "counted a card twice, or one is not theirs.")
    if kind is NoteKind.DOUBTFUL_CARD and problem.alternative:
        whose = f" in {who}'s cards" if who else ""
        return (f"The camera is unsure of {card}{whose}: it may be "
                f"{problem.alternative.pretty()}.")
    if kind is NoteKind.UNCERTAIN_CARD and problem.share is not None:
        return (f"The camera saw {card} in {who}'s cards only now and then "
                f"({problem.share:.0%} of the time): check it is there.")
    if kind is NoteKind.DUPLICATE_CARD:
        if problem.other_player:
            other = players.get(problem.other_player, problem.other_player)
            return f"The camera sees {card} in both {other}'s and {who}'s cards. Check the cards."
        if who:
            return f"The camera sees {card} twice in {who}'s cards. Check the cards."
        times = "twice" if problem.count in (None, 2) else f"{problem.count} times"
        return f"The camera sees {card} {times}. Check the cards."
    if kind is NoteKind.UP_CARD_UNKNOWN:
        return "The camera did not see the deal: enter the knock card."
    if kind is NoteKind.UP_CARD_UNCLEAR:
        return (f"The camera sees more than one card where the up card lies "
                f"({_cards_words(problem.cards)}): enter the knock card.")
    if kind is NoteKind.LAYOFF_NOT_ON_MELD:
        whose = f"{who}'s" if who else "the knocker's"
        return (f"A card laid off lies apart from {whose} melds: "
                f"{_cards_words(problem.cards)}.")
    text = problem.text or kind.value.replace("_", " ")
    return f"The camera noted: {text}{f' ({who})' if who else ''}."


def problem_sentences(stored: Any, players: dict[str, str], asked: object = False) -> list[str]:
    """A proposal's stored notes (``Problem`` JSON, or old notes' text) as sentences.
    ``asked`` (truthy): the card count is the proposal's question (``card_count_question``),
    so its notes are not said twice."""
    problems = stored if isinstance(stored, tuple) else problems_from_json(stored)
    return [problem_sentence(p, players) for p in problems
            if not (asked and p.kind is NoteKind.WRONG_CARD_COUNT)]


def card_count_question(problems: Iterable[Problem], players: dict[str, str]) -> str | None:
    """What the players are asked when the camera's spreads are the wrong size (its
    ``wrong_card_count`` notes), or None: a camera read never becomes penalty points."""
    counts = [problem_sentence(p, players) for p in problems
              if p.kind is NoteKind.WRONG_CARD_COUNT]
    if not counts:
        return None
    return " ".join(counts) + " Correct the cards below (nothing is scored until then)."


@dataclass(frozen=True)
class OutcomeWords:
    """How a hand's ending (the engine's ``Outcome``) is said: its ``name`` ("big gin"), the
    knocker's ``verb`` in a proposal's headline ("goes big gin"; an undercut is a knock), the
    ``sheet``'s word after the knocker's name and its ``bonus``'s name in a count."""

    name: str
    verb: str
    sheet: str
    bonus: str = "bonus"


#: the one table of the words for each way a hand ends
OUTCOME_WORDS: dict[Outcome, OutcomeWords] = {
    Outcome.KNOCK: OutcomeWords("knock", "knocks", "knocks"),
    Outcome.GIN: OutcomeWords("gin", "goes gin", "gin", "gin bonus"),
    Outcome.BIG_GIN: OutcomeWords("big gin", "goes big gin", "big gin", "big gin bonus"),
    Outcome.UNDERCUT: OutcomeWords("undercut", "knocks", "knocks", "undercut bonus"),
    Outcome.MANUAL: OutcomeWords("entered by hand", "enters", "entered by hand"),
}


def outcome_words(outcome: Outcome) -> OutcomeWords:
    """The words of ``outcome`` (a template filter: ``r.outcome|outcome_words``)."""
    return OUTCOME_WORDS[outcome]


def knocker_verb(outcome: Outcome) -> str:
    """What the knocker did, for the proposal's headline: "goes gin", "goes big gin" or
    "knocks" (an undercut is a knock)."""
    return OUTCOME_WORDS[outcome].verb


def count_sentence(result: HandResult, players: dict[str, str]) -> str | None:
    """How the engine's points come from the two counts, spelt out: "Ben's count 23 - Ann's
    count 1 = 22 for Ann", "Ben's count 23 + gin bonus 25 = 48 for Ann", "... = 22, x 2 (spade
    knock card) = 44 for Ann". Every figure is the engine's (``deadwood``, ``bonus``,
    ``doubled``, ``points``); None when they do not add up to its points (a result recorded
    before the engine named its bonus), so the page never shows a sum that is wrong."""
    outcome, knocker, defender = result.outcome, result.knocker, result.defender
    counts, winner = result.deadwood, result.winner
    if outcome is Outcome.MANUAL or knocker not in counts or defender not in counts:
        return None
    bonus, points = result.bonus, result.points
    factor = 2 if result.doubled else 1

    def count(p: str) -> str:
        return f"{players.get(p, p)}'s count {counts[p]}"

    if outcome.is_gin:
        terms, base = count(defender), counts[defender]
    else:
        loser = knocker if winner == defender else defender
        other = defender if loser == knocker else knocker
        terms, base = f"{count(loser)} - {count(other)}", counts[loser] - counts[other]
    if bonus:
        terms, base = f"{terms} + {OUTCOME_WORDS[outcome].bonus} {bonus}", base + bonus
    if base * factor != points:
        return None
    text = f"{terms} = {base}"
    if factor != 1:
        text += f", x {factor} (spade knock card) = {points}"
    return text + (f" for {players.get(winner, winner)}" if winner else ": no score")


def penalty_sentence(name: str, penalty: dict[str, Any], camera: bool) -> str:
    """A wrong-number-of-cards penalty of the rules engine in words."""
    # the engine's penalty names either the missing cards (and their points) or the extras
    if "missing_cards" in penalty:
        missing = int(penalty["missing_cards"])
        text = (f"{name} is {missing} card{'s' if missing > 1 else ''} short "
                f"({penalty['points']} points)")
        return text + (": the camera may have missed a card" if camera else "")
    extra = int(penalty["extra_cards"])
    text = (f"{name} has {extra} extra card{'s' if extra > 1 else ''} "
            "(counted at face value)")
    return text + (": the camera may have read a card twice" if camera else "")


def rules_words(rules: Any) -> str:
    """A table's rule set by name, e.g. "tournament (Hollywood)", never its JSON; a preset
    with rules changed beyond Hollywood scoring says so: "custom (tournament changed)". The
    one wording of rules, for the table app's pages and the hall's."""
    if isinstance(rules, dict):
        preset = rules.get("preset", "tournament")
        plain = {k: v for k, v in rules.items() if k != "hollywood"}
        if set(plain) - {"preset"} and not engine.same_rules(plain, preset):
            return f"custom ({preset} changed)"
    try:
        name = str(engine.rules_json(rules).get("name") or "")
    except engine.ScorerError:
        name = ""
    if not name:
        name = str(rules.get("preset", "custom") if isinstance(rules, dict) else rules)
    if isinstance(rules, dict) and rules.get("hollywood"):
        name += " (Hollywood)"
    return name


def local_time(value: datetime | str | None, fmt: str = "%Y-%m-%d %H:%M:%S",
               zone: str | None = None) -> str:
    """A stored time (ISO text or datetime; naive means UTC) in local time with its zone, e.g.
    "2026-11-23 18:03:12 CET" (``zone``: an IANA name; default the machine's). The table app
    and the hall both show times through it."""
    if value is None or value == "":
        return ""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(ZoneInfo(zone)) if zone else moment.astimezone()
    return f"{local.strftime(fmt)} {local.tzname()}"


@dataclass(frozen=True)
class HistoryLine:
    """One event of a table as the History page shows it."""

    seq: int
    when: str
    who: str
    what: str


def actor_words(actor: str, device_seat: str | None, players: dict[str, str]) -> str:
    """Who made an event: "the director", "the camera", "Ann's tablet (kitchen)"..."""
    if actor == "director":
        return "the director"
    if actor == "camera":
        return "the camera"
    if actor.startswith("device:"):
        label = actor.split(":", 1)[1]
        owner = players.get(device_seat or "")
        return f"{owner}'s tablet ({label})" if owner else f"tablet {label}"
    return actor


def _proposal_words(p: dict[str, Any], players: dict[str, str]) -> str:
    recorded = RecordedProposal.from_json(p.get("proposal") or {})
    result = recorded.result
    where = f"hand {p.get('hand')} of game {p.get('game')}"
    verb = "proposed by the camera" if recorded.from_camera else "entered"
    if recorded.kind is Kind.DEAD:
        return f"{where} {verb} as a dead hand (no score)"
    winner = players.get(recorded.winner or "")
    if recorded.question or recorded.error or not winner:
        return f"a reading of {where} {verb}, not scored yet"
    how = "entered by hand" if recorded.kind is Kind.MANUAL else "scored from the cards"
    note = f": {result.note}" if isinstance(result, ManualResult) and result.note else ""
    director = "; the director's correction, confirmed at once" if p.get("director") else ""
    points = result.points if result is not None else None
    return (f"result of {where} {verb}: {winner} scores {points} "
            f"({how}{note}){director}")


def event_sentence(kind: str, p: dict[str, Any], players: dict[str, str]) -> str:
    """What an event did, in a sentence."""
    name = players.get(str(p.get("player")), str(p.get("player", "")))
    if kind == EventKind.TABLE_CREATED:
        return f"table {p.get('name', '')} set up: {players.get('A')} v {players.get('B')}"
    if kind == EventKind.SETTINGS_CHANGED:
        ps = p.get("players") or {}
        return (f"settings: {ps.get('A', '?')} v {ps.get('B', '?')}, rules "
                f"{rules_words(p.get('rules'))}")
    if kind == EventKind.GAME_STARTED:
        return f"game {p.get('game')} started, {players.get(p.get('dealer'), '?')} deals"
    if kind == EventKind.KNOCK_CARD_SET:
        how = "read by the camera" if p.get("source") == "camera" else "entered"
        return (f"knock card of hand {p.get('hand')} {how}: "
                f"{card_words(str(p.get('card')))}")
    if kind == EventKind.PROPOSAL_SET:
        return _proposal_words(p, players)
    if kind == EventKind.CONFIRMED:
        return f"{name} confirmed hand {p.get('hand')} of game {p.get('game')}"
    if kind == EventKind.UNDO:
        return f"undid {taken_back(p.get('kind'))} (change #{p.get('target_seq')})"
    if kind == EventKind.SIGNED:
        return f"{p.get('name') or name} signed game {p.get('game')}"
    if kind == EventKind.REOPENED:
        return f"the director reopened game {p.get('game')}: {p.get('reason', '')}"
    return kind.replace("_", " ")


def history_lines(events: list[Any], players: dict[str, str], seats: dict[int, str],
                  zone: str | None = None) -> list[HistoryLine]:
    """A table's events, newest first, in sentences and local time (``seats``: each joined
    device's player, by device id)."""
    return [HistoryLine(seq=e.seq, when=local_time(e.created_at, zone=zone),
                        who=actor_words(e.actor, seats.get(e.device_id), players),
                        what=event_sentence(e.kind, e.payload or {}, players))
            for e in reversed(events)]


def register(app: Any) -> None:
    """Make these wordings the templates' filters (``zone``: the app's ``TIMEZONE``)."""
    zone = app.config.get("TIMEZONE")
    app.jinja_env.globals["PLAYERS"] = engine.PLAYERS  # the seats, for the templates' loops
    app.jinja_env.filters["problem_sentences"] = problem_sentences
    app.jinja_env.filters["swaps"] = swaps
    app.jinja_env.filters["answers"] = answers
    app.jinja_env.filters["knocker_verb"] = knocker_verb
    app.jinja_env.filters["penalty_sentence"] = penalty_sentence
    app.jinja_env.filters["count_sentence"] = count_sentence
    app.jinja_env.filters["rules_words"] = rules_words
    app.jinja_env.filters["local_time"] = lambda value, fmt="%Y-%m-%d %H:%M:%S": local_time(
        value, fmt, zone)
