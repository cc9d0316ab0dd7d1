"""A deck profile: a per-deck reading fitted on the shipped namer's features.

The namer's penultimate layer (`FEATURE_OUTPUT`, 192 numbers a crop) is exposed as an extra
output of its ONNX graph when the session is made (`with_extra_output`), so one run of the
namer gives both its card probabilities and its features. A profile holds a linear probe
(features -> the cards taught, and "another card" when not all were taught) and one
prototype a taught card (the mean of its taught corners'
features), fitted by `vision.deck.teach` from the deck's own corners and augmented copies.

Reading with a profile (`DeckProfile.adapt`), for each crop at each quarter turn:

- how near its features are to the nearest taught prototype gives a share ``g`` in [0, 1]:
  1 within that card's teaching radius (where nearly all its taught copies lie), 0 beyond
  `GATE_WIDTH` more, linear between;
- the reading is ``g`` x the probe's cards + (1 - ``g``) x the namer's own probabilities
  ("not a corner" included), averaged over the turns as the namer's are; what the probe gives
  "another card" (a deck taught only some cards: an 8 beside a jack printed "B") goes to the
  namer's reading too;
- a crop the shipped namer reads surely (`SURE_READING`) as a card or as "not a corner" (a
  pip, a face picture) keeps the namer's reading, unless teaching saw the namer surely read a
  taught corner of another card so (`misread`: a deck's green club read as a spade makes a
  sure spade the probe's). Taught
  from the phone deck's earlier photos, which show few of its diamonds and none of its clubs,
  the probe read its held-out 9D as the taught 9S and 2C as 2S (cards it never saw but as
  procedural indices), and its TD as TS (the TD taught from 4 corners of one photo), where the
  namer read them surely and right. A profile file without `misread` (taught before it was
  recorded) trusts only the sure reading of a card not taught.

So a corner like the taught ones reads as the probe says (a jack printed "B" reads as a jack),
and anything else (a card not taught, a pip, the table) keeps the shipped namer's reading.

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
VERSION = 1
#: the namer's penultimate layer (its 192 ReLU outputs before the rank and suit logits); the
#: name is the same for every namer `vision.training.train_classifier.build_model` makes
FEATURE_OUTPUT = "/inner/inner.11/Relu_output_0"
#: a crop this much (cosine similarity) less like its nearest prototype than that card's
#: teaching radius keeps the namer's reading entirely
GATE_WIDTH = 0.15
#: the shipped namer reads a crop this surely as one card: a letter it never saw is not read
#: this surely (the drawn jacks printed "B" of tests/test_deck.py), a standard index mostly is
SURE_READING = 0.9


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
    ``mean``/``scale`` (F,) standardise the namer's features, ``weights`` (F, K) and ``bias``
    (K,) are the probe over the K ``cards`` taught, ``prototypes`` (K, F) their unit-length
    mean standardised features, ``radius`` (K,) the cosine similarity nearly all of a card's
    taught copies reach."""

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
    #: the probe has one more output, "another card" (a card not taught): true when some cards
    #: were not taught; a crop it puts there keeps the namer's reading
    other: bool = False
    #: the cards (or "not a corner") the shipped namer surely read on a taught corner of
    #: another card (a deck's green club read as a spade): its sure reading of them is not
    #: trusted. None in a profile taught before this was recorded: then only the sure reading
    #: of a card not taught is trusted
    misread: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        bad = [c for c in self.cards if c not in NAMER_CLASSES[:-1]]
        bad += [c for c in self.misread or () if c not in NAMER_CLASSES]
        if bad or len(set(self.cards)) != len(self.cards) or not self.cards:
            raise DeckProfileError(f"a deck profile's cards must be distinct card codes: {bad}")
        k, f = len(self.cards), len(self.mean)
        outputs = k + int(self.other)
        shapes = {"scale": (self.scale, (f,)), "weights": (self.weights, (f, outputs)),
                  "bias": (self.bias, (outputs,)), "prototypes": (self.prototypes, (k, f)),
                  "radius": (self.radius, (k,))}
        for name, (array, shape) in shapes.items():
            if np.shape(array) != shape:
                raise DeckProfileError(f"a deck profile's {name} has shape {np.shape(array)}, "
                                       f"expected {shape}")

    @property
    def card_columns(self) -> np.ndarray:
        """Each taught card's column in the namer's 53 probabilities."""
        return np.array([NAMER_CLASSES.index(c) for c in self.cards])

    def _standardised(self, features: np.ndarray) -> np.ndarray:
        return (features - self.mean) / self.scale

    def probe(self, features: np.ndarray) -> np.ndarray:
        """(N, K) probabilities over the taught cards of (N, F) namer features (then "another
        card" when the profile has `other`)."""
        logits = self._standardised(features) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def taught_share(self, features: np.ndarray) -> np.ndarray:
        """(N,) how far each crop is one of the taught corners: 1 within its nearest
        prototype's radius, 0 at `GATE_WIDTH` beyond it."""
        x = self._standardised(features)
        x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)
        similarity = x @ self.prototypes.T
        nearest = similarity.argmax(axis=1)
        best = similarity[np.arange(len(x)), nearest]
        return np.clip(1.0 + (best - self.radius[nearest]) / GATE_WIDTH, 0.0, 1.0)

    def trusted(self) -> np.ndarray:
        """(53,) the cards whose sure reading by the shipped namer stands (module docstring)."""
        trusted = np.zeros(len(NAMER_CLASSES), bool)
        if self.misread is not None:  # "not a corner" too: a pip or a face picture
            trusted[:] = True
            trusted[[NAMER_CLASSES.index(c) for c in self.misread]] = False
        elif self.other:
            trusted[:-1] = True  # "not a corner" is no card
            trusted[self.card_columns] = False
        return trusted

    def _surely_trusted(self, probs: np.ndarray) -> np.ndarray:
        """(N,) whether the namer's (N, 53) reading is surely a card it is trusted with."""
        best = probs.argmax(axis=1)
        return self.trusted()[best] & (probs[np.arange(len(probs)), best] >= SURE_READING)

    def adapt(self, probs: np.ndarray, features: np.ndarray,
              judged: np.ndarray | None = None) -> np.ndarray:
        """The namer's (N, 53) probabilities of crops at one turn, read with this deck;
        `judged` (N, 53): the namer's reading whose sureness decides (the reader gives its
        mean over the turns, so one turn's sure misreading does not decide; default `probs`)."""
        share = self.taught_share(features)
        sure = self._surely_trusted(probs if judged is None else judged)
        share = np.where(sure, 0.0, share)
        share = share[:, None]
        probe = self.probe(features)
        taught = np.zeros_like(probs)
        taught[:, self.card_columns] = probe[:, : len(self.cards)]
        if self.other:  # "another card": the namer's reading
            taught += probe[:, len(self.cards) :] * probs
        return (share * taught + (1.0 - share) * probs).astype(np.float32)

    # --- the file ----------------------------------------------------------------------------

    def content(self) -> dict:
        """The profile as JSON-ready data, without its checksum."""
        return {"format": FORMAT, "version": VERSION, "namer_sha256": self.namer_sha256,
                "feature_output": self.feature_output, "cards": list(self.cards),
                "mean": _floats(self.mean), "scale": _floats(self.scale),
                "weights": _floats(self.weights), "bias": _floats(self.bias),
                "prototypes": _floats(self.prototypes), "radius": _floats(self.radius),
                "other": self.other, "teaching": self.teaching or {},
                **({} if self.misread is None else {"misread": list(self.misread)})}

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
                               f"gintray reads version {VERSION}")
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
            other=bool(data["other"]),
            misread=None if data.get("misread") is None else tuple(data["misread"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise DeckProfileError(f"deck profile {where} is incomplete ({exc})") from None
