"""Issue 26 item 10: what the PDF's digital signature covers, said precisely and tested: every
byte except the signature value; a byte of the sheet fails verification, a byte of the
signature value's unused padding does not (as in every PDF signature)."""

from __future__ import annotations

import re
from pathlib import Path

from webui_helpers import PNG_DATA_URL

from webui.verify import main as verify_main

ROOT = Path(__file__).resolve().parents[1]


def signed_pdf(tablet):
    tablet.play_manual_hand("A", 300)
    for p in ("A", "B"):
        assert tablet.post("sign", {"game": 1, "player": p, "png": PNG_DATA_URL}).status_code \
            == 200
    return tablet.client.get("/t/1/games/1/export.pdf").data


def test_a_sheet_byte_fails_and_a_padding_byte_passes(tmp_path, tablet):
    pdf = signed_pdf(tablet)
    good = tmp_path / "good.pdf"
    good.write_bytes(pdf)
    assert verify_main([str(good), "--data-dir", str(tmp_path)]) == 0
    contents = re.search(rb"/Contents <([0-9a-fA-F]+)>", pdf)
    assert contents and contents.group(1).endswith(b"0000")
    at = contents.end(1) - 2  # a byte of the zero padding inside the signature value
    padded = tmp_path / "padding.pdf"
    padded.write_bytes(pdf[:at] + b"1" + pdf[at + 1:])
    assert verify_main([str(padded), "--data-dir", str(tmp_path)]) == 0
    total = pdf.index(b"(300) Tj")  # the points in the sheet
    changed = tmp_path / "sheet.pdf"
    changed.write_bytes(pdf[:total + 1] + b"9" + pdf[total + 2:])
    assert verify_main([str(changed), "--data-dir", str(tmp_path)]) == 1


def test_the_readme_says_what_is_covered():
    for readme in (ROOT / "README.md", ROOT / "webui" / "README.md"):
        text = " ".join(readme.read_text().split())
        assert "except its own value" in text or "except the signature value itself" in text
        assert "any later change is detectable" not in text
