"""Write synthetic scenes to disk as a YOLO dataset (`gintray synth`)."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2

from vision.training.synth.cards import available_decks
from vision.training.synth.decks import ensure_decks
from vision.training.synth.scene import CLASS_NAMES, compose_scene


def _write_one(args: tuple[Path, int, int, list[str], tuple[float, float] | None]) -> int:
    out, seed, size, decks, card_width = args
    img, labels = compose_scene(seed, size, decks, card_width=card_width)
    name = f"synth_{seed:08d}"
    cv2.imwrite(str(out / "images" / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    lines = []
    for lab in labels:
        x1, y1, x2, y2 = lab.box
        cx, cy = (x1 + x2) / 2 / size, (y1 + y2) / 2 / size
        lines.append(
            f"{lab.class_id} {cx:.6f} {cy:.6f} {(x2 - x1) / size:.6f} {(y2 - y1) / size:.6f}"
        )
    (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    return len(labels)


def write_dataset(out: Path, count: int, seed: int, size: int = 320, workers: int = 2,
                  decks: list[str] | None = None,
                  card_width: tuple[float, float] | None = None) -> int:
    """Generate `count` scenes (scene i uses seed `seed * 1_000_003 + i`) of the training decks
    or of `decks` (already rendered), cards `card_width` pixels wide (default: the training
    range, `scene.compose_scene`); return label count."""
    if decks is None:
        ensure_decks()
        decks = available_decks()
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images\nval: images\nnames:\n{names}\n"
    )
    jobs = [(out, seed * 1_000_003 + i, size, decks, card_width) for i in range(count)]
    if workers <= 1:
        return sum(map(_write_one, jobs))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return sum(pool.map(_write_one, jobs, chunksize=16))
