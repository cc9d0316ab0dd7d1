"""Voting over frames on real labelled overhead frames, disturbed as a real table disturbs them."""

from __future__ import annotations

from reader_helpers import Detection, labelled_cards, real_detections, real_stems

from vision.table.grouping import cards_from_detections
from vision.table.voting import RegionVoter

SWAP = {"6": "9", "9": "6"}


def _hand_over_right_side(dets):
    """A player's hand and sleeve hide everything right of the image's middle."""
    return [d for d in dets if (d.box[0] + d.box[2]) / 2 < 320]


def _misread(dets):
    """One corner read as the wrong card (6<->9 flips, or another rank), on the left side so
    that the card is disturbed in one frame only, not also hidden by the hand."""
    out = list(dets)
    at = next(i for i, d in enumerate(out) if (d.box[0] + d.box[2]) / 2 < 320)
    d = out[at]
    rank, suit = d.card[:-1], d.card[-1]
    wrong = SWAP.get(rank, "K" if rank != "K" else "Q") + suit
    out[at] = Detection(wrong, d.box, d.confidence)
    return out


def _vote(frames, window=7):
    voter = RegionVoter(window=window, min_share=0.6)
    result = None
    for dets in frames:
        result = voter.add(cards_from_detections(dets)[0])
    return result


def test_brief_hands_and_single_misreads_do_not_change_the_real_cards():
    for stem in real_stems():
        clean = real_detections(stem)
        frames = [clean, _hand_over_right_side(clean), clean, _misread(clean),
                  _hand_over_right_side(clean), clean, clean]
        result = _vote(frames)
        assert {c.card for c in result.cards} == labelled_cards(stem), stem


def test_a_hand_that_stays_lowers_confidence_and_never_invents_cards():
    lowered = 0
    for stem in real_stems():
        clean = real_detections(stem)
        hidden = labelled_cards(stem) - {c.card for c in
                                         cards_from_detections(_hand_over_right_side(clean))[0]}
        frames = [clean, clean, clean] + [_hand_over_right_side(clean)] * 4
        result = _vote(frames)
        accepted = {c.card for c in result.cards}
        assert accepted <= labelled_cards(stem), stem
        assert accepted == labelled_cards(stem) - hidden, stem
        if hidden:
            assert set(result.uncertain) == hidden, stem
            assert result.confidence <= 1 - 3 / 7 + 1e-9, stem
            lowered += 1
    assert lowered >= 20  # most real frames have cards on the right-hand side


def test_clean_frames_vote_with_full_confidence_and_stabilise():
    stem = real_stems()[0]
    voter = RegionVoter(window=5)
    results = [voter.add(cards_from_detections(real_detections(stem))[0]) for _ in range(6)]
    assert results[-1].confidence == 1.0
    assert results[-1].stable_for == 4  # accepted once seen in 3 of the 5 frames
    assert results[-1].uncertain == {} and results[-1].duplicates == []
