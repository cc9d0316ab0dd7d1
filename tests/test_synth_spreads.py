"""The gin spreads the deck benchmark reads unseen decks in (`vision.training.synth.spreads`):
real melds of the deck's own cards, labelled by the cards whose index shows, which the shipped
detector reads on a deck it was trained on."""

from __future__ import annotations

from vision.inference.detector import load_detector
from vision.training.evaluate import cards_f1
from vision.training.synth.cards import CardFaces
from vision.training.synth.spreads import spread_frames


def test_spreads_show_distinct_cards_of_the_deck_and_a_trained_deck_reads_them():
    frames = spread_frames("kde-standard", 3, seed=5)
    deck = set(CardFaces(width=80, deck="kde-standard").codes)
    detector = load_detector()
    for frame in frames:
        assert 9 <= len(frame.visible) <= 30 and frame.visible <= deck
    assert cards_f1([({d.card for d in detector.detect(f.image)}, f.visible)
                     for f in frames]) >= 0.9
    again = spread_frames("kde-standard", 3, seed=5)  # the same seed, the same frames
    assert [f.visible for f in again] == [f.visible for f in frames]
    assert all((a.image == b.image).all() for a, b in zip(again, frames, strict=True))
