"""Real footage through the live reader: does a still table read still, does
a laid card show, is a card that is not there held?

    .venv/bin/python benchmarks/bench_real_footage.py [CLIP ...] [--labels CSV] [--layout FILE]
        [--json]

CLIP: a video file or a folder of frames; default every video in ``../shared/data/real-footage/``
and every clip labelled in ``benchmarks/real-footage/`` that is found in the footage folder
(``$GINTRAY_FOOTAGE``, default ``../footage/``: clips whose licences keep them out of the
project, fetched as that folder's README says; one that is absent is skipped with a line
saying so), then the still tables made of real webcam photos (`real_still_table.py`: the
shared dev photos with webcam noise, each 30 frames, and their sequence; written to a
temporary folder; ``--no-still-tables`` leaves them out). The footage is read where it lies,
never copied into the project. Each clip is played
through the live reader exactly as ``gintray watch replay:CLIP?fps=0`` plays it
(`vision.table.watch`: the `Onlooker` without ``--layout``, the `TableReader` with it), and
scored against its labels read by eye: ``CLIP.frames.csv`` beside a video (``frames.csv``
inside a folder, or ``--labels``), one row every few frames: ``frame``, ``settled_cards`` (face
up, at rest, not covered), ``transient_cards`` (visible but moving, covered or blurred; ``?``:
named from the frames around it), optionally ``covered_cards`` (face up and lying still but
partly covered by cards laid on them, as in a pile or a fan: there, so never a false card, but
neither settled nor moving), ``notes``. Labels of a clip kept outside the project may live in
``benchmarks/real-footage/NAME.frames.csv`` (NAME: the clip's file or folder name without its
suffix). Per clip:

- **still changes**: the read's card changes inside still stretches (runs of two or more
  labelled rows with the same settled cards and nothing transient, from the first row's frame
  to the last's), less the first change if it brings the read nearer the labelled cards (fewer
  of them missing or wrong: a read catching up with a card laid just before the stretch, even
  when it misses another);
- **false-card frames**: the share of frames whose read holds a card that is in neither
  labelled row around the frame (settled or transient), and the longest run of them in a row;
- **latency**: for each card that settles (settled in a row, not in the row before), the
  frames from the first row showing it settled to its first frame in the read (searched from
  the frame after the row before, up to the end of its settled run): labels every 5th frame
  put the true settling up to 4 frames before that row, so -4..0 is "read as it settled";
  "never" when the read never held it while it lay;
- ``--every-frame``: the same without the change gate, every frame read whole (what the
  detector alone makes of each frame: its false cards frame by frame, for comparison);
- **CPU a frame**: the reader's CPU seconds (`time.process_time`), GINTRAY_THREADS threads
  (default 1), and the frames in which the detector read; with and without the reader's idle
  re-reads where the reader has them (`vision.table.watch.set_idle_rereads`).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from vision.demo.verify import detector_threads  # noqa: E402
from vision.inference.cpu import cpu_info  # noqa: E402
from vision.table.camera import (  # noqa: E402
    VIDEO_SUFFIXES,
    footage_rate,
    open_camera,
    parse_source,
)
from vision.table.watch import (  # noqa: E402
    Watch,
    WatchLine,
    WatchSummary,
    live_reader,
    set_idle_rereads,
)

REAL_FOOTAGE = REPO.parent / "shared" / "data" / "real-footage"
#: Where clips kept out of the project lie (`benchmarks/real-footage/README.md` says how to
#: fetch each); ``GINTRAY_FOOTAGE`` overrides it.
FOOTAGE = Path(os.environ.get("GINTRAY_FOOTAGE", REPO.parent / "footage"))
LABELS_HERE = REPO / "benchmarks" / "real-footage"
LABELS_SUFFIX = ".frames.csv"


@dataclass(frozen=True)
class LabelRow:
    """One labelled frame: the cards settled there and the cards passing through."""

    frame: int
    settled: frozenset[str]
    transient: frozenset[str]
    covered: frozenset[str] = frozenset()  # face up under later cards: there, not settled

    @property
    def still(self) -> bool:
        return not self.transient

    @property
    def present(self) -> frozenset[str]:
        return self.settled | self.transient | self.covered


def load_labels(path: Path) -> list[LabelRow]:
    """The rows of a ``frames.csv`` (``?`` after a transient card's code dropped; the
    ``covered_cards`` column optional), by frame."""
    with path.open(newline="") as handle:
        rows = [LabelRow(int(row["frame"]), frozenset(row["settled_cards"].split()),
                         frozenset(c.rstrip("?") for c in row["transient_cards"].split()),
                         frozenset((row.get("covered_cards") or "").split()))
                for row in csv.DictReader(handle)]
    return sorted(rows, key=lambda r: r.frame)


@dataclass(frozen=True)
class Settling:
    """A card that settles: first labelled settled at ``labelled``; ``latency`` frames from
    then to its first frame in the read (None: never held while it lay)."""

    card: str
    labelled: int
    latency: int | None


@dataclass
class ClipScore:
    """The figures of one clip (see the module docstring)."""

    frames: int
    read_changes: int
    still_frames: int = 0
    still_changes: int = 0
    false_frames: int = 0
    longest_false_run: int = 0
    false_cards: dict[str, int] = field(default_factory=dict)  # card -> frames held falsely
    settlings: list[Settling] = field(default_factory=list)

    @property
    def false_share(self) -> float:
        return self.false_frames / self.frames if self.frames else 0.0


def reads_per_frame(lines: list[WatchLine], frames: int) -> list[frozenset[str]]:
    """The read's cards in every frame, from the watch's lines (a line each time it changed)."""
    by_frame = {line.frame: frozenset(line.read.cards) for line in lines
                if line.frame is not None}
    reads, current = [], frozenset[str]()
    for index in range(frames):
        current = by_frame.get(index, current)
        reads.append(current)
    return reads


def score_clip(reads: list[frozenset[str]], labels: list[LabelRow]) -> ClipScore:
    """Score the per-frame reads against the labelled rows (module docstring)."""
    score = ClipScore(len(reads), sum(a != b for a, b in pairwise(reads)))
    if not labels:
        return score
    for start, end, cards, covered in _still_stretches(labels):
        last = min(end, len(reads) - 1)
        score.still_frames += max(0, last - start + 1)
        changes = [f for f in range(start + 1, last + 1) if reads[f] != reads[f - 1]]
        # the read catching up with the labels (the covered cards under them read or not)
        caught_up = bool(changes) and (_wrong(reads[changes[0]], cards, covered)
                                       < _wrong(reads[changes[0] - 1], cards, covered))
        score.still_changes += len(changes) - caught_up
    run = 0
    for frame, read in enumerate(reads):
        false = read - _present_around(labels, frame)
        for card in false:
            score.false_cards[card] = score.false_cards.get(card, 0) + 1
        run = run + 1 if false else 0
        score.false_frames += bool(false)
        score.longest_false_run = max(score.longest_false_run, run)
    score.settlings = _settlings(reads, labels)
    return score


def _wrong(read: frozenset[str], cards: frozenset[str], covered: frozenset[str]) -> int:
    """The labelled cards a read misses plus the cards it holds that are not labelled (a
    covered card read or not is neither)."""
    return len((read - covered) ^ cards)


def _still_stretches(
        labels: list[LabelRow]) -> list[tuple[int, int, frozenset[str], frozenset[str]]]:
    """(first frame, last frame, the settled cards, the covered cards) of each run of two or
    more still rows with the same settled cards."""
    stretches, run = [], [labels[0]]
    for row in [*labels[1:], None]:
        if row is not None and row.still and run[-1].still and row.settled == run[-1].settled:
            run.append(row)
            continue
        if len(run) > 1:
            stretches.append((run[0].frame, run[-1].frame, run[0].settled,
                              frozenset().union(*(r.covered for r in run))))
        if row is not None:
            run = [row]
    return stretches


def _present_around(labels: list[LabelRow], frame: int) -> frozenset[str]:
    """The cards the labelled rows around ``frame`` show (the row at or before it, the row at
    or after it): a card in neither is not there."""
    before = [r for r in labels if r.frame <= frame]
    after = [r for r in labels if r.frame >= frame]
    rows = ([before[-1]] if before else []) + ([after[0]] if after else [])
    return frozenset().union(*(r.present for r in rows))


def _settlings(reads: list[frozenset[str]], labels: list[LabelRow]) -> list[Settling]:
    found = []
    for i, row in enumerate(labels):
        previous = labels[i - 1] if i else None
        for card in sorted(row.settled - (previous.settled if previous else frozenset())):
            lies_until = row.frame
            for later in labels[i + 1:]:
                if card not in later.settled:
                    break
                lies_until = later.frame
            start = previous.frame + 1 if previous else 0
            seen = next((f for f in range(start, min(lies_until, len(reads) - 1) + 1)
                         if card in reads[f]), None)
            found.append(Settling(card, row.frame, None if seen is None else seen - row.frame))
    return found


def watch_clip(clip: Path, layout_path: Path | None, rereads: bool | None,
               detector, every_frame: bool = False) -> tuple[list[WatchLine], WatchSummary]:
    """Play ``clip`` through the live reader as `gintray watch replay:CLIP?fps=0` does
    (``every_frame``: without the change gate, every frame read whole)."""
    layout = None
    if layout_path is not None:
        from vision.table.layout import load_layout

        layout = load_layout(layout_path)
    reader, counted = live_reader(detector, layout)
    if rereads is not None:
        set_idle_rereads(reader, rereads)
    if every_frame:
        reader.regions = None  # the reader as before the gate: the detector on every frame
    source = f"replay:{clip}?fps=0"
    with open_camera(source) as camera:
        watch = Watch(camera, reader, counted, wait_back=0.0,
                      footage_fps=footage_rate(parse_source(source)))
        lines = list(watch.lines())
    if watch.summary.lost is not None:
        raise SystemExit(f"{clip}: {watch.summary.lost.reason}")
    return lines, watch.summary


def labels_for(clip: Path, given: Path | None) -> Path | None:
    """The clip's labels: given, ``NAME.frames.csv`` beside a video, ``frames.csv`` in a folder,
    else ``benchmarks/real-footage/NAME.frames.csv`` (labels of a clip kept outside the project)."""
    if given is not None:
        return given
    beside = clip / "frames.csv" if clip.is_dir() else clip.with_suffix(".frames.csv")
    kept = LABELS_HERE / f"{clip.stem if clip.is_file() else clip.name}{LABELS_SUFFIX}"
    return next((path for path in (beside, kept) if path.is_file()), None)


def default_clips(shared: Path = REAL_FOOTAGE, footage: Path = FOOTAGE,
                  kept: Path = LABELS_HERE) -> tuple[list[Path], list[str]]:
    """The clips read when none is named: the videos in ``shared``, then for each labels file
    kept in ``kept`` its clip in ``footage`` (a video ``NAME.*`` or a folder ``NAME``); and a
    line for each labelled clip not found there."""
    clips = sorted(p for p in shared.iterdir()
                   if p.suffix.lower() in VIDEO_SUFFIXES) if shared.is_dir() else []
    missing = []
    for labels in sorted(kept.glob(f"*{LABELS_SUFFIX}")):
        name = labels.name.removesuffix(LABELS_SUFFIX)
        found = sorted(p for p in footage.glob(f"{name}.*")
                       if p.suffix.lower() in VIDEO_SUFFIXES) if footage.is_dir() else []
        if not found and (footage / name).is_dir():
            found = [footage / name]
        if found:
            clips.append(found[0])
        else:
            missing.append(f"skipped {name}: no clip {name}.* in {footage} ({kept / 'README.md'}"
                           " says where to fetch it; GINTRAY_FOOTAGE names another folder)")
    return clips, missing


def report(clip: Path, score: ClipScore, summary: WatchSummary, labelled: bool) -> None:
    rereads = {None: "none in this reader", True: "on", False: "off"}[summary.idle_rereads]
    print(f"\n== {clip.name}: {score.frames} frames, idle re-reads {rereads}")
    print(f"  read changes: {score.read_changes}")
    if labelled:
        print(f"  still stretches: {score.still_changes} read changes in {score.still_frames} "
              "still frames")
        false = ", ".join(f"{c} {n}" for c, n in sorted(score.false_cards.items(),
                                                        key=lambda kv: (-kv[1], kv[0]))) or "none"
        print(f"  frames holding a card that is not there: {score.false_frames} of "
              f"{score.frames} ({score.false_share:.0%}); longest run {score.longest_false_run} "
              f"frames; held falsely (frames): {false}")
        said = [f"{s.card} @{s.labelled} " + ("never" if s.latency is None else f"{s.latency:+d}")
                for s in score.settlings]
        print(f"  latency (frames after the first labelled frame showing it settled): "
              f"{'; '.join(said) or '-'}")
    else:
        print("  no labels: still stretches, false cards and latency not scored")
    print(f"  CPU a frame: {summary.cpu_per_frame * 1000:.1f} ms in the reader "
          f"({summary.process_cpu_per_frame * 1000:.1f} ms with decoding); the detector read "
          f"in {summary.detector_frames} of {summary.frames} frames")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips", nargs="*", type=Path,
                        help=f"videos or folders of frames (default: the videos in {REAL_FOOTAGE} "
                             f"and the clips labelled in {LABELS_HERE} found in {FOOTAGE})")
    parser.add_argument("--labels", type=Path, help="the labels CSV (one clip only)")
    parser.add_argument("--layout", type=Path, help="a layout JSON for every clip (default none)")
    parser.add_argument("--json", action="store_true", help="one JSON object a clip and run")
    parser.add_argument("--every-frame", action="store_true",
                        help="no change gate: every frame read whole (what the detector alone "
                             "gives, frame by frame; slow)")
    parser.add_argument("--no-still-tables", action="store_true",
                        help="with no clip named, leave out the still tables made of real "
                             "webcam photos (real_still_table.py)")
    args = parser.parse_args(argv)
    missing = [str(c) for c in args.clips if not c.exists()]
    if missing:
        parser.error(f"no such clip: {', '.join(missing)}")
    if args.labels and len(args.clips) != 1:
        parser.error("--labels goes with one clip")
    with tempfile.TemporaryDirectory(prefix="still-tables-") as made:
        skipped: list[str] = []
        clips = args.clips
        if not clips:
            clips, skipped = default_clips()
            if not args.no_still_tables:
                import real_still_table

                if real_still_table.DEV.is_dir():
                    clips += real_still_table.default_clips(Path(made))
                else:
                    skipped.append(f"skipped the still tables: {real_still_table.DEV} absent")
            if not clips:
                parser.error(f"no clip found ({REAL_FOOTAGE} and {FOOTAGE}): name the clips")
        return _measure(args, clips, skipped)


def _measure(args: argparse.Namespace, clips: list[Path], skipped: list[str]) -> int:
    """Read and score every clip (`main`'s arguments), each with the reader as it comes and
    then without its idle re-reads."""
    from vision.inference.detector import load_detector

    detector = load_detector()
    if not args.json:
        print(f"command: .venv/bin/python benchmarks/bench_real_footage.py "
              f"{' '.join(sys.argv[1:])}".rstrip())
        print(f"CPU: {cpu_info().model}; GINTRAY_THREADS={detector_threads()}")
    for line in skipped:
        print(line, file=sys.stderr)
    for clip in clips:
        label_path = labels_for(clip, args.labels)
        labels = load_labels(label_path) if label_path else []
        rereads: bool | None = None  # the reader as it comes; then with them off, if it can
        while True:
            lines, summary = watch_clip(clip, args.layout, rereads, detector, args.every_frame)
            score = score_clip(reads_per_frame(lines, summary.frames), labels)
            if args.json:
                print(json.dumps({"clip": str(clip), "labels": str(label_path or ""),
                                  **asdict(score), "false_share": round(score.false_share, 4),
                                  **summary.to_json()}))
            else:
                report(clip, score, summary, bool(labels))
            if rereads is not None or not summary.idle_rereads:
                break
            rereads = False
    return 0


if __name__ == "__main__":
    sys.exit(main())
