"""Teaching a table its deck from its own camera: the director lays the deck
out in the set order under the table's camera (`vision.deck.layout`), the app finds every card
in the camera's latest picture and names it by its place, the director fixes a misplaced card,
and the deck profile is fitted (`vision.deck.teach`) and saved next to the table's layout
(`webui.table.camera_feed.table_deck_file`), where the table's camera reads with it.

`DeckTeaching` keeps each table's picture between the two steps (in memory: a picture not
saved is simply taken again). The teaching code is imported only when a deck is taught: the
table app loads none of it otherwise.
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webui.common.durable import write_atomically

if TYPE_CHECKING:  # teaching code (which uses build-time helpers) loads only when a deck is taught
    from vision.deck.layout import LaidOutPhoto


class TeachingError(ValueError):
    """What the director must do before the deck can be taught (said on the page)."""


@dataclass
class TaughtDeck:
    """A saved profile: its file, the cards taught, how many of them the shipped namer misread
    (the profile reads those as taught), the CPU seconds it took, and how the taught deck
    reads each card of the picture (`read_back`)."""

    path: Path
    cards: int
    adapted: int
    cpu_seconds: float
    readings: list[dict[str, Any]]


#: a card whose runner-up reading is at least this share of its reading is shown as a doubt
RUNNER_UP_SHARE = 0.5


def read_back(photo: LaidOutPhoto, names: dict[str, str], namer: Any,
              turns: int) -> list[dict[str, Any]]:
    """How a namer carrying the taught profile reads each card of the picture it was taught
    from (its corners' probabilities averaged): {place, card, read, sure}, a card read as
    another, or with another card at least `RUNNER_UP_SHARE` as likely, marked ``doubt``."""
    import numpy as np

    from vision.inference.corner_crops import NAMER_CLASSES

    readings = []
    for card in photo.cards:
        crops = [namer.crop(photo.image, box) for box in card.corners]
        probs = namer.probabilities(crops, turns).mean(axis=0)
        k = int(probs.argmax())
        read = NAMER_CLASSES[k] if k < len(NAMER_CLASSES) - 1 else "none"
        runner_up = float(np.sort(probs[:-1])[-2]) if read != "none" else 1.0
        taught = names.get(card.card, card.card)
        readings.append({"place": card.card, "card": taught, "read": read,
                         "sure": round(float(probs[k]), 3),
                         "doubt": bool(read != taught
                                       or runner_up >= RUNNER_UP_SHARE * probs[k])})
    return readings


def _crop_url(image: Any, outline: tuple[int, int, int, int]) -> str:
    """The card's picture (its outline in the frame) as a small JPEG data URL."""
    import cv2

    x1, y1, x2, y2 = outline
    h, w = image.shape[:2]
    crop = image[max(0, y1):min(h, y2), max(0, x1):min(w, x2)]
    if crop.size == 0:
        return ""
    side = 120 / max(crop.shape[:2])
    crop = cv2.resize(crop, None, fx=side, fy=side, interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode() if ok else ""


def places_json(photo: LaidOutPhoto, frame: Any) -> list[dict[str, Any]]:
    """Every place of the layout, in the set order: its card, whether a card was found there,
    and that card's picture (cut from the camera's `frame` as it was taken)."""
    from vision.deck.layout import LAYOUT_COLUMNS, LAYOUT_ROWS, layout_card

    found = {c.card: c for c in photo.cards}
    places = []
    for row in range(LAYOUT_ROWS):
        for column in range(LAYOUT_COLUMNS):
            place = layout_card(row, column)
            card = found.get(place)
            places.append({"place": place, "card": place, "found": card is not None,
                           "picture": _crop_url(frame, card.outline) if card else ""})
    return places


def checked_names(photo: LaidOutPhoto, names: Any) -> dict[str, str]:
    """The director's names for the found cards (place -> card), checked: every name a card,
    no card named twice."""
    from vision.inference.detection import card_code

    if not isinstance(names, dict):
        raise TeachingError("send the cards' names as {place: card}")
    found = {c.card for c in photo.cards}
    chosen: dict[str, str] = {}
    for place in sorted(found):
        given = names.get(place, place)
        try:
            chosen[place] = card_code(str(given))
        except ValueError:
            raise TeachingError(f"the card at {place}'s place is named {given!r}, no card") \
                from None
    by_card: dict[str, list[str]] = {}
    for place, card in chosen.items():
        by_card.setdefault(card, []).append(place)
    twice = {card: places for card, places in by_card.items() if len(places) > 1}
    if twice:
        card, places = sorted(twice.items())[0]
        raise TeachingError(f"{card} is given to two cards (at the places of "
                            f"{' and '.join(places)}): name each card once")
    return chosen


class DeckTeaching:
    """The pictures of the laid-out deck taken per table, waiting to be taught."""

    def __init__(self) -> None:
        self._photos: dict[int, LaidOutPhoto] = {}
        self._lock = threading.Lock()

    def look(self, table_id: int, detector: Any, image: Any) -> LaidOutPhoto:
        """Find the laid-out deck's cards in `image` with the shipped models' finder; keep
        the picture for `teach`."""
        from vision.deck.layout import laid_out_photo

        if image is None:
            raise TeachingError("no camera picture yet: set the table's camera first")
        shipped = getattr(detector, "without_deck", lambda: detector)()
        photo, problem = laid_out_photo(shipped, "the camera's picture", image)
        if problem:
            raise TeachingError(problem)
        with self._lock:
            self._photos[table_id] = photo
        return photo

    def teach(self, table_id: int, detector: Any, names: Any, out: Path) -> TaughtDeck:
        """Fit the deck profile from the table's picture, cards named as the director says,
        and write it to `out` (nothing written on any problem)."""
        from vision.deck.teach import teach_deck
        from vision.inference.detector import Namer

        with self._lock:
            photo = self._photos.get(table_id)
        if photo is None:
            raise TeachingError("take the picture of the laid-out deck first")
        chosen = checked_names(photo, names)
        namer = Namer(detector.model_paths[-1], with_features=True)
        profile = teach_deck(photo.taught_corners(chosen), namer)
        write_atomically(out, profile.text())  # survives a pulled plug
        with self._lock:
            self._photos.pop(table_id, None)
        namer.deck = profile
        return TaughtDeck(out, len(profile.cards), len(profile.adapted),
                          float(profile.teaching["cpu_seconds"]),
                          read_back(photo, chosen, namer, detector.turns))
