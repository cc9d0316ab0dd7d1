"""The round clock on a real PostgreSQL: the director starts a round with a length in
minutes, the hall's pages show the time left and which tables still play (a table plays until
its match is over and its last game signed), and a restarted hall keeps the clock."""

from __future__ import annotations

from datetime import timedelta

import hall_helpers
import pytest
from hall_helpers import PLAYER_A, PLAYER_B, PNG_DATA_URL, director_client, new_table, play_hand

from webui.hall import clock, create_hall_app
from webui.hall.schema import HallRound
from webui.store import commands

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures


class Moved:
    """The clock's time, moved by the test."""

    def __init__(self) -> None:
        self.at = clock.now()

    def __call__(self):
        return self.at


@pytest.fixture
def hall(pg_url, tmp_path, monkeypatch):
    moved = Moved()
    monkeypatch.setattr(clock, "now", moved)
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    return app, director_client(app), app.extensions["gintray"].store, moved


def finish_match(store, table_id: int, sign_last: bool) -> None:
    """Seat A wins three games of three gins; both sign the last game when ``sign_last``."""
    for _ in range(9):
        play_hand(store, table_id, "A", gin=True)
    assert store.state(table_id).match_json()["complete"]
    if sign_last:
        for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):
            store.execute(table_id, commands.sign(3, player, PNG_DATA_URL), actor)


def start(client, number, minutes):
    return client.post("/round", data={"number": number, "minutes": minutes,
                                       "csrf_token": client.csrf}, follow_redirects=True)


def test_a_round_on_the_clock_shows_time_left_and_tables_still_playing(hall, pg_url, tmp_path):
    _app, client, store, moved = hall
    busy = new_table(store, "Busy", "Ann", "Bob")
    play_hand(store, busy, "A")
    unsigned = new_table(store, "Unsigned", "Cy", "Di")
    finish_match(store, unsigned, sign_last=False)
    done = new_table(store, "Done", "Ed", "Flo")
    finish_match(store, done, sign_last=True)
    assert "No round started yet" in client.get("/").get_data(as_text=True)

    r = start(client, 1, 50)
    assert "Round 1 started: 50 minutes" in r.get_data(as_text=True)
    moved.at += timedelta(minutes=12, seconds=30)
    for path in ("/", "/board"):
        page = client.get(path).get_data(as_text=True)
        assert "Round 1" in page and "37:30 left" in page, path
        assert "<strong>2</strong> of 3 table(s) still playing" in page, path
        assert "Busy" in page and "Unsigned" in page
        assert 'data-ends-at="' in page
    state = client.get("/api/event").get_json()["round"]
    assert state["seconds_left"] == 37 * 60 + 30 and state["started_by"] == "director"
    assert [t["table"] for t in state["playing"]] == [busy, unsigned]

    again = start(client, 1, 50)  # a second director's (or a repeated) submit
    assert "round 2" in again.get_data(as_text=True)
    with store.Session() as s:
        assert s.query(HallRound).count() == 1
    for bad in ("0", "601", "1e400", "x", ""):
        r = start(client, 2, bad)
        assert "minutes must be a whole number from 1 to 600" in r.get_data(as_text=True), bad

    restarted = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    other = hall_helpers.director_client_again(restarted)
    moved.at += timedelta(minutes=40)
    page = other.get("/").get_data(as_text=True)
    assert "Round 1" in page and "time up 2:30 ago" in page
    for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):
        store.execute(unsigned, commands.sign(3, player, PNG_DATA_URL), actor)
    page = other.get("/board").get_data(as_text=True)
    assert "<strong>1</strong> of 3 table(s) still playing" in page

    r = start(other, 2, 45)
    assert "Round 2 started: 45 minutes" in r.get_data(as_text=True)
    assert "45:00 left" in other.get("/").get_data(as_text=True)


def test_a_table_plays_until_its_match_is_over_and_its_last_game_signed(hall):
    _app, _client, store, _moved = hall
    t = new_table(store, "T", "Ann", "Bob")
    assert clock.table_playing(store.state(t))  # not started yet
    finish_match(store, t, sign_last=False)
    assert clock.table_playing(store.state(t))
    for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):
        store.execute(t, commands.sign(3, player, PNG_DATA_URL), actor)
    assert not clock.table_playing(store.state(t))


def test_clock_text():
    assert clock.clock_text(0) == "0:00 left"
    assert clock.clock_text(3599) == "59:59 left"
    assert clock.clock_text(-61) == "time up 1:01 ago"
