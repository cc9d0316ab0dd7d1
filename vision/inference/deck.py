"""A deck profile: a per-deck reading fitted on the shipped namer's features.

The namer's penultimate layer (`FEATURE_OUTPUT`, 192 numbers a crop) is exposed as an extra
output of its ONNX graph when the session is made (`with_extra_output`), so one run of the
namer gives both its card probabilities and its features. A profile, fitted by
`vision.deck.teach` from the deck's own corners and augmented copies, holds:

- the cards the profile reads otherwise (`adapted`): those the shipped namer misread on the
  deck's own taught corners (a jack printed "B", a four-colour deck's blue diamond), every
  taught card carrying a sign it misread on several cards, and the cards it took them for;
- a residual adapter: logits ``log p_namer + standardised features @ weights + bias`` over
  the namer's 53 classes, whose weights and bias are zero but for the adapted cards' columns
  (so where nothing was misread the profile reads exactly as the namer);
- one prototype a taught card (the mean of its taught corners' features) and its radius.

Reading with a profile (`DeckProfile.adapt`), for each crop at each quarter turn: how near its
features are to the nearest taught prototype gives a share ``g`` in [0, 1] (1 within that
card's teaching radius, where nearly all its taught copies lie, 0 beyond `GATE_WIDTH` more,
linear between); the reading is ``g`` x the adapter's + (1 - ``g``) x the namer's own.

So a corner like the taught ones of a card the namer could not read reads as taught, and a card
the namer already read right on the deck's corners, a card not taught, a pip or the table keep
the shipped namer's reading. (The probe this replaced moved every taught card: taught from the
phone deck's earlier photos it cost 27 of the 109 held-out proposals the namer got right.)

The profile file is JSON with a checksum of its own content and the checksum of the namer file
it was fitted on: an edited or corrupt file, or one made for another namer, is refused with a
`DeckProfileError` that says so. Run time needs numpy and ONNX Runtime only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.inference.corner_crops import NAMER_CLASSES

FORMAT = "gintray-deck-profile"
VERSION = 2  # 1: the probe over the taught cards (refused: teach the deck again)
#: the namer's penultimate layer (its 192 ReLU outputs before the rank and suit logits); the
#: name is the same for every namer `vision.training.train_classifier.build_model` makes
FEATURE_OUTPUT = "/inner/inner.11/Relu_output_0"
#: a crop this much (cosine similarity) less like its nearest prototype than that card's
#: teaching radius keeps the namer's reading entirely
GATE_WIDTH = 0.15


class DeckProfileError(ValueError):
    """A deck profile that cannot be used: unreadable, edited, corrupt, or for another namer."""


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def with_extra_output(model: bytes, tensor: str) -> bytes:
    """An ONNX model (serialized ModelProto) that also outputs its inner tensor `tensor`.

    Protobuf merges a repeated occurrence of a message field into the first one, and appends to
    its repeated fields: so a ModelProto followed by ``graph`` (field 7) holding one more
    ``output`` (GraphProto field 12) ValueInfoProto that names (field 1) the tensor is the same
    model with that output added, its nodes and weights untouched (no onnx package needed at
    run time; its outputs are the same numbers)."""
    return model + _field(7, _field(12, _field(1, tensor.encode())))


def _floats(rows) -> list:
    """float32 arrays as nested lists of Python floats (exact in JSON)."""
    return np.asarray(rows, np.float32).tolist()


@dataclass(frozen=True)
class DeckProfile:
    """A fitted per-deck reading (see the module's docstring). Arrays are float32:
    ``mean``/``scale`` (F,) standardise the namer's features, ``weights`` (F, 53) and ``bias``
    (53,) are the adapter (zero but in the `adapted` cards' columns), ``prototypes`` (K, F) the
    K taught ``cards``' unit-length mean standardised features, ``radius`` (K,) the cosine
    similarity nearly all of a card's taught copies reach."""

    namer_sha256: str
    cards: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    prototypes: np.ndarray
    radius: np.ndarray
    feature_output: str = FEATURE_OUTPUT
    teaching: dict | None = None  # what it was taught from (photos, corners, copies, seconds)
    #: the adapter's columns: the taught cards the shipped namer misread on the deck's own
    #: corners (and their signs' other cards) and the cards it took them for; empty when the
    #: namer read every taught corner right (the profile then reads exactly as the namer)
    adapted: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        bad = [c for c in self.cards if c not in NAMER_CLASSES[:-1]]
        bad += [c for c in self.adapted if c not in NAMER_CLASSES[:-1]]
        if bad or len(set(self.cards)) != len(self.cards) or not self.cards:
            raise DeckProfileError(f"a deck profile's cards must be distinct card codes: {bad}")
        k, f, classes = len(self.cards), len(self.mean), len(NAMER_CLASSES)
        shapes = {"scale": (self.scale, (f,)), "weights": (self.weights, (f, classes)),
                  "bias": (self.bias, (classes,)), "prototypes": (self.prototypes, (k, f)),
                  "radius": (self.radius, (k,))}
        for name, (array, shape) in shapes.items():
            if np.shape(array) != shape:
                raise DeckProfileError(f"a deck profile's {name} has shape {np.shape(array)}, "
                                       f"expected {shape}")

    def _standardised(self, features: np.ndarray) -> np.ndarray:
        return (features - self.mean) / self.scale

    def taught_share(self, features: np.ndarray) -> np.ndarray:
        """(N,) how far each crop is one of the taught corners: 1 within its nearest
        prototype's radius, 0 at `GATE_WIDTH` beyond it."""
        x = self._standardised(features)
        x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)
        similarity = x @ self.prototypes.T
        nearest = similarity.argmax(axis=1)
        best = similarity[np.arange(len(x)), nearest]
        return np.clip(1.0 + (best - self.radius[nearest]) / GATE_WIDTH, 0.0, 1.0)

    def adapted_reading(self, probs: np.ndarray, features: np.ndarray) -> np.ndarray:
        """(N, 53) the adapter's probabilities: the namer's log-probabilities moved by the
        adapted cards' columns."""
        logits = np.log(np.clip(probs, 1e-6, 1.0))
        logits = logits + self._standardised(features) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def adapt(self, probs: np.ndarray, features: np.ndarray) -> np.ndarray:
        """The namer's (N, 53) probabilities of crops at one turn, read with this deck."""
        if not self.adapted:
            return probs
        share = self.taught_share(features)[:, None]
        adapted = self.adapted_reading(probs, features)
        return (share * adapted + (1.0 - share) * probs).astype(np.float32)

    # --- the file ----------------------------------------------------------------------------

    def content(self) -> dict:
        """The profile as JSON-ready data, without its checksum."""
        return {"format": FORMAT, "version": VERSION, "namer_sha256": self.namer_sha256,
                "feature_output": self.feature_output, "cards": list(self.cards),
                "mean": _floats(self.mean), "scale": _floats(self.scale),
                "weights": _floats(self.weights), "bias": _floats(self.bias),
                "prototypes": _floats(self.prototypes), "radius": _floats(self.radius),
                "adapted": list(self.adapted), "teaching": self.teaching or {}}

    def text(self) -> str:
        """The profile's file text: its content with its checksum."""
        content = self.content()
        return json.dumps({**content, "checksum": content_checksum(content)},
                          separators=(",", ":"))

    def save(self, path: Path) -> None:
        """Write the profile (written whole, then renamed into place; the table app writes
        it through `webui.common.durable` so that it also survives a pulled plug)."""
        path = Path(path)
        part = path.with_name(path.name + ".part")
        part.write_text(self.text())
        part.replace(path)

    def check_namer(self, namer_sha256: str, namer_path: Path | str = "the namer") -> None:
        """Refuse to read with a namer other than the one this profile was fitted on."""
        if namer_sha256 != self.namer_sha256:
            raise DeckProfileError(
                f"this deck profile was taught with another namer (sha256 "
                f"{self.namer_sha256[:12]}...), not {namer_path} (sha256 {namer_sha256[:12]}...): "
                "teach the deck again with this namer (gintray deck learn)")


def content_checksum(content: dict) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces) of a profile's content."""
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def load_profile(path: Path | str) -> DeckProfile:
    """A deck profile read from its file, its checksum verified; DeckProfileError (saying which
    file and what is wrong) for a missing, unreadable, edited or corrupt file."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise DeckProfileError(f"deck profile {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckProfileError(f"deck profile {path} is not readable ({exc}): the file is "
                               "corrupt; teach the deck again") from None
    return parse_profile(text, str(path))


def parse_profile(text: str, where: str = "the deck profile") -> DeckProfile:
    """A deck profile from its file's text (`where` names it in errors), its checksum
    verified; DeckProfileError for text that is no profile, edited, corrupt or incomplete."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise DeckProfileError(f"deck profile {where} is not readable JSON ({exc}): the file "
                               "is corrupt; teach the deck again") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DeckProfileError(f"{where} is not a gintray deck profile")
    if data.get("version") != VERSION:
        raise DeckProfileError(f"deck profile {where} has version {data.get('version')!r}; this "
                               f"gintray reads version {VERSION}: teach the deck again "
                               "(gintray deck learn)")
    checksum = data.pop("checksum", None)
    if checksum != content_checksum(data):
        raise DeckProfileError(f"deck profile {where} does not match its checksum: it was "
                               "edited or is corrupt; teach the deck again (gintray deck learn)")
    try:
        return DeckProfile(
            namer_sha256=str(data["namer_sha256"]), cards=tuple(data["cards"]),
            mean=np.array(data["mean"], np.float32), scale=np.array(data["scale"], np.float32),
            weights=np.array(data["weights"], np.float32),
            bias=np.array(data["bias"], np.float32),
            prototypes=np.array(data["prototypes"], np.float32),
            radius=np.array(data["radius"], np.float32),
            feature_output=str(data["feature_output"]), teaching=dict(data["teaching"]),
            adapted=tuple(data["adapted"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise DeckProfileError(f"deck profile {where} is incomplete ({exc})") from None
