"""The table app asks the rules engine who won the match (issue 16: it worked it out itself and
disagreed with the hall under partnership rules)."""

from __future__ import annotations

from webui_helpers import PNG_DATA_URL, Tablet, make_app

from scorer import score_sheet
from webui.store import Actor


def test_partnership_match_winner_is_the_engines_on_the_table_page(tmp_path):
    """000 partnership rule 1: a team that loses 2 games stops, so A wins the series 2-0; the
    table app used best-of-five arithmetic (3 wins needed) and showed no winner."""
    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    table = store.create_table("Board 1", {"name": "Board 1", "players": {"A": "Ann", "B": "Ben"},
                                           "rules": "partnership", "camera": None}, Actor("test"))
    tablet = Tablet(app, table_id=table)
    for game in (1, 2):
        if game == 2:
            for p in ("A", "B"):
                sign = {"game": 1, "player": p, "png": PNG_DATA_URL}
                assert tablet.post("sign", sign).status_code == 200
            assert tablet.post("next-game", {}).status_code == 200
        tablet.play_manual_hand("A", 250)
    match = tablet.state()["match"]
    engine = score_sheet("partnership", [{"winner": "A", "points": 250}] * 2).match()
    assert engine.winner == "A" and engine.complete
    assert match["winner"] == "A" and match["complete"] and match["games_won"] == {"A": 2, "B": 0}
    assert "Ann wins the match" in tablet.client.get(f"/t/{table}/panel").get_data(as_text=True)


def test_restarting_with_another_camera_keeps_the_tables_calibration(tmp_path):
    """Issue 16: `gintray serve --camera X` after a calibration, then `--camera Y`: the table's
    layout stays (ensure_table re-sent the settings without it)."""
    from webui.store.commands import change_settings
    from webui.table.demo import ensure_table

    app = make_app(tmp_path)
    store = app.extensions["gintray"].store
    table = ensure_table(store, "Table 9", {"A": "Ann", "B": "Ben"}, "usb:0")
    layout = tmp_path / "layout.json"
    from vision.table.layout import TableLayout, save_layout

    save_layout(TableLayout(up_card_slot=[(10, 10), (20, 10), (20, 20), (10, 20)],
                            areas={"A": [(0, 30), (100, 30), (100, 60), (0, 60)],
                                   "B": [(0, 0), (100, 0), (100, 5), (0, 5)]},
                            image_size=(100, 60), name="t"), layout)
    state = store.state(table)
    store.execute(table, change_settings(state.name, state.players, state.rules, state.camera,
                                         str(layout)), Actor("director"))
    assert ensure_table(store, "Table 9", {"A": "Ann", "B": "Ben"}, "usb:1") == table
    state = store.state(table)
    assert state.camera == "usb:1" and state.layout == str(layout)


def test_a_table_cannot_be_made_with_rules_the_engine_refuses(app):
    """Issue 16: the match length is never guessed (the table app answered best of 5 for rules
    the engine refused); a table's rules are checked when it is made, as when they change."""
    import pytest

    from webui.common.refusal import Refusal

    store = app.extensions["gintray"].store
    before = len(store.tables())
    with pytest.raises(Refusal) as refused:
        store.create_table("Board 2", {"name": "Board 2", "players": {"A": "Ann", "B": "Ben"},
                                       "rules": "bogus", "camera": None}, Actor("test"))
    assert refused.value.status == 400 and "unknown rule preset 'bogus'" in refused.value.message
    assert len(store.tables()) == before
    assert store.state(1).match_json()["best_of"] == 5  # tournament: the engine's best of five
