"""The whole event of issue 27's "Done when", in one test: 8 players drawn and seated on 4
synced table apps, then 7 after a withdrawal (a bye in round 2, counted as the event's rule
says: a match won with no points), then 8 again with a late entry, 3 Swiss rounds. Nobody
types a name at any table: each table app picks up its round's table on its next sync (no
table is created by hand at a table app), the results are played at the table apps only and
reach the hall by sync. After every change the hall's board (/board), clock (/api/event
"round") and standings are checked against what the table apps hold: every table's true
state (playing or over), no ghost tables, matches won and byes as played. A real PostgreSQL
event database, table apps on SQLite, traffic on loopback only.

Issue 38 on top: the 4th table computer played an earlier event and is refused until it joins
this one (its earlier tables archived, never counted here); the players are registered and
the draw takes the registration list (a typo at the draw is caught); round 2's first pairing
is undone after a table app confirmed a hand unseen (the tables are told, the hand is kept
and said so, the undone tables leave the board) and the round is paired again; in round 3 a
player does not show (a forfeit, told to its table app and shown over on every screen).

The draw is seeded (the draw view draws with a fresh seed; the test gives it a fixed one), the
winner of every match is fixed by the players' strength, so the whole event (draw, Swiss
pairings, bye, standings) is the same on every run."""

from __future__ import annotations

import csv
import functools
import io
import re
from collections import Counter
from pathlib import Path
from typing import Any

import hall_helpers
import pytest
from flask import Flask
from hall_helpers import PLAYER_A, PLAYER_B, PNG_DATA_URL, new_table, play_hand, win_match
from webui_helpers import _shared_identity

from webui import create_app
from webui.common.membership import current_tables
from webui.common.seating import forfeit_of, seating_of, undone, withdrawn_tokens
from webui.hall import draw as draw_mod
from webui.hall import stations
from webui.hall.cli import sync_main
from webui.hall.clock import table_playing
from webui.hall.joining import OtherEvent
from webui.hall.sync import linked_tables, open_store, sync_once
from webui.store import Store, commands

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall
earlier_event = hall_helpers.earlier_event

SEED = "issue-27-whole-event"
# strongest first: the stronger player wins every match (the late entrant is the strongest)
STRENGTH = ["Ivy", "Ann", "Ben", "Cy", "Di", "Eve", "Finn", "Gus", "Hal"]
ENTRANTS = STRENGTH[1:]
LATE = "Ivy"
WITHDRAWS = "Cy"  # after round 1
STATIONS = 4


def table_app(data_dir: Path) -> Flask:
    """A table app with no table of its own (the hall seats its rounds)."""
    data_dir.mkdir(parents=True)
    _shared_identity(data_dir)
    return create_app({"DATA_DIR": str(data_dir), "START_CAMERAS": False, "TESTING": True})


def post(client: Any, path: str, **data: Any) -> str:
    r = client.post(path, data={**data, "csrf_token": client.csrf}, follow_redirects=True)
    assert r.status_code == 200, (path, r.status_code)
    return r.get_data(as_text=True)


def ev(client: Any) -> dict[str, Any]:
    return client.get("/api/event").get_json()


class Event:
    """The hall (its director's client, its event database) and the table apps by station."""

    def __init__(self, client: Any, central: Store, apps: list[Flask]) -> None:
        self.client, self.central, self.apps = client, central, apps
        self.stores: list[Store] = [a.extensions["gintray"].store for a in apps]
        self.byes: Counter[str] = Counter()  # byes given, by name
        self.forfeits: list[tuple[str, str]] = []  # (winner, absent) of each forfeit

    def sync(self, station: int | None = None) -> None:
        for n, store in enumerate(self.stores, start=1):
            if station in (None, n):
                sync_once(store, self.central)

    def round_tables(self, number: int) -> dict[int, tuple[Store, int]]:
        """Round ``number``'s tables at the table apps: station -> (its store, local id)."""
        out = {}
        for n, store in enumerate(self.stores, start=1):
            for t in current_tables(store):
                seating = seating_of(store, t.id)
                if seating is not None and seating.round == number \
                        and seating.token not in withdrawn_tokens(store):  # not undone
                    assert n not in out, f"station {n} holds two round-{number} tables"
                    out[n] = (store, t.id)
        return out

    def check_seated(self, number: int, pairs: list[tuple[str, str]]) -> None:
        """Every table app holds its table of round ``number`` with the paired names (table k
        at station k), opened by the sync from the hall's seating (never typed), and no other
        table app holds one; the table app's finished screen of its latest earlier table moves
        on to it."""
        held = self.round_tables(number)
        assert sorted(held) == list(range(1, len(pairs) + 1)), (number, sorted(held))
        for k, (a, b) in enumerate(pairs, start=1):
            store, local_id = held[k]
            state = store.state(local_id)
            assert state.name == f"Round {number} Table {k}"
            assert state.players == {"A": a, "B": b}
            seating = seating_of(store, local_id)
            assert seating is not None and (seating.a, seating.b, seating.table) == (a, b, k)
            created = store.events(local_id)[0]
            assert created.kind == "table_created" and created.actor == "director"
            screen = self.apps[k - 1].test_client()
            earlier = [t for r in range(1, number) if (t := self.round_tables(r).get(k))]
            start = earlier[-1][1] if earlier else local_id  # its latest finished table
            page = screen.get(f"/t/{start}/screen", follow_redirects=True)
            assert f"Round {number}: {a} vs {b}" in page.get_data(as_text=True), (number, k)

    def truth(self) -> dict[int, bool]:
        """Every table the table apps hold, by its id at the event database (its mirror):
        whether it still plays, from the table app's own state (a table whose pairing was
        undone, as its table app was told, plays no more)."""
        origins = {store.get_setting("hall_origin"): store for store in self.stores}
        out = {}
        for central_id, link in linked_tables(self.central).items():
            store = origins[link.origin]
            local = link.origin_table_id
            out[central_id] = table_playing(store.state(local)) and undone(
                store, local) is None and forfeit_of(store, local) is None
        held = sum(len(current_tables(store)) for store in self.stores)
        assert len(out) == held, "a table app's table is not mirrored (or mirrored twice)"
        return out

    def check_board(self, number: int, tables: int) -> None:
        """The hall shows every table's true state: the event database holds the table apps'
        tables only (no ghost table), each playing or over as at its table app, on the JSON,
        the board's tiles and the round clock (round ``number`` with its ``tables``)."""
        truth = self.truth()
        assert sorted(t.id for t in self.central.tables()) == sorted(truth)  # no ghosts
        event = ev(self.client)
        assert {t["id"]: t["playing"] for t in event["tables"]} == truth
        assert all(t["mirrored"] for t in event["tables"])

        board = self.client.get("/board").get_data(as_text=True)
        tiles = re.findall(r'<div class="tile sync-\w+( over)?" data-table="(\d+)">', board)
        gone = {t["id"] for t in event["tables"] if t["undone"]}  # off the board
        assert {int(t): not over for over, t in tiles} == {
            t: playing for t, playing in truth.items() if t not in gone}
        for t in event["tables"]:
            if t["id"] in gone:
                continue
            tile = board.split(f'data-table="{t["id"]}">', 1)[1].split('<div class="tile', 1)[0]
            assert f'{t["name"]}</a>' in tile and f'{t["id"]} {t["name"]}' not in tile
            assert ("match over: " in tile) == (not truth[t["id"]]), tile
        numbers = [tuple(map(int, n)) for n in re.findall(r'>Round (\d+) Table (\d+)</a>',
                                                         board)]
        assert numbers == sorted(numbers)  # by round and table number, not sync order

        clock = event["round"]
        mine = {i for i in truth if f"Round {number} Table " in _name(event, i)} - gone
        assert len(mine) == tables
        playing = sorted(i for i in mine if truth[i])
        assert clock["number"] == number and clock["waiting"] == []
        assert clock["table_count"] == tables
        assert sorted(p["table"] for p in clock["playing"]) == playing
        assert f"<strong>{len(playing)}</strong> of {tables} table(s) still playing" in board
        if not playing:
            assert "every match is over and signed" in board
        live = self.client.get("/projector/live").get_data(as_text=True)
        assert f"{len(playing)} of {tables} table(s) still playing" in live

    def check_standings(self, withdrawn: set[str]) -> dict[str, dict[str, Any]]:
        """The hall's standings against what the table apps played, with the byes given: a
        bye is a match won with no games or points (the default rule)."""
        won: Counter[str] = Counter(self.byes) + Counter(w for w, _ in self.forfeits)
        played: Counter[str] = Counter(self.byes) + Counter(
            n for pair in self.forfeits for n in pair)
        games: Counter[str] = Counter()
        for store in self.stores:
            for t in current_tables(store):  # an earlier event's tables are not this one's
                state = store.state(t.id)
                match = state.match_json()
                if not match.get("complete"):
                    continue
                for seat in "AB":
                    played[state.players[seat]] += 1
                    games[state.players[seat]] += match["games_won"][seat]
                won[state.players[match["winner"]]] += 1
        rows = {r["name"]: r for r in ev(self.client)["standings"]}
        for name, row in rows.items():
            assert (row["matches_won"], row["matches"], row["games_won"], row["byes"]) == (
                won[name], played[name], games[name], self.byes[name]), (name, row)
            assert row["withdrawn"] == (name in withdrawn), name
        return rows


def _name(event: dict[str, Any], table_id: int) -> str:
    return next(t["name"] for t in event["tables"] if t["id"] == table_id)


def winner_seat(store: Store, local_id: int) -> str:
    players = store.state(local_id).players
    return "A" if STRENGTH.index(players["A"]) < STRENGTH.index(players["B"]) else "B"


def sign_last_game(store: Store, local_id: int) -> None:
    last = store.state(local_id).game
    for seat, actor in (("A", PLAYER_A), ("B", PLAYER_B)):
        store.execute(local_id, commands.sign(last.number, seat, PNG_DATA_URL), actor)


def play_round(event: Event, number: int, tables: int) -> None:
    """Each table app plays its match of round ``number`` to the end (the stronger player
    wins, every game signed) and syncs; the board is checked after every sync, and once in
    the middle of the first table's match (synced with one hand played: still playing)."""
    held = {k: v for k, v in event.round_tables(number).items()
            if forfeit_of(*v) is None}  # a forfeit is not played
    for station in sorted(held):
        store, local_id = held[station]
        seat = winner_seat(store, local_id)
        if station == 1:
            play_hand(store, local_id, seat, gin=True)
            event.sync(station)
            event.check_board(number, tables)
            (mirror,) = [t for t, link in linked_tables(event.central).items()
                         if link.origin == store.get_setting("hall_origin")
                         and link.origin_table_id == local_id]
            tile = event.client.get("/board").get_data(as_text=True).split(
                f'data-table="{mirror}">', 1)[1].split('<div class="tile', 1)[0]
            assert "playing game 1" in tile, tile
            for _ in range(8):  # the rest of win_match's nine gins, every game signed
                play_hand(store, local_id, seat, gin=True)
            sign_last_game(store, local_id)
        else:
            win_match(store, local_id, seat)
        event.sync(station)
        event.check_board(number, tables)


def pairs_of(pairing: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["A"]["name"], p["B"]["name"]) for p in pairing["pairs"]]


def pair_next_round(event: Event, number: int) -> dict[str, Any]:
    """Propose and approve round ``number``'s Swiss pairing, start it on the clock; nothing
    opens on the event database until the table apps sync."""
    before = sorted(t.id for t in event.central.tables())
    post(event.client, "/pairing")
    pairing = ev(event.client)["pairing"]
    assert pairing["round"] == number and pairing["system"] == "swiss"
    assert pairing["rematches"] == 0, pairing
    post(event.client, f"/pairing/{pairing['id']}/approve")
    assert sorted(t.id for t in event.central.tables()) == before  # no ghost tables
    post(event.client, "/round", number=number, minutes=60)
    clock = ev(event.client)["round"]
    tables = len(pairing["pairs"])
    assert clock["number"] == number and clock["table_count"] == tables
    assert len(clock["waiting"]) == tables and clock["playing"] == []
    board = event.client.get("/board").get_data(as_text=True)
    assert "Sent to the table apps, not synced back yet" in board
    return pairing


def forfeit_at_station_4(event: Event) -> None:
    """The weaker player at station 4's round-3 table does not show: the director decides it
    by forfeit. The table app is told at its next sync, and every screen shows it over."""
    store, local_id = event.round_tables(3)[4]
    (mirror,) = [t for t, link in linked_tables(event.central).items()
                 if link.origin == store.get_setting("hall_origin")
                 and link.origin_table_id == local_id]
    players = store.state(local_id).players
    present = winner_seat(store, local_id)
    absent = "B" if present == "A" else "A"
    post(event.client, f"/tables/{mirror}/forfeit", absent=absent)
    event.forfeits.append((players[present], players[absent]))
    event.sync(4)
    words = f"{players[present]} wins by forfeit: {players[absent]} did not show"
    assert forfeit_of(store, local_id) == words
    page = event.apps[3].test_client().get(f"/t/{local_id}/screen").get_data(as_text=True)
    assert f"Decided by the director: {words}" in page
    tile = event.client.get("/board").get_data(as_text=True).split(
        f'data-table="{mirror}">', 1)[1].split('<div class="tile', 1)[0]
    assert f"match over: {words}" in tile
    event.check_board(3, 4)


def undo_after_a_hand(event: Event) -> None:
    """Round 2 approved and sent; table app 1 confirms a hand while its sync is down, and
    the director undoes the pairing: the tables are told at their next sync, the hand is
    kept and said so (not counted), the undone tables leave the board."""
    client = event.client
    post(client, "/pairing")
    pairing = ev(client)["pairing"]
    post(client, f"/pairing/{pairing['id']}/approve")
    event.sync()
    store, local_id = event.round_tables(2)[1]
    play_hand(store, local_id, winner_seat(store, local_id))
    assert "Round 2 pairing undone" in post(client, f"/pairing/{pairing['id']}/undo")
    event.sync()
    assert undone(store, local_id) is not None and event.round_tables(2) == {}
    page = event.apps[0].test_client().get(f"/t/{local_id}/screen").get_data(as_text=True)
    assert "The director undid this pairing" in page
    left = {t["name"]: t["reason"] for t in ev(client)["standings_left_out"]}
    assert "after 1 hand(s) were recorded there" in left["Round 2 Table 1"]
    assert "Round 2 Table" not in client.get("/board").get_data(as_text=True)
    assert ev(client)["sync_problems"] == []


@pytest.mark.slow  # a whole three-round event on four table apps: 17-38 s here
def test_a_whole_event_on_synced_table_apps(hall, earlier_event, tmp_path, monkeypatch):
    _app, client, central = hall
    monkeypatch.setattr("webui.hall.views.draw.blind_draw",
                        functools.partial(draw_mod.blind_draw, seed=SEED))
    event = Event(client, central, [table_app(tmp_path / f"table{n}")
                                    for n in range(1, STATIONS + 1)])
    # the 4th table computer played an earlier event: Ben won its final there
    reused = event.stores[3]
    final = new_table(reused, "Earlier final", "Ben", "Cy")
    win_match(reused, final, "A")
    sync_once(reused, open_store(earlier_event))
    for station in (1, 2, 3):  # each table app syncs before the draw, in that order
        event.sync(station)
    with pytest.raises(OtherEvent, match="this table app holds event"):
        event.sync(4)  # refused: nothing of the earlier event reaches this one
    assert central.tables() == [] and stations.station_numbers(central) == [1, 2, 3]
    reused_url = reused.engine.url.render_as_string(hide_password=False)
    central_url = central.engine.url.render_as_string(hide_password=False)
    assert sync_main(["--from", reused_url, "--to", central_url, "--join-event"]) == 0
    assert stations.station_numbers(central) == [1, 2, 3, 4]
    assert all(current_tables(store) == [] for store in event.stores)
    assert reused.state(final).players == {"A": "Ben", "B": "Cy"}  # archived, not deleted
    assert "Earlier final" not in event.apps[3].test_client().get("/").get_data(as_text=True)

    # round 1: the registered players, a typo at the draw caught, then the blind draw of 8
    assert "Entered from round 1" in post(client, "/entries", names="\n".join(ENTRANTS))
    typo = post(client, "/draw", entrants="\n".join(
        "Fin" if n == "Finn" else n for n in ENTRANTS))
    assert "is not registered (did you mean &#39;Finn&#39;?)" in typo
    assert ev(client)["draw"] is None and len(ev(client)["entries"]) == len(ENTRANTS)
    post(client, "/draw", entrants="")  # the registration list
    assert "Seat round 1: send tables 1–4 to the table apps" in client.get("/").get_data(
        as_text=True)
    drawn = ev(client)["draw"]
    assert drawn["seed"] == SEED and not any(p.get("bye") for p in drawn["pairs"])
    first = [(p["A"], p["B"]) for p in drawn["pairs"]]
    assert len(first) == 4
    page = post(client, "/draw/seat")
    assert "tables 1, 2, 3, 4 sent to their table apps" in page
    assert central.tables() == []  # nothing opened beside the table apps
    post(client, "/round", number=1, minutes=60)
    assert len(ev(client)["round"]["waiting"]) == 4
    event.sync()
    event.check_seated(1, first)
    event.check_board(1, 4)
    play_round(event, 1, 4)
    rows = event.check_standings(set())
    assert sorted(r["matches_won"] for r in rows.values()) == [0] * 4 + [1] * 4

    # round 2: one player withdraws, 7 are paired (a bye)
    ids = {e["name"]: e["player_id"] for e in ev(client)["entries"]}
    assert set(ids) == set(ENTRANTS)
    assert f"{WITHDRAWS} withdrew" in post(client, f"/entries/{ids[WITHDRAWS]}/withdraw")
    undo_after_a_hand(event)
    pairing = pair_next_round(event, 2)
    second = pairs_of(pairing)
    (bye,) = [b["name"] for b in pairing["byes"]]
    paired = [n for pair in second for n in pair]
    assert len(second) == 3 and WITHDRAWS not in paired and bye != WITHDRAWS
    assert sorted([*paired, bye]) == sorted(set(ENTRANTS) - {WITHDRAWS})
    event.byes[bye] += 1
    event.check_standings({WITHDRAWS})  # the bye counts at once: a match won, no points
    event.sync()
    event.check_seated(2, second)
    assert 4 not in event.round_tables(2)  # station 4 sits out round 2
    event.check_board(2, 3)
    live = client.get("/projector/live").get_data(as_text=True)
    assert f"<td>bye</td><td>{bye}</td>" in live  # the round's bye, on the projector too
    play_round(event, 2, 3)
    rows = event.check_standings({WITHDRAWS})
    assert (rows[bye]["byes"], rows[bye]["points_for"]) == (1, 0)
    assert rows[WITHDRAWS]["matches"] == 1  # the result before withdrawing stands

    # round 3: a late entry, 8 again, all paired (the round-2 bye player too)
    assert "Entered from round 3: Ivy." in post(client, "/entries", names=LATE)
    pairing = pair_next_round(event, 3)
    third = pairs_of(pairing)
    paired = [n for pair in third for n in pair]
    assert pairing["byes"] == [] and len(third) == 4
    assert sorted(paired) == sorted((set(ENTRANTS) | {LATE}) - {WITHDRAWS})
    assert bye in paired and LATE in paired and WITHDRAWS not in paired
    for station in (4, 3, 2, 1):  # synced the other way round: ids in reverse table order
        event.sync(station)
    event.check_seated(3, third)
    event.check_board(3, 4)
    forfeit_at_station_4(event)
    play_round(event, 3, 4)
    rows = event.check_standings({WITHDRAWS})
    assert rows[LATE]["matches"] == 1 and rows[LATE]["matches_won"] == 1

    # the event as played: 11 tables, each synced once from its table app
    assert len(central.tables()) == 4 + 3 + 3 + 4  # with round 2's undone tables
    assert Counter(len(current_tables(store)) for store in event.stores) == {4: 3, 2: 1}
    ranked = ev(client)["standings"]
    assert ranked[0]["name"] == "Ann" and ranked[0]["matches_won"] == 3
    # the results by round, as the table apps played them, with the bye
    played = []
    for number in (1, 2, 3):
        for k, (store, local_id) in sorted(event.round_tables(number).items()):
            state = store.state(local_id)
            if forfeit_of(store, local_id):
                (winner,) = [w for w, _ in event.forfeits]
                played.append([str(number), str(k), state.players["A"], state.players["B"],
                               "forfeit", winner])
                continue
            winner = state.players[state.match_json()["winner"]]
            played.append([str(number), str(k), state.players["A"], state.players["B"],
                           "won", winner])
    played.append(["2", "bye", bye, "", "bye", ""])
    lines = list(csv.DictReader(io.StringIO(client.get("/results.csv").get_data(as_text=True))))
    assert sorted([r["round"], r["table"], r["seat A"], r["seat B"], r["result"], r["winner"]]
                  for r in lines) == sorted(played)
    # the director's tables list shows round 3 (earlier rounds a click away: issue 38 item 7)
    live = client.get("/live").get_data(as_text=True)
    rows = {int(t) for t in re.findall(r'<tr data-table="(\d+)">', live)}
    assert rows == {t["id"] for t in ev(client)["tables"] if t["name"].startswith("Round 3 ")}
    assert "other table(s)" in live and 'href="/?tables=all"' in live
    every = client.get("/live?tables=all").get_data(as_text=True)
    assert {int(t) for t in re.findall(r'<tr data-table="(\d+)">', every)} == {
        t.id for t in central.tables()}
    # and printed, round by round (issue 38 item 6: it was a 404)
    page = client.get("/results/print")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for number in (1, 2, 3):
        assert f"<h2>Round {number}</h2>" in text
    (winner, absent), = event.forfeits
    assert f"{winner} by forfeit ({absent} did not show)" in text
    assert f"<td>{bye}</td><td>—</td>" in text and "<form" not in text and "<script" not in text
    assert text.count("won by ") == 4 + 3 + 3
