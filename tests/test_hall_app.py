"""The director's page on a real PostgreSQL event database: access, tables live, standings,
blind draw, partnership matches, corrections, the bundle of signed sheets, the CLIs."""

from __future__ import annotations

import hashlib
import html
import io
import json
import re
import zipfile
from dataclasses import replace

import hall_helpers
import pytest
from hall_helpers import (
    PLAYER_A,
    PLAYER_B,
    confirmed_hands,
    fetch_bundle,
    new_partnership,
    new_table,
    play_hand,
)

from scorer import MatchStatus, parse_card
from vision.table.notes import NoteKind, Problem
from webui.common.proposal_form import parse_proposal
from webui.common.signing import verify_pdf
from webui.common.words import problem_sentence
from webui.hall import create_hall_app, tournament
from webui.hall.cli import hall_main, sync_main
from webui.hall.draw import DrawError, blind_draw
from webui.hall.sync import open_store, sync_once
from webui.store import commands

pg_server, pg_url = hall_helpers.pg_server, hall_helpers.pg_url  # fixtures
DOUBT = Problem(NoteKind.DOUBTFUL_CARD, player="A", cards=(parse_card("7C"),),
                alternative=parse_card("7S"))
PASSWORD = "director-pass-1"
PNG_DATA_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVQI"
                "HWMAAQAABQABim28IAAAAABJRU5ErkJggg==")


def token(client) -> str:
    page = client.get("/login", follow_redirects=True).get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


@pytest.fixture
def hall(pg_url, tmp_path):
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "hall")})
    client = app.test_client()
    page = client.get("/setup").get_data(as_text=True)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    r = client.post("/setup", data={"password": PASSWORD, "again": PASSWORD,
                                    "csrf_token": csrf})
    assert r.status_code == 302
    client.csrf = csrf
    return app, client, app.extensions["gintray"].store


def event(client) -> dict:
    r = client.get("/api/event")
    assert r.status_code == 200
    return r.get_json()


def test_only_the_director_and_only_with_the_security_token(pg_url, tmp_path):
    app = create_hall_app({"DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path / "h")})
    client = app.test_client()
    assert client.get("/").status_code == 403
    assert client.get("/api/event").status_code == 403
    assert client.post("/setup", data={"password": PASSWORD, "again": PASSWORD}).status_code == 400
    remote = app.test_client()
    assert remote.get("/setup", environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 403
    csrf = token(client)
    client.post("/setup", data={"password": PASSWORD, "again": PASSWORD, "csrf_token": csrf})
    assert client.get("/").status_code == 200
    other = app.test_client()
    csrf = token(other)
    r = other.post("/login", data={"password": "wrong-password", "csrf_token": csrf})
    assert r.status_code == 403 and other.get("/").status_code == 403
    other.post("/login", data={"password": PASSWORD, "csrf_token": csrf})
    assert other.get("/").status_code == 200


def test_every_table_live_with_who_must_confirm_and_reading_problems(hall, tmp_path):
    _app, client, store = hall
    direct = new_table(store, "Direct 1", "Ann", "Bob")
    play_hand(store, direct, "A")
    store.execute(direct, commands.set_knock_card(1, 2, parse_card("5H")), PLAYER_A)
    proposal = parse_proposal(hall_helpers.hand_cards("B"))
    store.execute(direct, commands.propose(1, 2, proposal), PLAYER_A)
    rev = store.state(direct).hand(1, 2).revision
    store.execute(direct, commands.confirm(1, 2, "B", rev), PLAYER_B)
    local = open_store(f"sqlite:///{tmp_path / 'table.sqlite3'}")
    synced = new_table(local, "Synced 2", "Cy", "Di")
    local.execute(synced, commands.set_knock_card(1, 1, parse_card("9D")), PLAYER_A)
    camera = replace(parse_proposal(hall_helpers.hand_cards("A")),
                     problems=(DOUBT,), confidence=0.42)
    local.execute(synced, commands.propose(1, 1, camera, source="camera", strict=False),
                  PLAYER_A)
    sync_once(local, store)
    tables = {t["name"]: t for t in event(client)["tables"]}
    assert tables["Direct 1"]["waiting"] == ["Ann"]
    assert tables["Direct 1"]["score"] == {"A": 14, "B": 0}
    assert (tables["Direct 1"]["game"], tables["Direct 1"]["hand"]) == (1, 2)
    assert not tables["Direct 1"]["mirrored"] and tables["Synced 2"]["mirrored"]
    problems = " ".join(tables["Synced 2"]["problems"])
    said = "The camera is unsure of 7♣ in Cy's cards: it may be 7♠."  # as on the tablet
    assert said == problem_sentence(DOUBT, {"A": "Cy", "B": "Di"})
    assert said in problems and "42%" in problems and "doubtful_card" not in problems
    assert tables["Synced 2"]["waiting"] == ["Cy", "Di"]
    page = client.get("/live").get_data(as_text=True)
    assert "Synced 2" in page and said in html.unescape(page)


def test_standings_and_best_of_five_match_results(hall):
    _app, client, store = hall
    t1 = new_table(store, "Table 1", "Ann", "Bob")
    t2 = new_table(store, "Table 2", "Cy", "Di")
    for _ in range(3):  # three gins of 97 end each game (250): Ann wins three games
        for _ in range(3):
            play_hand(store, t1, "A", gin=True)
    for _ in range(3):
        play_hand(store, t2, "B", gin=True)
    play_hand(store, t2, "A")
    ev = event(client)
    match = {t["name"]: t["match"] for t in ev["tables"]}
    assert match["Table 1"]["complete"] and match["Table 1"]["winner_name"] == "Ann"
    assert match["Table 1"]["games_won"] == {"A": 3, "B": 0}
    assert match["Table 2"]["games_won"] == {"A": 0, "B": 1} and not match["Table 2"]["complete"]
    # the page model holds the engine's match, written as JSON only by the API
    typed = tournament.table_summary(store, t1, False)["match"]
    assert isinstance(typed.status, MatchStatus) and typed.winner == "A"
    assert typed.to_json() == match["Table 1"]
    ranked = [(s["name"], s["matches_won"], s["games_won"], s["games_lost"])
              for s in ev["standings"]]
    assert ranked[0] == ("Ann", 1, 3, 0)
    assert ranked[1] == ("Di", 0, 1, 0)
    assert ranked[-1] == ("Bob", 0, 0, 3)
    ann = ev["standings"][0]
    # per game (002/003 via the engine): 3 x 97 + game bonus 100, doubled for the shutout,
    # then 3 boxes of 25
    assert ann["points_for"] == 3 * ((291 + 100) * 2 + 75) and ann["points_against"] == 0


def test_blind_draw_pairs_everyone_once():
    seed, pairs = blind_draw(["Ann", "Bob", "Cy", "Di", "Ed"], seed="fixed")
    assert blind_draw(["Ann", "Bob", "Cy", "Di", "Ed"], seed="fixed") == (seed, pairs)
    seated = [p[s] for p in pairs for s in ("A", "B") if p[s]]
    assert sorted(seated) == ["Ann", "Bob", "Cy", "Di", "Ed"]
    assert [p["table"] for p in pairs] == [1, 2, None] and pairs[-1]["bye"]
    orders = {tuple(p["A"] for p in blind_draw(list("ABCDEFGH"))[1]) for _ in range(20)}
    assert len(orders) > 1  # a fresh seed each time: the draw is not fixed
    for bad in (["Ann"], ["Ann", "ann"], ["", " "]):
        with pytest.raises(DrawError):
            blind_draw(bad)


def test_draw_on_the_page(hall):
    _app, client, _store = hall
    r = client.post("/draw", data={"entrants": "Ann\nBob\nCy\nDi\n", "kind": "singles",
                                   "csrf_token": client.csrf})
    assert r.status_code == 303
    draw = event(client)["draw"]
    assert len(draw["pairs"]) == 2 and draw["seed"]
    assert sorted(n for p in draw["pairs"] for n in (p["A"], p["B"])) == ["Ann", "Bob", "Cy", "Di"]
    r = client.post("/draw", data={"entrants": "Ann\nAnn", "csrf_token": client.csrf},
                    follow_redirects=True)
    assert "entered twice" in r.get_data(as_text=True)
    assert event(client)["draw"]["seed"] == draw["seed"]
    r = client.post("/draw/seat", data={"csrf_token": client.csrf})
    assert r.status_code == 303
    seated = {t["name"]: t["players"] for t in event(client)["tables"]}
    assert seated == {f"Round 1 Table {p['table']}": {"A": p["A"], "B": p["B"]}
                      for p in draw["pairs"]}


def test_partnership_match_nets_both_boards_into_250_point_games(hall):
    _app, client, store = hall
    b1 = new_table(store, "Board 1", "Ann", "Cy", rules="partnership")
    b2 = new_table(store, "Board 2", "Bob", "Di", rules="partnership")
    r = client.post("/partnerships", data={"team_A": "Aces", "team_B": "Aces", "board_1": b1,
                                           "board_2": b2, "csrf_token": client.csrf},
                    follow_redirects=True)
    assert "different names" in r.get_data(as_text=True)
    client.post("/partnerships", data={"team_A": "Aces", "members_A": "Ann, Bob",
                                       "team_B": "Kings", "members_B": "Cy, Di",
                                       "board_1": b1, "board_2": b2, "csrf_token": client.csrf})
    play_hand(store, b1, "A")  # Aces +14 on board 1
    play_hand(store, b2, "B", gin=True)  # Kings +97 on board 2
    play_hand(store, b1, "B", gin=True)  # board 1 is a hand ahead: not counted yet
    (p,) = event(client)["partnerships"]
    assert p["names"] == {"A": "Aces", "B": "Kings"} and p["board_hands"] == [2, 1]
    assert [(h["winner"], h["points"]) for h in p["hands"]] == [("B", 83)]
    for _ in range(3):
        play_hand(store, b2, "B", gin=True)
        play_hand(store, b1, "B", gin=True)
    p = event(client)["partnerships"][0]
    assert p["games"][0]["complete"] and p["games"][0]["winner"] == "B"
    # team hands 83, 194, 194, 194: game 1 after two hands (277), game 2 after two more (388)
    assert [g["hands"] for g in p["games"]] == [[1, 2], [3, 4]]
    assert p["match"]["games_won"] == {"A": 0, "B": 2}
    assert p["match"]["complete"]  # 000 partnership rule 1: Aces stop after two losses
    page = html.unescape(client.get("/").get_data(as_text=True))
    assert "Games won: Aces 0, Kings 2 — series over, Kings ahead" in page
    for g in p["games"]:
        finals = g["finals"]
        assert (f"Game {g['game']}: Aces {finals['A']}, Kings {finals['B']} (won by Kings)"
                in page)
    standings = [s["name"] for s in event(client)["standings"]]
    assert "Ann" not in standings  # boards of a partnership are not singles matches


def test_a_dead_board_scores_nobody_in_the_team_hand(hall):
    """Issue 16: a dead board was read as 0 points by an 'or 0'; it is a dead board (the
    engine's sheet entry), the team hand is the other board's, and the page says so."""
    _app, client, store = hall
    b1, b2 = new_partnership(client, store)
    store.execute(b1, commands.propose(1, 1, parse_proposal({"kind": "dead"})),
                  PLAYER_A)
    for player, actor in (("A", PLAYER_A), ("B", PLAYER_B)):
        revision = store.state(b1).hand(1, 1).revision
        store.execute(b1, commands.confirm(1, 1, player, revision), actor)
    play_hand(store, b2, "A")  # Aces +14 on board 2
    (p,) = event(client)["partnerships"]
    (hand,) = p["hands"]
    assert hand["boards"] == [{"dead": True}, {"winner": "A", "points": 14}]
    assert (hand["winner"], hand["points"]) == ("A", 14)
    page = client.get("/").get_data(as_text=True)
    assert "<td>dead</td><td>Aces 14</td><td>Aces +14</td>" in page


def test_director_correction_applies_at_once_or_through_the_sync(hall, tmp_path):
    _app, client, store = hall
    direct = new_table(store, "Direct", "Ann", "Bob")
    play_hand(store, direct, "A")
    rev = store.state(direct).hand(1, 1).revision
    r = client.post(f"/tables/{direct}/correct", json={"game": 1, "hand": 1, "kind": "manual",
                                                       "winner": "B", "points": 20,
                                                       "revision": rev},
                    headers={"X-CSRFToken": client.csrf})
    assert r.status_code == 200 and r.get_json()["status"] == "applied"
    assert confirmed_hands(store, direct) == [(1, 1, "B", 20)]
    r = client.post(f"/tables/{direct}/correct", json={"game": 1, "hand": 1, "kind": "manual",
                                                       "winner": "B", "points": -3,
                                                       "revision": rev + 1},
                    headers={"X-CSRFToken": client.csrf})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "bad_points"
    r = client.post(f"/tables/{direct}/correct", json={"game": 1, "hand": 1, "kind": "manual",
                                                       "winner": "A", "points": 5})
    assert r.status_code == 400  # no security token

    local = open_store(f"sqlite:///{tmp_path / 't.sqlite3'}")
    t = new_table(local, "Synced", "Cy", "Di")
    play_hand(local, t, "A")
    sync_once(local, store)
    mirror = next(x["id"] for x in event(client)["tables"] if x["name"] == "Synced")
    r = client.post(f"/tables/{mirror}/correct", data={
        "game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": 7, "note": "miscount",
        "revision": store.state(mirror).hand(1, 1).revision, "csrf_token": client.csrf})
    assert r.status_code == 303
    assert event(client)["requests"][0]["status"].startswith("waiting")
    assert confirmed_hands(local, t) == [(1, 1, "A", 14)]
    sync_once(local, store)
    assert confirmed_hands(local, t) == [(1, 1, "B", 7)]
    assert confirmed_hands(store, mirror) == [(1, 1, "B", 7)]
    assert event(client)["requests"][0]["status"] == "applied"
    assert "Synced" in client.get(f"/tables/{mirror}").get_data(as_text=True)


def test_bundle_holds_every_signed_sheet_with_a_valid_signature(hall):
    app, client, store = hall
    t1 = new_table(store, "Table 1", "Ann", "Bob")
    t2 = new_table(store, "Table 2", "Cy", "Di")
    for _ in range(3):
        play_hand(store, t1, "A", gin=True)
        play_hand(store, t2, "B", gin=True)
    for p in "AB":
        store.execute(t1, commands.sign(1, p, PNG_DATA_URL), PLAYER_A)
    store.execute(t2, commands.sign(1, "A", PNG_DATA_URL), PLAYER_A)  # only one signature
    r = fetch_bundle(app, client)
    assert r.mimetype == "application/zip"
    zf = zipfile.ZipFile(io.BytesIO(r.data))
    manifest = json.loads(zf.read("manifest.json"))
    names = sorted(f["name"] for f in manifest["files"])
    assert names == [f"table-{t1:03d}-table-1/game-1.json", f"table-{t1:03d}-table-1/game-1.pdf"]
    for f in manifest["files"]:
        assert hashlib.sha256(zf.read(f["name"])).hexdigest() == f["sha256"]
    pdf = zf.read(names[1])
    assert verify_pdf(pdf, app.extensions["gintray"].identity).ok
    sheet = json.loads(zf.read(names[0]))
    assert sheet["game"]["locked"] and sheet["game"]["winner"] == "A"
    assert manifest["standings"][0]["name"] == "Ann"
    # the director reopens the signed game: it leaves the bundle until it is signed again
    r = client.post(f"/tables/{t1}/reopen", json={"game": 1}, headers={"X-CSRFToken": client.csrf})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "reason_needed"
    r = client.post(f"/tables/{t1}/reopen", json={"game": 1, "reason": "hand 2 miscounted"},
                    headers={"X-CSRFToken": client.csrf})
    assert r.status_code == 200 and r.get_json()["status"] == "applied"
    zf = zipfile.ZipFile(io.BytesIO(fetch_bundle(app, client).data))
    assert json.loads(zf.read("manifest.json"))["files"] == []
    assert store.events(t1)[-1].payload["reason"] == "hand 2 miscounted"


def test_cli_sync_once_and_unreachable_event_database(tmp_path, pg_url, capsys, monkeypatch):
    monkeypatch.delenv("GINTRAY_EVENT_DATABASE_URL", raising=False)
    local = open_store(f"sqlite:///{tmp_path / 'cli.sqlite3'}")
    play_hand(local, new_table(local, "CLI"), "A")
    src = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    assert sync_main(["--from", src, "--to", pg_url]) == 0
    assert "1 table(s)" in capsys.readouterr().out
    assert sync_main(["--from", src, "--to", pg_url]) == 0
    assert "0 event(s) uploaded" in capsys.readouterr().out
    dead = "postgresql://gintray@127.0.0.1:9/none"
    assert sync_main(["--from", src, "--to", dead]) == 1
    assert "unreachable" in capsys.readouterr().err
    assert sync_main(["--from", src]) == 2
    assert hall_main([]) == 2
    assert hall_main(["--database-url", dead, "--data-dir", str(tmp_path / "h")]) == 1
    assert "cannot start" in capsys.readouterr().err
