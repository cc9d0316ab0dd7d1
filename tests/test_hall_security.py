"""The hall's pages forbid framing and carry a Content-Security-Policy without
'unsafe-inline', like the table app's, and need nothing that policy forbids (no inline
script or style, no event handler attributes), on a real PostgreSQL."""

from __future__ import annotations

import re

import hall_helpers
from hall_helpers import new_table, play_hand

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def _pages(store) -> list[str]:
    t = new_table(store, "Table 1", "Ann", "Bob")
    play_hand(store, t, "A")
    return ["/", "/live", "/board", "/standings/print", f"/tables/{t}"]


def test_hall_pages_forbid_framing_and_inline_code(hall):
    app, client, store = hall
    stranger = app.test_client()
    for c, path in [(client, p) for p in _pages(store)] + [(stranger, "/login")]:
        r = c.get(path)
        assert r.status_code == 200, path
        assert r.headers["X-Frame-Options"] == "DENY", path
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, path
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, path
        assert r.headers["X-Content-Type-Options"] == "nosniff", path
        html = r.get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path
        assert not re.search(r"\son[a-z]+\s*=", html, re.I), path
        assert not re.search(r"\sstyle\s*=", html, re.I), path
        assert "<style" not in html, path
    assert client.get("/api/event").headers["X-Frame-Options"] == "DENY"
    assert stranger.get("/").headers["X-Frame-Options"] == "DENY"  # error pages too


def test_the_index_refresh_script_is_a_static_file(hall):
    _app, client, _store = hall
    page = client.get("/").get_data(as_text=True)
    src = re.search(r'<script src="([^"]+hall\.js)"', page)
    assert src, "the index page loads hall.js"
    js = client.get(src.group(1))
    assert js.status_code == 200 and "setInterval" in js.get_data(as_text=True)
    assert 'data-live="/live"' in page
