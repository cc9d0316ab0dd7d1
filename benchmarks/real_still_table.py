"""Still-table clips made of real webcam photos, for `bench_real_footage.py` and the tests.

No public video of playing cards lying still under a fixed camera was found (issue 36 item 6;
`benchmarks/real-footage/README.md` lists the search). The nearest real material is the
shared dev photos (``../shared/data/real-cards/dev``): overhead webcam frames of cards lying on
a table, every corner index labelled. This plays them as a camera over a table where nothing
moves, one folder of frames a clip that ``gintray watch replay:FOLDER`` and the benchmark read:

    .venv/bin/python benchmarks/real_still_table.py OUT [--frames 30] [--noise] [--all] [PHOTO...]

- ``OUT/NAME/``: the photo ``--frames`` times, with ``frames.csv`` (the benchmark's labels: a
  row every 5th frame and the last, the photo's cards settled, nothing moving);
- ``OUT/still-sequence/``: the photos one after another, ``--frames`` each: the spread on the table
  is swapped for another at once, again and again; each photo a still stretch;
- ``--noise``: every copy as a cheap webcam films it, fresh sensor noise, light drift and JPEG
  (`vision.demo.noisy.noisy_frame`, its noise measured on these very webcam frames; seeded, the
  same on every run); without it the copies are the photo's own bytes, so the reader sees a
  picture that never changes at all: the one noise is the photo's own, the same in every frame.

A photo's cards are its labelled corners, the labels known wrong corrected
(``models/dev_label_fixes.csv``); face-down cards and jokers are not cards. PHOTO: file names in
the dev folder (default `DEFAULT_PHOTOS`; ``--all``: all 39).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEV = REPO.parent / "shared" / "data" / "real-cards" / "dev"
LABEL_FIXES = REPO / "models" / "dev_label_fixes.csv"
LABEL_EVERY = 5  # the benchmark's labels: a row every 5th frame, as read by eye elsewhere
NOISE_SEED = 36
SEQUENCE = "still-sequence"  # the folder of the photos one after another

#: Spreads like the end of a gin hand: melds fanned and overlapping (18, 18 and 11 cards),
#: a face-down card among them, and two small loose layouts; all filmed by one webcam.
DEFAULT_PHOTOS = (
    "WIN_20240627_12_48_18_Pro_jpg.jpg",
    "WIN_20240627_12_49_21_Pro_jpg.jpg",
    "WIN_20240627_12_50_26_Pro_jpg.jpg",
    "WIN_20240627_12_52_49_Pro_jpg.jpg",
    "WIN_20240627_11_36_02_Pro_jpg.jpg",
    "WIN_20240627_12_54_32_Pro_jpg.jpg",
)


@dataclass(frozen=True)
class StillPhoto:
    """A real photo of a still table and the cards its labels show."""

    path: Path
    cards: frozenset[str]

    @property
    def name(self) -> str:
        return "still-" + self.path.stem.removesuffix("_Pro_jpg").removeprefix("WIN_20240627_")


def load_photos(names: list[str] | None = None, dev: Path = DEV,
                fixes: Path = LABEL_FIXES) -> list[StillPhoto]:
    """The named dev photos (all, for None) in the order given, with their corrected cards."""
    from vision.training.evaluate import apply_label_fixes, labelled_frames, load_label_fixes

    corrections = load_label_fixes(fixes) if fixes.is_file() else []
    found = {}
    for image, frame, truth in labelled_frames(dev):
        if frame is None:
            raise OSError(f"unreadable photo {image}")
        apply_label_fixes(truth, corrections)
        found[image.name] = StillPhoto(image, frozenset(truth.cards))
    missing = [n for n in names or [] if n not in found]
    if missing:
        raise FileNotFoundError(f"no such photo in {dev / 'images'}: {', '.join(missing)}")
    return [found[n] for n in names] if names else [found[n] for n in sorted(found)]


def write_clip(photos: list[StillPhoto], out: Path, frames: int, noise: bool) -> Path:
    """``frames`` frames of each photo in turn into the folder ``out`` (emptied first), and its
    ``frames.csv``; the folder."""
    import cv2
    import numpy as np

    from vision.demo.noisy import noisy_frame

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rng = np.random.default_rng(NOISE_SEED)
    rows = ["frame,settled_cards,transient_cards,notes"]
    number = 0
    for photo in photos:
        image = cv2.imread(str(photo.path))
        cards = " ".join(sorted(photo.cards))
        for i in range(frames):
            target = out / f"frame_{number:05d}{'.jpg' if noise else photo.path.suffix}"
            if noise:
                gain = 1.0 + 0.02 * np.sin(number / 3)  # auto exposure hunting a little
                if not cv2.imwrite(str(target), noisy_frame(image, rng, gain)):
                    raise OSError(f"cannot write {target}")
            else:
                shutil.copyfile(photo.path, target)
            if i % LABEL_EVERY == 0 or i == frames - 1:
                rows.append(f"{number},{cards},,{photo.path.name}: lying still")
            number += 1
    (out / "frames.csv").write_text("\n".join(rows) + "\n")
    return out


def default_clips(out: Path, frames: int = 30, noise: bool = True) -> list[Path]:
    """The clips of `DEFAULT_PHOTOS`, one a photo and then their sequence, written into
    ``out``: the folders (what `bench_real_footage.py` reads when no clip is named)."""
    photos = load_photos(list(DEFAULT_PHOTOS))
    clips = [write_clip([photo], out / photo.name, frames, noise) for photo in photos]
    return [*clips, write_clip(photos, out / SEQUENCE, frames, noise)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the clips (each clip's folder in it "
                                               "is replaced)")
    parser.add_argument("photos", nargs="*", help="dev photo file names (default: "
                                                  "DEFAULT_PHOTOS)")
    parser.add_argument("--frames", type=int, default=30,
                        help="frames a photo (default 30: 15 s at a replay's 2 frames a second)")
    parser.add_argument("--noise", action="store_true",
                        help="fresh webcam noise in every frame (default: the photo's bytes)")
    parser.add_argument("--all", action="store_true", help="every dev photo")
    args = parser.parse_args(argv)
    if args.frames < 2:
        parser.error("--frames must be 2 or more: a still stretch needs two labelled rows")
    if not DEV.is_dir():
        parser.error(f"{DEV} is absent")
    try:
        photos = load_photos(None if args.all else (args.photos or list(DEFAULT_PHOTOS)))
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    for photo in photos:
        clip = write_clip([photo], args.out / photo.name, args.frames, args.noise)
        print(f"{clip}: {args.frames} frames, {len(photo.cards)} cards")
    if len(photos) > 1:
        clip = write_clip(photos, args.out / SEQUENCE, args.frames, args.noise)
        print(f"{clip}: {args.frames * len(photos)} frames, {len(photos)} spreads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
