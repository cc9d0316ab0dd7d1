"""Batch workers (`--workers`) cut the same kind of batches the training loop cuts, each from its
own seed, and a run with them trains, keeps snapshots (`--export-every`) and leaves no process."""

from __future__ import annotations

import argparse
import multiprocessing

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _folder(tmp_path):
    """A tiny YOLO folder: two card photos with a few corner boxes each."""
    import cv2

    from vision.training.synth.scene import code_to_class_id

    (tmp_path / "images").mkdir(parents=True)
    (tmp_path / "labels").mkdir()
    for name, codes in (("a", ["9S", "4H"]), ("b", ["KC", "2D", "7S"])):
        image = np.full((160, 160, 3), 200, np.uint8)
        cv2.putText(image, name.upper(), (60, 90), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (30, 30, 30), 3)
        cv2.imwrite(str(tmp_path / "images" / f"{name}.png"), image)
        lines = [f"{code_to_class_id(c)} {0.2 + 0.3 * i} 0.3 0.12 0.2" for i, c in enumerate(codes)]
        (tmp_path / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


def _args(tmp_path, *extra: str) -> argparse.Namespace:
    from vision.training.train_classifier import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    folder = str(_folder(tmp_path / "data"))
    return parser.parse_args(["--synth", folder, "--real", folder, "--batch", "6",
                              "--glyph-share", "0.3", "--small-share", "0.5", *extra])


def test_workers_cut_batches_like_the_loop_each_from_its_own_seed(tmp_path):
    from pathlib import Path

    from vision.inference.corner_crops import NAMER_CLASSES
    from vision.training.train_classifier import BatchWorkers, CornerSource, sample_batch

    args = _args(tmp_path)
    args.crop_size = 48
    sources = [CornerSource(Path(args.synth[0]))]
    own_x, _ = sample_batch(np.random.default_rng(0), sources, sources, args.batch, args)
    workers = BatchWorkers(2, sources, sources, args)
    try:
        batches = [workers.next() for _ in range(6)]
    finally:
        workers.close()
    assert all(not p.is_alive() for p in workers.processes)
    for x, y in batches:
        assert x.shape == own_x.shape and x.dtype == own_x.dtype
        assert y.shape == (args.batch,) and y.min() >= 0
        assert all(label < len(NAMER_CLASSES) or label >= 100 for label in y)
    # two workers draw from two seeds: their batches are not copies of each other
    assert len({x.tobytes() for x, _ in batches}) == len(batches)


@pytest.mark.slow  # a training run / a whole demo replay: `make test`, not the fast lane
def test_a_run_with_workers_trains_keeps_snapshots_and_stops_its_workers(tmp_path):
    import onnxruntime as ort

    from vision.training.train_classifier import train_classifier

    out = tmp_path / "run"
    args = _args(tmp_path, "--workers", "2", "--export-every", "1", "--minutes", "0.05",
                 "--ema", "0.9", "--device", "cpu", "--out", str(out))
    before = set(multiprocessing.active_children())
    assert train_classifier(args) == 0
    assert set(multiprocessing.active_children()) <= before
    snapshots = sorted(out.glob("namer-step*.onnx"))
    assert snapshots and snapshots[0].name == "namer-step1.onnx"
    for path in (snapshots[0], out / "namer.onnx"):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        probs = session.run(None, {"crops": np.zeros((2, 3, 48, 48), np.float32)})[0]
        assert probs.shape == (2, 53) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
