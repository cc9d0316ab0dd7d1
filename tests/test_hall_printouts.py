"""Printouts (issue 27 item 12), on a real PostgreSQL: the pairing print shows each player's
record going into the round and an alphabetical list (name, table, seat, opponent) for the
wall; the blind draw prints (seed, tables, bye, alphabetical list); the results of every round
export as CSV, one row a table (games, points, result) plus the byes and forfeits. Hostile
names are escaped in the pages and quoted in the CSV."""

from __future__ import annotations

import csv
import html
import io
import re
from typing import Any

import hall_helpers
from hall_helpers import play_hand, win_match

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall
ENTRANTS = ["Ann", "ben", "Cy", "=Dee", "<b>Eve</b>"]  # odd: a bye; a formula; markup


def post(client: Any, path: str, **data: Any) -> Any:
    return client.post(path, data={**data, "csrf_token": client.csrf}, follow_redirects=True)


def ev(client: Any) -> dict[str, Any]:
    return client.get("/api/event").get_json()


def by_name(store, name: str) -> int:
    return next(t.id for t in store.tables() if t.name == name)


def test_the_draw_prints_with_its_seed_tables_bye_and_an_alphabetical_list(hall):
    _app, client, _store = hall
    assert client.get("/draw/print").status_code == 404  # no draw yet
    post(client, "/draw", entrants="\n".join(ENTRANTS))
    draw = ev(client)["draw"]
    r = client.get("/draw/print")
    assert r.status_code == 200
    raw = r.get_data(as_text=True)
    assert "<b>Eve</b>" not in raw and "&lt;b&gt;Eve&lt;/b&gt;" in raw
    page = html.unescape(raw)
    assert f"seed {draw['seed']}" in page and "5 entrants" in page
    table_rows = re.findall(r'<tr class="pair"><td class="n">(\d+)</td><td>([^<]*)</td>'
                            r"<td>([^<]*)</td>", raw)
    drawn = [(int(p["table"]), p["A"], p["B"]) for p in draw["pairs"] if not p.get("bye")]
    assert [(int(t), html.unescape(a), html.unescape(b)) for t, a, b in table_rows] == drawn
    (bye,) = [p["A"] for p in draw["pairs"] if p.get("bye")]
    assert f"bye: {bye}" in page
    alpha = re.findall(r'<tr class="who"><td>([^<]*)</td>', raw)
    names = [html.unescape(n) for n in alpha]
    assert names == sorted(ENTRANTS, key=str.casefold)  # "ben" among the capitals
    assert 'href="/draw/print"' in client.get("/").get_data(as_text=True)


def test_the_pairing_print_has_records_and_an_alphabetical_list(hall):
    _app, client, store = hall
    post(client, "/draw", entrants="Ann\nBen\nCy\nDi")
    post(client, "/draw/seat")
    for table in store.tables():
        win_match(store, table.id, "A")  # seat A wins each first-round match
    winners = {store.state(t.id).players["A"] for t in store.tables()}
    post(client, "/pairing")
    pairing = ev(client)["pairing"]
    raw = client.get(f"/pairing/{pairing['id']}/print").get_data(as_text=True)
    page = html.unescape(re.sub(r"<[^>]+>", "", raw))
    for pair in pairing["pairs"]:
        for seat in ("A", "B"):
            who = pair[seat]
            wins = "1 win" if who["name"] in winners else "0 wins"
            assert f"{who['name']} (#{who['rank']}, {wins})" in page, (who, page)
    alpha = re.findall(r'<tr class="who"><td>([^<]*)</td><td class="n">(\d+)</td>'
                       r"<td>([AB])</td><td>([^<]*)</td>", raw)
    assert [a[0] for a in alpha] == ["Ann", "Ben", "Cy", "Di"]
    for name, table, seat, opponent in alpha:
        pair = next(p for p in pairing["pairs"] if p["table"] == int(table))
        other = "B" if seat == "A" else "A"
        assert pair[seat]["name"] == name and pair[other]["name"] == opponent
    assert 'id="alphabetical"' in raw


def test_results_of_every_round_export_as_csv(hall):
    _app, client, store = hall
    post(client, "/draw", entrants="\n".join(ENTRANTS))
    draw = ev(client)["draw"]
    (bye,) = [p["A"] for p in draw["pairs"] if p.get("bye")]
    post(client, "/draw/seat")
    first = [p for p in draw["pairs"] if not p.get("bye")]
    for p in first:
        win_match(store, by_name(store, f"Round 1 Table {p['table']}"), "A")
    post(client, "/pairing")
    pairing = ev(client)["pairing"]
    post(client, f"/pairing/{pairing['id']}/approve")
    one, two = pairing["pairs"]
    play_hand(store, by_name(store, f"Round 2 Table {one['table']}"), "B")  # under way
    absent = two["B"]["name"]
    forfeit_table = by_name(store, f"Round 2 Table {two['table']}")
    post(client, f"/tables/{forfeit_table}/forfeit", absent="B")

    r = client.get("/results.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert "gintray-results" in r.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    unquote = {f"'{n}": n for n in ENTRANTS if n[0] in "=+-@"}
    name = lambda v: unquote.get(v, v)  # noqa: E731
    for row in rows:
        for key in ("seat A", "seat B", "winner"):
            assert not row[key].startswith(("=", "+", "-", "@")), row  # no formula runs
    round1 = [r for r in rows if r["round"] == "1"]
    played = [r for r in round1 if r["table"] != "bye"]
    assert [(int(r["table"]), name(r["seat A"]), name(r["seat B"])) for r in played] == [
        (p["table"], p["A"], p["B"]) for p in first]
    for row in played:  # seat A won three games of gins: 3-0 and the points
        assert (row["games A"], row["games B"], row["result"]) == ("3", "0", "won")
        assert name(row["winner"]) == name(row["seat A"])
        assert int(row["points A"]) > 0 and row["points B"] == "0"
    (bye_row,) = [r for r in round1 if r["table"] == "bye"]
    assert name(bye_row["seat A"]) == bye and bye_row["result"] == "bye"
    round2 = {int(r["table"]): r for r in rows if r["round"] == "2" and r["table"] != "bye"}
    assert round2[one["table"]]["result"] == "playing"
    assert round2[one["table"]]["points A"] == "0"  # no game finished yet
    assert round2[two["table"]]["result"] == "forfeit"
    assert name(round2[two["table"]]["winner"]) == two["A"]["name"]
    assert absent in round2[two["table"]]["note"]
    page = client.get("/").get_data(as_text=True)
    assert 'href="/results.csv"' in page
