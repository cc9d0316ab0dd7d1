"""Widening a trained namer keeps its readings (Net2WiderNet), so training can go on from it."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vision.training.namer_widen import widen_state  # noqa: E402
from vision.training.train_classifier import build_model, card_probabilities, parse_widths  # noqa: E402

NARROW = (16, 32, 64, 128)
WIDE = (16, 32, 96, 192)


def _trained_like(widths):
    """A namer with non-trivial weights and batch-norm statistics (as after training)."""
    torch.manual_seed(0)
    model = build_model(widths)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    return model.eval()


def _readings(model, crops):
    with torch.no_grad():
        return card_probabilities(model(crops))


def test_widened_namer_reads_every_crop_as_the_narrow_one_did():
    narrow = _trained_like(NARROW)
    wide = build_model(WIDE).eval()
    wide.load_state_dict(widen_state(narrow.state_dict(), NARROW, WIDE, np.random.default_rng(1)))
    crops = torch.rand(32, 3, 48, 48)
    assert sum(p.numel() for p in wide.parameters()) > 1.5 * sum(
        p.numel() for p in narrow.parameters()
    )
    assert torch.allclose(_readings(wide, crops), _readings(narrow, crops), atol=1e-5)


def test_noise_lets_the_copies_differ_but_barely_moves_the_readings():
    narrow = _trained_like(NARROW)
    state = widen_state(narrow.state_dict(), NARROW, WIDE, np.random.default_rng(1), noise=0.01)
    wide = build_model(WIDE).eval()
    wide.load_state_dict(state)
    crops = torch.rand(32, 3, 48, 48)
    diff = (_readings(wide, crops) - _readings(narrow, crops)).abs().max()
    assert 0 < float(diff) < 0.02
    # stage 4's second convolution: its extra channels' incoming weights are no exact copies
    w = state["6.3.weight"]
    assert not any(torch.equal(w[:, 128 + k], w[:, j]) for k in range(4) for j in range(128))


def test_a_namer_cannot_be_narrowed_or_restaged():
    state = build_model(NARROW).state_dict()
    with pytest.raises(ValueError, match="cannot widen"):
        widen_state(state, NARROW, (16, 32, 32, 128), np.random.default_rng(0))
    with pytest.raises(ValueError, match="cannot widen"):
        widen_state(state, NARROW, (16, 32, 64), np.random.default_rng(0))


def test_widths_option_wants_four_channel_counts():
    assert parse_widths("16,32,96,192") == WIDE
    for bad in ("16,32,96", "16,32,0,192"):
        with pytest.raises(Exception, match="four positive"):
            parse_widths(bad)
