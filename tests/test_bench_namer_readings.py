"""The naming benchmark (benchmarks/bench_namer_readings.py): candidates and acceptance rules."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from script_helpers import load_module

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_namer_readings.py"


@pytest.fixture(scope="module")
def bench():
    return load_module(BENCH, "bench_namer_readings")


def test_an_ensemble_candidate_names_each_member_and_its_quarter_turns(bench):
    candidate = bench.parse_candidate("pair=a.onnx@0,2+b.onnx")
    assert candidate.label == "pair"
    assert candidate.members == (bench.Member(Path("a.onnx"), (0, 2)),
                                 bench.Member(Path("b.onnx"), (0, 1, 2, 3)))


@pytest.mark.parametrize("text", ["a.onnx", "=a.onnx", "x=", "x=a.onnx@4", "x=a.onnx@",
                                  "x=a.onnx@one", "x=+b.onnx"])
def test_a_malformed_candidate_is_refused(bench, text):
    with pytest.raises(argparse.ArgumentTypeError):
        bench.parse_candidate(text)


def test_the_shipped_rule_keeps_what_the_detector_keeps(bench):
    """finder x naming >= 0.25, and a corner named "not a corner" is never a card."""
    probs = np.zeros((3, 53), np.float32)
    probs[0, 0] = 0.5  # 0.6 x 0.5 = 0.30: kept
    probs[1, 1] = 0.5  # 0.4 x 0.5 = 0.20: dropped
    probs[2, 2], probs[2, -1] = 0.4, 0.6  # more likely no corner: dropped
    boxes = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], np.float32)
    named = bench.NamedCorners(boxes, np.array([0.6, 0.4, 0.9]), probs)
    cards, total = named.cards(bench.SHIPPED_RULE)
    assert cards == {bench.NAMER_CLASSES[0]}
    assert total == pytest.approx(0.3)
    looser = bench.AcceptanceRule("product >= 0.15", product=0.15)
    assert named.cards(looser)[0] == {bench.NAMER_CLASSES[0], bench.NAMER_CLASSES[1]}
