"""Score sheets: running totals, boxes, game bonus, shutout, dead hands, matches, Hollywood.

Game end [002, 003, 004]: the first player whose running total reaches ``game_target`` wins the
game and gets ``game_bonus``. Shutout (the loser won no hand): by default [002] the winner's
score *including the game bonus* is doubled; ``shutout: "hand_points"`` [003] doubles the hand
points only (``rules.Shutout``); then every hand won earns ``box_bonus`` for the player
who won it (boxes to both players: 003 "line bonus", 004 "give both players 25 points for each
hand they won"). Dead hands (50th card drawn, nobody knocks) score nothing and the same dealer
deals again [000 rule 6, 002, 004]. Hollywood [003]: three games kept at once; a player's first
win is recorded in game 1, the second in games 1 and 2, the third and later in all three games
still running; play goes on until all three are finished. A player shut out of a finished
game enters the next open game with his next win (003 is silent; see scorer/README.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import parse_card
from scorer.errors import InputError, shown
from scorer.rules import RuleSet, rules_from_spec

#: the two players of a sheet when it names none (a table's seats)
PLAYERS: tuple[str, str] = ("A", "B")

# A sheet hand is {"winner", "points"} or {"dead": true}; a HandResult.to_json() is accepted too
# (its other fields are ignored), plus "dealer", the hand's knock card "up_card" (seed 000 rule 4:
# the knock card goes on the score sheet) and a free-text "note".
_HAND_KEYS = {
    "up_card",
    "winner",
    "points",
    "dead",
    "dealer",
    "note",
    "outcome",
    "knock_limit",
    "knocker",
    "defender",
    "deadwood",
    "melds",
    "layoffs",
    "deadwood_cards",
    "doubled",
    "bonus",
    "improper_knock_accepted",
    "penalties",
    "alternatives",
}


def next_dealer(
    rules: RuleSet | str | dict[str, Any],
    dealer: str,
    winner: str | None,
    players: Sequence[str] = PLAYERS,
) -> str:
    """Who deals the next hand of this game.

    Dead hand (``winner`` None): the same dealer [002, 004]. Otherwise by ``rules.next_deal``:
    "winner" (004: "remaining deals by the winner of the previous hand"), "loser" (000
    partnership rule 8: "the team that lost the points deals the next hand") or "alternate"
    (003: "dealership alternates from round to round"). A new game starts with a cut (000 rule 2).
    """
    rules = rules_from_spec(rules)
    players = list(players)
    if len(players) != 2 or dealer not in players:
        raise InputError(
            f"dealer {shown(dealer)} is not one of the players {players}", "unknown_player"
        )
    if winner is None:
        return dealer
    if winner not in players:
        raise InputError(
            f"winner {shown(winner)} is not one of the players {players}", "unknown_player"
        )
    loser = players[1] if winner == players[0] else players[0]
    other = players[1] if dealer == players[0] else players[0]
    return {"winner": winner, "loser": loser, "alternate": other}[rules.next_deal]


def sheet_hand(result: Mapping[str, Any] | None) -> dict[str, Any]:
    """A hand's entry on the score sheet from its result: ``{"winner", "points"}``, or
    ``{"dead": True}`` for a dead hand (``result`` None: nobody knocked by the 50th card) and
    for a tie that scores nothing (a result without a winner). ``result``: a
    ``HandResult.to_json()`` or any object with "winner" and "points" (a result entered by hand).
    """
    if result is None or result.get("winner") is None:
        return {"dead": True}
    return {"winner": result["winner"], "points": result["points"]}


def hand_winner(result: Mapping[str, Any] | None) -> str | None:
    """Who won a hand from its result (see ``sheet_hand``): None for a dead hand or a tie."""
    winner = sheet_hand(result).get("winner")
    return str(winner) if winner is not None else None


@dataclass
class Game:
    """One game column: hands recorded in it, running totals, boxes, bonuses when finished."""

    number: int
    players: list[str]
    column: int | None = None  # Hollywood column 1..3
    hands: list[int] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    boxes: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    bonuses: dict[str, dict[str, int]] = field(default_factory=dict)
    finals: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.totals = dict.fromkeys(self.players, 0)
        self.boxes = dict.fromkeys(self.players, 0)

    @property
    def complete(self) -> bool:
        return self.winner is not None

    def record(self, hand_number: int, winner: str, points: int, rules: RuleSet) -> None:
        """Add a won hand; finish the game when the winner reaches the target."""
        self.hands.append(hand_number)
        self.totals[winner] += points
        self.boxes[winner] += 1
        if self.totals[winner] >= rules.game_target:
            self._finish(winner, rules)

    def _finish(self, winner: str, rules: RuleSet) -> None:
        self.winner = winner
        for player in self.players:
            game = rules.game_bonus if player == winner else 0
            shutout = 0
            loser_boxes = sum(b for p, b in self.boxes.items() if p != winner)
            if player == winner and loser_boxes == 0:
                shutout = rules.shutout.bonus(self.totals[player], game)
            boxes = rules.box_bonus * self.boxes[player]
            self.bonuses[player] = {"game": game, "shutout": shutout, "boxes": boxes}
            self.finals[player] = self.totals[player] + game + shutout + boxes

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.number,
            "hands": list(self.hands),
            "totals": dict(self.totals),
            "boxes": dict(self.boxes),
            "complete": self.complete,
            "winner": self.winner,
            "bonuses": {p: dict(b) for p, b in self.bonuses.items()} or None,
            "finals": dict(self.finals) or None,
        }
        if self.complete:
            loser = next(p for p in self.players if p != self.winner)
            out["margin"] = self.finals[self.winner] - self.finals[loser]  # type: ignore[index]
        if self.column is not None:
            out["column"] = self.column
        return out


@dataclass
class Sheet:
    """A scored sheet. ``to_json()`` is the ``gintray sheet`` output."""

    rules: RuleSet
    players: list[str]
    hands: list[dict[str, Any]]
    games: list[Game]
    next_dealer: str | None = None
    #: Partnership: each team's (won, lost) games of its series before this sheet.
    record_before: dict[str, tuple[int, int]] | None = None

    @property
    def winner(self) -> str | None:
        """Winner of the last finished game (for a single game sheet: the game's winner)."""
        done = [g for g in self.games if g.complete]
        return done[-1].winner if done else None

    @property
    def set_winner(self) -> str | None:
        """Who won the sheet's game as players count it: with Hollywood scoring, once the
        three games of the last set are all over, the player who won more of them (None
        before); otherwise the winner of the last finished game."""
        if not self.rules.hollywood:
            return self.winner
        columns = self.games[-3:]
        if len(columns) < 3 or not all(g.complete for g in columns):
            return None
        wins = {p: sum(1 for g in columns if g.winner == p) for p in self.players}
        return max(self.players, key=lambda p: wins[p])

    @property
    def finals(self) -> dict[str, int] | None:
        """Final scores of the last finished game."""
        done = [g for g in self.games if g.complete]
        return dict(done[-1].finals) if done else None

    def match(self) -> MatchStatus:
        """Games won and whether the match is decided (see ``match_status``)."""
        winners = [g.winner for g in self.games if g.complete]
        return match_status(self.rules, self.players, winners, self.record_before)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rules": self.rules.name,
            "players": list(self.players),
            "hands": self.hands,
            "games": [g.to_json() for g in self.games],
            "winner": self.winner,
            "finals": self.finals,
            "match": self.match().to_json(),
            "next_dealer": self.next_dealer,
        }
        if self.rules.hollywood:
            out["hollywood"] = [g.to_json() for g in self.games[-3:]]
        return out


@dataclass(frozen=True)
class BoardResult:
    """One board's recorded hand result in a partnership hand (a player and his points)."""

    winner: str | None
    points: int

    @classmethod
    def from_sheet_hand(cls, entry: Mapping[str, Any]) -> BoardResult:
        """A board's result from its score sheet entry (``sheet_hand``): ``{"winner",
        "points"}``, or ``{"dead": True}``, where nobody scores."""
        if entry.get("dead"):
            return cls(None, 0)
        return cls(str(entry["winner"]), int(entry["points"]))


FINALS_WINS = 4  # 000 partnership rule 2: "(4) and (5) game winners are in the finals"


@dataclass(frozen=True)
class SeriesStatus:
    """Where a team stands in its partnership series (000 partnership rules 1-3)."""

    won: int
    lost: int
    finished: bool
    finalist: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "won": self.won,
            "lost": self.lost,
            "finished": self.finished,
            "finalist": self.finalist,
            "reason": self.reason,
        }


def team_series(won: int, lost: int, rules: RuleSet) -> SeriesStatus:
    """A team's series after ``won`` and ``lost`` games.

    000 partnership rule 1: "Five (5) 250 point games. Must stop if you lose 2 games"; rule 2:
    "(4) and (5) game winners are in the finals"; rule 3: "If a team has 4 wins and no losses,
    they must play the 5th game".
    """
    games, stop = rules.match_games, rules.match_stop_after_losses
    finalist = won >= FINALS_WINS
    if stop is not None and lost >= stop:
        return SeriesStatus(won, lost, True, finalist, f"stopped after {lost} lost games")
    if won + lost >= games:
        return SeriesStatus(won, lost, True, finalist, f"played all {games} games")
    if won == FINALS_WINS and lost == 0:
        reason = f"{won}-0: must play game {games} (000 partnership rule 3)"
        return SeriesStatus(won, lost, False, finalist, reason)
    return SeriesStatus(won, lost, False, finalist, "playing")


def team_hand(results: Iterable[BoardResult | Any], teams: Mapping[str, str]) -> dict[str, Any]:
    """Net result of one partnership hand from each board's HandResult (000 partnership).

    ``teams`` maps each player to a team name. The team with more points over its boards wins
    the difference ("the team that lost the points deals the next hand", 000 partnership rule
    8); equal totals score nothing. Returns a sheet hand: {"winner", "points"} or {"dead": true}.
    """
    totals: dict[str, int] = {}
    for team in teams.values():
        totals.setdefault(team, 0)
    if len(totals) != 2:
        raise InputError(f"partnership needs exactly two teams, got {sorted(totals)}", "bad_field")
    for result in results:
        if result.winner is None:
            continue
        if result.winner not in teams:
            raise InputError(f"player {shown(result.winner)} is in no team", "unknown_player")
        totals[teams[result.winner]] += result.points
    (team_a, points_a), (team_b, points_b) = totals.items()
    if points_a == points_b:
        return {"dead": True}
    if points_a > points_b:
        return {"winner": team_a, "points": points_a - points_b}
    return {"winner": team_b, "points": points_b - points_a}


def _hollywood_targets(running: list[Game], winner: str) -> list[Game]:
    """Open games a Hollywood win is entered in: every open game where the winner has already
    scored, plus the first open game where he has not (first win -> game 1, second -> games 1
    and 2, third -> all three [003]; a player shut out of a finished game enters the next open
    game with his next win)."""
    targets = []
    for game in running:
        if game.complete:
            continue
        targets.append(game)
        if game.boxes[winner] == 0:
            break
    return targets


def _players_for(hands: Sequence[Mapping[str, Any]], players: Sequence[str] | None) -> list[str]:
    if players is not None:
        if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
            raise InputError(
                f"players must be a list of two names, got {shown(players)}", "bad_field"
            )
        names = list(players)
        if len(names) != 2 or not all(isinstance(p, str) for p in names) or len(set(names)) != 2:
            raise InputError(
                f"players must be two different names, got {shown(players)}", "bad_field"
            )
        return names
    winners: list[str] = []
    for hand in hands:
        w = hand.get("winner") if isinstance(hand, Mapping) else None
        if isinstance(w, str) and w not in winners:
            winners.append(w)
    if set(winners) <= set(PLAYERS):
        return list(PLAYERS)
    if len(winners) == 2:
        return winners
    raise InputError('give "players": [name, name] (winners are not A and B)', "bad_field")


def _check_hand(index: int, hand: Any, players: list[str]) -> tuple[str | None, int]:
    where = f"hands[{index}]"
    if not isinstance(hand, Mapping):
        raise InputError(f'{where} must be an object {{"winner", "points"}} or {{"dead": true}}')
    unknown = set(hand) - _HAND_KEYS
    if unknown:
        raise InputError(f"{where}: unknown field {shown(sorted(unknown)[0])}", "bad_field")
    if hand.get("dead") is True:
        if hand.get("winner") is not None or hand.get("points"):
            raise InputError(f"{where}: a dead hand has no winner or points", "bad_field")
        return None, 0
    if "dead" in hand and hand["dead"] is not False:
        raise InputError(f'{where}: "dead" must be true or false', "bad_field")
    if "up_card" in hand:
        parse_card(hand["up_card"])  # CardError (exit 2) names a bad code
    winner, points = hand.get("winner"), hand.get("points")
    if winner is None:
        if "winner" not in hand and "outcome" not in hand and points in (None, 0):
            # {} or {"dead": false} says nothing: never score it as a dead hand silently
            raise InputError(
                f'{where} must give "winner" and "points", or "dead": true', "bad_field"
            )
        # a tie without undercut (undercut_on_tie false) scores nothing, like a dead hand
        if points in (None, 0):
            return None, 0
        raise InputError(f"{where}: points without a winner", "bad_field")
    if winner not in players:
        raise InputError(
            f"{where}: winner {shown(winner)} is not one of {players}", "unknown_player"
        )
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        raise InputError(
            f"{where}: points must be a whole number >= 0, got {shown(points)}", "bad_field"
        )
    return winner, points


def score_sheet(
    rules: RuleSet | str | dict[str, Any],
    hands: Sequence[Mapping[str, Any]],
    *,
    players: Sequence[str] | None = None,
    dealer: str | None = None,
    record_before: Mapping[str, tuple[int, int]] | None = None,
) -> Sheet:
    """Score a sequence of hands ``{"winner", "points"}`` / ``{"dead": true}`` into games.

    When a game ends the next hand starts a new game (or, with Hollywood scoring, a new set of
    three). ``dealer``: who dealt the first hand, to track who deals next. ``record_before``:
    partnership, each team's (won, lost) games of its series before this sheet.
    """
    rules = rules_from_spec(rules)
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
        raise InputError("hands must be a list", "bad_field")
    names = _players_for(hands, players)
    if dealer is not None and dealer not in names:
        raise InputError(
            f"dealer {shown(dealer)} is not one of the players {names}", "unknown_player"
        )
    games: list[Game] = []
    records: list[dict[str, Any]] = []

    def open_games() -> list[Game]:
        if rules.hollywood:
            running = games[-3:] if games else []
            if not running or all(g.complete for g in running):
                base = len(games)
                for column in (1, 2, 3):
                    games.append(Game(base + column, names, column=column))
            return games[-3:]
        if not games or games[-1].complete:
            games.append(Game(len(games) + 1, names))
        return [games[-1]]

    current_dealer = dealer
    for index, hand in enumerate(hands):
        winner, points = _check_hand(index, hand, names)
        hand_dealer = hand.get("dealer", current_dealer)
        if hand_dealer is not None and hand_dealer not in names:
            raise InputError(
                f"hands[{index}]: dealer {shown(hand_dealer)} is not a player", "unknown_player"
            )
        running = open_games()
        number = index + 1
        record: dict[str, Any] = {"hand": number}
        if "up_card" in hand:
            record["up_card"] = parse_card(hand["up_card"]).code
        if winner is None:
            record["dead"] = True
            targets: list[Game] = []
        else:
            record.update(winner=winner, points=points)
            targets = _hollywood_targets(running, winner) if rules.hollywood else running
            for game in targets:
                game.record(number, winner, points, rules)
        displayed = (
            targets if targets else [g for g in running if not g.complete][:1] or running[-1:]
        )
        record["games"] = [
            {
                "game": g.number,
                "totals": dict(g.totals),
                "boxes": dict(g.boxes),
                "complete": g.complete,
            }
            for g in displayed
        ]
        if not rules.hollywood and displayed:
            record.update(
                game=displayed[0].number,
                totals=dict(displayed[0].totals),
                boxes=dict(displayed[0].boxes),
            )
        if hand_dealer is not None:
            record["dealer"] = hand_dealer
            current_dealer = next_dealer(rules, hand_dealer, winner, names)
            if winner is not None and all(g.complete for g in running):
                current_dealer = None  # new game: cut for deal (000 rule 2)
        records.append(record)
    return Sheet(
        rules=rules,
        players=names,
        hands=records,
        games=games,
        next_dealer=current_dealer,
        record_before=_check_record(record_before, names),
    )


@dataclass(frozen=True)
class MatchStatus:
    """Where a match stands: games won by each player, whether it is decided (``complete``)
    and by whom (``winner``; None while playing or on a shared series); ``games``: the match
    length (best of); ``series``: each team's partnership series (000 partnership rules)."""

    games: int
    games_won: dict[str, int]
    complete: bool
    winner: str | None
    series: dict[str, SeriesStatus] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"games": self.games}
        if self.series is not None:
            out["series"] = {p: s.to_json() for p, s in self.series.items()}
        out.update(games_won=dict(self.games_won), complete=self.complete, winner=self.winner)
        return out


def match_status(
    rules: RuleSet,
    players: Sequence[str],
    game_winners: Iterable[str | None],
    record_before: Mapping[str, tuple[int, int]] | None = None,
) -> MatchStatus:
    """Games won and whether the match is decided: best of ``match_games``, or 000's
    partnership series (``team_series``). The one place a match winner is worked out: the
    sheet, the table app and the hall all ask here.
    """
    won = dict.fromkeys(players, 0)
    for winner in game_winners:
        if winner is not None:
            won[winner] += 1
    played = sum(won.values())
    winner = None
    series = None
    if rules.match_stop_after_losses is not None:
        before = record_before or {}
        series = {
            p: team_series(
                before.get(p, (0, 0))[0] + won[p], before.get(p, (0, 0))[1] + played - won[p], rules
            )
            for p in players
        }
        complete = any(s.finished for s in series.values())
        if complete:
            best = max(won.values())
            leaders = [p for p, w in won.items() if w == best]
            winner = leaders[0] if len(leaders) == 1 else None
    else:
        need = rules.match_games // 2 + 1
        leaders = [p for p, w in won.items() if w >= need]
        winner = leaders[0] if leaders else None
        complete = winner is not None
    return MatchStatus(rules.match_games, won, complete, winner, series)


def _check_record(
    record: Mapping[str, tuple[int, int]] | None, names: list[str]
) -> dict[str, tuple[int, int]] | None:
    """Validate each team's earlier (won, lost) games: known teams, whole numbers, at most 5."""
    if record is None:
        return None
    out: dict[str, tuple[int, int]] = {}
    for team, pair in record.items():
        if team not in names:
            raise InputError(
                f"record: {shown(team)} is not one of the teams {names}", "unknown_player"
            )
        ok = (
            isinstance(pair, (list, tuple))
            and len(pair) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 5 for n in pair)
        )
        if not ok:
            raise InputError(
                f"record of {shown(team)} must be [won, lost], whole numbers 0..5", "bad_field"
            )
        out[team] = (pair[0], pair[1])
    return out
