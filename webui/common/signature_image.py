"""Drawn signatures: a PNG a finger could draw on the signing pad, decoded and stored normalised.

A signature is checked when it is given, never first when the sheet is exported: it must be a
PNG (by its signature bytes) of at most ``MAX_BYTES``, whose header names at most
``MAX_SIDE`` pixels a side and ``MAX_PIXELS`` in all (read before anything is decoded, so a
small file claiming 20000x20000 pixels costs nothing), and which OpenCV decodes whole. What is
stored is a fresh PNG of the decoded picture, scaled down to fit ``STORED_BOX``: the PDF only
ever draws pictures this module made. OpenCV is loaded only when a signature is decoded: the
hall, which imports this module for its PDFs, loads no image library until it draws one.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
MAX_BYTES = 300_000
MAX_SIDE = 4096  # a 1000 px wide pad on a screen of pixel ratio 4
MAX_PIXELS = 4096 * 1024
STORED_BOX = (1200, 400)  # width, height of the stored copy at most


class BadSignature(ValueError):
    """A signature image refused, with the reason in words."""


@dataclass(frozen=True)
class SignatureImage:
    """A checked signature: the normalised PNG bytes and their pixel size."""

    png: bytes
    width: int
    height: int


def header_size(data: bytes) -> tuple[int, int]:
    """The (width, height) a PNG's IHDR chunk declares, without decoding it."""
    if not data.startswith(PNG_MAGIC):
        raise BadSignature("the signature is not a PNG picture")
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise BadSignature("the signature PNG has no header (IHDR)")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def normalise(data: bytes) -> SignatureImage:
    """``data`` checked and re-encoded (see the module); ``BadSignature`` says why not."""
    if len(data) > MAX_BYTES:
        raise BadSignature(f"the signature is {len(data):,} bytes; at most {MAX_BYTES:,}")
    width, height = header_size(data)
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE) or width * height > MAX_PIXELS:
        raise BadSignature(f"the signature is {width}x{height} pixels; a signing pad gives at "
                           f"most {MAX_SIDE} a side and {MAX_PIXELS:,} in all")
    import cv2  # only here: see the module docstring

    picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if picture is None or picture.shape[1] != width or picture.shape[0] != height:
        raise BadSignature("the signature PNG cannot be decoded (damaged or not a picture)")
    if picture.dtype != np.uint8:
        picture = (picture // 257).astype(np.uint8)  # 16-bit channels
    if picture.ndim == 2:
        picture = cv2.cvtColor(picture, cv2.COLOR_GRAY2BGRA)
    elif picture.shape[2] == 3:
        picture = cv2.cvtColor(picture, cv2.COLOR_BGR2BGRA)
    scale = min(1.0, STORED_BOX[0] / width, STORED_BOX[1] / height)
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        picture = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".png", picture, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise BadSignature("the signature could not be stored as a PNG")
    return SignatureImage(buf.tobytes(), picture.shape[1], picture.shape[0])


def readable(data: bytes) -> SignatureImage | None:
    """A stored signature ready to draw, or None when it cannot be (a signature stored before
    signatures were checked may be damaged: the export says so instead of failing)."""
    try:
        return normalise(data)
    except BadSignature:
        return None
