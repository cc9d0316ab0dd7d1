"""The table reader's notes for people to look at, as types: a ``Problem`` with a ``NoteKind``.

The reader makes each note where it knows the fact (a card seen twice, a card it doubts, a
spread of the wrong size...), naming cards as the rules engine's ``Card``; the web app stores it
as JSON (``to_json``/``from_json``: card codes, read back once when the log is read) and words it
for players (``webui.common.words.problem_sentence``): nobody parses text back. Notes
written as text by readers before this type existed are read once by ``Problem.from_json``
(see ``_from_old_text``), so old databases still show them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scorer import Card, ScorerError, parse_card


class NoteKind(StrEnum):
    """What a note is about."""

    DUPLICATE_CARD = "duplicate_card"  #: one card seen twice (in a frame, an area, two spreads)
    DOUBTFUL_CARD = "doubtful_card"  #: the detector was unsure: it may be ``alternative``
    UNCERTAIN_CARD = "uncertain_card"  #: seen in only a ``share`` of recent frames
    WRONG_CARD_COUNT = "wrong_card_count"  #: a spread of ``count`` cards, ``expected`` allowed
    UP_CARD_UNKNOWN = "up_card_unknown"  #: the deal was not seen: enter the knock card
    UP_CARD_UNCLEAR = "up_card_unclear"  #: more than one card in the up-card slot
    LAYOFF_NOT_ON_MELD = "layoff_not_on_meld"  #: a layoff lying apart from the knocker's melds
    OTHER = "other"  #: a note without a kind (old free text), kept as ``text``


@dataclass(frozen=True)
class Problem:
    """One note of the table reader.

    ``player``: whose cards it is about (None: the table's); ``cards``: the cards it names;
    ``other_player``: a card in two spreads, the other spread's player; ``count``: the spread's
    size (wrong_card_count) or how often a card is seen (duplicate_card in one frame);
    ``expected``: the sizes a spread may have; ``share``: the part of recent frames a card was
    seen in (0-1); ``alternative``: the card a doubtful card may be; ``text``: an old note's
    words (kind OTHER only).
    """

    kind: NoteKind
    player: str | None = None
    cards: tuple[Card, ...] = ()
    other_player: str | None = None
    count: int | None = None
    expected: tuple[int, ...] = ()
    share: float | None = None
    alternative: Card | None = None
    text: str = ""

    @property
    def card(self) -> Card | None:
        """The card the note is about (its first)."""
        return self.cards[0] if self.cards else None

    def __str__(self) -> str:
        """A compact form for logs and the developers' CLI (players read ``webui.common.words``)."""
        parts = [self.kind.value, *(c.code for c in self.cards)]
        if self.alternative:
            parts.append(f"-> {self.alternative.code}")
        if self.count is not None:
            parts.append(f"count {self.count}")
        if self.expected:
            parts.append("expected " + "/".join(str(n) for n in self.expected))
        if self.share is not None:
            parts.append(f"seen {self.share:.0%}")
        if self.player:
            both = f" and {self.other_player}" if self.other_player else ""
            parts.append(f"({self.player}{both})")
        if self.text:
            parts.append(repr(self.text))
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The note as stored: its kind and the fields it has."""
        out: dict[str, Any] = {"kind": self.kind.value}
        if self.player is not None:
            out["player"] = self.player
        if self.cards:
            out["cards"] = [c.code for c in self.cards]
        if self.other_player is not None:
            out["other_player"] = self.other_player
        if self.count is not None:
            out["count"] = self.count
        if self.expected:
            out["expected"] = list(self.expected)
        if self.share is not None:
            out["share"] = round(self.share, 3)
        if self.alternative is not None:
            out["alternative"] = self.alternative.code
        if self.text:
            out["text"] = self.text
        return out

    @classmethod
    def from_json(cls, data: Any) -> Problem:
        """A stored note: the JSON of ``to_json``, or an old note's text; its card codes are
        read into the engine's cards here, once. Raises ``ValueError`` for anything else (a
        code that is no card included)."""
        if isinstance(data, str):
            return _from_old_text(data)
        if not isinstance(data, dict):
            raise ValueError(f"a reader note is a JSON object, not {type(data).__name__}")
        try:
            kind = NoteKind(data["kind"])
        except (KeyError, ValueError):
            raise ValueError(f"unknown reader note kind: {data.get('kind')!r}") from None

        def text(key: str) -> str | None:
            value = data.get(key)
            return None if value is None else str(value)

        share = data.get("share")
        count = data.get("count")
        alternative = data.get("alternative")
        return cls(kind=kind, player=text("player"),
                   cards=tuple(_stored_card(c) for c in data.get("cards") or ()),
                   other_player=text("other_player"),
                   count=None if count is None else int(count),
                   expected=tuple(int(n) for n in data.get("expected") or ()),
                   share=None if share is None else float(share),
                   alternative=None if alternative is None else _stored_card(alternative),
                   text=str(data.get("text") or ""))


def _stored_card(code: Any) -> Card:
    """A card code as the log holds it, as the engine's card (ValueError if it is none)."""
    try:
        return parse_card(str(code))
    except ScorerError as error:
        raise ValueError(f"a reader note names no card: {code!r}") from error


def problems_from_json(data: Any) -> tuple[Problem, ...]:
    """Stored notes (a list); entries that are not notes are left out."""
    out = []
    for item in data if isinstance(data, list) else ():
        try:
            out.append(Problem.from_json(item))
        except (ValueError, TypeError):
            continue
    return tuple(out)


# Notes as readers wrote them before they were typed, e.g. "doubtful_card: 8D may be 8H
# (player B)"; read here only, when an old database is opened.
_OLD_PLAYER = re.compile(r"\s*\(player (\w+)\)$")
_OLD_COUNT = re.compile(r"player (\w+) has (\d+) cards, expected (.+)")
_OLD_AREA = re.compile(r"\bin (\w+)'s area\b")
_OLD_SHARE = re.compile(r"seen in only (\d+)% of recent frames")
_OLD_BOTH = re.compile(r"in both (\w+)'s and (\w+)'s spread")
_OLD_APART = re.compile(r"apart from (\w+)'s melds")
_OLD_TOKEN = re.compile(r"\b[0-9A-Z]{2,3}\b")


def _old_cards(text: str) -> tuple[Card, ...]:
    out = []
    for token in _OLD_TOKEN.findall(text):
        try:
            out.append(parse_card(token))
        except ScorerError:
            continue
    return tuple(out)


def _from_old_text(note: str) -> Problem:
    player = None
    rest = note
    suffix = _OLD_PLAYER.search(rest)
    if suffix:
        player, rest = suffix.group(1), rest[:suffix.start()]
    code, _, detail = rest.partition(":")
    detail = detail.strip()
    try:
        kind = NoteKind(code.strip())
    except ValueError:
        return Problem(NoteKind.OTHER, player=player, cards=_old_cards(note), text=note)
    cards = _old_cards(detail)
    if kind is NoteKind.DOUBTFUL_CARD and len(cards) == 2:
        return Problem(kind, player=player, cards=cards[:1], alternative=cards[1])
    if kind is NoteKind.WRONG_CARD_COUNT and (counted := _OLD_COUNT.match(detail)):
        expected = tuple(int(n) for n in re.findall(r"\d+", counted.group(3)))
        return Problem(kind, player=player or counted.group(1), count=int(counted.group(2)),
                       expected=expected)
    if kind is NoteKind.UNCERTAIN_CARD and (area := _OLD_AREA.search(detail)):
        seen = _OLD_SHARE.search(detail)
        return Problem(kind, player=player or area.group(1), cards=cards,
                       share=int(seen.group(1)) / 100 if seen else None)
    if kind is NoteKind.DUPLICATE_CARD:
        both = _OLD_BOTH.search(detail)
        area = _OLD_AREA.search(detail)
        if both:
            return Problem(kind, player=both.group(2), other_player=both.group(1), cards=cards)
        return Problem(kind, player=player or (area.group(1) if area else None), cards=cards)
    if kind is NoteKind.LAYOFF_NOT_ON_MELD:
        apart = _OLD_APART.search(detail)
        return Problem(kind, player=apart.group(1) if apart else player,
                       cards=_old_cards(detail[:apart.start()] if apart else detail))
    if kind is NoteKind.UP_CARD_UNCLEAR:
        return Problem(kind, cards=cards, count=len(cards))
    if kind is NoteKind.UP_CARD_UNKNOWN:
        return Problem(kind)
    return Problem(NoteKind.OTHER, player=player, cards=cards, text=note)
