"""Two directors correcting one synced hand at once (issue 27 item 9), on a real PostgreSQL.

Before, both were told "sent"; the table's sync applied one and refused the other, and the
refusal reached neither the audit nor the table's page. Now the hall stores one waiting request
a hand (the check and the insert are one transaction under a lock of the table), so the second
director hears 409 at once; and whatever the table's sync refuses (a request sent before the
players changed the hand at the table, say) is audited under the director who sent it and said
on the table's page, as what the table applied is."""

from __future__ import annotations

import html
import threading

import hall_helpers
from hall_helpers import confirmed_hands, director_client_again, new_table, play_hand

from webui.common.proposal_form import parse_proposal
from webui.hall import audit
from webui.hall.sync import open_store, sync_once
from webui.hall.views import tables as tables_view
from webui.store import Actor, commands

pg_server, pg_url, hall = hall_helpers.pg_server, hall_helpers.pg_url, hall_helpers.hall


def correct(client, table: int, revision: int, points: int):
    body = {"game": 1, "hand": 1, "kind": "manual", "winner": "B", "points": points,
            "revision": revision, "note": f"recount {points}"}
    return client.post(f"/tables/{table}/correct", json=body,
                       headers={"X-CSRFToken": client.csrf})


def synced_table(central, tmp_path):
    local = open_store(f"sqlite:///{tmp_path / 't.sqlite3'}")
    t = new_table(local, "Synced", "Cy", "Di")
    play_hand(local, t, "A")
    sync_once(local, central)
    return local, t, central.tables()[0].id


def test_two_directors_at_once_one_is_sent_the_other_told_now(hall, tmp_path, monkeypatch):
    app, client, central = hall
    local, t, mirror = synced_table(central, tmp_path)
    seen = central.state(mirror).hand(1, 1).revision
    other = director_client_again(app)
    both_checked = threading.Barrier(2)
    check = tables_view._refuse_a_second_waiting_request

    def check_then_wait(*args):  # both requests pass the check before either stores
        check(*args)
        both_checked.wait()

    monkeypatch.setattr(tables_view, "_refuse_a_second_waiting_request", check_then_wait)
    for _round in range(3):  # never two requests for one hand
        start = threading.Barrier(2)
        answers: dict[int, object] = {}

        def send(c, points, start=start, answers=answers):
            start.wait()
            answers[points] = correct(c, mirror, seen, points)

        threads = [threading.Thread(target=send, args=(c, p)) for c, p in ((client, 7),
                                                                           (other, 9))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        statuses = sorted(r.status_code for r in answers.values())
        if _round == 0:
            assert statuses == [200, 409], statuses
            refused = next(r for r in answers.values() if r.status_code == 409)
            assert "waiting for the table's sync" in refused.get_json()["error"]["message"]
        else:  # the first request still waits: both are refused now
            assert statuses == [409, 409], statuses
    sent = [r for r in client.get("/api/event").get_json()["requests"] if r["table"] == mirror]
    assert len(sent) == 1
    report = sync_once(local, central)
    assert len(report.applied) == 1 and report.refused == []
    assert confirmed_hands(local, t)[0][2:] == ("B", sent[0]["payload"]["proposal"]["points"])


def test_a_refusal_at_the_table_reaches_the_audit_and_the_tables_page(hall, tmp_path):
    _app, client, central = hall
    local, t, mirror = synced_table(central, tmp_path)
    seen = central.state(mirror).hand(1, 1).revision
    assert correct(client, mirror, seen, 7).get_json()["status"] == "sent"
    # meanwhile the hand is corrected at the table itself (a new revision)
    local.execute(t, commands.propose(1, 1, parse_proposal(
        hall_helpers.hand_cards("A", gin=True)), source="director", director=True),
        Actor("director"))
    report = sync_once(local, central)
    assert len(report.refused) == 1 and report.applied == []
    entries = [e for e in audit.entries(central) if e.table_id == mirror]
    assert entries[0].detail.startswith("the table refused it: game 1, hand 1 corrected to "
                                        "B 7 (recount 7)")
    assert "corrected since you looked" in entries[0].detail
    assert entries[0].director == "director" and entries[0].action is audit.AuditAction.CORRECT
    page = html.unescape(client.get(f"/tables/{mirror}").get_data(as_text=True))
    assert 'id="refused-requests"' in page
    assert "The table refused director's correction of game 1, hand 1" in page
    assert "corrected since you looked" in page
    audit_page = html.unescape(client.get("/audit").get_data(as_text=True))
    assert "the table refused it" in audit_page
    # sent again on the hand as it is now: applied at the next sync, audited, and the
    # refusal is no longer the hand's latest word
    now = central.state(mirror).hand(1, 1).revision
    assert correct(client, mirror, now, 8).get_json()["status"] == "sent"
    report = sync_once(local, central)
    assert len(report.applied) == 1
    latest = next(e for e in audit.entries(central) if e.table_id == mirror)
    assert latest.detail.startswith("the table applied it: game 1, hand 1 corrected to B 8")
    page = client.get(f"/tables/{mirror}").get_data(as_text=True)
    assert 'id="refused-requests"' not in page
    assert sync_once(local, central).refused == []  # answered once, audited once
    assert len([e for e in audit.entries(central) if e.table_id == mirror
                and e.detail.startswith("the table ")]) == 2
