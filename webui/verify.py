"""Check an exported score sheet: the installation's digital signature, and that every
player's signature covers the final sheet.

    .venv/bin/python -m webui.verify SHEET.pdf [--data-dir instance]

It needs the certificate of the installation that exported the sheet: ``--data-dir`` names
the table app's data directory (the one ``gintray serve --data-dir`` runs with; ``instance``
when not given), which holds ``signing/cert.pem``. Without one it says so and exits 2.

Exit status 0 when the digital signature is intact, valid, made by this installation's key
and covers the whole file, and the sheet record attached to the PDF hashes to its printed
sheet hash and every player's signature was given on that same hash; 1 otherwise (the reason
is printed). A PDF without a sheet record (exported before signatures were bound to the
sheet) fails: its players' signatures cannot be checked. A draft (a sheet not signed by both
players) fails and the players whose signatures are missing are named; ``--draft`` checks a
draft's integrity only.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from webui.common.pdf import RECORD_FORMAT, read_record
from webui.common.signing import SigningIdentity, verify_pdf
from webui.store.state import digest


def record_problems(record: dict[str, Any] | None) -> list[str]:
    """Why the players' signatures in a sheet record do not cover its final sheet (empty when
    they all do)."""
    if record is None:
        return ["no sheet record in the file: the players' signatures cannot be checked"]
    if record.get("format") != RECORD_FORMAT:
        return [f"unknown sheet record format {record.get('format')!r}"]
    final = record.get("sheet_hash")
    problems = []
    if digest(record.get("sheet")) != final:
        problems.append("the attached sheet does not hash to the sheet hash")
    for player, sig in sorted((record.get("signatures") or {}).items()):
        if sig.get("sheet_hash") != final:
            problems.append(f"{sig.get('name') or player}'s signature was given on sheet "
                            f"{str(sig.get('sheet_hash'))[:12]}, not the final sheet "
                            f"{str(final)[:12]}")
    return problems


def missing_signatures(record: dict[str, Any] | None) -> list[str]:
    """The players (names) whose signatures a sheet record lacks."""
    if record is None:
        return []
    players = (record.get("sheet") or {}).get("players") or {}
    signed = record.get("signatures") or {}
    return [str(players.get(p) or p) for p in sorted(players) if p not in signed]


NEEDS_DATA_DIR = ("webui.verify checks a sheet against the certificate of the installation "
                  "that exported it: pass --data-dir DIR, the data directory the table app "
                  "runs with (`gintray serve --data-dir DIR`; it holds signing/cert.pem)")


def quiet_libraries() -> None:
    """pyHanko logs a failed certificate path (another installation's sheet) with a full
    traceback; the verdict printed here says it in words."""
    for name in ("pyhanko", "pyhanko_certvalidator"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webui.verify", description=__doc__)
    parser.add_argument("pdf", type=Path)
    parser.add_argument("--data-dir", type=Path, default=Path("instance"),
                        help="the table app's data directory (default: ./instance)")
    parser.add_argument("--draft", action="store_true",
                        help="accept a draft: a sheet not signed by both players (its "
                             "integrity is still checked)")
    parser.add_argument("--both-signed", action="store_true",
                        help="fail unless both players signed the final sheet (the default; "
                             "kept for scripts that pass it)")
    args = parser.parse_args(argv)
    cert = args.data_dir / "signing" / "cert.pem"
    if not cert.is_file():
        print(f"no certificate at {cert}. {NEEDS_DATA_DIR}.", file=sys.stderr)
        return 2
    if not args.pdf.is_file():
        print(f"no such file: {args.pdf}", file=sys.stderr)
        return 2
    data = args.pdf.read_bytes()
    quiet_libraries()
    result = verify_pdf(data, SigningIdentity(cert.with_name("key.pem"), cert))
    if result.intact and not result.trusted:
        problems_first = [f"the digital signature is intact but not made with the certificate "
                          f"at {cert}: the file comes from another installation, or this is "
                          f"not its data directory. {NEEDS_DATA_DIR}"]
    else:
        problems_first = []
    record = read_record(data)
    problems = problems_first + record_problems(record)
    missing = missing_signatures(record)
    if missing and not args.draft:
        problems.append(f"a draft: not signed by {' and '.join(missing)} (--draft accepts it)")
    ok = result.ok and not problems
    print(f"{'OK' if ok else 'NOT VALID'}: intact={result.intact} valid={result.valid} "
          f"trusted={result.trusted} whole file={result.covers_whole_file} ({result.summary})")
    if record is not None:
        signed = ", ".join(s.get("name") or p for p, s in sorted(record["signatures"].items()))
        print(f"sheet {str(record.get('sheet_hash'))[:12]}: signed by {signed or 'nobody'}"
              + (f"; missing: {', '.join(missing)}" if missing else ""))
    for problem in problems:
        print(f"NOT VALID: {problem}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
