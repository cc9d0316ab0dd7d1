"""A deck photographed with spades but no clubs must not teach "every black index is a spade"."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _folder(tmp_path, codes: list[str]):
    """A tiny YOLO folder: one image with one box per code."""
    import cv2

    from vision.training.synth.scene import code_to_class_id

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), np.full((100, 100, 3), 200, np.uint8))
    lines = [f"{code_to_class_id(c)} 0.5 0.5 0.2 0.3" for c in codes]
    (tmp_path / "labels" / "a.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_a_source_with_spades_only_teaches_rank_and_colour_of_its_black_cards(tmp_path):
    from vision.inference.corner_crops import NAMER_CLASSES
    from vision.training.train_classifier import BLACK_RANK, CornerSource

    source = CornerSource(_folder(tmp_path, ["9S", "9S", "4H", "KS", "2D"]))
    assert source.one_black_suit
    assert source.training_label(NAMER_CLASSES.index("9S")) == BLACK_RANK + 8
    assert source.training_label(NAMER_CLASSES.index("4H")) == NAMER_CLASSES.index("4H")


def test_a_source_with_both_black_suits_keeps_every_suit(tmp_path):
    from vision.inference.corner_crops import NAMER_CLASSES
    from vision.training.train_classifier import CornerSource

    source = CornerSource(_folder(tmp_path, ["9S", "9C", "4H"]))
    assert not source.one_black_suit
    assert source.training_label(NAMER_CLASSES.index("9S")) == NAMER_CLASSES.index("9S")


def test_the_black_label_is_indifferent_to_club_or_spade_but_not_to_red_or_rank():
    from vision.training.train_classifier import BLACK_RANK, N_RANK_OUT, namer_loss

    rank_loss = torch.nn.CrossEntropyLoss()
    suit_loss = torch.nn.CrossEntropyLoss()

    def logits(rank: int, suit: int) -> torch.Tensor:
        out = torch.zeros(1, N_RANK_OUT + 4)
        out[0, rank] = 6.0
        out[0, N_RANK_OUT + suit] = 6.0
        return out

    nine_black = torch.tensor([BLACK_RANK + 8])
    as_club = namer_loss(logits(8, 0), nine_black, rank_loss, suit_loss)
    as_spade = namer_loss(logits(8, 3), nine_black, rank_loss, suit_loss)
    as_heart = namer_loss(logits(8, 2), nine_black, rank_loss, suit_loss)
    as_ten = namer_loss(logits(9, 3), nine_black, rank_loss, suit_loss)
    assert torch.isclose(as_club, as_spade)
    assert as_heart > as_spade + 1 and as_ten > as_spade + 1
    # a named card still learns its suit exactly
    from vision.inference.corner_crops import NAMER_CLASSES

    nine_clubs = torch.tensor([NAMER_CLASSES.index("9C")])
    spade_loss = namer_loss(logits(8, 3), nine_clubs, rank_loss, suit_loss)
    club_loss = namer_loss(logits(8, 0), nine_clubs, rank_loss, suit_loss)
    assert spade_loss > club_loss + 1
