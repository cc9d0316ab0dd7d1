"""Issue 26 item 5: PIN and director-password attempts are counted before they are checked,
atomically, per address across all tables and for all addresses together, without locking the
real players out."""

from __future__ import annotations

import threading
from datetime import timedelta

from webui_helpers import Tablet, csrf_token, director_client, join, pin_of

from webui.common import attempts
from webui.store import Actor


def wrong_pin(app, table_id=1):
    return "000000" if pin_of(app, table_id) != "000000" else "111111"


def from_address(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def burst(clients, send, each):
    """Every client sends ``each`` requests, all clients at once; the status codes."""
    start = threading.Barrier(len(clients))
    codes = []
    lock = threading.Lock()

    def run(client, token):
        start.wait()
        for _ in range(each):
            code = send(client, token)
            with lock:
                codes.append(code)

    tokens = [csrf_token(c, "/t/1/join") for c in clients]
    threads = [threading.Thread(target=run, args=(c, t)) for c, t in zip(clients, tokens,
                                                                          strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return codes


def test_a_parallel_burst_of_pin_guesses_gets_five_checked(app):
    wrong = wrong_pin(app)
    clients = [from_address(app, "192.168.1.66") for _ in range(8)]
    codes = burst(clients, lambda c, t: c.post("/t/1/join", data={
        "csrf_token": t, "pin": wrong, "seat": "A"}).status_code, 8)
    assert len(codes) == 64
    assert codes.count(403) == attempts.FREE_ATTEMPTS and codes.count(429) == 59


def test_parallel_wrong_director_passwords_get_five_checked(app):
    director_client(app)  # sets the password
    clients = [from_address(app, "192.168.1.67") for _ in range(8)]
    codes = burst(clients, lambda c, t: c.post("/director/login", data={
        "csrf_token": t, "password": "guess"}).status_code, 6)
    assert codes.count(403) == attempts.FREE_ATTEMPTS and codes.count(429) == 43


def test_the_next_table_gives_no_fresh_tries(app):
    store = app.extensions["gintray"].store
    other = store.create_table("Table 2", {"name": "Table 2", "players": {"A": "Cy", "B": "Di"},
                                           "rules": "tournament", "camera": None}, Actor("test"))
    guesser = from_address(app, "192.168.1.66")
    assert [join(guesser, app, pin=wrong_pin(app)).status_code for _ in range(5)] == [403] * 5
    r = join(guesser, app, table_id=other, pin=wrong_pin(app, other))
    assert r.status_code == 429 and "from this device" in r.get_data(as_text=True)


def test_many_addresses_together_guess_slowly_and_the_players_still_join(app, monkeypatch):
    """Issue 35 item 5 changed the second half: while everyone's count waits, a PIN is
    checked but answered alike (the waiting page), so the guessers learn nothing and a player's
    right PIN asks the table screen instead of being refused with 429."""
    tablet = Tablet(app, seat="A", remote="192.168.1.20")  # Ann joined before the guessing
    start = attempts.now()
    monkeypatch.setattr(attempts, "now", lambda: start)
    wrong = wrong_pin(app)
    for n in range(attempts.GLOBAL_FREE):  # one guess each from 30 addresses
        assert join(from_address(app, f"10.0.0.{n + 1}"), app, pin=wrong).status_code == 403
    r = join(from_address(app, "10.0.1.1"), app, pin=wrong)
    assert r.status_code == 303 and r.headers["Location"].endswith("/t/1/join/wait")
    ben = from_address(app, "192.168.1.21")
    r = join(ben, app, seat="B")
    assert r.status_code == 303  # Ben is not refused: his request waits for the screen
    assert "asks to take Ben's seat" in app.test_client().get("/t/1/screen").get_data(
        as_text=True)
    # the table's own computer is never slowed by strangers (its PIN is checked: Ann's seat is
    # held, so it is told so), and Ann's tablet plays on
    assert join(from_address(app, "127.0.0.1"), app, seat="A", label="screen").status_code == 409
    assert tablet.knock_card("9H").status_code == 200
    monkeypatch.setattr(attempts, "now", lambda: start + timedelta(
        seconds=attempts.PIN_GLOBAL_WAIT_S + 1))
    assert join(ben, app, seat="B").status_code == 302  # checked openly again: joined
    # a right PIN gives its attempt back: the count of everyone is where the guessers left it
    store = app.extensions["gintray"].store
    from webui.store.db import AttemptFailure

    with store.Session() as s:
        everyone = s.get(AttemptFailure, ("pin", attempts.EVERYONE))
    assert everyone.failures == attempts.GLOBAL_FREE


def test_the_table_apps_director_password_is_counted_across_addresses_and_known_browsers_get_in(
        app, monkeypatch):
    """The hall's login limits, in the table app too (issue 27 item 11's left part): 40
    addresses get the director password's ``ACCOUNT_FREE`` checked guesses, not 5 each; the
    real director's browser, which logged in before, still gets in while they wait. The
    limiter's clock is the test's (no sleeps)."""
    at = [attempts.now()]
    monkeypatch.setattr(attempts, "now", lambda: at[0])
    director_client(app)  # the password is set on the table's own computer
    known = from_address(app, "10.2.9.9")
    token = csrf_token(known, "/director/login")
    assert known.post("/director/login", data={"csrf_token": token,
                                               "password": "director-pass"}).status_code == 302
    known.post("/director/logout", data={"csrf_token": csrf_token(known, "/director/login")})
    codes = []
    for n in range(40):  # within one minute: the clock does not move
        client = from_address(app, f"10.2.0.{n + 1}")
        token = csrf_token(client, "/director/login")
        codes += [client.post("/director/login", data={"csrf_token": token,
                                                       "password": f"guess-{n}-{k}"}).status_code
                  for k in range(attempts.FREE_ATTEMPTS)]
    assert codes.count(403) == attempts.ACCOUNT_FREE, codes.count(403)  # was 200
    stranger = from_address(app, "10.2.1.1")
    token = csrf_token(stranger, "/director/login")
    refused = stranger.post("/director/login", data={"csrf_token": token,
                                                     "password": "director-pass"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    token = csrf_token(known, "/director/login")
    welcome = known.post("/director/login", data={"csrf_token": token,
                                                  "password": "director-pass"})
    assert welcome.status_code == 302  # the known browser: its own count, not the account's
