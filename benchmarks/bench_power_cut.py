"""Power-cut loop: the plug pulled on the table app again and again while tablets play.

    .venv/bin/python benchmarks/bench_power_cut.py [--cuts 200] [--seed 1]

Not a test and not in CI (minutes); needs root, /dev/fuse and LazyFS (`bash .ci/lazyfs`). It runs
the power-cut test's loop (``tests/power_cut_helpers.py``) for ``--cuts`` cuts: the table app's
data folder on LazyFS, Ann's and Ben's tablets knocking, proposing, correcting, confirming,
undoing and signing over HTTP; at a random moment the app is ``kill -9``ed and every write not
yet synced dropped (a pulled plug), the file system mounted again, the disk checked, the app
started again. It prints the commands the tablets were told succeeded, how many of them a cut
lost or doubled, the cuts whose database failed ``PRAGMA integrity_check`` or whose signing key
or signed PDFs did not survive, and what each cut interrupted; exits 1 on any loss.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from power_cut_helpers import PowerCuts, lazyfs_missing


@dataclass
class Tally:
    """What the loop did and what the cuts left."""

    cuts: int
    acknowledged: int
    lost: int
    doubled: int
    hands_doubled: int
    integrity_failures: int
    seq_gaps: int
    signing_failures: int
    games_signed: int
    interrupted: Counter
    seconds: float
    broke: str = ""


def run(cuts: int, seed: int, work: Path) -> Tally:
    rig = PowerCuts(work, cuts=cuts, seed=seed)
    started = time.monotonic()
    broke, state = "", None
    try:
        state = rig.run()
    except Exception as exc:  # e.g. a tablet refused: something it was told was lost
        broke = f"{type(exc).__name__}: {exc}"[:500]
    checks = [c.check for c in rig.cuts_done]
    lost = {r for c in checks for r in c.lost}
    doubled = {r for c in checks for r in c.doubled}
    hands_doubled = 0
    if state is not None:
        for game in state["games"]:
            numbers = [h["number"] for h in game["hands"] if h["confirmed"]]
            hands_doubled += len(numbers) - len(set(numbers))
    signing = sum(1 for c in checks if c.signing_problems)
    if state is not None and state["signing_problems"]:
        signing += 1
    return Tally(cuts=len(rig.cuts_done), acknowledged=len(rig.ledger.acked), lost=len(lost),
                 doubled=len(doubled), hands_doubled=hands_doubled,
                 integrity_failures=sum(1 for c in checks if c.integrity != "ok"),
                 seq_gaps=sum(1 for c in checks if c.seq_gaps), signing_failures=signing,
                 games_signed=len(rig.ledger.signed_games),
                 interrupted=Counter(c.interrupted for c in rig.cuts_done),
                 seconds=time.monotonic() - started, broke=broke)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cuts", type=int, default=200, help="power cuts (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the cut moments")
    args = parser.parse_args(argv)
    missing = lazyfs_missing()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gintray_power_cut_") as tmp:
        t = run(args.cuts, args.seed, Path(tmp))
    print(f"power cuts: {t.cuts}")
    print(f"commands acknowledged (HTTP 200): {t.acknowledged}; games signed: {t.games_signed}")
    print(f"lost: {t.lost}  doubled: {t.doubled}  hands doubled on a sheet: {t.hands_doubled}")
    print(f"cuts with integrity_check not ok: {t.integrity_failures}; with a gap in the "
          f"events: {t.seq_gaps}; with the signing key or a signed PDF broken: "
          f"{t.signing_failures}")
    print("what the cuts interrupted: " + ", ".join(
        f"{what} {n}" for what, n in t.interrupted.most_common()))
    print(f"time: {t.seconds:.0f} s ({t.seconds / max(t.cuts, 1):.1f} s a cut)")
    if t.broke:
        print(f"the play stopped: {t.broke}")
    bad = (t.lost, t.doubled, t.hands_doubled, t.integrity_failures, t.seq_gaps,
           t.signing_failures)
    return 0 if not any(bad) and not t.broke else 1


if __name__ == "__main__":
    sys.exit(main())
