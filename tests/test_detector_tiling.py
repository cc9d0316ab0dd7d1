"""The one tiler (vision/inference/tiling.py): one tile layout and one rule for merging
overlapping boxes, for the native-scale tiles and the scale policy's finer pass alike."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.inference.detection import Detection, Detections, iou
from vision.inference.detector import CardDetector, FinderBox
from vision.inference.tiling import (
    SAME_IOU,
    DetectorSettings,
    Tile,
    merge_overlaps,
    read_in_tiles,
    tiles,
)


def test_tiles_cover_the_image_overlapping_and_the_last_is_flush_with_the_edge():
    layout = tiles(960, 540, 400, 0.25)
    assert {(t.x0, t.x1) for t in layout} == {(0, 400), (300, 700), (560, 960)}
    assert {(t.y0, t.y1) for t in layout} == {(0, 400), (140, 540)}
    assert tiles(300, 200, 640, 0.2) == [Tile(0, 0, 300, 200)]  # a small image is one tile


def test_a_box_is_cut_only_by_an_inner_tile_edge():
    middle = Tile(300, 0, 700, 400)
    assert middle.cuts((0, 50, 20, 80), 960, 540)  # at its left edge, inside the image
    assert middle.cuts((380, 50, 400, 80), 960, 540)
    assert not middle.cuts((100, 50, 120, 80), 960, 540)
    first = Tile(0, 0, 400, 400)
    assert not first.cuts((0, 0, 20, 30), 960, 540)  # the image's own edge cuts nothing


def test_one_corner_boxed_twice_is_kept_once_the_more_confident_box():
    seen = [Detection("7D", (100, 100, 112, 130), 0.6), Detection("7D", (101, 101, 113, 131), 0.9)]
    assert merge_overlaps(seen) == [seen[1]]
    assert merge_overlaps(seen[::-1]) == [seen[1]]


def test_two_different_cards_overlapping_are_both_kept():
    # a tight fan: the 6S index lies mostly over the 5S one's box
    five = Detection("5S", (100, 100, 112, 130), 0.9)
    six = Detection("6S", (102, 100, 114, 130), 0.8)
    assert iou(five.box, six.box) > SAME_IOU
    assert merge_overlaps([six, five]) == [five, six]


def test_unnamed_finder_boxes_overlapping_are_one_corner():
    boxes = [FinderBox((100, 100, 112, 130), 0.5), FinderBox((101, 100, 113, 130), 0.7),
             FinderBox((300, 100, 312, 130), 0.6)]
    assert merge_overlaps(boxes) == [boxes[1], boxes[2]]


def test_boxes_overlapping_by_no_more_than_the_rule_both_stay():
    a = Detection("7D", (0, 0, 10, 10), 0.9)
    b = Detection("7D", (0, 5, 10, 15), 0.8)  # IoU 1/3
    assert merge_overlaps([a, b]) == [a, b]


class Painted:
    """Finds the given corners wholly or partly inside the tile it is shown (its offset painted
    into the pixels), boxing the part it sees, as a finder boxes a cut index."""

    def __init__(self, corners):
        self.corners = corners

    def detect(self, image):
        ox, oy = int(image[0, 0, 0]) * 4, int(image[0, 0, 1]) * 4
        h, w = image.shape[:2]
        out = []
        for d in self.corners:
            x1, y1, x2, y2 = d.box
            cx1, cy1 = max(x1 - ox, 0), max(y1 - oy, 0)
            cx2, cy2 = min(x2 - ox, w), min(y2 - oy, h)
            if cx2 > cx1 and cy2 > cy1:
                out.append(Detection(d.card, (cx1, cy1, cx2, cy2), d.confidence))
        return Detections(out)


def _painted_frame():
    image = np.zeros((540, 960, 3), np.uint8)
    ys, xs = np.mgrid[0:540, 0:960]
    image[:, :, 0] = xs // 4
    image[:, :, 1] = ys // 4
    return image


def test_native_tiles_count_a_card_in_the_overlap_once_and_keep_its_neighbour():
    """Tiles of 400 px overlapping by a quarter: x 300-400 is seen by two tiles. A 5S corner
    there is counted once; the 6S whose index lies mostly over it stays; a KC cut by the first
    tile's edge is taken whole from the next."""
    corners = [Detection("5S", (340, 100, 352, 128), 0.9),
               Detection("6S", (342, 100, 354, 128), 0.8),
               Detection("KC", (392, 300, 406, 330), 0.7)]
    found = read_in_tiles(_painted_frame(), Painted(corners).detect, DetectorSettings(tile=400))
    assert sorted((d.card, d.box) for d in found) == sorted((d.card, d.box) for d in corners)


class WhiteBlobs:
    """A corner finder that boxes every white blob of the image it is shown (the part of it in
    the image), score 0.9."""

    def find(self, image):
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        contours, _ = cv2.findContours((gray > 128).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
        boxes = [(x, y, x + w, y + h) for x, y, w, h in map(cv2.boundingRect, contours)]
        return np.array(boxes, np.float32).reshape(-1, 4), np.full(len(boxes), 0.9, np.float32)


def _far_camera_frame():
    """A frame of small white indices in two rows; at the finer pass's scale some straddle a
    fine tile's edge (x 496-516 in the frame: the first tile ends at 640 work px)."""
    image = np.full((1000, 1000, 3), 60, np.uint8)
    squares = [(x, y, x + 20, y + 30) for x in range(15, 980, 37) for y in (200, 600)]
    for x1, y1, x2, y2 in squares:
        image[y1:y2, x1:x2] = 255
    return image, squares


def test_the_finer_pass_finds_every_small_corner_and_merges_it_with_the_first_pass():
    """Small indices (a far camera) send the frame through the finer pass: the frame enlarged
    and read in overlapping tiles, merged with the first pass by the tiler's rule. Every index is
    found, its box where it is."""
    image, squares = _far_camera_frame()
    detector = CardDetector(WhiteBlobs(), namer=None, normalise_light=False, max_corners=500)
    corners = detector.find_corners(image)
    for square in squares:
        assert max(iou(square, box) for box in corners.boxes) > 0.8, square


@pytest.mark.xfail(strict=True, reason="the finer pass still keeps boxes cut by a tile edge "
                   "(detector.FINE_DROPS_CUT, pinned by the doctor's reference reading)")
def test_the_finer_pass_boxes_no_corner_twice_where_a_tile_edge_cuts_it():
    """An index cut by a fine tile's edge is seen whole in the neighbouring tile; the cut view
    (under half of it: no merge by overlap) must not stay beside it as a second corner."""
    image, squares = _far_camera_frame()
    detector = CardDetector(WhiteBlobs(), namer=None, normalise_light=False, max_corners=500)
    assert len(detector.find_corners(image).boxes) == len(squares)
