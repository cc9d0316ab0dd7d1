"""People's text in the score-sheet PDF (names, table names, notes): fonts embedded in the
file, Arabic letters joined, right-to-left names the right way round.

reportlab's standard fonts (Helvetica) hold Latin-1 only and are not embedded, so "Łukasz
Żółć" printed as "■ukasz ■ó■■". The sheet uses fonts shipped in ``fonts/`` instead (reportlab
embeds only the glyphs a file uses):

- DejaVu Sans and DejaVu Sans Bold: Latin (Polish, Czech, Turkish, Vietnamese...), Greek,
  Cyrillic, Hebrew and Arabic (Bitstream Vera licence, ``fonts/LICENSE-DejaVu.txt``);
- Droid Sans Fallback for what DejaVu lacks: Chinese, Japanese and Korean (Apache 2.0,
  ``fonts/LICENSE-DroidSansFallback.txt``), switched to character by character.

reportlab draws characters in the order it is given them, one glyph each. So Arabic is first
joined (arabic-reshaper: each letter's initial, medial, final or isolated form, and only the
ligatures DejaVu has), then every line is put in visual order by python-bidi (the Unicode
bidirectional algorithm, paragraph direction left to right: the sheet is in English). Lines are
broken before the reordering, as the algorithm says, so a right-to-left name wrapped in a
narrow column reads from its first line on. Text copied out of the PDF comes back in that
visual order (a right-to-left name reversed, Arabic in its presentation forms; NFKC of the
reversed text gives the name as typed).

Characters neither font holds (Thai, Devanagari, emoji...) still print as the font's empty box;
the record attached to the PDF keeps every name exactly as typed.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib.fonts import addMapping
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Paragraph

FONT_DIR = Path(__file__).with_name("fonts")
SANS = "GintraySans"
SANS_BOLD = "GintraySans-Bold"
CJK = "GintrayCJK"
FONT_FILES = {SANS: "DejaVuSans.ttf", SANS_BOLD: "DejaVuSans-Bold.ttf",
              CJK: "DroidSansFallback.ttf"}
RIGHT_TO_LEFT = frozenset({"R", "AL"})
LRM = "\N{LEFT-TO-RIGHT MARK}"  # keeps what follows a name on the name's right, then dropped


@functools.cache
def register_fonts() -> None:
    """Register the embedded fonts with reportlab (once a process); ``<b>`` in a paragraph in
    ``SANS`` picks ``SANS_BOLD``, ``<i>`` keeps the upright face (no oblique is shipped)."""
    for name, file in FONT_FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / file)))
    for bold in (0, 1):
        for italic in (0, 1):
            addMapping(SANS, bold, italic, SANS_BOLD if bold else SANS)
            addMapping(CJK, bold, italic, CJK)  # one face: bold CJK prints regular


@functools.cache
def _chars(font: str) -> frozenset[int]:
    """The code points a registered font has a glyph for."""
    register_fonts()
    return frozenset(pdfmetrics.getFont(font).face.charToGlyph)


@functools.cache
def _main_chars() -> frozenset[int]:
    """What both DejaVu faces draw (a name printed bold in the header and plain below)."""
    return _chars(SANS) & _chars(SANS_BOLD)


@functools.cache
def _reshaper() -> Any:
    """arabic-reshaper set up for DejaVu Sans: its ligatures only, vowel marks kept."""
    import arabic_reshaper

    config = arabic_reshaper.config_for_true_type_font(str(FONT_DIR / FONT_FILES[SANS]))
    config["delete_harakat"] = False
    return arabic_reshaper.ArabicReshaper(configuration=config)


def clean(value: Any) -> str:
    """A user's string with control and other unprintable characters (a bidi override, a
    newline) as spaces, composed (NFC: one glyph per accented letter); a no-break space
    stays."""
    composed = unicodedata.normalize("NFC", str(value))
    return "".join(c if c.isprintable() or c == "\N{NO-BREAK SPACE}" else " "
                   for c in composed)


def has_right_to_left(value: str) -> bool:
    """Whether ``value`` holds a right-to-left letter (Hebrew, Arabic...)."""
    return any(unicodedata.bidirectional(c) in RIGHT_TO_LEFT for c in value)


def logical(value: Any) -> str:
    """``value`` cleaned, its Arabic letters in their joined forms (still in typed order)."""
    text = clean(value)
    return _reshaper().reshape(text) if has_right_to_left(text) else text


def visual(line: str) -> str:
    """One line of logical text in the order its glyphs are drawn, left to right."""
    if not has_right_to_left(line):
        return line.replace(LRM, "")
    from bidi import get_display

    return get_display(line, base_dir="L").replace(LRM, "")


def font_for(char: str) -> str | None:
    """The font that draws ``char``: None for the paragraph's own (DejaVu), ``CJK`` for what
    only Droid Sans Fallback has."""
    code = ord(char)
    if code in _main_chars() or code not in _chars(CJK):
        return None
    return CJK


def _runs(line: str) -> Iterator[tuple[str | None, str]]:
    """``line`` cut where the drawing font changes."""
    font: str | None = None
    start = 0
    for i, char in enumerate(line):
        this = font_for(char)
        if i and this != font:
            yield font, line[start:i]
            start = i
        font = this
    if line:
        yield font, line[start:]


def _tagged(line: str) -> str:
    """A visual-order line as Paragraph markup: escaped (reportlab obeys ``<img>`` or ``<b>``
    in Paragraph text) and with a font switch around the characters DejaVu lacks."""
    return "".join(escape(part) if font is None else f'<font name="{font}">{escape(part)}</font>'
                   for font, part in _runs(line))


def markup(value: Any) -> str:
    """A user's string as Paragraph markup on one line (in a sentence: a title, a caption)."""
    return _tagged(visual(logical(value)))


def width(line: str, font: str, size: float) -> float:
    """Drawn width of ``line`` in points, each run in the font that draws it."""
    register_fonts()
    return sum(pdfmetrics.stringWidth(part, run_font or font, size)
               for run_font, part in _runs(line))


def _break(text: str, font: str, size: float, room: float) -> list[str]:
    """Logical ``text`` broken into lines no wider than ``room`` (at spaces; a word longer
    than a line is cut between letters)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if width(candidate, font, size) <= room:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for char in word:
            if line and width(line + char, font, size) > room:
                lines.append(line)
                line = ""
            line += char
    lines.append(line)
    return lines


def paragraph(value: Any, style: ParagraphStyle, room: float | None = None,
              after: str = "") -> Paragraph:
    """A user's string as a Paragraph in ``style``, followed by the program's own ``after``
    (`` +22``: printed right of the name even when the name is Arabic, where the bidi
    algorithm would take the number into the name's run). With ``room`` (points, a table
    cell's width less its padding) a string with right-to-left letters is broken into lines
    here, before they are put in visual order; other strings reportlab wraps itself (a word
    longer than the cell is split)."""
    text = logical(value) + (LRM + after if after else "")
    if room is None or not has_right_to_left(text):
        return Paragraph(_tagged(visual(text)), style)
    lines = _break(text, style.fontName, style.fontSize, room)
    return Paragraph("<br/>".join(_tagged(visual(line)) for line in lines), style)
