"""Issue 35 item 5: a player whose tablet lost its cookie takes their own seat back with the
PIN and a confirmation on the table screen (or the other player's tablet), never silently; and
a steady trickle of wrong PINs from rotating addresses cannot lock the players out."""

from __future__ import annotations

import re
from datetime import timedelta

from webui_helpers import PNG_DATA_URL, Tablet, csrf_token, join, pin_of

from webui.common import attempts
from webui.store import seat_requests


def lan_client(app, remote):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = remote
    return client


def ask_back(client, app, seat="B", pin=None, label="Ben's phone"):
    """The lost-cookie tablet: its join is refused (the seat is held), then it asks back."""
    refused = join(client, app, seat=seat, pin=pin, label=label)
    assert refused.status_code == 409
    page = refused.get_data(as_text=True)
    assert "Ask to take Ben's seat back" in page
    token = csrf_token(client, "/t/1/join")
    return client.post("/t/1/join", data={"csrf_token": token, "pin": pin or pin_of(app),
                                          "seat": seat, "label": label, "take_back": "1"})


def request_ids(html, label=""):
    """The seat requests a page offers to answer (those asked by the tablet ``label``)."""
    forms = re.findall(r'/t/1/seat-requests/(\d+)">(.*?)</form>', html, re.S)
    return [int(n) for n, body in forms if label in body]


def answer(client, page, answer_word, back="screen", label=""):
    """Allow or refuse, as a tap on ``page``, the newest request of the tablet ``label``."""
    html = client.get(page).get_data(as_text=True)
    ids = request_ids(html, label)
    assert ids, "the page shows no seat request"
    token = csrf_token(client, page)
    return client.post(f"/t/1/seat-requests/{ids[-1]}",
                       data={"csrf_token": token, "answer": answer_word, "back": back})


def test_a_tablet_that_lost_its_cookie_takes_its_seat_back_once_the_screen_allows(app):
    tablets = Tablet(app, remote="192.168.1.20")  # Ann's and Ben's tablets on the LAN
    old_ben = tablets.tablets["B"]
    phone = lan_client(app, "192.168.1.21")  # Ben again, in a private tab: no cookie
    asked = ask_back(phone, app)
    assert asked.status_code == 303 and asked.headers["Location"].endswith("/t/1/join/wait")
    wait = phone.get("/t/1/join/wait").get_data(as_text=True)
    assert "Waiting for the table's screen" in wait
    # nothing moved yet: the old tablet still holds Ben's seat, the phone acts for nobody
    assert app.extensions["gintray"].store.seat_holders(1)["B"].label == "tablet B"
    assert phone.get("/t/1").status_code == 302
    # the asking tablet cannot allow its own request
    ids = request_ids(lan_client(app, "127.0.0.1").get("/t/1/screen").get_data(as_text=True))
    token = csrf_token(phone, "/t/1/join")
    assert phone.post(f"/t/1/seat-requests/{ids[0]}",
                      data={"csrf_token": token, "answer": "allow"}).status_code == 403
    # the table screen shows the request and allows it
    screen = app.test_client()
    page = screen.get("/t/1/screen").get_data(as_text=True)
    assert "A tablet named “Ben&#39;s phone” asks to take Ben's seat" in page
    assert "held now by the tablet “tablet B”" in page
    assert answer(screen, "/t/1/screen", "allow").status_code == 302
    # the phone's waiting page lets it in; it acts for Ben; the old tablet is signed out
    done = phone.get("/t/1/join/wait")
    assert done.status_code == 302 and done.headers["Location"].endswith("/t/1")
    assert app.extensions["gintray"].store.seat_holders(1)["B"].label == "Ben's phone"
    assert old_ben.client.get("/t/1").status_code == 302
    assert tablets.knock_card("9H").status_code == 200
    assert tablets.propose(kind="manual", winner="A", points=300).status_code == 200
    assert tablets.confirm("A").status_code == 200
    token = csrf_token(phone, "/t/1")
    game = tablets.hand()
    sent = phone.post("/api/t/1/confirm", headers={"X-CSRFToken": token}, json={
        "game": game["game"], "hand": game["number"], "player": "B",
        "revision": game["revision"]})
    assert sent.status_code == 200, sent.get_json()
    signed = phone.post("/api/t/1/sign", headers={"X-CSRFToken": token},
                        json={"game": 1, "player": "B", "png": PNG_DATA_URL})
    assert signed.status_code == 200, signed.get_json()
    assert old_ben.client.post("/api/t/1/sign", headers={"X-CSRFToken": old_ben.token}, json={
        "game": 1, "player": "B", "png": PNG_DATA_URL}).status_code == 403
    assert "asks to take" not in screen.get("/t/1/screen").get_data(as_text=True)


def test_the_other_players_tablet_can_refuse_and_nothing_moves(app):
    tablets = Tablet(app, remote="192.168.1.20")
    ann = tablets.tablets["A"]
    stranger = lan_client(app, "192.168.1.66")  # someone who read the PIN off the screen
    assert ask_back(stranger, app, label="tablet B").status_code == 303
    panel = ann.client.get("/t/1/panel").get_data(as_text=True)
    assert "asks to take Ben's seat" in panel  # Ann's tablet shows it, live
    assert answer(ann.client, "/t/1", "refuse", back="table").status_code == 302
    told = stranger.get("/t/1/join/wait").get_data(as_text=True)
    assert "The request was refused" in told
    assert stranger.get("/t/1").status_code == 302
    assert app.extensions["gintray"].store.seat_holders(1)["B"].label == "tablet B"
    assert tablets.tablets["B"].client.get("/t/1").status_code == 200  # Ben's tablet plays on


def test_a_request_expires_unanswered(app, monkeypatch):
    Tablet(app, remote="192.168.1.20")
    phone = lan_client(app, "192.168.1.21")
    start = seat_requests.now()
    monkeypatch.setattr(seat_requests, "now", lambda: start)
    assert ask_back(phone, app).status_code == 303
    screen = app.test_client()
    assert "asks to take" in screen.get("/t/1/screen").get_data(as_text=True)
    later = start + seat_requests.REQUEST_TTL + timedelta(seconds=1)
    monkeypatch.setattr(seat_requests, "now", lambda: later)
    assert "asks to take" not in screen.get("/t/1/screen").get_data(as_text=True)
    told = phone.get("/t/1/join/wait").get_data(as_text=True)
    assert "Nobody answered the request within 2 minutes" in told
    store = app.extensions["gintray"].store
    assert store.seat_asks.pending(1) == []
    [row] = [r for r in request_ids(screen.get("/t/1/screen").get_data(as_text=True))] or [0]
    assert row == 0
    assert store.seat_holders(1)["B"].label == "tablet B"


def test_a_wrong_pin_asks_for_nothing(app):
    Tablet(app, remote="192.168.1.20")
    guesser = lan_client(app, "192.168.1.66")
    wrong = "000000" if pin_of(app) != "000000" else "111111"
    token = csrf_token(guesser, "/t/1/join")
    r = guesser.post("/t/1/join", data={"csrf_token": token, "pin": wrong, "seat": "B",
                                        "label": "x", "take_back": "1"})
    assert r.status_code == 403
    assert "asks to take" not in app.test_client().get("/t/1/screen").get_data(as_text=True)


def test_a_trickle_of_wrong_pins_from_rotating_addresses_never_locks_a_player_out(
        app, monkeypatch):
    """One LAN device sends a wrong PIN every 0.5 s from rotating addresses (the issue's
    attack): Ben's right PIN is never refused with 429 (12 of 12 were before); while the count
    of all addresses waits his PIN becomes a request the screen allows, and the guessers are
    answered alike whether their PIN was right or wrong, so they get at most one checked
    guess a minute after the 30 free ones."""
    tablets = Tablet(app, remote="192.168.1.20")
    at = [attempts.now()]
    monkeypatch.setattr(attempts, "now", lambda: at[0])
    monkeypatch.setattr(seat_requests, "now", lambda: at[0])
    right, wrong = pin_of(app), "000000" if pin_of(app) != "000000" else "111111"
    guessers = [lan_client(app, f"10.0.{n // 250}.{n % 250 + 1}") for n in range(400)]
    tokens = [csrf_token(g, "/t/1/join") for g in guessers]
    checked = 0  # guesses answered "wrong PIN" (403): the ones that tell the guesser anything
    ben = lan_client(app, "192.168.1.21")  # Ben's tablet lost its cookie
    ben_codes = []
    for step in range(6 * 60):  # three simulated minutes, a guess every 0.5 s
        g = step % len(guessers)
        r = guessers[g].post("/t/1/join", data={"csrf_token": tokens[g], "pin": wrong,
                                                "seat": "A", "label": "x"})
        assert r.status_code in (403, 303), r.status_code
        checked += r.status_code == 403
        if step % 30 == 0 and step > 0:  # Ben tries every 15 s from the 15th: 11 tries
            ben_codes.append(join(ben, app, seat="B", label="Ben again").status_code)
        at[0] += timedelta(seconds=0.5)
    # 30 free, then one a minute (at 74.5 s and 134.5 s): 60 an hour (was 360)
    assert checked == attempts.GLOBAL_FREE + 2
    assert ben_codes == [303] * 11, ben_codes  # before: 429 each time
    # a right PIN sent while the count waits looks exactly like a wrong one to its sender
    hidden = [g.post("/t/1/join", data={"csrf_token": t, "pin": pin, "seat": "A",
                                        "label": "x"})
              for g, t, pin in ((guessers[0], tokens[0], wrong), (guessers[1], tokens[1], right))]
    assert [r.status_code for r in hidden] == [303, 303]
    pages = [re.sub(r'name="csrf-token" content="[^"]*"', "",
                    g.get("/t/1/join/wait").get_data(as_text=True)) for g in guessers[:2]]
    assert pages[0] == pages[1]
    # Ben's request is on the screen; allowed there, his tablet holds his seat again
    screen = app.test_client()
    page = screen.get("/t/1/screen").get_data(as_text=True)
    assert "A tablet named “Ben again” asks to take Ben's seat" in page
    assert answer(screen, "/t/1/screen", "allow", label="Ben again").status_code == 302
    assert ben.get("/t/1/join/wait").status_code == 302
    assert app.extensions["gintray"].store.seat_holders(1)["B"].label == "Ben again"
    assert tablets.tablets["A"].client.get("/t/1").status_code == 200  # Ann plays on


def test_a_seated_tablet_cannot_allow_its_own_request_for_the_other_seat(app):
    tablets = Tablet(app, remote="192.168.1.20")
    ann = tablets.tablets["A"]
    token = csrf_token(ann.client, "/t/1")
    asked = ann.client.post("/t/1/join", data={"csrf_token": token, "pin": pin_of(app),
                                               "seat": "B", "label": "Ann's", "take_back": "1"})
    assert asked.status_code == 303
    assert "asks to take" not in ann.client.get("/t/1").get_data(as_text=True)
    [own] = request_ids(app.test_client().get("/t/1/screen").get_data(as_text=True))
    token = csrf_token(ann.client, "/t/1")
    r = ann.client.post(f"/t/1/seat-requests/{own}", data={"csrf_token": token,
                                                          "answer": "allow"})
    assert r.status_code == 403
    assert app.extensions["gintray"].store.seat_holders(1)["B"].label == "tablet B"
    # allowed on the screen, the browser moves to Ben's seat and leaves Ann's (one seat each)
    assert answer(app.test_client(), "/t/1/screen", "allow").status_code == 302
    assert ann.client.get("/t/1/join/wait").status_code == 302
    holders = app.extensions["gintray"].store.seat_holders(1)
    assert holders["B"].label == "Ann's" and "A" not in holders
