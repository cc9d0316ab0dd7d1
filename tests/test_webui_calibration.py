"""Calibration by the director: areas drawn on the picture, or found from the printed markers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from webui_helpers import Tablet, csrf_token, director_client, make_app

from webui.table.camera_feed import TableCamera

DEMO = Path(__file__).resolve().parents[1] / "vision" / "demo"


def camera_shown(app, tmp_path, footage, **options) -> TableCamera:
    """Table 1's camera has played ``footage`` (a folder) to its end; ``options`` go to
    `TableCamera` (a detector, a layout)."""
    feed = TableCamera(app.extensions["gintray"].store, 1, f"replay:{footage}?fps=0", tmp_path,
                       app.extensions["gintray"].notifier.publish, **options)
    app.extensions["gintray"].cameras[1] = feed
    feed.start()
    feed.thread.join(timeout=60)
    assert feed.latest_frame() is not None
    return feed


@pytest.fixture
def app_with_picture(tmp_path):
    """Table 1's camera has shown the first frames of the demo (all six markers in view)."""
    app = make_app(tmp_path)
    footage = tmp_path / "footage"
    footage.mkdir()
    for frame in sorted((DEMO / "hand").glob("*.jpg"))[:3]:
        shutil.copy(frame, footage / frame.name)
    camera_shown(app, tmp_path, footage)
    return app


def test_only_the_director_calibrates(app_with_picture):
    tablet = Tablet(app_with_picture, remote="192.168.1.9")
    assert tablet.client.get("/director/tables/1/calibrate/").status_code == 403
    assert tablet.post("../../../director/tables/1/calibrate/", {}).status_code in (403, 404)


def test_layout_drawn_on_the_picture_is_saved_and_recorded(app_with_picture, tmp_path):
    director = director_client(app_with_picture)
    page = director.get("/director/tables/1/calibrate/").get_data(as_text=True)
    assert "Up-card slot" in page
    frame = director.get("/director/tables/1/calibrate/frame.jpg")
    assert frame.data[:2] == b"\xff\xd8"
    token = csrf_token(director, "/director/")
    body = {"up_card_slot": [[436, 206], [524, 206], [524, 334], [436, 334]],
            "areas": {"A": [[0, 340], [960, 340], [960, 540], [0, 540]],
                      "B": [[0, 0], [960, 0], [960, 200], [0, 200]]},
            "image_size": [960, 540]}
    r = director.post("/director/tables/1/calibrate/", json=body,
                      headers={"X-CSRFToken": token})
    assert r.status_code == 200, r.get_json()
    saved = json.loads(Path(r.get_json()["path"]).read_text())
    assert saved["areas"]["A"][0] == [0.0, 340.0]
    assert saved["mirrored"] is False and r.get_json()["notice"] == ""
    assert saved["markers"]  # the demo table's markers, to find the layout again
    state = app_with_picture.extensions["gintray"].store.state(1)
    assert state.layout == r.get_json()["path"]
    events = app_with_picture.extensions["gintray"].store.events(1)
    assert events[-1].kind == "settings_changed" and events[-1].actor == "director"


def test_layout_from_the_markers_and_bad_layouts(app_with_picture):
    director = director_client(app_with_picture)
    token = csrf_token(director, "/director/")
    r = director.post("/director/tables/1/calibrate/", json={"from_markers": True},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 200, r.get_json()
    assert set(r.get_json()["layout"]["areas"]) == {"A", "B"}
    r = director.post("/director/tables/1/calibrate/",
                      json={"up_card_slot": [[1, 1], [2, 2]], "areas": {"A": []}},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "bad_layout"
    r = director.post("/director/tables/1/calibrate/", json={"from_markers": True})
    assert r.status_code == 400  # no CSRF token


def test_a_mirrored_picture_is_found_at_calibration_and_flipped_back(tmp_path):
    """A camera set to flip its picture (the demo's spreads, mirrored): saving the marks drawn
    on it turns the layout's ``mirrored`` on, flips the marks with the picture and says so;
    the camera, started again with that layout, shows the table the right way round."""
    import cv2

    from vision.inference.detector import load_detector

    app = make_app(tmp_path)
    footage = tmp_path / "footage"
    footage.mkdir()
    last = DEMO / "hand" / "frame_065.jpg"  # both spreads on the table, layoffs made
    cv2.imwrite(str(footage / last.name), cv2.flip(cv2.imread(str(last)), 1))
    feed = camera_shown(app, tmp_path, footage, detector=load_detector())
    director = director_client(app)
    token = csrf_token(director, "/director/")
    body = {"up_card_slot": [[436, 206], [524, 206], [524, 334], [436, 334]],
            "areas": {"A": [[0, 340], [600, 340], [600, 540], [0, 540]],
                      "B": [[0, 0], [960, 0], [960, 200], [0, 200]]},
            "image_size": [960, 540]}
    r = director.post("/director/tables/1/calibrate/", json=body,
                      headers={"X-CSRFToken": token})
    assert r.status_code == 200, r.get_json()
    answer = r.get_json()
    assert "mirror image" in answer["notice"] and answer["layout"]["mirrored"] is True
    assert sorted(x for x, _ in answer["layout"]["areas"]["A"]) == [360, 360, 960, 960]
    shown = camera_shown(app, tmp_path, footage, layout=answer["path"],
                         detector=feed.detector).latest_frame()
    assert cv2.norm(shown, cv2.imread(str(last)), cv2.NORM_L1) < cv2.norm(
        shown, cv2.imread(str(footage / last.name)), cv2.NORM_L1)
