"""Calibration of a table's camera (director): mark the up-card slot and each player's area on
the live picture, or compute them from the printed ArUco markers. The layout is saved in the
data dir and recorded in the table's events; the camera thread restarts with it. "Teach this
table its deck" (`webui.table.deck_teaching`): the deck laid out under the camera is found in its
latest picture, shown card by card to be checked, and its profile saved next to the layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    url_for,
)

from webui.common.durable import write_atomically
from webui.common.errors import refuse
from webui.common.refusal import Refusal
from webui.common.security import director_required, store
from webui.common.validate import json_body
from webui.store import Actor, commands
from webui.table.deck_teaching import DeckTeaching
from webui.table.parts import table_parts
from webui.table.views import page_context

bp = Blueprint("calibration", __name__, url_prefix="/director/tables/<int:table_id>/calibrate")


def _feed(table_id: int) -> Any:
    return table_parts().cameras.get(table_id)


def layout_file(table_id: int) -> Path:
    return Path(current_app.config["DATA_DIR"]) / "layouts" / f"table-{table_id}.json"


@bp.get("/")
@director_required
def page(table_id: int) -> Any:
    ctx = page_context(table_id)
    current = None
    path = _current_layout_path(table_id)
    if path is not None and path.is_file():
        current = path.read_text(encoding="utf-8")
    feed = _feed(table_id)
    from webui.table.deck_choice import table_deck_file

    deck = table_deck_file(Path(current_app.config["DATA_DIR"]), table_id)
    ctx.update(current_layout=current, has_frame=feed is not None and
               feed.latest_frame() is not None, layout_path=str(path) if path else None,
               deck_path=str(deck) if deck.is_file() else None)
    return render_template("calibrate.html", **ctx)


@bp.get("/frame.jpg")
@director_required
def frame(table_id: int) -> Response:
    """The latest camera frame without drawings."""
    import cv2

    feed = _feed(table_id)
    image = feed.latest_frame() if feed else None
    if image is None:
        refuse(404, "no camera picture yet")
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        refuse(500, "could not encode the picture")
    return Response(buf.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/")
@director_required
def save(table_id: int) -> Any:
    """Save a layout: ``{"up_card_slot", "areas": {"A", "B"}, "image_size"}`` drawn on the
    picture, or ``{"from_markers": true}`` to compute it from the six printed markers."""
    try:
        from vision.table.layout import LayoutError, TableLayout, layout_from_markers, layout_text
        from vision.table.markers import detect_markers
    except ImportError as exc:
        return jsonify({"error": {"code": "no_vision", "message": str(exc)}}), 503
    body = json_body(request.get_data(cache=True)) if request.is_json else None
    if not isinstance(body, dict):
        refuse(400, "send the layout as a JSON object")
    feed = _feed(table_id)
    image = feed.latest_frame() if feed else None
    try:
        if body.get("from_markers"):
            if image is None:
                raise LayoutError("no camera picture to find the markers in")
            layout = layout_from_markers(image, name=f"table {table_id}")
        else:
            data = {k: body.get(k) for k in ("up_card_slot", "areas", "image_size")}
            data["name"] = f"table {table_id}"
            if image is not None:  # remember the markers seen now: they find the layout again
                seen = detect_markers(image)
                data["markers"] = {str(i): c.tolist() for i, c in seen.items()}
            layout = TableLayout.from_json(data)
    except LayoutError as exc:
        return jsonify({"error": {"code": "bad_layout", "message": str(exc)}}), 400
    layout, notice = _oriented(layout, image, feed, table_id)
    path = layout_file(table_id)
    write_atomically(path, layout_text(layout))  # before the event that names it
    state = store().state(table_id)
    try:
        store().execute(table_id, commands.change_settings(
            state.name, state.players, state.rules, state.camera, str(path)), Actor("director"))
    except Refusal as exc:
        return jsonify(exc.to_json()), exc.status
    if current_app.config["START_CAMERAS"]:
        from webui.table.camera_feed import start_camera

        start_camera(current_app._get_current_object(), table_id)
    return jsonify({"ok": True, "layout": layout.to_json(), "path": str(path), "notice": notice,
                    "next": url_for("views.table_page", table_id=table_id)})


def _current_layout_path(table_id: int) -> Path | None:
    """The layout file the table's camera reads with now (None: not calibrated)."""
    from webui.table.camera_feed import layout_path_for

    state = store().state(table_id)
    return layout_path_for(state.camera or "", state.layout)


def _current_layout_mirrored(table_id: int) -> bool:
    """Whether the table's camera flips its frames now (its saved layout says so)."""
    from vision.table.layout import LayoutError, load_layout

    path = _current_layout_path(table_id)
    try:
        return path is not None and path.is_file() and load_layout(path).mirrored
    except LayoutError:
        return False


def _oriented(layout: Any, image: Any, feed: Any, table_id: int) -> tuple[Any, str]:
    """(the layout to save, what to tell the director): the camera keeps flipping its frames
    as it did, and a picture that reads clearly better as its mirror image (a camera set to
    flip it: `vision.inference.mirror`) turns that over, the marks flipped with it."""
    from dataclasses import replace

    from vision.inference.mirror import read_oriented

    layout = replace(layout, mirrored=_current_layout_mirrored(table_id))
    detector = feed.detector if feed is not None else None
    if image is None or detector is None or layout.image_size is None:
        return layout, ""
    if not read_oriented(detector.detect, image).clearly_mirrored:
        return layout, ""
    return layout.mirrored_across(), (
        "The camera's picture was a mirror image (the cards' corners read backwards): gintray "
        "now flips every frame back, and your marks were flipped with it. Check them on the "
        "new picture.")


def _teaching() -> DeckTeaching:
    return table_parts().deck_teaching


def _shipped_detector(feed: Any) -> Any:
    """The detector to teach with: the camera's own models (shipped reading), or loaded."""
    detector = feed.detector if feed is not None else None
    if detector is None:
        from vision.inference.detector import load_detector

        detector = load_detector()
    return getattr(detector, "without_deck", lambda: detector)()


@bp.post("/deck/look")
@director_required
def deck_look(table_id: int) -> Any:
    """Find the laid-out deck in the camera's latest picture: every place's card and picture."""
    from webui.table.deck_teaching import TeachingError, places_json

    feed = _feed(table_id)
    frame = feed.latest_frame() if feed else None
    try:
        photo = _teaching().look(table_id, _shipped_detector(feed), frame)
    except TeachingError as exc:
        return jsonify({"error": {"code": "bad_layout_photo", "message": str(exc)}}), 400
    places = places_json(photo, frame)
    missing = [p["place"] for p in places if not p["found"]]
    return jsonify({"places": places, "found": len(photo.cards), "missing": missing})


@bp.post("/deck")
@director_required
def deck_save(table_id: int) -> Any:
    """Teach the deck from the picture taken, its cards named as ``{"names": {place: card}}``,
    save the profile next to the table's layout and restart the camera with it."""
    from webui.table.deck_choice import table_deck_file
    from webui.table.deck_teaching import TeachingError

    body = json_body(request.get_data(cache=True)) if request.is_json else None
    if not isinstance(body, dict):
        refuse(400, "send the cards' names as a JSON object")
    out = table_deck_file(Path(current_app.config["DATA_DIR"]), table_id)
    try:
        taught = _teaching().teach(table_id, _shipped_detector(_feed(table_id)),
                                   body.get("names", {}), out)
    except TeachingError as exc:
        return jsonify({"error": {"code": "bad_names", "message": str(exc)}}), 400
    from webui.common.event_deck import record_taught

    # in the table app's database too: its sync brings it up for the hall to push elsewhere
    record_taught(table_parts().store, table_id, taught.path.name, taught.path.read_text())
    if current_app.config["START_CAMERAS"]:
        from webui.table.camera_feed import start_camera

        start_camera(current_app._get_current_object(), table_id)
    return jsonify({"ok": True, "path": str(taught.path), "cards": taught.cards,
                    "adapted": taught.adapted,
                    "cpu_seconds": taught.cpu_seconds, "readings": taught.readings})
