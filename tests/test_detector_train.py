"""Training smoke runs: a handful of synthetic scenes, one tiny epoch; the namer for seconds."""

from __future__ import annotations

import numpy as np
import pytest
from detector_helpers import decks_or_skip


@pytest.mark.slow
def test_tiny_detector_and_namer_training_produce_usable_weights(tmp_path):
    decks_or_skip()
    from vision.cli import synth_main, train_main

    synth = tmp_path / "synth"
    assert synth_main(["--out", str(synth), "--count", "6", "--seed", "3", "--workers", "1"]) == 0
    status = train_main(
        [
            "detector",
            "--synth",
            str(synth),
            "--real",
            "",
            "--epochs",
            "1",
            "--imgsz",
            "64",
            "--batch",
            "3",
            "--workers",
            "0",
            "--cache",
            "False",
            "--project",
            str(tmp_path / "runs"),
            "--name",
            "smoke",
            "--work",
            str(tmp_path / "work"),
        ]
    )
    assert status == 0
    assert (tmp_path / "runs" / "smoke" / "weights" / "last.pt").stat().st_size > 1_000_000

    namer = tmp_path / "namer"
    assert (
        train_main(
            [
                "classifier",
                "--synth",
                str(synth),
                "--real",
                "",
                "--minutes",
                "0.05",
                "--batch",
                "8",
                "--out",
                str(namer),
            ]
        )
        == 0
    )
    import onnxruntime as ort

    session = ort.InferenceSession(str(namer / "namer.onnx"), providers=["CPUExecutionProvider"])
    probs = session.run(None, {"crops": np.zeros((2, 3, 48, 48), np.float32)})[0]
    assert probs.shape == (2, 53)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
