"""Issue 37, items 1 and 4: teaching a deck from photos of it laid out in the set order
(`gintray deck learn --layout`), and the printable sheet of that order."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from deck_helpers import CARD_H, CARD_W, card_face, card_photo, layout_photo

from gintray_cli import main as gintray
from vision.deck.layout import laid_out_photo
from vision.deck.sheet import order_sheet_svg
from vision.inference.deck import load_profile
from vision.inference.detector import load_detector
from vision.training import perturb
from vision.training.synth.cards import find_index_boxes
from vision.training.synth.laid_out import laid_out_picture
from vision.training.synth.unseen_decks import jumbo_index

STATIC_SHEET = Path(__file__).resolve().parents[1] / "webui" / "table" / "static" / "deck-order.svg"


@pytest.fixture(scope="module")
def detector():
    return load_detector()


def named_where_laid(photo, centres: dict[str, tuple[float, float]]) -> None:
    """Every card found is named after the place it lies at: its outline holds that card's
    true centre."""
    for card in photo.cards:
        x1, y1, x2, y2 = card.outline
        cx, cy = centres[card.card]
        assert x1 < cx < x2 and y1 < cy < y2, (card.card, card.outline, (cx, cy))


@pytest.mark.parametrize(("angle", "keystone", "missing"), [
    (3.0, 0.04, ()),
    (-7.0, 0.08, ("AC", "7D", "KS")),  # an ace missing: its row still starts at column 0
])
def test_each_card_is_named_by_its_place(detector, angle, keystone, missing):
    image, centres = layout_photo({"J": "B"}, missing, angle=angle, keystone=keystone)
    photo, problem = laid_out_photo(detector, "layout.png", image)
    assert problem is None
    named_where_laid(photo, centres)
    found = {c.card for c in photo.cards}
    assert not found & set(missing)
    assert len(found) >= 52 - len(missing) - 1  # the finder may miss a card's both corners
    assert all(1 <= len(c.corners) <= 4 for c in photo.cards)


@pytest.mark.slow
def test_learn_from_a_laid_out_deck(tmp_path, capsys, detector):
    """`gintray deck learn PHOTO --layout`: the deck with jacks printed "B" and 7D left out;
    the cards found are taught, 7D is named as not found, and a jack printed "B" then reads
    as a jack."""
    image, _ = layout_photo({"J": "B"}, ("7D",))
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), image)
    out = tmp_path / "deck.json"
    assert gintray(["deck", "learn", str(photo), "--layout", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "not found in any photo: 7D" in captured.err
    profile = load_profile(out)
    assert "7D" not in profile.cards and len(profile.cards) >= 50
    assert {"JC", "JD", "JH", "JS"} <= set(profile.cards)
    assert profile.teaching["photos"] == ["table.png"]
    taught = load_detector(deck=out)
    jack = card_photo(card_face("JS", "B"), 0.8, -70.0)
    assert "JS" not in {d.card for d in detector.detect(jack)}
    assert {d.card for d in taught.detect(jack)} == {"JS"}


def test_bad_layout_photos_are_named_and_nothing_is_written(tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    cv2.imwrite(str(folder / "one-card.png"), card_photo(card_face("7C")))
    two_rows, _ = layout_photo(rows="CD")
    cv2.imwrite(str(folder / "two-rows.png"), two_rows)
    (folder / "broken.jpg").write_bytes(b"not an image")
    out = tmp_path / "deck.json"
    assert gintray(["deck", "learn", str(folder), str(tmp_path / "nowhere.png"), "--layout",
                    "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "one-card.png: 0 corner indices found; a photo of the laid-out deck shows its 4 " \
           "rows of 13 cards face up" in err  # read at a laid-out deck's index size
    assert "two-rows.png: the cards lie in 2 rows, not 4" in err
    assert "broken.jpg: not a readable image" in err
    assert "nowhere.png: no such photo or folder" in err
    assert "nothing written" in err
    assert not out.exists()


@pytest.mark.slow
def test_a_deck_laid_out_in_two_photos_of_two_rows(tmp_path, capsys):
    """Two photos, each named after the rows it shows, teach the whole deck; a name that is
    not rows of the layout is refused."""
    folder = tmp_path / "photos"
    folder.mkdir()
    for rows in ("CD", "HS"):
        image, _ = layout_photo({"J": "B"}, rows=rows)
        cv2.imwrite(str(folder / f"table-rows-{rows}.png"), image)
    out = tmp_path / "deck.json"
    assert gintray(["deck", "learn", str(folder), "--layout", "--out", str(out)]) == 0
    assert len(load_profile(out).cards) >= 50
    capsys.readouterr()
    (folder / "rows-SC.png").write_bytes((folder / "table-rows-CD.png").read_bytes())
    assert gintray(["deck", "learn", str(folder), "--layout", "--out", str(out)]) == 1
    assert "rows-SC.png: 'rows-SC' names no rows of the layout" in capsys.readouterr().err


def test_cards_on_a_cloth_like_them_are_refused(tmp_path, capsys):
    image, _ = layout_photo(table=(238, 238, 238), outline=False)  # the cards' own paper
    cv2.imwrite(str(tmp_path / "white.png"), image)
    out = tmp_path / "deck.json"
    assert gintray(["deck", "learn", str(tmp_path / "white.png"), "--layout", "--out",
                    str(out)]) == 1
    assert "white.png: the cards could not be told from the table" in capsys.readouterr().err
    assert not out.exists()


def test_the_printable_sheet_shows_the_set_order(tmp_path):
    out = tmp_path / "order.svg"
    assert gintray(["deck", "sheet", "--out", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    assert svg == order_sheet_svg() == STATIC_SHEET.read_text(encoding="utf-8")
    places = [line for line in svg.splitlines() if line.startswith("<g>")]
    assert len(places) == 52
    # row by row: clubs first, ace to king; the last place is the king of spades
    assert ">A</text>" in places[0] and "\u2663" in places[0]
    assert ">10</text>" in places[9] and "\u2663" in places[9]
    assert ">K</text>" in places[51] and "\u2660" in places[51]
    assert "\u2666" in places[13] and "\u2665" in places[26]
    assert np.all([("#c0141e" in p) == (13 <= i < 39) for i, p in enumerate(places)])


def jumbo_face(card: str) -> np.ndarray:
    """The drawn card with both its indices enlarged 1.45 times (a jumbo-index deck)."""
    face = cv2.cvtColor(card_face(card), cv2.COLOR_BGR2BGRA)
    jumbo, _ = jumbo_index(face, find_index_boxes(face)[0])
    return cv2.cvtColor(jumbo, cv2.COLOR_BGRA2BGR)


def corners_on_their_cards(photo, centres) -> None:
    """Every corner taught lies on its own card (nearer its centre than any other card's),
    and no part of an index inside a bigger box of the same card is taught as that card."""
    for card in photo.cards:
        for x1, y1, x2, y2 in card.corners:
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            nearest = min(centres, key=lambda c: np.hypot(centres[c][0] - cx, centres[c][1] - cy))
            assert nearest == card.card, (card.card, nearest)
            inside = [b for b in card.corners if (b[2] - b[0]) * (b[3] - b[1]) > (x2 - x1) * (
                y2 - y1) and b[0] <= cx <= b[2] and b[1] <= cy <= b[3]]
            assert not inside, (card.card, card.corners)


@pytest.mark.parametrize("scale", [0.5, 0.55])
def test_a_big_index_is_taught_with_its_own_card_and_whole(detector, scale):
    """A jumbo index near the card's edge: the paper beside it may reach across the gap to the
    next card's, and the finder boxes such an index whole and also its rank alone."""
    image, centres = laid_out_picture(jumbo_face, (int(CARD_W * scale), int(CARD_H * scale)),
                                      angle=2.5, keystone=0.05)
    image = perturb.jpeg(perturb.defocus(image, 1.2), 80)
    photo, problem = laid_out_photo(detector, "jumbo.png", image)
    assert problem is None and len(photo.cards) >= 48
    corners_on_their_cards(photo, centres)


@pytest.mark.slow
def test_berlin_court_cards_are_taught_their_own_corners(detector):
    """Aisleriot's Berlin deck (rendered by `ensure_unseen_decks`, build time): its court
    cards' pictures surround both indices, so their corners are placed by the grid; a
    bottom-right index, as near the next card's column as its own, joins its own card."""
    from vision.training.synth.cards import CardFaces
    from vision.training.synth.decks import DEFAULT_DECK_DIR

    if not (DEFAULT_DECK_DIR / "faces" / "gnome-berlin" / "KS.png").exists():
        pytest.skip("the Berlin deck is not rendered here (ensure_unseen_decks)")
    faces = CardFaces(width=240, deck="gnome-berlin")
    aspect = faces.face("KC").shape[0] / faces.face("KC").shape[1]
    image, centres = laid_out_picture(
        lambda card: faces.face(card) if card in faces.codes else None,
        (130, round(130 * aspect)), angle=2.5, keystone=0.05)
    image = perturb.jpeg(perturb.defocus(image, 1.2), 80)
    photo, problem = laid_out_photo(detector, "berlin.png", image)
    assert problem is None
    courts = [c for c in photo.cards if c.card[0] in "JQK"]
    assert len(courts) == 12 and all(len(c.corners) == 2 for c in courts), courts
    corners_on_their_cards(photo, centres)
