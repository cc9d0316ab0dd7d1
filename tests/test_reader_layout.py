"""Table layout: save/load, bad files, and re-finding the layout from printed ArUco markers."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from reader_helpers import table_layout

from vision.inference.detection import Detections
from vision.table.layout import (
    LayoutError,
    TableLayout,
    layout_from_markers,
    load_layout,
    save_layout,
)
from vision.table.markers import detect_markers, marker_image, marker_sheet

W, H = 1280, 900
MARKER = 70
# where each marker's top-left lies on the synthetic table (ids 0-3 corners, 4-5 tray)
PLACES = {0: (30, 30), 1: (W - 30 - MARKER, 30), 2: (W - 30 - MARKER, H - 30 - MARKER),
          3: (30, H - 30 - MARKER), 4: (450, 405), 5: (760, 405)}


def _table_with_markers() -> np.ndarray:
    image = np.zeros((H, W, 3), np.uint8)
    image[:] = (40, 110, 40)  # green felt
    for marker_id, (x, y) in PLACES.items():
        pad = 12
        image[y - pad:y + MARKER + pad, x - pad:x + MARKER + pad] = 255  # printed white margin
        image[y:y + MARKER, x:x + MARKER] = cv2.cvtColor(marker_image(marker_id, MARKER),
                                                        cv2.COLOR_GRAY2BGR)
    return image


def _bump() -> np.ndarray:
    """A camera knocked a little: rotated 4 degrees, shifted, slightly closer."""
    matrix = cv2.getRotationMatrix2D((W / 2, H / 2), 4.0, 1.04)
    matrix[:, 2] += (25, -18)
    return np.vstack([matrix, [0, 0, 1]])


def test_layout_round_trips_through_json(tmp_path):
    layout = table_layout()
    save_layout(layout, tmp_path / "t" / "layout.json")
    assert load_layout(tmp_path / "t" / "layout.json") == layout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "JSON object"),
        ('{"areas": {}}', "up_card_slot"),
        ('{"up_card_slot": [[0,0],[1,0]], "areas": {"A": [[0,0],[9,0],[9,9]]}}', "at least 3"),
        ('{"up_card_slot": [[0,0],[9,0],[9,9]], "areas": {}}', "player area"),
        ('{"up_card_slot": [[0,0],[9,0],[18,0]], "areas": {"A": [[0,0],[9,0],[9,9]]}}',
         "no area"),
    ],
)
def test_bad_layout_files_are_clear_errors(tmp_path, content, message):
    path = tmp_path / "layout.json"
    path.write_text(content)
    with pytest.raises(LayoutError, match=message):
        load_layout(path)


def test_missing_layout_file_is_a_clear_error(tmp_path):
    with pytest.raises(LayoutError, match="does not exist"):
        load_layout(tmp_path / "nope.json")


def test_regions_of_points():
    layout = table_layout()
    assert layout.region_of((640, 440)) == "up_card"
    assert layout.region_of((100, 700)) == "A"
    assert layout.region_of((100, 100)) == "B"
    assert layout.region_of((100, 310)) is None


def test_markers_are_found_where_they_were_printed():
    found = detect_markers(_table_with_markers())
    assert sorted(found) == [0, 1, 2, 3, 4, 5]
    for marker_id, (x, y) in PLACES.items():
        assert np.allclose(found[marker_id][0], (x, y), atol=1.5)


def test_layout_follows_the_markers_after_the_camera_is_bumped(tmp_path):
    reference = _table_with_markers()
    seen = detect_markers(reference)
    manual = table_layout()
    layout = TableLayout(manual.up_card_slot, manual.areas, (W, H),
                         {i: [tuple(map(float, p)) for p in c] for i, c in seen.items()})
    save_layout(layout, tmp_path / "layout.json")
    layout = load_layout(tmp_path / "layout.json")
    bump = _bump()
    bumped = cv2.warpPerspective(reference, bump, (W, H), borderValue=(40, 110, 40))
    placed, by_markers = layout.locate(bumped)
    assert by_markers
    expected = cv2.perspectiveTransform(
        np.asarray(manual.up_card_slot, np.float32).reshape(-1, 1, 2), bump).reshape(-1, 2)
    assert np.abs(np.asarray(placed.up_card_slot) - expected).max() < 3.0
    # a card lying in A's area on the bumped table is still found in A's area
    point = cv2.perspectiveTransform(np.float32([[[300, 700]]]), bump)[0, 0]
    assert placed.region_of(tuple(point)) == "A"
    assert layout.region_of(tuple(point)) == "A"  # sanity: near the middle anyway
    edge = cv2.perspectiveTransform(np.float32([[[710, 550]]]), bump)[0, 0]
    assert placed.region_of(tuple(edge)) == "up_card"
    assert layout.region_of(tuple(edge)) != "up_card"  # the stale layout would miss it


def test_without_markers_the_manual_layout_is_used_and_scaled():
    layout = table_layout()
    placed, by_markers = layout.locate(np.zeros((450, 640, 3), np.uint8))
    assert not by_markers
    assert placed.up_card_slot[0] == pytest.approx((280, 160))


def test_layout_from_markers_alone_places_slot_between_the_tray_markers():
    layout = layout_from_markers(_table_with_markers())
    assert layout.region_of((640, 440)) == "up_card"
    assert layout.region_of((640, 800)) == "A"
    assert layout.region_of((640, 120)) == "B"
    assert json.loads(json.dumps(layout.to_json()))["markers"].keys() == {"0", "1", "2", "3",
                                                                          "4", "5"}


def test_printable_marker_sheet_holds_all_six_markers(tmp_path):
    sheet = marker_sheet(tmp_path / "sheet.png", dpi=100)
    assert (tmp_path / "sheet.png").stat().st_size > 0
    assert sheet.shape == (round(297 * 100 / 25.4), round(210 * 100 / 25.4))
    assert sorted(detect_markers(sheet)) == [0, 1, 2, 3, 4, 5]


def test_markers_at_the_very_edge_of_the_picture_are_found():
    image = np.full((300, 400, 3), (40, 110, 40), np.uint8)
    image[0:40, 0:40] = cv2.cvtColor(marker_image(0, 40), cv2.COLOR_GRAY2BGR)  # no quiet zone
    image[255:295, 355:395] = cv2.cvtColor(marker_image(2, 40), cv2.COLOR_GRAY2BGR)
    found = detect_markers(image)
    assert sorted(found) == [0, 2]
    assert np.allclose(found[0][0], (0, 0), atol=1.5)


def test_reader_keeps_the_last_marker_placement_while_markers_are_covered():
    """After a bump, a frame whose markers are hidden must not fall back to the old layout."""
    from vision.table.reader import TableReader

    reference = _table_with_markers()
    seen = detect_markers(reference)
    manual = table_layout()
    layout = TableLayout(manual.up_card_slot, manual.areas, (W, H),
                         {i: [tuple(map(float, p)) for p in c] for i, c in seen.items()})
    bumped = cv2.warpPerspective(reference, _bump(), (W, H), borderValue=(40, 110, 40))
    covered = np.zeros_like(bumped)  # a sleeve over the lens: no marker visible

    class NoCards:
        def detect(self, image):
            return Detections()

    reader = TableReader(NoCards(), layout)
    reader.feed(bumped)
    after_bump = reader._placed.up_card_slot
    reader.feed(covered)
    assert reader._placed.up_card_slot == after_bump
    assert np.abs(np.asarray(after_bump) - np.asarray(manual.up_card_slot)).max() > 10


def test_a_layout_can_ask_for_enlarged_native_scale_detection(tmp_path):
    from vision.inference.detector import CardDetector
    from vision.inference.tiling import DetectorSettings, configured

    data = table_layout().to_json() | {"detector_scale": 2.0}
    (tmp_path / "layout.json").write_text(json.dumps(data))
    layout = load_layout(tmp_path / "layout.json")
    assert layout.detector_scale == 2.0
    settings = layout.detector_settings()
    assert settings == DetectorSettings(tile=640, enlarge=2.0)
    assert layout.detector_settings(tile=400) == DetectorSettings(tile=400, enlarge=2.0)
    detector = configured(CardDetector(object(), object()), settings)
    assert detector.settings == settings
    assert table_layout().detector_settings() == DetectorSettings()  # whole frames

    class Labels:
        frame_level = True  # answers whole frames in frame pixels: never tiled

    labels = Labels()
    assert configured(labels, settings) is labels
    (tmp_path / "bad.json").write_text(json.dumps(data | {"detector_scale": "big"}))
    with pytest.raises(LayoutError, match="detector_scale"):
        load_layout(tmp_path / "bad.json")


def test_a_marker_read_as_a_card_is_ignored():
    """Detectors sometimes name a marker's squares as a card: it must not fill the slot."""
    from reader_helpers import Detection

    from vision.table.reader import read_detections

    reference = _table_with_markers()
    seen = detect_markers(reference)
    manual = table_layout()
    wide_slot = [(440, 320), (720, 320), (720, 560), (440, 560)]  # reaches over marker 4
    layout = TableLayout(wide_slot, manual.areas, (W, H),
                         {i: [tuple(map(float, p)) for p in c] for i, c in seen.items()})
    x, y = PLACES[4]
    on_marker = Detection("8C", (x + 20, y + 20, x + 40, y + 50), 0.4)
    in_slot = Detection("7D", (600, 380, 616, 416), 0.9)
    assert read_detections([on_marker, in_slot], layout).up_card.code == "7D"
    unmarked = TableLayout(wide_slot, manual.areas, (W, H))
    assert read_detections([on_marker, in_slot], unmarked).up_card is None  # 2 cards in slot
