"""One background thread per table: camera frames -> table reader -> proposals on the page.

The reader's events become commands recorded as the ``camera`` actor: the knock card when a
hand is dealt, a proposed result when both spreads are read. They are proposals only: players
confirm them on the tablet, and a result entered by hand is never overwritten by the camera.
The latest frame, with the cards read outlined, is kept for the MJPEG view.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
from flask import Flask

from vision.inference import detector as card_detector  # load_detector: patched in tests
from vision.inference.tiling import configured
from vision.table.camera import open_camera
from vision.table.events import FrameRead
from vision.table.layout import load_layout
from vision.table.picture import draw_detections
from vision.table.reader import TableReader, look
from webui.store import Actor, CommandError, Store, commands
from webui.store.proposal import Doubt, Kind, Problem, Proposal, reader_card, reader_cards

log = logging.getLogger(__name__)
CAMERA = Actor("camera")


def layout_path_for(source: str, explicit: str | None = None) -> Path | None:
    """The table layout file: the one given, or ``layout.json`` beside replayed footage."""
    if explicit:
        return Path(explicit)
    if source.startswith("replay:"):
        folder = Path(source[len("replay:"):].split("?", 1)[0])
        for candidate in (folder / "layout.json", folder.parent / "layout.json"):
            if candidate.is_file():
                return candidate
    return None


def doubtful_cards(read: Any) -> tuple[Doubt, ...]:
    """The cards of a table reading the detector was unsure of, with the card each may be
    instead, for a one-tap swap on the tablet (``Proposal.swaps``)."""
    alternatives = {reader_card(c["card"]): reader_card(c["alternative"])
                    for c in read.cards if c.get("alternative")}
    hands = {p: reader_cards(cards) for p, cards in read.hands().items()}
    on_table = {card for cards in hands.values() for card in cards}
    return tuple(
        Doubt(player, card, alternatives[card])
        for player, cards in sorted(hands.items())
        for card in cards
        if card in alternatives and alternatives[card] not in on_table
    )


class TableCamera:
    """Reads one table's camera in a daemon thread; see the module docstring."""

    def __init__(self, store: Store, table_id: int, source: str, data_dir: Path,
                 notify: Any, layout: str | None = None, detector: Any = None) -> None:
        self.store, self.table_id, self.source = store, table_id, source
        self._given_detector = detector
        self.data_dir = data_dir
        self.notify = notify
        self.layout_file = layout
        self._status = {"state": "starting", "message": f"starting {source}"}
        # the detector's self-check on this CPU (vision.inference.doctor): {"passed", "line"} once
        # run
        self._self_check: dict[str, Any] | None = None
        self._jpeg: bytes | None = None
        self._raw: Any = None  # the latest frame as captured (for calibration)
        self._frame_cond = threading.Condition()
        self._frame_no = 0
        self._stop = threading.Event()
        self._later_deal = False  # a deal seen while players are still on an earlier hand
        self.thread = threading.Thread(target=self._run, name=f"camera-{table_id}", daemon=True)

    # public -------------------------------------------------------------------------------
    def start(self) -> TableCamera:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._frame_cond:
            self._frame_cond.notify_all()

    def status(self) -> dict[str, Any]:
        status = dict(self._status)
        if self._self_check is not None:
            status["self_check"] = dict(self._self_check)
        return status

    def latest_jpeg(self) -> bytes | None:
        return self._jpeg

    def latest_frame(self) -> Any:
        """The latest frame as captured (BGR array), without drawings; None before the first."""
        return self._raw

    def mjpeg(self, max_seconds: float = 600.0) -> Iterator[bytes]:
        """A multipart JPEG stream of the annotated frames."""
        started = time.monotonic()
        seen = -1
        while time.monotonic() - started < max_seconds and not self._stop.is_set():
            with self._frame_cond:
                last = seen
                self._frame_cond.wait_for(
                    lambda last=last: self._frame_no != last or self._stop.is_set(), timeout=5)
                seen, jpeg = self._frame_no, self._jpeg
            if jpeg is None:
                continue
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                   + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")

    # thread -------------------------------------------------------------------------------
    def _set_status(self, state: str, message: str) -> None:
        if self._status.get("state") != state or self._status.get("message") != message:
            self._status = {"state": state, "message": message}
            self.notify(self.table_id, 0)

    def _run(self) -> None:
        try:
            self._loop()
        except Exception as exc:  # the web app keeps working without its camera
            log.exception("camera thread of table %s stopped", self.table_id)
            self._set_status("unavailable", f"camera stopped: {exc}")

    def _loop(self) -> None:
        try:
            camera = open_camera(self.source)
        except Exception as exc:
            self._set_status("unavailable", f"camera unavailable: {exc}")
            return
        detector, reader, why = self._make_reader()
        self._set_status("running", "camera on" + (f"; {why}" if why else ", reading the table"))
        try:
            while not self._stop.is_set():
                frame = camera.read()
                for ev in camera.pop_events():
                    self._on_event(ev, None)
                if frame is None:
                    if getattr(camera, "finished", False):
                        self._set_status("finished", "the recorded footage has ended")
                        return
                    continue
                read = FrameRead(frame.index)
                try:
                    if reader is not None:
                        read = reader.feed(frame)
                    elif detector is not None:  # not calibrated: the cards are shown
                        read = look(detector, frame)
                except Exception as exc:
                    log.warning("reader failed on frame %s: %s", frame.index, exc)
                self._publish_frame(frame.image, read)
                for ev in read.events:
                    self._on_event(ev, frame.image)
        finally:
            camera.close()

    def _make_reader(self) -> tuple[Any, TableReader | None, str]:
        """(the detector, the table reader when the table is calibrated, what is missing)."""
        try:
            if self._given_detector is None:
                self._given_detector = card_detector.load_detector()
                self._run_self_check(self._given_detector, card_detector.default_backend())
            detector = self._given_detector
        except Exception as exc:
            return None, None, f"cards are not read (detector unavailable: {exc})"
        path = layout_path_for(self.source, self.layout_file)
        if path is None:
            return detector, None, "not calibrated: cards are shown, not read"
        try:
            layout = load_layout(path)
            return detector, TableReader(configured(detector, layout.detector_settings()),
                                         layout), ""
        except Exception as exc:
            return detector, None, f"layout unusable: {exc}"

    def _run_self_check(self, detector: Any, backend: str) -> None:
        """Read the doctor's check frame once with the shipped detector and keep the verdict
        for the table screen (a failure says what to do; the camera keeps running)."""
        try:
            from vision.inference.doctor import check_detector

            report = check_detector(detector, backend)
            self._self_check = {"passed": report.passed, "line": report.summary()}
        except Exception as exc:  # the check must never stop the camera
            self._self_check = {"passed": False, "line": f"Card reader self-check failed: {exc}"}
        if not self._self_check["passed"]:
            log.warning("%s", self._self_check["line"])

    def _publish_frame(self, image: Any, read: FrameRead) -> None:
        """Keep the frame and its picture: the cards the reader used, outlined."""
        self._raw = image
        annotated = draw_detections(image, read.detections)
        ok, buf = cv2.imencode(".jpg", annotated, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if not ok:
            return
        with self._frame_cond:
            self._jpeg = buf.tobytes()
            self._frame_no += 1
            self._frame_cond.notify_all()

    def _on_event(self, ev: Any, image: Any) -> None:
        kind = getattr(ev, "kind", "")
        if kind == "camera_lost":
            self._set_status("lost", f"camera lost ({ev.reason}); retrying")
        elif kind == "camera_back":
            self._set_status("running", "camera back")
        elif kind == "hand_dealt":
            self._dealt(ev.up_card)
        elif kind == "table_read" and not self._later_deal:
            self._propose(ev)

    def _dealt(self, up_card: str) -> None:
        """A fresh deal: it is this hand's knock card, unless the players are still on an
        earlier hand (then its readings wait: they must not overwrite that hand)."""
        hand = self.store.state(self.table_id).current_hand()
        if hand is None or (hand.up_card is not None and hand.up_card != up_card):
            self._later_deal = True
            log.info("table %s: deal of %s ignored until the current hand is confirmed",
                     self.table_id, up_card)
            return
        self._later_deal = False
        self._command(lambda st: commands.set_knock_card(
            _cur(st)[0], _cur(st)[1], up_card, source="camera")(st))

    def _propose(self, read: Any) -> None:
        """A reading of both spreads as a ``Proposal`` (built here, the camera's one door into
        the records): cards through the engine's parser, the reader's notes as ``Problem``s."""
        spreads = read.spreads
        if set(spreads) != {"A", "B"}:
            return
        knocker = read.knocker
        if knocker is None:  # a read without a knock cannot be a proposal
            log.warning("table %s: a spread read without a knocker was ignored", self.table_id)
            return
        hands = {p: reader_cards(cards) for p, cards in read.hands().items()}
        melds = {knocker: [reader_cards(g) for g in read.melds().get(knocker, [])]}
        up_card = reader_card(read.up_card) if read.up_card else None
        proposal = Proposal(
            Kind.SCORE, knocker=knocker, cards=hands, melds=melds,
            problems=tuple(Problem.parse(p) for p in read.problems),
            confidence=round(read.confidence, 3),
            arranged_by_engine=bool(spreads[knocker].arranged_by_engine),
            snapshot=self._save_snapshot(), doubts=doubtful_cards(read))

        def run(st: Any) -> list[Any]:
            hand = st.current_hand()
            if hand is None or (hand.proposal and hand.proposal.get("source") != "camera"):
                return []  # a result entered by hand wins over the camera
            extra: dict[str, Any] = {}
            question = card_count_question(hands, knocker, st.players)
            if question:  # a camera read never becomes penalty points: ask the players
                extra.update(result=None, question=question,
                             error={"code": "card_count", "message": question})
            if up_card and hand.up_card and up_card != hand.up_card:
                log.info("table %s: reading of a later deal (%s) ignored until hand %s is "
                         "confirmed", self.table_id, up_card, hand.number)
                return []
            return commands.propose(hand.game, hand.number, proposal, source="camera",
                                    strict=False, extra=extra)(st)

        self._command(run)

    def _save_snapshot(self) -> str | None:
        jpeg = self._jpeg
        if jpeg is None:
            return None
        folder = self.data_dir / "snapshots" / str(self.table_id)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"read-{int(time.time() * 1000)}.jpg"
        (folder / name).write_bytes(jpeg)
        return name

    def _command(self, run: Any) -> None:
        try:
            self.store.execute(self.table_id, run, CAMERA)
        except CommandError as exc:
            log.info("camera reading not recorded: %s", exc.message)
        except Exception:
            log.exception("camera reading not recorded")


def card_count_question(hands: dict[str, list[str]], knocker: str,
                        names: dict[str, str]) -> str | None:
    """The question to ask when the cards read do not add up to a hand (10 each, 11 for a
    knocker's big gin), or None. Seed 000 rule 8's penalty is for a player who really holds
    the wrong number of cards; a card the camera missed is not that."""
    asks = []
    for player, cards in hands.items():
        allowed = (10, 11) if player == knocker else (10,)
        if len(cards) in allowed:
            continue
        name = names.get(player, player)
        if len(cards) < 10:
            asks.append(f"the camera sees {len(cards)} of {name}'s cards: which is missing?")
        else:
            asks.append(f"the camera sees {len(cards)} cards for {name}: which is not theirs?")
    if not asks:
        return None
    return "; ".join(asks) + " Correct the cards below (nothing is scored until then)."


def _cur(state: Any) -> tuple[int, int]:
    hand = state.current_hand()
    if hand is None:
        raise CommandError("game_over", "no hand is being played")
    return hand.game, hand.number


def start_camera(app: Flask, table_id: int) -> TableCamera | None:
    """Start (or restart) the camera thread of one table if it has a camera source."""
    cameras: dict[int, TableCamera] = app.extensions["gintray.cameras"]
    store: Store = app.extensions["gintray.store"]
    state = store.state(table_id)
    old = cameras.pop(table_id, None)
    if old is not None:
        old.stop()
    if not state.camera:
        return None
    feed = TableCamera(store, table_id, state.camera, Path(app.config["DATA_DIR"]),
                       app.extensions["gintray.notifier"].publish, layout=state.layout).start()
    cameras[table_id] = feed
    return feed


def start_cameras(app: Flask) -> None:
    """Start every table's camera thread."""
    for table in app.extensions["gintray.store"].tables():
        start_camera(app, table.id)
