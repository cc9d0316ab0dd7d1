"""The printable sheet of the set order a deck is laid out in for teaching:
an A4 landscape SVG, four rows of 13 places, each naming its card. The table app serves the same
sheet (`webui/table/static/deck-order.svg`, kept equal to `order_sheet_svg()` by a test)."""

from __future__ import annotations

from vision.deck.layout import LAYOUT_COLUMNS, LAYOUT_ROWS, LAYOUT_SUITS, layout_card

SUIT_SIGNS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
RED_SUITS = "DH"
RANK_LABELS = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}
PAGE_W, PAGE_H = 297, 210  # A4 landscape, mm
CELL_W, CELL_H, GAP = 19.0, 27.0, 2.5  # mm: a place is a card's shape
LEFT, TOP = (PAGE_W - LAYOUT_COLUMNS * CELL_W - (LAYOUT_COLUMNS - 1) * GAP) / 2, 36.0


def _place(row: int, column: int) -> str:
    card = layout_card(row, column)
    x, y = LEFT + column * (CELL_W + GAP), TOP + row * (CELL_H + GAP)
    colour = "#c0141e" if card[1] in RED_SUITS else "#111"
    rank = RANK_LABELS.get(card[0], card[0])
    return (f'<g><rect x="{x:.1f}" y="{y:.1f}" width="{CELL_W}" height="{CELL_H}" rx="1.5" '
            f'fill="#fff" stroke="#666" stroke-width="0.3"/>'
            f'<text x="{x + CELL_W / 2:.1f}" y="{y + 12:.1f}" font-size="8" '
            f'text-anchor="middle" fill="{colour}">{rank}</text>'
            f'<text x="{x + CELL_W / 2:.1f}" y="{y + 22:.1f}" font-size="9" '
            f'text-anchor="middle" fill="{colour}">{SUIT_SIGNS[card[1]]}</text></g>')


def order_sheet_svg() -> str:
    """The sheet: a title, the 52 places in the set order, and how to take the photo."""
    places = "\n".join(_place(r, c) for r in range(LAYOUT_ROWS) for c in range(LAYOUT_COLUMNS))
    suits = ", ".join(f"{SUIT_SIGNS[s]}" for s in LAYOUT_SUITS)
    bottom = TOP + LAYOUT_ROWS * (CELL_H + GAP) + 8
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{PAGE_W}mm" height="{PAGE_H}mm" \
viewBox="0 0 {PAGE_W} {PAGE_H}" font-family="DejaVu Sans, Arial, sans-serif">
<title>gintray: lay the deck out in this order to teach it</title>
<rect width="{PAGE_W}" height="{PAGE_H}" fill="#fff"/>
<text x="{PAGE_W / 2}" y="16" font-size="8" text-anchor="middle" font-weight="bold">\
Teach this table its deck: lay the cards out in this order</text>
<text x="{PAGE_W / 2}" y="26" font-size="4.5" text-anchor="middle">\
Four rows of 13, face up: {suits} from top to bottom, ace to king from left to right.</text>
{places}
<text x="{PAGE_W / 2}" y="{bottom:.1f}" font-size="4.5" text-anchor="middle">\
Lay them on a plain cloth darker than the cards, a finger's width of cloth between them,
</text>
<text x="{PAGE_W / 2}" y="{bottom + 7:.1f}" font-size="4.5" text-anchor="middle">\
and take the picture from above with the whole layout in it. A missing card is simply not taught.
</text>
</svg>
"""
