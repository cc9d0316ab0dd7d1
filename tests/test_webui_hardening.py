"""The table app under hostile or careless input (issue 15: items 3, 5, 8, 9 and 10)."""

from __future__ import annotations

import csv
import io
import json
import re
import socket
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from webui_helpers import PNG_DATA_URL, Tablet, director_client, make_app

from webui import create_app
from webui.common.security import DIRECTOR_KEY
from webui.store import Actor
from webui.table.cli import serve_main


def events_of(app, table_id=1):
    return app.extensions["gintray"].store.events(table_id)


def add_table(app, name="Table 2", players=None):
    """A second table (players Cat v Dan unless given); returns its id."""
    players = players or {"A": "Cat", "B": "Dan"}
    return app.extensions["gintray"].store.create_table(
        name, {"name": name, "players": players, "rules": "tournament", "camera": None},
        Actor("test"))


def post_raw(tablet, path, raw):
    """Post ``raw`` as a JSON body exactly as written (Python's json cannot write some)."""
    return tablet.client.post(f"/api/t/{tablet.table_id}/{path}", data=raw,
                              content_type="application/json",
                              headers={"X-CSRFToken": tablet.token})


def assert_json_error(response, status=400):
    assert response.status_code == status, (response.status_code,
                                            response.get_data(as_text=True)[:300])
    error = response.get_json()["error"]
    assert error["code"] and error["message"]
    assert "Traceback" not in response.get_data(as_text=True)


# --- item 3: request_id is an exact key of one table ------------------------------------------

def test_request_id_wildcards_do_not_match_another_tables_request(app, tablet):
    first = tablet.post("knock-card", {"game": 1, "hand": 1, "card": "9H",
                                       "request_id": "abcdefgh-0123456789"})
    assert first.status_code == 200
    other = Tablet(app, add_table(app))
    r = other.post("knock-card", {"game": 1, "hand": 1, "card": "7D",
                                  "request_id": "________-__________"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["duplicate"] is False
    assert body["state"]["current_hand"]["up_card"] == "7D"
    assert [e["payload"].get("card") for e in body["events"]] == ["7D"]


def test_a_request_id_used_at_another_table_shows_nothing_of_it(app, tablet):
    rid = "abcdefgh-0123456789"
    assert tablet.post("knock-card", {"game": 1, "hand": 1, "card": "9H",
                                      "request_id": rid}).status_code == 200
    other = Tablet(app, add_table(app))
    r = other.post("knock-card", {"game": 1, "hand": 1, "card": "7D", "request_id": rid})
    assert r.status_code == 409
    assert "9H" not in r.get_data(as_text=True)
    assert r.get_json()["error"]["code"] == "request_id_taken"
    # the same id again at its own table is still recognised as the retry it is
    again = tablet.post("knock-card", {"game": 1, "hand": 1, "card": "9H", "request_id": rid})
    assert again.get_json()["duplicate"] is True


def test_a_request_id_reused_by_the_same_tablet_for_another_change_is_refused(app, tablet):
    """Issue 26: the same tablet sending an id again with another body was answered "ok,
    duplicate" and its change was silently dropped; it is refused (409) so it is sent again."""
    rid = "knock-once"
    assert tablet.post("knock-card", {"game": 1, "hand": 1, "card": "9H",
                                      "request_id": rid}).status_code == 200
    r = tablet.post("knock-card", {"game": 1, "hand": 1, "card": "7D", "request_id": rid})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "request_id_reused"
    assert tablet.hand()["up_card"] == "9H"  # nothing done, and said so
    again = tablet.post("knock-card", {"game": 1, "hand": 1, "card": "9H", "request_id": rid})
    assert again.status_code == 200 and again.get_json()["duplicate"] is True
    fresh = tablet.post("knock-card", {"game": 1, "hand": 1, "card": "7D", "request_id": "k2"})
    assert fresh.status_code == 200 and tablet.hand()["up_card"] == "7D"


# --- item 5: names are text in the PDF, and inert in the CSV ----------------------------------

def _play_and_export(app, table_id, path):
    t = Tablet(app, table_id)
    t.knock_card("9H")
    assert t.propose(kind="manual", winner="A", points=12, note="<b>bold</b> & =1+1").status_code \
        == 200
    for p in ("A", "B"):
        assert t.confirm(p).status_code == 200
    return t, t.client.get(f"/t/{table_id}/games/1/{path}")


def test_pdf_export_prints_markup_in_names_as_plain_text(app):
    table_id = add_table(app, "Table <b>3", {"A": '"><img src=x onerror=alert(1)>',
                                              "B": "Ben & <i>Co</i> </para>"})
    _t, r = _play_and_export(app, table_id, "export.pdf")
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    assert b"Table <b>3" in r.data
    assert b"Ben & <i>Co</i> </para>" in r.data


def test_pdf_export_never_embeds_a_server_file_named_in_a_table_name(app, tmp_path):
    picture = tmp_path / "server-secret.png"
    picture.write_bytes(__import__("base64").b64decode(PNG_DATA_URL.split(",", 1)[1]))
    table_id = add_table(app, f'<img src="{picture}"/>')
    _t, r = _play_and_export(app, table_id, "export.pdf")
    assert r.status_code == 200
    assert b"/Subtype /Image" not in r.data  # nobody signed: the page has no picture at all
    assert f'<img src="{picture}"/>'.encode() in r.data


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\")", "+1+2", "-3+4", "@SUM(A1)",
                                  "\tTab", "\rCR"])
def test_csv_cells_cannot_start_a_spreadsheet_formula(app, name):
    table_id = add_table(app, players={"A": name, "B": "Dan"})
    _t, r = _play_and_export(app, table_id, "export.csv")
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True))))
    cells = [c for row in rows for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'" + name in cells  # the dealer/winner column still names the player


# --- item 9: bad numbers and bad JSON get a 400, never a 500 or a silent change ---------------

DEEP_ARRAY = "[" * 50_000 + "]" * 50_000
DEEP_OBJECT = '{"a":' * 50_000 + "1" + "}" * 50_000


@pytest.mark.parametrize("path,raw", [
    ("knock-card", DEEP_ARRAY),
    ("proposal", DEEP_OBJECT),
    ("knock-card", '{"game": Infinity, "hand": 1, "card": "7D"}'),
    ("knock-card", '{"game": 1, "hand": 1e400, "card": "7D"}'),
    ("knock-card", '{"game": 1, "hand": NaN, "card": "7D"}'),
    ("knock-card", '{"game": 1, "hand": -Infinity, "card": "7D"}'),
    ("proposal", '{"game": 1, "hand": 1, "kind": "manual", "winner": "A", "points": 1e400}'),
    ("proposal", '{"game": 1, "hand": 1, "kind": "manual", "winner": "A", "points": Infinity}'),
    ("confirm", '{"game": 1, "hand": 1, "player": "A", "revision": Infinity}'),
    ("confirm", '{"game": 1, "hand": 1, "player": "A", "revision": 1e400}'),
    ("undo", '{"target_seq": Infinity}'),
    ("undo", '{"target_seq": 1e400}'),
    ("undo", '{"target_seq": 99999999999999999999999}'),
    ("sign", '{"game": "\u00b2", "player": "A", "png": "x"}'),
    ("sign", '{"game": Infinity, "player": "A", "png": "x"}'),
    ("reopen", '{"game": 1e400, "reason": "x"}'),
    ("knock-card", '{"game": 1, "hand": 1, "card": "7D"'),
])
def test_bad_json_and_numbers_out_of_range_are_a_clear_400(app, tablet, path, raw):
    tablet.knock_card("9H")
    before = len(events_of(app))
    assert_json_error(post_raw(tablet, path, raw))
    assert len(events_of(app)) == before


@pytest.mark.parametrize("field,value", [("hand", 1.9), ("game", 1.5), ("game", True),
                                         ("hand", "1.0"), ("game", " 1x")])
def test_hand_and_game_numbers_are_never_rounded(app, tablet, field, value):
    body = {"game": 1, "hand": 1, "card": "9H", field: value}
    assert_json_error(tablet.post("knock-card", body))
    assert tablet.hand()["up_card"] is None


@pytest.mark.parametrize("points", [12.7, True, "12.7", -1, 1001])
def test_manual_points_are_never_rounded(app, tablet, points):
    tablet.knock_card("9H")
    assert_json_error(tablet.propose(kind="manual", winner="A", points=points))
    assert tablet.hand()["proposal"] is None


def test_revision_and_target_seq_are_never_rounded(app, tablet):
    tablet.knock_card("9H")
    tablet.propose(kind="manual", winner="A", points=12)
    h = tablet.hand()
    assert_json_error(tablet.post("confirm", {"game": 1, "hand": 1, "player": "A",
                                              "revision": h["revision"] + 0.5}))
    seq = events_of(app)[-1].seq
    assert_json_error(tablet.post("undo", {"target_seq": seq + 0.2}))
    assert_json_error(tablet.post("undo", {"target_seq": True}))
    assert tablet.hand()["confirmed_by"] == [] and tablet.hand()["proposal"] is not None


def test_form_posts_still_send_numbers_as_digits(app, tablet):
    r = tablet.client.post("/api/t/1/knock-card", data={
        "csrf_token": tablet.token, "game": "1", "hand": "1", "card": "9H"})
    assert r.status_code == 303
    assert tablet.hand()["up_card"] == "9H"


class _FakeCamera:
    """Stands in for a running camera: the stream would end at once."""

    def mjpeg(self, max_seconds: float = 600.0):
        return iter([])

    def status(self):
        return {"state": "ok", "message": "fake"}

    def latest_jpeg(self):
        return None


@pytest.mark.parametrize("query", ["max=abc", "max=nan", "max=inf", "max=-5", "max=1e400",
                                   "max=2.5"])
@pytest.mark.parametrize("stream", ["events", "camera.mjpg"])
def test_stream_lengths_must_be_whole_seconds(app, tablet, stream, query):
    app.extensions["gintray"].cameras[1] = _FakeCamera()
    r = tablet.client.get(f"/api/t/1/{stream}?{query}", buffered=False)
    try:
        assert_json_error(r)
    finally:
        r.close()


@pytest.mark.parametrize("path", ["/t/99999999999999999999/sheet",
                                  "/api/t/99999999999999999999/state",
                                  "/t/99999999999999999999/join",
                                  "/t/1/games/99999999999999999999/export.pdf"])
def test_huge_ids_are_not_found(app, tablet, path):
    r = tablet.client.get(path, headers={"Accept": "application/json"})
    assert_json_error(r, 404)


def test_huge_table_id_in_a_post_is_not_found(app, tablet):
    r = tablet.client.post("/api/t/99999999999999999999/undo", json={"target_seq": 1},
                           headers={"X-CSRFToken": tablet.token})
    assert_json_error(r, 404)


# --- item 10: redirects stay on this site, pages cannot be framed, cookie carries no hash -----

@pytest.mark.parametrize("target", ["/\t/evil.example", "/\n/evil.example", "//evil.example",
                                    "/\\evil.example", "\\/evil.example", "https://evil.example",
                                    "/\r\n/evil.example", " //evil.example", "/ /evil.example",
                                    "javascript:alert(1)"])
def test_next_after_a_form_post_never_leaves_the_site(app, tablet, target):
    r = tablet.client.post("/api/t/1/knock-card", data={
        "csrf_token": tablet.token, "game": "1", "hand": "1", "card": "9H", "next": target})
    assert r.status_code == 303
    location = r.headers["Location"]
    # browsers drop tabs and newlines from URLs and read "\" as "/"
    seen = re.sub(r"[\t\n\r]", "", location).replace("\\", "/")
    resolved = urlsplit(urljoin("http://localhost/t/1", seen))
    assert resolved.scheme == "http" and resolved.netloc == "localhost", location
    assert resolved.path == "/t/1"


def test_next_to_a_page_of_this_site_is_followed(app, tablet):
    r = tablet.client.post("/api/t/1/knock-card", data={
        "csrf_token": tablet.token, "game": "1", "hand": "1", "card": "9H",
        "next": "/t/1/sheet"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/t/1/sheet")


def _pages(app, tablet):
    director = director_client(app)
    tablet.play_manual_hand("A", 300)
    return [(tablet.client, p) for p in ("/", "/t/1", "/t/1/panel", "/t/1/sheet", "/t/1/history",
                                         "/t/1/games/1/sign", "/t/1/screen", "/t/1/join")] + [
        (director, p) for p in ("/director/", "/t/1", "/t/1/panel", "/t/1/sheet")]


def test_pages_forbid_framing_and_carry_a_content_security_policy(app, tablet):
    for client, path in _pages(app, tablet):
        r = client.get(path)
        assert r.status_code == 200, path
        assert r.headers["X-Frame-Options"] == "DENY", path
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, path
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    api = tablet.client.get("/api/t/1/state")
    assert api.headers["X-Frame-Options"] == "DENY"


def test_pages_need_nothing_the_policy_forbids(app, tablet):
    """No inline script, no inline event handler, no style attribute: the CSP allows none."""
    for client, path in _pages(app, tablet):
        html = client.get(path).get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path
        assert not re.search(r"\son[a-z]+\s*=", html, re.I), path
        assert not re.search(r"\sstyle\s*=", html, re.I), path
        assert "<style" not in html, path


def _session_of(app, client):
    cookie = client.get_cookie(app.config.get("SESSION_COOKIE_NAME", "session"))
    serializer = app.session_interface.get_signing_serializer(app)
    return serializer.loads(cookie.value)


def test_session_cookie_carries_no_part_of_the_password_hash(app):
    client = director_client(app)
    stored = app.extensions["gintray"].store.get_setting(DIRECTOR_KEY)
    raw = json.dumps(_session_of(app, client))
    parts = {stored[i:i + 8] for i in range(len(stored) - 7)}
    assert not [p for p in parts if p in raw]
    assert client.get("/director/").status_code == 200  # still logged in


def test_a_new_director_password_ends_old_director_sessions(app):
    client = director_client(app)
    assert client.get("/director/").status_code == 200
    with app.app_context():
        from webui.common.security import set_director_password

        set_director_password("another-password")
    assert client.get("/director/").status_code == 403


# --- item 8: a read-only database and a missing data folder are said plainly ------------------

def _busy_port():
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    return busy, busy.getsockname()[1]


def test_missing_data_dir_is_refused_unless_asked_to_create_it(tmp_path, capsys):
    missing = tmp_path / "no-such-folder"
    busy, port = _busy_port()
    with busy:  # the port is taken: a serve that got that far stops after setting up
        assert serve_main(["--data-dir", str(missing), "--no-camera", "--port", str(port)]) == 1
        err = capsys.readouterr().err
        assert str(missing) in err and "--create" in err and "cannot listen" not in err
        assert not missing.exists()
        status = serve_main(["--data-dir", str(missing), "--create", "--no-camera",
                             "--port", str(port)])
    assert status == 1 and "cannot listen" in capsys.readouterr().err
    assert (missing / "gintray.sqlite3").is_file()


def _read_only_url(data_dir: Path) -> str:
    return f"sqlite:///file:{data_dir / 'gintray.sqlite3'}?mode=ro&uri=true"


def test_read_only_database_refuses_to_start_with_the_reason(tmp_path, capsys):
    make_app(tmp_path)
    busy, port = _busy_port()
    with busy:
        status = serve_main(["--data-dir", str(tmp_path), "--database-url",
                             _read_only_url(tmp_path), "--no-camera", "--port", str(port)])
    err = capsys.readouterr().err
    assert status == 1 and "cannot start" in err
    assert "read-only" in err or "readonly" in err
    assert "cannot listen" not in err


def test_a_write_to_a_read_only_database_says_why(tmp_path):
    app = make_app(tmp_path)
    tablet = Tablet(app)
    read_only = create_app({"DATA_DIR": str(tmp_path), "START_CAMERAS": False, "TESTING": True,
                            "DATABASE_URL": _read_only_url(tmp_path)})
    client = read_only.test_client()
    client.set_cookie("session", tablet.client.get_cookie("session").value)
    assert client.get("/api/t/1/state").status_code == 200  # reading still works
    r = client.post("/api/t/1/knock-card", json={"game": 1, "hand": 1, "card": "9H"},
                    headers={"X-CSRFToken": tablet.token})
    assert_json_error(r, 503)
    assert "read-only" in r.get_json()["error"]["message"]
