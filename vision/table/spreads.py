"""Cards laid on the table -> a table read: regions, groups, problems (pure functions).

`read_spreads` is shared by one photo (`reader.read_detections`, `gintray read`) and the live
table (`TableReader`, with the cards voted over frames and what the watchers know of the hand:
a `Knock`). Nothing here keeps state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorer import Card, spread_sizes
from vision.inference.detection import detected_card
from vision.table.events import SpreadRead, TableRead
from vision.table.grouping import Grouping, SeenCard, clusters_of, group_cards, index_unit
from vision.table.layout import UP_CARD, TableLayout
from vision.table.notes import NoteKind, Problem
from vision.table.voting import VoteResult

TABLE = "table"  # the single area used when no layout is given


def split_by_region(
    cards: Iterable[SeenCard], layout: TableLayout | None
) -> dict[str, list[SeenCard]]:
    """Cards per region ('up_card', each player; everything under 'table' without a layout)."""
    if layout is None:
        return {TABLE: list(cards)}
    regions: dict[str, list[SeenCard]] = {UP_CARD: [], **{p: [] for p in layout.players}}
    for card in cards:
        if layout.markers and all(layout.on_marker(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2))
                                  for b in card.boxes):
            continue  # a printed marker read as a card
        region = layout.region_of(card.center)
        if region is None:  # a card whose center is outside: use any of its corners
            region = next((r for b in card.boxes
                           if (r := layout.region_of(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)))),
                          None)
        if region is not None:
            regions[region].append(card)
    return regions


@dataclass(frozen=True)
class Knock:
    """What the watchers know of a hand whose spreads are read: the knock card (None when the
    deal was not seen), the knocker, and the knocker's own cards once the defender has started
    laying down (None before: no layoffs yet)."""

    knocker: str
    up_card: str | None = None
    up_card_confidence: float = 1.0
    knocker_own: frozenset[str] | None = None


def spread_key(spread: SpreadRead) -> tuple[Any, ...]:
    """What makes two readings of a spread the same reading."""
    return (tuple(tuple(g) for g in spread.groups), tuple(spread.loose), tuple(spread.layoffs))


def _card_count_problem(player: str, count: int, allowed: tuple[int, ...]) -> Problem | None:
    if count in allowed:
        return None
    return Problem(NoteKind.WRONG_CARD_COUNT, player=player, count=count,
                   expected=tuple(sorted(allowed)))


def _doubts(player: str, cards: Iterable[SeenCard]) -> list[Problem]:
    """A note for each card the detector was unsure of, with the card it may be instead."""
    return [Problem(NoteKind.DOUBTFUL_CARD, player=player, cards=(detected_card(c.card),),
                    alternative=detected_card(c.alternative)) for c in cards if c.alternative]


def spread_read(player: str, grouping: Grouping, confidence: float,
                layoffs: Sequence[SeenCard] = ()) -> SpreadRead:
    """A player's grouped cards as a `SpreadRead` of the engine's cards: the codes the
    detector parsed, looked up once here (`detected_card`)."""
    def cards(codes: Iterable[str]) -> list[Card]:
        return [detected_card(code) for code in codes]

    return SpreadRead(player=player, groups=[cards(g) for g in grouping.groups],
                      loose=cards(grouping.loose), confidence=confidence,
                      layoffs=cards(c.card for c in layoffs),
                      arranged_by_engine=grouping.arranged_by_engine,
                      laid=[cards(g) for g in grouping.laid])


def _spread(player: str, cards: Sequence[SeenCard], confidence: float,
            layoffs: Sequence[SeenCard] = (), unit: float | None = None) -> SpreadRead:
    return spread_read(player, group_cards(cards, unit), confidence, layoffs)


def _layoffs(cards: Sequence[SeenCard], own: frozenset[str], knocker: str,
             unit: float | None) -> tuple[list[SeenCard], list[SeenCard], list[Problem]]:
    """The knocker's area split into own cards and layoffs, with a layoff lying apart."""
    layoffs = [c for c in cards if c.card not in own]
    problems = []
    for cluster in clusters_of(cards, unit):
        codes = {c.card for c in cluster}
        loose_layoffs = [c for c in layoffs if c.card in codes]
        if loose_layoffs and not codes & own:
            problems.append(Problem(NoteKind.LAYOFF_NOT_ON_MELD, player=knocker,
                                    cards=tuple(detected_card(c.card) for c in loose_layoffs)))
    return [c for c in cards if c.card in own], layoffs, problems


def _vote_problems(player: str, vote: VoteResult) -> list[Problem]:
    return ([Problem(NoteKind.DUPLICATE_CARD, player=player, cards=(detected_card(code),))
             for code in vote.duplicates]
            + [Problem(NoteKind.UNCERTAIN_CARD, player=player, cards=(detected_card(code),),
                       share=share)
               for code, share in vote.uncertain.items()])


def read_spreads(
    areas: Mapping[str, Sequence[SeenCard]],
    *,
    knock: Knock | None = None,
    votes: Mapping[str, VoteResult] | None = None,
    problems: Sequence[Problem] = (),
    up_card: str | None = None,
    unit: float | None = None,
    cards: Sequence[SeenCard] | None = None,
) -> TableRead:
    """Each player's cards grouped into melds as laid down, with the problems people must look
    at, as a `TableRead`.

    ``areas``: the cards of each player's area (`split_by_region`, or voted over frames).
    ``votes``: the areas' votes (their confidences; cards seen twice or uncertain).
    ``knock``: a live hand's knock card and knocker: the knocker's layoffs are split off, and
    spreads are checked for card counts and cards in two spreads. ``problems`` come first
    (what the frame's detections or slot said); ``unit`` is the index size (default: from the
    areas' cards); ``cards`` those reported (default: the areas').
    """
    problems = list(problems)
    if unit is None:
        unit = index_unit(b for area in areas.values() for c in area for b in c.boxes)
    layoffs: list[SeenCard] = []
    own_cards: Sequence[SeenCard] | None = None
    if knock is not None:
        up_card = knock.up_card
        if up_card is None:
            problems.append(Problem(NoteKind.UP_CARD_UNKNOWN))
        if knock.knocker_own is not None:
            own_cards, layoffs, apart = _layoffs(areas[knock.knocker], knock.knocker_own,
                                                 knock.knocker, unit)
            problems += apart
    spreads: dict[str, SpreadRead] = {}
    seen_in: dict[Card, str] = {}
    for player, area in areas.items():
        knocker = knock is not None and player == knock.knocker
        confidence = (votes[player].confidence if votes is not None
                      else min((c.confidence for c in area), default=1.0))
        player_layoffs = (layoffs if knock is not None and not knocker and len(areas) == 2
                          else [])
        mine = own_cards if knocker and own_cards is not None else area
        spread = _spread(player, mine, confidence, player_layoffs, unit)
        spreads[player] = spread
        problems += _doubts(player, [*mine, *player_layoffs])
        if votes is not None:
            problems += _vote_problems(player, votes[player])
        if knock is None:
            continue
        for card in spread.cards:
            if card in seen_in and seen_in[card] != player:
                problems.append(Problem(NoteKind.DUPLICATE_CARD, player=player,
                                        other_player=seen_in[card], cards=(card,)))
            seen_in[card] = player
        count = _card_count_problem(player, len(spread.cards),
                                    spread_sizes(knocker))
        if count:
            problems.append(count)
    confidences = [s.confidence for s in spreads.values()]
    if knock is not None:
        confidences.insert(0, knock.up_card_confidence)
    return TableRead(
        up_card=detected_card(up_card) if up_card else None,
        spreads=spreads,
        problems=problems,
        confidence=min(confidences, default=1.0),
        knocker=knock.knocker if knock is not None else None,
        cards=tuple(cards if cards is not None else [c for area in areas.values() for c in area]),
    )
