"""Checking what a request sends: JSON bodies and whole numbers, refused plainly, never rounded.

Every integer a request carries, in the table app and the hall alike (game, hand, points,
revision, target_seq, a stream's ``max``, a round's minutes, a player's id) goes through
``whole_number``; every JSON body through ``json_body``. Both raise ``Refusal`` (status
400), which the apps answer as ``{"error": {"code", "message"}}`` (the hall's forms: flashed).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

from webui.common.refusal import Refusal
from webui.store import engine

# Larger than any game, hand, revision or event number a table reaches; small enough for
# every database integer column.
MAX_WHOLE = 2**31 - 1
_DIGITS = re.compile(r"-?[0-9]{1,12}")


def whole_number(value: Any, field: str, low: int = 0, high: int = MAX_WHOLE, *,
                 label: str | None = None) -> int:
    """``value`` as an int in [low, high]: a JSON integer or a string of ASCII digits.

    Fractions (5.9, 5.0, "5.0"), booleans, non-finite numbers and other digits ("²", "٥") are
    refused, never rounded or converted: a 400 with code ``bad_<field>`` whose message names
    the field (``label``, default ``field``), the range and what came.
    """
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        number = None
    if number is None or not low <= number <= high:
        got = _shown(value) if number is None else str(number)
        raise Refusal(f"{label or field} must be a whole number from "
                      f"{low} to {high} (got {got})", code=f"bad_{field}", status=400)
    return number


# Direction controls that reorder the text around them (embeddings, overrides, isolates):
# a name or label with U+202E shows backwards on the table screen and the sheet. The marks
# U+200E / U+200F / U+061C (they only place neutral characters) stay allowed.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def plain_text(value: Any, field: str, max_len: int, default: str = "") -> str:
    """``value`` as one line of text a person typed (a name, a tablet's label, a note, a
    reason): trimmed; ``default`` when missing or blank. Refused with 400, never cut or
    cleaned silently: anything but text, control characters (NUL, ESC, CR, line feeds,
    tabs...), direction overrides (``BIDI_CONTROLS``) and more than ``max_len`` characters."""
    if value is None:
        return default
    if not isinstance(value, str):
        raise Refusal(f"{field} must be text (got {_shown(value)})",
                      code=f"bad_{field}", status=400)
    text = value.strip()
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text) or "\u2028" in text \
            or "\u2029" in text:
        raise Refusal(f"{field} must be one line of text, without control "
                      "characters", code=f"bad_{field}", status=400)
    bidi = sorted({f"U+{ord(c):04X}" for c in text if c in BIDI_CONTROLS})
    if bidi:
        raise Refusal(f"{field} must not contain direction controls "
                      f"({', '.join(bidi)}): they turn the text around on the screen "
                      "and the score sheet", code=f"bad_{field}", status=400)
    if len(text) > max_len:
        raise Refusal(f"{field} is {len(text)} characters long; at most "
                      f"{max_len}", code=f"bad_{field}", status=400)
    return text or default


def playing_card(value: Any) -> engine.Card:
    """``value`` (a code a person or a tablet sent: ``"7D"``, ``"10d"``) as the engine's
    ``Card``, parsed here at the edge once; anything else is refused with 400 and the engine's
    own words (code ``bad_card``)."""
    try:
        return engine.parse_card(value if isinstance(value, str) else str(value))
    except engine.ScorerError as exc:
        raise Refusal(exc.message, code=exc.code, status=400) from None


def _shown(value: Any) -> str:
    text = json.dumps(value, allow_nan=True) if _is_plain(value) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _is_plain(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"number out of range: {text[:20]}")
    return number


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_body(data: bytes) -> Any:
    """Parse a request body as strict JSON (no NaN/Infinity, no 1e400, bounded nesting)."""
    try:
        return json.loads(data, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise Refusal("the JSON body is nested too deeply", code="bad_json", status=400) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refusal(f"the body is not valid JSON: {exc}", code="bad_json", status=400) from None
