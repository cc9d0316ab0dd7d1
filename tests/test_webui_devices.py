"""Issue 15 item 10: the director lists the tablets that joined a table and signs any of them
out; a new PIN signs the joined tablets out (unless the director keeps them)."""

from __future__ import annotations

from webui_helpers import csrf_token, director_client


def device_ids(app, table_id=1):
    return {d.label: d.id for d in app.extensions["gintray"].store.devices(table_id)}


def can_play(tablet, seat):
    """Whether the player's tablet still acts at the table (its page opens, a change lands)."""
    joined = tablet.tablets[seat]
    page = joined.client.get("/t/1")
    state = joined.client.get("/api/t/1/state")
    return page.status_code == 200 and state.status_code == 200


def test_the_director_lists_the_joined_tablets(app, tablet):
    director = director_client(app)
    page = director.get("/director/tables/1/devices").get_data(as_text=True)
    assert "Ann's tablet" in page and "tablet A" in page and "tablet B" in page
    assert page.count('class="revoke"') == 2
    assert "/director/tables/1/devices" in director.get("/director/").get_data(as_text=True)
    assert tablet.client.get("/director/tables/1/devices").status_code == 403


def test_a_revoked_tablet_must_join_again_and_the_other_plays_on(app, tablet):
    director = director_client(app)
    token = csrf_token(director, "/director/tables/1/devices")
    ann = device_ids(app)["tablet A"]
    assert tablet.tablets["A"].client.post(
        f"/director/tables/1/devices/{ann}/revoke", data={"csrf_token": tablet.token}
    ).status_code == 403  # a tablet cannot sign anyone out
    r = director.post(f"/director/tables/1/devices/{ann}/revoke", data={"csrf_token": token})
    assert r.status_code == 302
    assert not can_play(tablet, "A") and can_play(tablet, "B")
    r = tablet.tablets["A"].client.get("/t/1")
    assert r.status_code == 302 and r.headers["Location"].endswith("/t/1/join")
    r = tablet.knock_card("9H")  # through Ann's tablet
    assert r.status_code == 403
    page = director.get("/director/tables/1/devices").get_data(as_text=True)
    assert "signed out" in page and page.count('class="revoke"') == 1
    screen = app.test_client().get("/t/1/screen").get_data(as_text=True)
    assert "tablet B" in screen and "(tablet A)" not in screen


def test_a_new_pin_signs_the_joined_tablets_out(app, tablet):
    director = director_client(app)
    token = csrf_token(director, "/t/1/screen")
    screen = director.get("/t/1/screen").get_data(as_text=True)
    assert 'name="keep_devices"' in screen  # the director is offered to keep them
    r = director.post("/director/tables/1/pin", data={"csrf_token": token})
    assert r.status_code == 302
    assert not can_play(tablet, "A") and not can_play(tablet, "B")
    page = director.get(r.headers["Location"]).get_data(as_text=True)
    assert "2 joined tablets were signed out" in page


def test_a_new_pin_can_keep_the_joined_tablets(app, tablet):
    director = director_client(app)
    token = csrf_token(director, "/t/1/screen")
    old = app.extensions["gintray"].store.table(1).pin
    r = director.post("/director/tables/1/pin", data={"csrf_token": token, "keep_devices": "1"})
    assert r.status_code == 302
    assert app.extensions["gintray"].store.table(1).pin != old or len(old) == 6
    assert can_play(tablet, "A") and can_play(tablet, "B")


def test_a_tablet_joined_again_after_revocation_plays_again(app, tablet):
    from webui_helpers import join

    director = director_client(app)
    token = csrf_token(director, "/director/tables/1/devices")
    director.post(f"/director/tables/1/devices/{device_ids(app)['tablet A']}/revoke",
                  data={"csrf_token": token})
    assert not can_play(tablet, "A")
    assert join(tablet.tablets["A"].client, app, seat="A").status_code == 302
    assert can_play(tablet, "A")
