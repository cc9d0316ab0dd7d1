"""Cards, card notation and the 52-bit card masks the meld search works on.

Notation: rank ``A 2-9 T J Q K`` (``10`` also accepted) then suit ``S H D C``; case-insensitive
on input (``10D``, ``td`` and ``TD`` are the same card); ``str(card)`` gives the canonical code
(``"TD"``) and ``card.pretty()`` the human form (``"10♦"``).
Card index = suit_index * 13 + rank - 1, suits in the order S, H, D, C.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scorer.errors import CardError, shown

SUITS = "SHDC"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_CODES = "A23456789TJQK"
_RANK_BY_CODE = {code: rank for rank, code in enumerate(RANK_CODES, start=1)}
_RANK_BY_CODE["10"] = 10


def rank_value(rank: int) -> int:
    """Deadwood points of a rank: ace 1, 2-9 face value, 10/J/Q/K 10."""
    return rank if rank < 10 else 10


@dataclass(frozen=True, order=False)
class Card:
    """One playing card: ``rank`` 1..13 (A=1, T=10, J=11, Q=12, K=13), ``suit`` in "SHDC"."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if (
            not isinstance(self.rank, int)
            or isinstance(self.rank, bool)
            or not 1 <= self.rank <= 13
        ):
            raise CardError(f"bad card rank {self.rank!r}: must be 1..13", "bad_card")
        if self.suit not in SUITS or len(self.suit) != 1:
            raise CardError(f"bad card suit {self.suit!r}: must be one of S, H, D, C", "bad_card")
        # engine position and mask bit, stored once (hot path of the meld search)
        index = SUITS.index(self.suit) * 13 + self.rank - 1
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_bit", 1 << index)

    @property
    def code(self) -> str:
        """Canonical code, e.g. ``"7D"``, ``"TD"``, ``"AS"``."""
        return RANK_CODES[self.rank - 1] + self.suit

    @property
    def value(self) -> int:
        """Deadwood points (A=1, 2-9 face value, T/J/Q/K=10)."""
        return rank_value(self.rank)

    @property
    def index(self) -> int:
        """Position 0..51 in the engine's card order (suit-major, S H D C, ace first)."""
        return self._index  # type: ignore[attr-defined]

    @property
    def bit(self) -> int:
        """This card as a one-bit card mask."""
        return self._bit  # type: ignore[attr-defined]

    def __lt__(self, other: object) -> bool:
        """Display order: by rank, then suit S H D C (so ``sorted(cards)`` works)."""
        if not isinstance(other, Card):
            return NotImplemented
        return (self.rank, self._index) < (other.rank, other._index)  # type: ignore[attr-defined]

    def pretty(self) -> str:
        """Human form with a suit symbol, e.g. ``"7♦"``, ``"10♥"``, ``"A♠"``."""
        rank = "10" if self.rank == 10 else RANK_CODES[self.rank - 1]
        return rank + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


#: Every card, by index (so masks convert back to shared Card objects).
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
#: Deadwood value by card index.
VALUES: tuple[int, ...] = tuple(card.value for card in DECK)


def parse_card(text: str | Card) -> Card:
    """Parse one card code (``"7D"``, ``"td"``, ``"10D"``, ``"as"``); a Card passes through.

    Raises CardError (code ``bad_card``) naming the offending text.

    >>> parse_card("10d")
    Card(TD)
    >>> parse_card("as").pretty()
    'A♠'
    >>> parse_card("1D")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    scorer.errors.CardError: bad card '1D': expected rank A,2-9,T (or 10),J,Q,K then suit ...
    """
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(
            f"bad card {shown(text, 24)}: expected a code like 7D, TD, 10D or AS", "bad_card"
        )
    stripped = text.strip()
    # ASCII only: "ſ".upper() is "S", and a look-alike must not pass as a card
    cleaned = stripped.upper() if stripped.isascii() else ""
    rank_part, suit = cleaned[:-1], cleaned[-1:]
    rank = _RANK_BY_CODE.get(rank_part)
    if rank is None or suit not in SUITS or not suit:
        raise CardError(
            f"bad card {shown(text, 24)}: expected rank A,2-9,T (or 10),J,Q,K then suit S,H,D,C, "
            "e.g. 7D",
            "bad_card",
        )
    return DECK[SUITS.index(suit) * 13 + rank - 1]


def parse_cards(items: Iterable[str | Card]) -> list[Card]:
    """Parse card codes in order; raises CardError on a bad code, a duplicate card, or a JSON
    object given where a list of codes belongs."""
    if isinstance(items, dict):
        raise CardError("expected a list of card codes, not an object", "bad_card")
    if isinstance(items, str):
        items = items.split()
    cards: list[Card] = []
    seen: set[Card] = set()
    for item in items:
        card = parse_card(item)
        if card in seen:
            raise CardError(f"duplicate card {card.code}", "duplicate_card")
        seen.add(card)
        cards.append(card)
    return cards


def hand_mask(items: Iterable[str | Card]) -> int:
    """Card mask of card codes or Cards; raises CardError on a bad code or a duplicate."""
    if isinstance(items, str):
        items = items.split()
    elif not isinstance(items, (list, tuple)):
        items = list(items)
    try:
        bits = [card._bit for card in items]  # type: ignore[union-attr]
    except AttributeError:
        bits = [parse_card(item)._bit for item in items]  # type: ignore[attr-defined]
    mask = sum(bits)  # distinct one-bit masks add without carries; duplicates carry
    if mask.bit_count() != len(bits):
        seen = 0
        for bit in bits:
            if seen & bit:
                code = DECK[bit.bit_length() - 1].code
                raise CardError(f"duplicate card {code}", "duplicate_card")
            seen |= bit
    return mask


def cards_to_mask(cards: Iterable[Card]) -> int:
    """Card mask of distinct cards (duplicates are the caller's problem: use parse_cards)."""
    mask = 0
    for card in cards:
        mask |= card._bit  # type: ignore[attr-defined]
    return mask


def mask_to_cards(mask: int) -> list[Card]:
    """Cards of a mask in engine order (suit-major)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(DECK[low.bit_length() - 1])
        mask ^= low
    return out


def mask_value(mask: int) -> int:
    """Total deadwood points of the cards in a mask."""
    table = _SUIT_PATTERN_VALUE
    return (
        table[mask & 0x1FFF]
        + table[(mask >> 13) & 0x1FFF]
        + table[(mask >> 26) & 0x1FFF]
        + table[(mask >> 39) & 0x1FFF]
    )


def _pattern_values() -> tuple[int, ...]:
    table = [0] * 8192
    for pattern in range(1, 8192):
        low = pattern & -pattern
        table[pattern] = table[pattern ^ low] + rank_value(low.bit_length())
    return tuple(table)


_SUIT_PATTERN_VALUE = _pattern_values()


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards in display order: by rank, then suit S H D C."""
    return sorted(cards, key=lambda c: (c.rank, SUITS.index(c.suit)))


def codes(cards: Iterable[Card]) -> list[str]:
    """Canonical codes of cards (for JSON)."""
    return [card.code for card in cards]
