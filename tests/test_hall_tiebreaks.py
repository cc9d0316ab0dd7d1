"""Tie-break settings: the director orders the tie-breaks after matches won (kept in the
PostgreSQL event database, audited); the standings, their print page and CSV follow and say
the order; head-to-head counts only the matches between the players still tied."""

from __future__ import annotations

from dataclasses import dataclass

import hall_helpers
import pytest
from hall_helpers import new_table, play_hand

from webui.hall import audit, tiebreaks
from webui.hall.tiebreaks import MatchWin, TieBreak, TieBreakError

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


@dataclass
class Rec:
    player_id: int
    key: str
    matches_won: int = 1
    games_won: int = 3
    games_lost: int = 3
    points_for: int = 500
    difference: int = 0


def names(rows) -> list[str]:
    return [r.key for r in rows]


def test_ties_fall_through_the_order_then_the_name():
    amy, zed = Rec(1, "amy", difference=5), Rec(2, "zed", games_won=4)
    cat = Rec(3, "cat", matches_won=2)
    assert names(tiebreaks.rank([zed, amy, cat], ())) == ["cat", "amy", "zed"]  # then name
    assert names(tiebreaks.rank([zed, amy, cat], tiebreaks.DEFAULT_ORDER)) == [
        "cat", "zed", "amy"]  # games won before the difference
    assert names(tiebreaks.rank([zed, amy, cat], (TieBreak.DIFFERENCE, TieBreak.GAMES_WON))
                 ) == ["cat", "amy", "zed"]
    fewer = Rec(4, "bo", games_lost=1)
    assert names(tiebreaks.rank([amy, fewer], (TieBreak.GAMES_LOST,))) == ["bo", "amy"]


def test_head_to_head_counts_only_the_players_still_tied():
    amy, bo, cy = Rec(1, "amy"), Rec(2, "bo"), Rec(3, "cy")
    wins = [MatchWin(3, 1), MatchWin(2, 1)]  # cy and bo beat amy
    assert names(tiebreaks.rank([amy, bo, cy], (TieBreak.HEAD_TO_HEAD,), wins)) == [
        "bo", "cy", "amy"]  # bo and cy one win each in the group: then the name
    wins.append(MatchWin(3, 2))  # cy beat bo too
    assert names(tiebreaks.rank([amy, bo, cy], (TieBreak.HEAD_TO_HEAD,), wins)) == [
        "cy", "bo", "amy"]
    # a win over a player who is not tied does not count
    bo_ahead = Rec(2, "bo", matches_won=2)
    assert names(tiebreaks.rank([amy, bo_ahead, cy], (TieBreak.HEAD_TO_HEAD,), wins)) == [
        "bo", "cy", "amy"]
    cycle = [MatchWin(1, 2), MatchWin(2, 3), MatchWin(3, 1)]  # a cycle stays tied
    assert names(tiebreaks.rank([cy, bo, amy], (TieBreak.HEAD_TO_HEAD,), cycle)) == [
        "amy", "bo", "cy"]


def test_an_order_is_checked_and_said_in_words():
    assert tiebreaks.parse_order(["head_to_head", "", "difference"]) == (
        TieBreak.HEAD_TO_HEAD, TieBreak.DIFFERENCE)
    with pytest.raises(TieBreakError, match="chosen twice"):
        tiebreaks.parse_order(["difference", "difference"])
    with pytest.raises(TieBreakError, match="no tie-break"):
        tiebreaks.parse_order(["coin toss"])
    assert tiebreaks.order_text((TieBreak.GAMES_WON, TieBreak.HEAD_TO_HEAD)) == (
        "matches won, then games won, then head-to-head, then name")


def win_match(store, table_id: int, winner: str) -> None:
    """``winner`` wins the table's match 3-0 (three games of three gins)."""
    for _ in range(9):
        play_hand(store, table_id, winner, gin=True)


def test_the_director_orders_the_tiebreaks_and_the_standings_follow(hall):
    _app, client, store = hall
    win_match(store, new_table(store, "Table 1", "Zed", "Amy"), "A")  # Zed beats Amy
    win_match(store, new_table(store, "Table 2", "Amy", "Bo"), "A")  # Amy beats Bo
    win_match(store, new_table(store, "Table 3", "Cat", "Zed"), "A")  # Cat beats Zed

    def ranked() -> list[str]:
        return [r["name"] for r in client.get("/api/event").get_json()["standings"]]

    # Amy and Zed: one match, 3 games won and 3 lost, the same points: the name decides
    assert ranked() == ["Cat", "Amy", "Zed", "Bo"]
    page = client.get("/").get_data(as_text=True)
    assert ("Ranked by matches won, then games won, then fewer games lost, then point "
            "difference, then name.") in page
    r = client.post("/tiebreaks", data={"tiebreak": ["games_lost", "head_to_head", ""],
                                        "csrf_token": client.csrf}, follow_redirects=True)
    rule = "matches won, then fewer games lost, then head-to-head, then name"
    assert f"Standings ranked by {rule}." in r.get_data(as_text=True)
    assert ranked() == ["Cat", "Zed", "Amy", "Bo"]  # Zed beat Amy
    assert store.get_setting("hall_tiebreaks") == '["games_lost", "head_to_head"]'
    (entry,) = [e for e in audit.entries(store) if e.action is audit.AuditAction.TIEBREAKS]
    assert entry.director == "director" and entry.detail == f"standings ranked by {rule}"
    assert f"Ranked by {rule}." in client.get("/standings/print").get_data(as_text=True)
    lines = client.get("/standings.csv").get_data(as_text=True).splitlines()
    assert lines[1].startswith("1,Cat,") and lines[2].startswith("2,Zed,")
    assert lines[-2:] == ["", f'ranked by,"{rule}"']  # quoted: it has commas
    assert client.get("/api/event").get_json()["pairing"] is None
    # a bad order changes nothing
    r = client.post("/tiebreaks", data={"tiebreak": ["difference", "difference"],
                                        "csrf_token": client.csrf}, follow_redirects=True)
    assert "Tie-breaks not changed: point difference is chosen twice." in r.get_data(
        as_text=True)
    assert ranked() == ["Cat", "Zed", "Amy", "Bo"]
    # the Swiss pairing ranks by the same rule
    client.post("/pairing", data={"csrf_token": client.csrf})
    pr = client.get("/api/event").get_json()["pairing"]
    assert [p["A"]["name"] for p in pr["pairs"]] == ["Cat", "Zed"]
