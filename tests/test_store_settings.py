"""A setting changed only if it still holds what the changer saw (the hall sync's claims)."""

from __future__ import annotations

from webui.store import Store


def test_compare_and_set_changes_a_setting_only_from_the_value_seen(tmp_path):
    settings = Store(f"sqlite:///{tmp_path / 'table.sqlite3'}").settings
    assert settings.compare_and_set("next", None, "g1")  # missing, as seen: created
    assert not settings.compare_and_set("next", None, "g2")  # no longer missing
    assert not settings.compare_and_set("next", "g0", "g2")  # someone else's value
    assert settings.get("next") == "g1"
    assert settings.compare_and_set("next", "g1", "g2")
    assert not settings.compare_and_set("next", "g1", None)  # stale: nothing deleted
    assert settings.compare_and_set("next", "g2", None)
    assert settings.get("next") is None
    assert settings.compare_and_set("next", None, None)  # missing, as seen
