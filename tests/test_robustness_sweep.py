"""The robustness sweep's perturbations (`vision.training.perturb`) do what they say; no detector
runs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.training import perturb as P


def scene() -> tuple[np.ndarray, np.ndarray]:
    """A textured frame with three white 'cards', each with a dark mark at a labelled box."""
    w, h = 320, 240
    rng = np.random.default_rng(7)
    base = cv2.resize(rng.integers(40, 120, (h // 8, w // 8, 3), dtype=np.uint8), (w, h))
    ramp = np.linspace(0, 60, w)[None, :, None]
    img = np.clip(base + ramp, 0, 255).astype(np.uint8)
    boxes = []
    for i, (x, y) in enumerate([(30, 40), (150, 60), (220, 150)]):
        cv2.rectangle(img, (x, y), (x + 60, y + 80), (235, 235, 235), -1)
        cv2.putText(
            img, "7Q"[i % 2], (x + 6, y + 24), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2
        )
        boxes.append((x + 4, y + 4, x + 26, y + 30))
    return img, np.array(boxes, np.float64)


def marker_frame(w: int, h: int, box: tuple[int, int, int, int]) -> np.ndarray:
    """Black frame, white exactly inside `box` (to find where a box's pixels go)."""
    img = np.zeros((h, w, 3), np.uint8)
    x1, y1, x2, y2 = box
    img[y1:y2, x1:x2] = 255
    return img


def centroid(img: np.ndarray) -> tuple[float, float]:
    """Centre of mass (continuous coordinates) of a frame's brightness."""
    g = img[..., 0].astype(np.float64)
    ys, xs = np.mgrid[: g.shape[0], : g.shape[1]]
    return float((g * (xs + 0.5)).sum() / g.sum()), float((g * (ys + 0.5)).sum() / g.sum())


def test_identities() -> None:
    img, boxes = scene()
    for cond in (
        P.condition("gamma", 1.0),
        P.condition("gain", 0.0),
        P.condition("white-balance", 6500),
        P.untouched(),
    ):
        out, moved = cond.apply(img, boxes, "a.jpg")
        assert np.array_equal(out, img), cond.label
        assert np.array_equal(moved, boxes)
    out, moved = P.rotate(img, boxes, 0)
    assert np.array_equal(out, img) and np.allclose(moved, boxes)
    out, moved = P.resize(img, boxes, (img.shape[1], img.shape[0]))
    assert np.array_equal(out, img) and np.allclose(moved, boxes)


def test_exposure_and_white_balance_directions() -> None:
    img, _ = scene()
    mean = float(img.mean())
    assert P.gamma(img, 2.2).mean() < mean < P.gamma(img, 0.4).mean()
    assert P.gain(img, -0.5).mean() < mean < P.gain(img, 0.6).mean()
    assert P.gain(img, 0.6).max() == 255  # clipped, not wrapped
    warm, cold = P.white_balance(img, 3000), P.white_balance(img, 7500)
    ratio = [float(im[..., 2].mean() / im[..., 0].mean()) for im in (cold, img, warm)]
    assert ratio[0] < ratio[1] < ratio[2]  # red over blue grows as the light warms
    assert np.allclose(P.white_balance_gains(6500), 1.0)


def test_rotation_90_moves_box_to_the_card() -> None:
    img, boxes = scene()
    out, moved = P.rotate(img, boxes, 90)
    assert out.shape == (img.shape[1], img.shape[0], 3)
    for before, after in zip(boxes.astype(int), moved, strict=True):
        x1, y1, x2, y2 = before
        a = np.rint(after).astype(int)
        assert np.allclose(after, a)  # quarter turns map boxes onto whole pixels
        patch = img[y1:y2, x1:x2]
        assert np.array_equal(out[a[1] : a[3], a[0] : a[2]], np.rot90(patch))


@pytest.mark.parametrize("degrees", [30, 45, 137, 270, 330])
def test_rotation_box_follows_the_pixels(degrees: float) -> None:
    box = (100, 60, 130, 110)
    frame = marker_frame(320, 240, box)
    out, moved = P.rotate(frame, np.array([box], float), degrees)
    cx, cy = centroid(out)
    ((x1, y1, x2, y2),) = moved
    assert abs((x1 + x2) / 2 - cx) < 0.6 and abs((y1 + y2) / 2 - cy) < 0.6
    assert 0 <= x1 < x2 <= out.shape[1] and 0 <= y1 < y2 <= out.shape[0]
    # the moved box holds most of the marker: it bounds the box's inscribed ellipse, so a
    # turned rectangle's corners stick out (an index's glyphs do not fill its box's corners)
    inside = out[int(y1) : int(np.ceil(y2)), int(x1) : int(np.ceil(x2)), 0].sum()
    assert inside >= 0.8 * out[..., 0].sum()


@pytest.mark.parametrize("degrees", [0, 45, 90])
def test_rotation_true_aspect_widens_then_turns(degrees: float) -> None:
    box = (100, 60, 130, 110)
    frame = marker_frame(320, 320, box)
    out, moved = P.rotate_true_aspect(frame, np.array([box], float), degrees)
    if degrees == 0:
        assert out.shape[:2] == (320, 569)
        assert np.allclose(moved, [[100 * 569 / 320, 60, 130 * 569 / 320, 110]])
    cx, cy = centroid(out)
    ((x1, y1, x2, y2),) = moved
    assert abs((x1 + x2) / 2 - cx) < 0.6 and abs((y1 + y2) / 2 - cy) < 0.6


def test_jpeg_quality_lowers_psnr_monotonically() -> None:
    img, _ = scene()
    values = [P.psnr(img, P.jpeg(img, q)) for q in (30, 50, 70, 95)]
    assert values == sorted(values) and values[0] < values[-1] - 3


@pytest.mark.parametrize("axis", ["x", "y"])
def test_tilt_keeps_boxes_in_frame_and_on_their_pixels(axis: str) -> None:
    w, h = 320, 240
    corner_boxes = [(0, 0, 20, 30), (w - 20, 0, w, 30), (w - 20, h - 30, w, h), (0, h - 30, 20, h)]
    for degrees in P.SWEEP_POINTS[f"tilt-{axis}"]:
        out, moved = P.tilt(
            np.zeros((h, w, 3), np.uint8), np.array(corner_boxes, float), degrees, axis
        )
        oh, ow = out.shape[:2]
        assert max(oh, ow) == max(h, w)
        assert (
            np.all(moved >= 0) and np.all(moved[:, [0, 2]] <= ow) and np.all(moved[:, [1, 3]] <= oh)
        )
        assert np.all(moved[:, 2] > moved[:, 0]) and np.all(moved[:, 3] > moved[:, 1])
        box = (140, 100, 170, 140)
        marked, (mb,) = P.tilt(marker_frame(w, h, box), np.array([box], float), degrees, axis)
        cx, cy = centroid(marked)
        assert abs((mb[0] + mb[2]) / 2 - cx) < 1.0 and abs((mb[1] + mb[3]) / 2 - cy) < 1.0
    hom, _ = P.tilt_homography((h, w), 25, axis)
    top, bottom = hom @ [0, 0, 1], hom @ [0, h - 1, 1]
    assert (top[2] > bottom[2]) == (axis == "x")  # the receding side is the far one


def test_blur_noise_and_seeds() -> None:
    img, boxes = scene()
    sharp = cv2.Laplacian(img, cv2.CV_64F).var()
    assert cv2.Laplacian(P.defocus(img, 2), cv2.CV_64F).var() < 0.5 * sharp
    assert cv2.Laplacian(P.motion_blur(img, 9, 30), cv2.CV_64F).var() < 0.5 * sharp
    for k in (P.disk_kernel(1.5), P.line_kernel(9, 30)):
        assert abs(k.sum() - 1) < 1e-5
    noisy = P.condition("noise", 1)
    a, _ = noisy.apply(img, boxes, "a.jpg")
    b, _ = noisy.apply(img, boxes, "a.jpg")
    c, _ = noisy.apply(img, boxes, "b.jpg")
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    measured = float((a.astype(float) - img).std())
    assert 0.5 * P.noise_sigma_at(20, 2.0, 2.0) < measured < 2 * P.noise_sigma_at(255, 2.0, 2.0)
    blur = P.condition("motion-blur", 9)
    assert np.array_equal(blur.apply(img, boxes, "a.jpg")[0], blur.apply(img, boxes, "a.jpg")[0])


def test_scaling() -> None:
    img, boxes = scene()
    up, up_boxes = P.resize(img, boxes, (640, 480))
    assert up.shape == (480, 640, 3) and np.allclose(up_boxes, boxes * 2)
    down, down_boxes = P.resize(img, boxes, (160, 120))
    assert down.shape == (120, 160, 3) and np.allclose(down_boxes, boxes / 2)
    for target in (12, 45):
        out, moved = P.condition("index-size", target).apply(img, boxes, "a.jpg")
        assert abs(float(np.median(moved[:, 2] - moved[:, 0])) - target) < 0.5
        assert abs(out.shape[1] / img.shape[1] - target / 22) < 0.02


def test_every_sweep_point_runs() -> None:
    img, boxes = scene()
    img, boxes = cv2.resize(img, (96, 72), interpolation=cv2.INTER_AREA), boxes * 0.3
    points = P.sweep(tuple(f for f in P.FAMILIES if f != "frame-size"))
    assert len({p.label for p in points}) == len(points)
    for cond in points:
        out, moved = cond.apply(img, boxes, "a.jpg")
        assert out.dtype == np.uint8 and out.ndim == 3 and moved.shape == boxes.shape, cond.label
    assert [p.value for p in P.sweep(("rotation",), max_points=3)] == [30, 180, 330]
