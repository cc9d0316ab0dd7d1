"""Check an exported score sheet's digital signature against this installation's certificate.

    .venv/bin/python -m webui.verify SHEET.pdf [--data-dir instance]

Exit status 0 when the signature is intact, valid, made by this installation's key and covers
the whole file; 1 otherwise (the reason is printed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webui.signing import SigningIdentity, verify_pdf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webui.verify", description=__doc__)
    parser.add_argument("pdf", type=Path)
    parser.add_argument("--data-dir", type=Path, default=Path("instance"))
    args = parser.parse_args(argv)
    cert = args.data_dir / "signing" / "cert.pem"
    if not cert.is_file():
        print(f"no certificate at {cert}", file=sys.stderr)
        return 2
    if not args.pdf.is_file():
        print(f"no such file: {args.pdf}", file=sys.stderr)
        return 2
    result = verify_pdf(args.pdf.read_bytes(), SigningIdentity(cert.with_name("key.pem"), cert))
    verdict = "OK" if result.ok else "NOT VALID"
    print(f"{verdict}: intact={result.intact} valid={result.valid} trusted={result.trusted} "
          f"whole file={result.covers_whole_file} ({result.summary})")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
