"""Issue 26 item 8: every page that shows the table's PIN tells browsers and proxies not to
keep it (``Cache-Control: no-store``)."""

from __future__ import annotations

from webui_helpers import Tablet, director_client, pin_of


def test_pages_showing_the_pin_are_not_stored(app):
    pin = pin_of(app)
    local = app.test_client()  # the table's own computer: the screen, a join form filled in
    pages = {"/t/1/screen": local, "/t/1/join": local, "/t/1/qr.svg": local,
             f"/t/1/join?pin={pin}": app.test_client()}
    for path, client in pages.items():
        r = client.get(path)
        assert r.status_code == 200, path
        assert r.headers["Cache-Control"] == "no-store", path
    page = local.get("/t/1/screen").get_data(as_text=True)
    assert pin in page
    director = director_client(app)
    assert director.get("/t/1/screen").headers["Cache-Control"] == "no-store"


def test_a_refused_join_is_not_stored_either(app):
    remote = app.test_client()
    remote.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    Tablet(app, seat="A", remote="192.168.1.20")
    from webui_helpers import join

    r = join(remote, app, seat="A")  # the PIN typed in, the seat taken: the form comes back
    assert r.status_code == 409 and r.headers["Cache-Control"] == "no-store"
