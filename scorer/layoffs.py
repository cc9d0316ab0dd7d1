"""The defender's best answer to a knock: own melds and layoffs chosen together.

Layoffs go onto the knocker's melds only: the fourth card of a three-card set, or cards that
extend a run at either end, in chains (9 then 10 onto 6-7-8), including onto cards laid off
earlier and bridging two runs of one suit. The defender may break a meld of its own to lay off
when that lowers its count. All of this is one search: every legal layoff subset L of the
defender's candidate cards, scored by the minimum deadwood of the remaining cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorer.cards import mask_value
from scorer.melds import (
    DeadwoodSearch,
    candidate_melds,
    is_run_mask,
    layout_agreement,
    optimal_arrangements,
    union_of,
)

SUIT_MASK = 0x1FFF


@dataclass(frozen=True)
class Defence:
    """The defender's result: count, own melds, layoffs (card bit, knocker meld index)."""

    deadwood: int
    melds: tuple[int, ...]
    layoffs: tuple[tuple[int, int], ...]
    deadwood_mask: int

    @property
    def laid_off(self) -> int:
        """Card mask of every card laid off."""
        mask = 0
        for bit, _ in self.layoffs:
            mask |= bit
        return mask


def _grow(seed: int, avail: int) -> int:
    """Cards of ``avail`` connected to ``seed`` by adjacent ranks (13-bit suit patterns)."""
    grown = seed
    while True:
        nxt = grown | (((grown << 1) | (grown >> 1)) & avail & SUIT_MASK)
        if nxt == grown:
            return grown
        grown = nxt


class _Targets:
    """What the knocker's melds can take: set fourth cards and run ends by suit."""

    def __init__(self, knocker_melds: Sequence[int]) -> None:
        self.melds = list(knocker_melds)
        self.set_cards: dict[int, int] = {}  # card bit -> meld index
        self.run_patterns = [0, 0, 0, 0]
        for i, meld in enumerate(self.melds):
            if is_run_mask(meld):
                suit = ((meld & -meld).bit_length() - 1) // 13
                self.run_patterns[suit] |= (meld >> (13 * suit)) & SUIT_MASK
            elif meld.bit_count() == 3:
                low_index = (meld & -meld).bit_length() - 1
                full = sum(1 << (13 * s + low_index % 13) for s in range(4))
                self.set_cards[full ^ meld] = i
        self.set_mask = sum(self.set_cards)

    def run_reachable(self, cards: int) -> int:
        """Cards of ``cards`` that chain onto a knocker run when all of ``cards`` are laid off."""
        out = 0
        for suit in range(4):
            runs = self.run_patterns[suit]
            own = (cards >> (13 * suit)) & SUIT_MASK
            if runs and own:
                out |= (_grow(runs, own) & own) << (13 * suit)
        return out

    def candidates(self, hand: int) -> int:
        """Defender cards that could ever be laid off."""
        return (self.set_mask & hand) | self.run_reachable(hand)

    def legal(self, laid: int) -> bool:
        """True if every card of ``laid`` can be laid off (in some order) at once."""
        return (self.set_mask & laid) | self.run_reachable(laid) == laid

    def assign(self, laid: int) -> list[tuple[int, int]]:
        """Meld index each laid-off card goes onto, chains in laying order (nearest first)."""
        reach = self.run_reachable(laid)
        rows: list[tuple[int, int, int, int]] = []  # (meld index, distance, card index, bit)
        remaining = laid
        while remaining:
            bit = remaining & -remaining
            remaining ^= bit
            index = bit.bit_length() - 1
            if bit & reach:
                meld_index, distance = self._run_for(index, laid)
            else:
                meld_index, distance = self.set_cards[bit], 0
            rows.append((meld_index, distance, index, bit))
        rows.sort()
        return [(bit, meld_index) for meld_index, distance, _, bit in rows]

    def _run_for(self, index: int, laid: int) -> tuple[int, int]:
        suit, rank_index = divmod(index, 13)
        best: tuple[int, int] | None = None
        for step in (-1, 1):
            k = rank_index + step
            while 0 <= k < 13 and laid >> (13 * suit + k) & 1:
                k += step
            if 0 <= k < 13:
                card = 1 << (13 * suit + k)
                for i, meld in enumerate(self.melds):
                    if meld & card and is_run_mask(meld):
                        distance = abs(k - rank_index)
                        if best is None or distance < best[1]:
                            best = (i, distance)
        assert best is not None, "run_reachable guaranteed a run"
        return best


def _subsets(mask: int):
    sub = mask
    while True:
        yield sub
        if sub == 0:
            return
        sub = (sub - 1) & mask


def best_defence(
    knocker_melds: Sequence[int], hand: int, fixed_melds: Sequence[int] | None = None,
    layout: Sequence[int] = (),
    seen_laid_off: int = 0,
) -> Defence:
    """The defender's lowest count against these knocker melds (no layoffs: pass no melds).

    ``fixed_melds``: the defender's melds as laid down (then only the other cards may be laid
    off); by default the engine chooses the defender's melds and layoffs together, and among
    his arrangements of least deadwood the one sharing the most pairs of cards with the groups
    of ``layout`` (how his cards lie on the table: card masks). ``seen_laid_off``: the cards
    he was seen laying off (a card mask); among layoffs of the same count, the one laying off
    most of them (a fourth 8 laid off as it lay, not melded with his own three), then the
    fewest layoffs. Like ``layout`` it never changes the count.
    """
    targets = _Targets(knocker_melds)

    def preference(laid: int) -> tuple[int, int, int]:
        return (-(laid & seen_laid_off).bit_count(), laid.bit_count(), laid)

    if fixed_melds is not None:
        free = hand & ~union_of(fixed_melds)
        best = None
        for laid in _subsets(targets.candidates(free)):
            if targets.legal(laid):
                key = (mask_value(free & ~laid), *preference(laid))
                if best is None or key < best:
                    best = key
        assert best is not None
        count, laid = best[0], best[-1]
        return Defence(count, tuple(fixed_melds), tuple(targets.assign(laid)), free & ~laid)

    melds = candidate_melds(hand)
    search = DeadwoodSearch(melds)
    cover = union_of(melds)
    best = None
    for laid in _subsets(targets.candidates(hand)):
        if not targets.legal(laid):
            continue
        rest = hand & ~laid
        count = mask_value(rest & ~cover) + search.deadwood(rest & cover)
        key = (count, *preference(laid))
        if best is None or key < best:
            best = key
    assert best is not None
    count, laid = best[0], best[-1]
    rest = hand & ~laid
    _, arrangements = optimal_arrangements(rest)
    own = max(arrangements, key=lambda a: layout_agreement(a, layout))  # first of equals
    return Defence(count, own, tuple(targets.assign(laid)), rest & ~union_of(own))


__all__ = ["Defence", "best_defence"]
