"""Deterministic image perturbations for the detector's robustness sweep
(`benchmarks/bench_robustness.py`).

Each perturbation takes a BGR uint8 frame and its labelled boxes (N x 4, x1, y1, x2, y2 in
pixels, pixel i spanning [i, i + 1)) and returns the perturbed frame and the boxes where the same
corner indices now lie. Photometric ones leave the boxes alone; geometric ones move them with the
same matrix that moved the pixels. Anything random draws from a generator seeded by the caller
(`seed_for`), so a sweep is the same on every run.

Light is modelled in linear light: exposure gain, white balance, defocus and motion blur and the
lens blur after upscaling decode sRGB, work on linear values and encode again; gamma and JPEG
work on the 8-bit values, as a camera's tone curve and encoder do.

- gamma: out = 255 (in / 255) ** gamma (2.2 darkens, 0.4 brightens); 1.0 is the identity.
- gain: linear-light exposure times (1 + gain), clipped at white; 0 is the identity.
- white balance: a camera balanced for 6500 K under a Planckian light of T kelvin. The light's
  colour is Tanner Helland's fit of Mitchell Charity's blackbody sRGB table; per-channel gains
  are its linear RGB over that of 6500 K, scaled so white keeps its Rec. 709 luminance.
- defocus: a disk point-spread function of a given radius (anti-aliased by 8x supersampling).
- motion blur: a line point-spread function of a given length at a seeded angle per frame.
- JPEG: a real `cv2.imencode` / `cv2.imdecode` at the given quality.
- sensor noise: Poisson shot noise (k DN per electron) plus Gaussian read noise, on 8-bit DN.
- rotation: the whole frame turned about its centre on a canvas grown to hold it, the new
  corners filled with the median colour of the frame's border. `rotation-true-aspect` first
  brings the squeezed dev photo back to 16:9 (`unsqueeze`), so turned indices keep their shape.
- tilt: the homography K R K^-1 of a camera turned by the tilt angle about its centre (focal
  length = the frame's long side), fitted back to the frame's long side.
- resize: down with cv2.INTER_AREA; up with cv2.INTER_LANCZOS4 then a Gaussian lens blur of
  `LENS_SIGMA` source pixels (sigma = LENS_SIGMA x the upscale factor, per axis, in output px).

Boxes under a geometric transform: the ellipse inscribed in each box is sampled and mapped, and
the new box is the axis-aligned bounds of the mapped ellipse (exact for quarter turns, and
tighter than the bounds of the turned rectangle, which overstates a turned index's box).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

LENS_SIGMA = 0.4  # Gaussian lens blur after an upscale, in source pixels
ELLIPSE_POINTS = 32  # samples of a box's inscribed ellipse when mapping boxes
KELVIN_REFERENCE = 6500.0  # the camera's white balance

Boxes = np.ndarray  # N x 4 float64: x1, y1, x2, y2
TRUE_ASPECT = 16 / 9  # the shared photos' source frames, stretched to squares (real-cards README)


def seed_for(*parts: object) -> int:
    """A stable 32-bit seed from any printable parts (image name, condition label...)."""
    return zlib.crc32("|".join(str(p) for p in parts).encode())


def _as_boxes(boxes) -> Boxes:
    return np.asarray(boxes, np.float64).reshape(-1, 4)


# --- linear light -------------------------------------------------------------------------


def srgb_to_linear(image: np.ndarray) -> np.ndarray:
    """uint8 sRGB -> float32 linear light in [0, 1]."""
    v = image.astype(np.float32) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(linear: np.ndarray) -> np.ndarray:
    """float linear light (clipped to [0, 1]) -> uint8 sRGB."""
    v = np.clip(linear, 0.0, 1.0)
    s = np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(v, 1 / 2.4) - 0.055)
    return np.clip(np.rint(s * 255.0), 0, 255).astype(np.uint8)


# --- photometric ----------------------------------------------------------------------------


def gamma(image: np.ndarray, g: float) -> np.ndarray:
    """Tone curve 255 (v / 255) ** g on every channel (g > 1 darkens)."""
    if g == 1.0:
        return image.copy()
    lut = np.clip(np.rint(255.0 * (np.arange(256) / 255.0) ** g), 0, 255).astype(np.uint8)
    return cv2.LUT(image, lut)


def gain(image: np.ndarray, fraction: float) -> np.ndarray:
    """Exposure changed by `fraction` (-0.5 halves the light, +0.6 is 1.6x) in linear light,
    clipped at white."""
    if fraction == 0.0:
        return image.copy()
    return linear_to_srgb(srgb_to_linear(image) * (1.0 + fraction))


def kelvin_to_rgb(kelvin: float) -> tuple[float, float, float]:
    """sRGB colour (0-255, R, G, B) of a blackbody at `kelvin` (Tanner Helland's fit)."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    return tuple(float(min(max(c, 0.0), 255.0)) for c in (r, g, b))  # type: ignore[return-value]


def white_balance_gains(kelvin: float) -> np.ndarray:
    """Linear-light gains (B, G, R order, like the frames) for a light of `kelvin` seen by a
    camera balanced for 6500 K; white keeps its Rec. 709 luminance."""

    def linear(rgb: tuple[float, float, float]) -> np.ndarray:
        return srgb_to_linear(np.array([[rgb]], np.uint8)).reshape(3).astype(np.float64)

    ratio = linear(_rounded(kelvin_to_rgb(kelvin))) / linear(
        _rounded(kelvin_to_rgb(KELVIN_REFERENCE))
    )
    ratio /= float(np.dot([0.2126, 0.7152, 0.0722], ratio))  # white keeps its luminance
    return ratio[::-1].astype(np.float32)


def _rounded(rgb: tuple[float, float, float]) -> tuple[int, int, int]:
    return tuple(round(c) for c in rgb)  # type: ignore[return-value]


def white_balance(image: np.ndarray, kelvin: float) -> np.ndarray:
    """The frame as a 6500 K-balanced camera sees it under a `kelvin` light (clipped)."""
    if kelvin == KELVIN_REFERENCE:
        return image.copy()
    return linear_to_srgb(srgb_to_linear(image) * white_balance_gains(kelvin))


def _supersampled_kernel(draw, radius: int, factor: int = 8) -> np.ndarray:
    """A normalised (2 radius + 1)^2 kernel drawn by `draw(canvas, factor)` on a canvas
    `factor` times finer, then averaged down (anti-aliased)."""
    side = (2 * radius + 1) * factor
    canvas = np.zeros((side, side), np.float32)
    draw(canvas, factor)
    k = cv2.resize(canvas, (2 * radius + 1, 2 * radius + 1), interpolation=cv2.INTER_AREA)
    return k / k.sum()


def disk_kernel(radius: float) -> np.ndarray:
    """Anti-aliased disk point-spread function of `radius` pixels."""
    half = max(1, math.ceil(radius))

    def draw(canvas: np.ndarray, f: int) -> None:
        c = (canvas.shape[0] - 1) / 2
        yy, xx = np.mgrid[: canvas.shape[0], : canvas.shape[1]]
        canvas[(xx - c) ** 2 + (yy - c) ** 2 <= (radius * f) ** 2] = 1.0

    return _supersampled_kernel(draw, half)


def line_kernel(length: float, angle_deg: float) -> np.ndarray:
    """Anti-aliased line point-spread function `length` pixels long at `angle_deg`."""
    half = max(1, math.ceil(length / 2))

    def draw(canvas: np.ndarray, f: int) -> None:
        c = (canvas.shape[0] - 1) / 2
        dx = math.cos(math.radians(angle_deg)) * length * f / 2
        dy = -math.sin(math.radians(angle_deg)) * length * f / 2
        shift = 4  # sub-pixel precision of cv2.line
        p1 = (round((c - dx) * 2**shift), round((c - dy) * 2**shift))
        p2 = (round((c + dx) * 2**shift), round((c + dy) * 2**shift))
        cv2.line(canvas, p1, p2, 1.0, max(1, f), cv2.LINE_AA, shift)

    return _supersampled_kernel(draw, half)


def blur_linear(image: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Convolve the frame with a point-spread function in linear light."""
    out = cv2.filter2D(srgb_to_linear(image), -1, kernel, borderType=cv2.BORDER_REFLECT)
    return linear_to_srgb(out)


def defocus(image: np.ndarray, radius: float) -> np.ndarray:
    """Out of focus: a disk blur of `radius` pixels (0: the identity)."""
    return image.copy() if radius <= 0 else blur_linear(image, disk_kernel(radius))


def motion_blur(image: np.ndarray, length: float, angle_deg: float) -> np.ndarray:
    """Camera or table shake: a line blur `length` pixels long (0: the identity)."""
    return image.copy() if length <= 0 else blur_linear(image, line_kernel(length, angle_deg))


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """The frame through a real JPEG encode and decode at `quality` (OpenCV's libjpeg)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError(f"JPEG encode failed at quality {quality}")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def sensor_noise(
    image: np.ndarray, electrons_per_dn: float, read_sigma: float, rng: np.random.Generator
) -> np.ndarray:
    """Shot noise (a value v DN holds v x electrons_per_dn electrons, Poisson) plus Gaussian
    read noise of `read_sigma` DN, independent per pixel and channel, clipped to 8 bits."""
    v = image.astype(np.float64)
    if electrons_per_dn > 0:
        v = rng.poisson(v * electrons_per_dn) / electrons_per_dn
    if read_sigma > 0:
        v = v + rng.normal(0.0, read_sigma, v.shape)
    return np.clip(np.rint(v), 0, 255).astype(np.uint8)


def noise_sigma_at(value: float, electrons_per_dn: float, read_sigma: float) -> float:
    """The noise's standard deviation (DN) at a pixel value, shot and read together."""
    shot = value / electrons_per_dn if electrons_per_dn > 0 else 0.0
    return math.sqrt(shot + read_sigma**2)


# --- geometric ------------------------------------------------------------------------------


def transform_boxes(boxes, matrix: np.ndarray, shape: tuple[int, int] | None = None) -> Boxes:
    """Boxes mapped by a 2x3 affine or 3x3 homography given in pixel-index coordinates (as
    OpenCV's warps take it): each box's inscribed ellipse is sampled, mapped, and bounded.
    With `shape` (h, w) the boxes are clipped to the frame."""
    b = _as_boxes(boxes)
    if not len(b):
        return b.copy()
    m = np.asarray(matrix, np.float64)
    if m.shape == (2, 3):
        m = np.vstack([m, [0.0, 0.0, 1.0]])
    t = np.linspace(0, 2 * np.pi, ELLIPSE_POINTS, endpoint=False)
    cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
    ax, ay = (b[:, 2] - b[:, 0]) / 2, (b[:, 3] - b[:, 1]) / 2
    # continuous coordinates (pixel i spans [i, i + 1)) -> pixel centres: minus half a pixel
    px = cx[:, None] + ax[:, None] * np.cos(t) - 0.5
    py = cy[:, None] + ay[:, None] * np.sin(t) - 0.5
    pts = np.stack([px, py, np.ones_like(px)], axis=-1) @ m.T
    x, y = pts[..., 0] / pts[..., 2] + 0.5, pts[..., 1] / pts[..., 2] + 0.5
    out = np.stack([x.min(1), y.min(1), x.max(1), y.max(1)], axis=1)
    if shape is not None:
        h, w = shape
        out = np.clip(out, 0, [w, h, w, h])
    return out


def border_colour(image: np.ndarray) -> tuple[int, int, int]:
    """Median colour of the frame's outermost pixels (the table's colour, usually)."""
    edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    return tuple(int(c) for c in np.median(edge, axis=0))  # type: ignore[return-value]


def rotate(image: np.ndarray, boxes, degrees: float) -> tuple[np.ndarray, Boxes]:
    """The whole frame turned `degrees` counter-clockwise on a canvas grown to hold all of it;
    the new corners take the border's median colour. Quarter turns are exact (np.rot90)."""
    h, w = image.shape[:2]
    quarter = round(degrees / 90)
    exact = abs(degrees - quarter * 90) < 1e-9
    if exact:
        nw, nh = (h, w) if quarter % 2 else (w, h)
    else:
        a = math.radians(degrees)
        cos, sin = abs(math.cos(a)), abs(math.sin(a))
        nw, nh = math.ceil(w * cos + h * sin - 1e-6), math.ceil(w * sin + h * cos - 1e-6)
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), degrees, 1.0)
    m[:, 2] += ((nw - 1) / 2 - (w - 1) / 2, (nh - 1) / 2 - (h - 1) / 2)
    if exact:
        out = np.ascontiguousarray(np.rot90(image, quarter % 4))
    else:
        out = cv2.warpAffine(
            image,
            m,
            (nw, nh),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=border_colour(image),
        )
    return out, transform_boxes(boxes, m, out.shape[:2])


def unsqueeze(image: np.ndarray, boxes, aspect: float = TRUE_ASPECT) -> tuple[np.ndarray, Boxes]:
    """A frame squeezed to any shape (the dev photos: 16:9 webcam frames stretched to 640x640)
    back at its true `aspect`, widened with cv2.INTER_LANCZOS4 (undoing an exporter's resize,
    so no lens blur); boxes scaled with it."""
    h, w = image.shape[:2]
    nw = round(h * aspect)
    if nw == w:
        return image.copy(), _as_boxes(boxes).copy()
    out = cv2.resize(image, (nw, h), interpolation=cv2.INTER_LANCZOS4)
    return out, _as_boxes(boxes) * [nw / w, 1, nw / w, 1]


def rotate_true_aspect(
    image: np.ndarray, boxes, degrees: float, aspect: float = TRUE_ASPECT
) -> tuple[np.ndarray, Boxes]:
    """`rotate` of the frame brought back to its true aspect first (`unsqueeze`): a camera
    turned on its axis sees the cards' true shapes turned, not a squeezed frame turned (which
    shears every index). At 0 degrees, the unsqueezed frame as a webcam would deliver it."""
    wide, b = unsqueeze(image, boxes, aspect)
    return rotate(wide, b, degrees) if degrees % 360 else (wide, b)


def tilt_homography(
    shape: tuple[int, int], degrees: float, axis: str = "x", focal: float | None = None
) -> tuple[np.ndarray, tuple[int, int]]:
    """Homography (pixel-index coordinates) of the camera turned `degrees` about its x axis
    (the top of the table recedes) or y axis (its left side recedes), and the output size
    (w, h) that holds the whole warped frame with its long side kept."""
    h, w = shape
    f = float(focal or max(h, w))
    k = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        r = np.array([[1, 0, 0], [0, c, s], [0, -s, c]])
    elif axis == "y":
        r = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    else:
        raise ValueError(f"tilt axis must be 'x' or 'y', not {axis!r}")
    hom = k @ r @ np.linalg.inv(k)
    corners = np.array([[0, 0, 1], [w - 1, 0, 1], [w - 1, h - 1, 1], [0, h - 1, 1]], float)
    warped = corners @ hom.T
    xy = warped[:, :2] / warped[:, 2:]
    lo, hi = xy.min(0), xy.max(0)
    scale = (max(h, w) - 1) / max(hi - lo)
    fit = np.array([[scale, 0, -lo[0] * scale], [0, scale, -lo[1] * scale], [0, 0, 1]])
    span = np.floor((hi - lo) * scale).astype(int) + 1
    size = (int(span[0]), int(span[1]))
    return fit @ hom, size


def tilt(
    image: np.ndarray, boxes, degrees: float, axis: str = "x", focal: float | None = None
) -> tuple[np.ndarray, Boxes]:
    """Perspective: the frame as a camera tilted by `degrees` sees it (see tilt_homography)."""
    if degrees == 0:
        return image.copy(), _as_boxes(boxes).copy()
    hom, size = tilt_homography(image.shape[:2], degrees, axis, focal)
    out = cv2.warpPerspective(
        image,
        hom,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=border_colour(image),
    )
    return out, transform_boxes(boxes, hom, out.shape[:2])


def resize(image: np.ndarray, boxes, size: tuple[int, int]) -> tuple[np.ndarray, Boxes]:
    """The frame resampled to `size` (w, h), boxes scaled with it.

    Down (both axes shrink or stay): cv2.INTER_AREA. Up: cv2.INTER_LANCZOS4, then a Gaussian
    lens blur of LENS_SIGMA source pixels along each enlarged axis, in linear light (a real
    lens at the higher resolution does not add the detail the source lacks).
    """
    h, w = image.shape[:2]
    nw, nh = size
    sx, sy = nw / w, nh / h
    b = _as_boxes(boxes) * [sx, sy, sx, sy]
    if (nw, nh) == (w, h):
        return image.copy(), b
    if sx <= 1 and sy <= 1:
        return cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA), b
    out = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LANCZOS4)
    sig_x, sig_y = LENS_SIGMA * max(sx, 0.0), LENS_SIGMA * max(sy, 0.0)
    sig_x, sig_y = (sig_x if sx > 1 else 0.01), (sig_y if sy > 1 else 0.01)
    lin = cv2.GaussianBlur(srgb_to_linear(out), (0, 0), sigmaX=sig_x, sigmaY=sig_y)
    return linear_to_srgb(lin), b


def scale(image: np.ndarray, boxes, factor: float) -> tuple[np.ndarray, Boxes]:
    """The frame scaled by `factor` on both axes (see `resize` for how)."""
    h, w = image.shape[:2]
    return resize(image, boxes, (max(1, round(w * factor)), max(1, round(h * factor))))


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    """Peak signal-to-noise ratio (dB) of two uint8 frames (inf when equal)."""
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return float("inf") if mse == 0 else 10 * math.log10(255.0**2 / mse)


# --- the sweep ------------------------------------------------------------------------------

Apply = Callable[[np.ndarray, Boxes, str], tuple[np.ndarray, Boxes]]


@dataclass(frozen=True)
class Condition:
    """One point of the sweep: `apply(image, boxes, name)` -> (image, boxes); `name` (the
    photo's file name) seeds anything random, so every run perturbs a photo alike."""

    family: str
    label: str
    value: float  # the x of the plot
    apply: Apply = field(compare=False, repr=False)


DEV_INDEX_WIDTH = 22.0  # median corner-index box width on the 640 px dev frames (px)
NOISE_LEVELS = ((4.0, 1.0), (2.0, 2.0), (1.0, 3.0))  # (electrons per DN, read sigma DN)
FRAME_SIZES = ((640, 480), (1280, 960), (1920, 1440), (2592, 1944), (4056, 3040))
#: a cheap webcam over a whole table: index boxes this wide (px), then JPEG or sensor noise
SMALL_INDEX = 14.0

SWEEP_POINTS: dict[str, tuple[float, ...]] = {
    "gamma": (0.4, 0.55, 0.7, 1.5, 2.0, 2.5),
    "gain": (-0.5, -0.35, -0.2, 0.2, 0.4, 0.6),
    "white-balance": (3000, 3500, 4500, 5500, 7500),
    "defocus": (1, 2, 3),
    "motion-blur": (5, 9, 15),
    "jpeg": (30, 50, 70, 95),
    "noise": tuple(float(i) for i in range(len(NOISE_LEVELS))),
    "rotation": (30, 45, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330),
    "rotation-true-aspect": (0, 30, 45, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330),
    "tilt-x": (10, 15, 20, 25),
    "tilt-y": (10, 15, 20, 25),
    "index-size": (12, 16, 20, 30, 45, 60, 90, 120),
    "frame-size": tuple(float(w) for w, _ in FRAME_SIZES),
    # at SMALL_INDEX; the first point of each (0: no JPEG, -1: no noise) is its reference
    "small-jpeg": (0, 70, 50, 30),
    "small-noise": (-1.0, *(float(i) for i in range(len(NOISE_LEVELS)))),
}
FAMILIES = tuple(SWEEP_POINTS)


def _photometric(fn: Callable[[np.ndarray], np.ndarray]) -> Apply:
    return lambda image, boxes, name: (fn(image), _as_boxes(boxes).copy())


def _index_scale(target: float) -> Apply:
    def apply(image: np.ndarray, boxes: Boxes, name: str) -> tuple[np.ndarray, Boxes]:
        b = _as_boxes(boxes)
        width = float(np.median(b[:, 2] - b[:, 0])) if len(b) else DEV_INDEX_WIDTH
        return scale(image, b, target / width)

    return apply


def _small(then: Callable[[np.ndarray], np.ndarray] | int | None) -> Apply:
    """Scale to SMALL_INDEX, then a photometric change (or a noise level by number)."""
    def apply(image: np.ndarray, boxes: Boxes, name: str) -> tuple[np.ndarray, Boxes]:
        image, boxes = _index_scale(SMALL_INDEX)(image, boxes, name)
        if isinstance(then, int):
            return _noise(then)(image, boxes, name)
        return (then(image) if then is not None else image), boxes

    return apply


def _motion(length: float) -> Apply:
    def apply(image: np.ndarray, boxes: Boxes, name: str) -> tuple[np.ndarray, Boxes]:
        angle = np.random.default_rng(seed_for(name, "motion-angle")).uniform(0.0, 180.0)
        return motion_blur(image, length, float(angle)), _as_boxes(boxes).copy()

    return apply


def _noise(level: int) -> Apply:
    e, read = NOISE_LEVELS[level]

    def apply(image: np.ndarray, boxes: Boxes, name: str) -> tuple[np.ndarray, Boxes]:
        rng = np.random.default_rng(seed_for(name, "noise", level))
        return sensor_noise(image, e, read, rng), _as_boxes(boxes).copy()

    return apply


def condition(family: str, value: float) -> Condition:
    """The sweep point `value` of `family` (see SWEEP_POINTS for the units)."""
    v = float(value)
    if family == "gamma":
        return Condition(family, f"gamma {v:g}", v, _photometric(lambda im: gamma(im, v)))
    if family == "gain":
        return Condition(family, f"gain {v:+.0%}", v, _photometric(lambda im: gain(im, v)))
    if family == "white-balance":
        return Condition(family, f"{v:.0f} K", v, _photometric(lambda im: white_balance(im, v)))
    if family == "defocus":
        return Condition(family, f"defocus r={v:g} px", v, _photometric(lambda im: defocus(im, v)))
    if family == "motion-blur":
        return Condition(family, f"motion {v:g} px", v, _motion(v))
    if family == "jpeg":
        return Condition(family, f"JPEG q{v:.0f}", v, _photometric(lambda im: jpeg(im, int(v))))
    if family == "noise":
        e, read = NOISE_LEVELS[int(v)]
        sigma = noise_sigma_at(128, e, read)
        label = f"noise {e:g} e-/DN + read {read:g} (sigma {sigma:.1f} DN at 128)"
        return Condition(family, label, sigma, _noise(int(v)))
    if family == "rotation":
        return Condition(family, f"rotate {v:g} deg", v, lambda im, b, n: rotate(im, b, v))
    if family == "rotation-true-aspect":
        label = f"16:9, rotate {v:g} deg"
        return Condition(family, label, v, lambda im, b, n: rotate_true_aspect(im, b, v))
    if family in ("tilt-x", "tilt-y"):
        axis = family[-1]
        label = f"tilt {v:g} deg ({'top' if axis == 'x' else 'left side'} recedes)"
        return Condition(family, label, v, lambda im, b, n: tilt(im, b, v, axis))
    if family == "index-size":
        return Condition(family, f"index {v:g} px wide", v, _index_scale(v))
    if family == "small-jpeg":
        label = f"index {SMALL_INDEX:g} px, " + (f"JPEG q{v:.0f}" if v else "no JPEG")
        return Condition(family, label, v, _small(
            (lambda im: jpeg(im, int(v))) if v else None))
    if family == "small-noise":
        level = int(v)
        noise = "no noise" if level < 0 else "noise {:g} e-/DN + read {:g}".format(
            *NOISE_LEVELS[level])
        label = f"index {SMALL_INDEX:g} px, {noise}"
        return Condition(family, label, v, _small(None if level < 0 else level))
    if family == "frame-size":
        w, h = next(s for s in FRAME_SIZES if s[0] == v)
        return Condition(family, f"frame {w}x{h}", v, lambda im, b, n: resize(im, b, (w, h)))
    raise ValueError(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")


def untouched() -> Condition:
    """The reference point: the photo as it is."""
    return Condition("untouched", "untouched", 0.0, _photometric(lambda im: im))


def sweep(families: tuple[str, ...] = FAMILIES, max_points: int | None = None) -> list[Condition]:
    """The sweep's points, family by family; `max_points` keeps at most that many per family,
    evenly spread and always both ends."""
    out = []
    for family in families:
        points = SWEEP_POINTS[family]
        if max_points and len(points) > max_points:
            idx = np.unique(np.round(np.linspace(0, len(points) - 1, max_points)).astype(int))
            points = tuple(points[i] for i in idx)
        out += [condition(family, p) for p in points]
    return out
