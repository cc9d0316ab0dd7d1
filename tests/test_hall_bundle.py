"""The event bundle on a real PostgreSQL event database (issue 18 item 9): each signed game's
JSON carries that game's events (and the table's settings), not the table's whole history."""

from __future__ import annotations

import io
import json
import zipfile

import hall_helpers
from hall_helpers import (
    PLAYER_A,
    PNG_DATA_URL,
    fetch_bundle,
    new_partnership,
    new_table,
    play_hand,
)

from webui.common.signing import verify_pdf
from webui.store import commands

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def test_each_game_json_holds_only_its_own_events(hall):
    app, client, store = hall
    table = new_table(store, "Table 1", "Ann", "Bob")
    for game in (1, 2, 3):  # three games of three gins, each signed by both
        for _ in range(3):
            play_hand(store, table, "A", gin=True)
        for p in "AB":
            store.execute(table, commands.sign(game, p, PNG_DATA_URL), PLAYER_A)
    history = store.events(table)
    zf = zipfile.ZipFile(io.BytesIO(fetch_bundle(app, client).data))
    seen: set[int] = set()
    for game in (1, 2, 3):
        body = json.loads(zf.read(f"table-{table:03d}-table-1/game-{game}.json"))
        kinds = {e["kind"] for e in body["history"]}
        games = {e["payload"].get("game", game) for e in body["history"]}
        assert games == {game}, games  # nothing of another game
        assert "table_created" in kinds and {"confirmed", "signed"} <= kinds
        assert body["table_last_seq"] == history[-1].seq
        assert sum(e["kind"] == "signed" for e in body["history"]) == 2
        seen |= {e["seq"] for e in body["history"]}
        pdf = zf.read(f"table-{table:03d}-table-1/game-{game}.pdf")
        assert verify_pdf(pdf, app.extensions["gintray"].identity).ok
    # together the three games' histories are the table's whole history
    assert seen == {e.seq for e in history}


def test_the_bundle_builds_in_the_background_incrementally_while_pages_answer(hall):
    app, client, store = hall
    bundler = app.extensions["gintray"].bundler
    table = new_table(store, "Table 1", "Ann", "Bob")
    for game in (1, 2):
        for _ in range(3):
            play_hand(store, table, "A", gin=True)
        for p in "AB":
            store.execute(table, commands.sign(game, p, PNG_DATA_URL), PLAYER_A)
    r = client.get("/bundle.zip")  # answered at once: the build runs in another process
    assert r.status_code == 202 and "Building the zip in the background" in r.get_data(
        as_text=True)
    assert bundler.running()  # the child is still starting, and meanwhile the pages answer:
    assert client.get("/").status_code == 200
    assert client.get("/bundle/status").get_json()["state"] in ("running", "done")
    first = bundler.wait(600)
    assert (first.done, first.total, first.signed_now) == (2, 2, 2)
    again = client.get("/bundle.zip")  # nothing signed since: the same zip, no build
    assert again.status_code == 200 and not bundler.running()

    for _ in range(3):  # a third game signed: only it is signed now, the rest from the cache
        play_hand(store, table, "A", gin=True)
    for p in "AB":
        store.execute(table, commands.sign(3, p, PNG_DATA_URL), PLAYER_A)
    zf = zipfile.ZipFile(io.BytesIO(fetch_bundle(app, client).data))
    second = bundler.status()
    assert (second.done, second.total, second.signed_now) == (3, 3, 1)
    assert sorted(n for n in zf.namelist() if n.endswith(".pdf")) == [
        f"table-{table:03d}-table-1/game-{g}.pdf" for g in (1, 2, 3)]
    for g in (1, 2, 3):
        pdf = zf.read(f"table-{table:03d}-table-1/game-{g}.pdf")
        assert verify_pdf(pdf, app.extensions["gintray"].identity).ok


def test_the_bundle_manifest_holds_the_partnerships_as_the_event_api_writes_them(hall):
    """The page model holds the engine's match and games; the bundle's manifest (a JSON file
    written by another process) writes them as the API does."""
    app, client, store = hall
    b1, b2 = new_partnership(client, store)
    for _ in range(2):
        play_hand(store, b1, "B", gin=True)
        play_hand(store, b2, "B", gin=True)
    (api,) = client.get("/api/event").get_json()["partnerships"]
    assert api["games"][0]["complete"] and api["match"]["games_won"] == {"A": 0, "B": 1}
    zf = zipfile.ZipFile(io.BytesIO(fetch_bundle(app, client).data))
    (stored,) = json.loads(zf.read("manifest.json"))["partnerships"]
    assert stored == api
