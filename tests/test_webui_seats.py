"""Issue 26 item 1: a seat belongs to one tablet. Anyone with the PIN (it is on the screen
both players see) cannot take the other player's seat: a held seat is refused to any other
device until its tablet leaves or the director moves it; the table screen names the holder."""

from __future__ import annotations

import threading

from webui_helpers import PNG_DATA_URL, Tablet, csrf_token, director_client, join


def stranger(app, remote="192.168.1.66"):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = remote
    return client


def finish_game(tablet):
    tablet.play_manual_hand("A", 300)


def test_a_second_device_cannot_take_a_held_seat(app, tablet):
    intruder = stranger(app)
    r = join(intruder, app, seat="B", label="intruder")
    assert r.status_code == 409
    page = r.get_data(as_text=True)
    assert "Ben&#39;s seat is held by the tablet &#39;tablet B&#39;" in page
    assert "director can move it" in page
    # it did not join at all: it cannot sign or confirm for Ben
    finish_game(tablet)
    token = csrf_token(intruder, "/t/1/sheet")
    signed = intruder.post("/api/t/1/sign", json={"game": 1, "player": "B", "png": PNG_DATA_URL},
                           headers={"X-CSRFToken": token})
    assert signed.status_code == 403
    assert tablet.state()["games"][0]["signatures"] == {}
    # Ben's own tablet still acts for Ben
    assert tablet.post("sign", {"game": 1, "player": "B", "png": PNG_DATA_URL}).status_code == 200


def test_the_holder_leaves_and_another_tablet_takes_the_seat(app, tablet):
    ben = tablet.tablets["B"]
    r = ben.client.post("/t/1/leave", data={"csrf_token": ben.token})
    assert r.status_code == 302 and r.headers["Location"].endswith("/t/1/join")
    assert ben.client.get("/t/1").status_code == 302  # its token stopped working: join again
    newcomer = stranger(app)
    assert join(newcomer, app, seat="B", label="new tablet").status_code == 302
    screen = app.test_client().get("/t/1/screen").get_data(as_text=True)
    assert "Ben's seat: held by the tablet new tablet" in screen


def test_the_director_frees_a_seat_by_signing_its_tablet_out(app, tablet):
    director = director_client(app)
    store = app.extensions["gintray"].store
    ben_id = store.seat_holders(1)["B"].id
    token = csrf_token(director, "/director/tables/1/devices")
    director.post(f"/director/tables/1/devices/{ben_id}/revoke", data={"csrf_token": token})
    assert "B" not in store.seat_holders(1)
    assert join(stranger(app), app, seat="B", label="spare").status_code == 302


def test_the_director_moves_a_seat_to_another_tablet(app, tablet):
    director = director_client(app)
    r = join(director, app, seat="B", label="director's spare")
    assert r.status_code == 302
    holders = app.extensions["gintray"].store.seat_holders(1)
    assert holders["B"].label == "director's spare"
    # the displaced tablet no longer acts for Ben
    assert tablet.confirm("B").status_code in (403, 409)
    assert tablet.tablets["B"].client.get("/t/1").status_code == 302


def test_the_same_tablet_joining_again_keeps_its_seat(app, tablet):
    ann = tablet.tablets["A"]
    assert join(ann.client, app, seat="A", label="tablet A again").status_code == 302
    assert app.extensions["gintray"].store.seat_holders(1)["A"].label == "tablet A again"
    # it may also change seats when the other is free, and then holds only the new one
    r = ann.client.post("/t/1/leave", data={"csrf_token": csrf_token(ann.client, "/t/1")})
    assert r.status_code == 302


def test_the_screen_shows_who_holds_each_seat(app):
    Tablet(app, seat="A")
    screen = app.test_client().get("/t/1/screen").get_data(as_text=True)
    assert "Ann's seat: held by the tablet tablet A" in screen
    assert "Ben's seat: free" in screen


def test_two_devices_racing_for_one_seat_get_one_holder(app):
    store = app.extensions["gintray"].store
    start = threading.Barrier(8)
    results = []

    def claim(i):
        start.wait()
        results.append(store.join_seat(1, f"racer {i}", "B"))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    from webui.store.seats import Joined

    winners = [r for r in results if isinstance(r, Joined)]
    assert len(winners) == 1
    assert store.seat_holders(1)["B"].id == winners[0].device.id


def test_a_tablet_joined_before_seats_were_held_keeps_acting(app):
    store = app.extensions["gintray"].store
    device, _token = store.add_device(1, "old tablet", "A")
    assert store.holds_seat(device)
    assert store.seat_holders(1)["A"].id == device.id
    later, _ = store.add_device(1, "second old tablet", "A")
    assert not store.holds_seat(later)  # the seat was claimed by the first
