"""A table database's sync generation as it is stored (``number:token``), read strictly."""

from __future__ import annotations

import pytest

from webui.hall.identity import Generation


def test_a_stored_generation_reads_back():
    generation = Generation(12, "a1b2c3")
    assert Generation.parse(generation.text()) == generation


@pytest.mark.parametrize("text", [None, "", "12", ":abc", "x:abc", "-1:abc", "²:abc",
                                  "١٢:abc", "1²:abc"])
def test_a_damaged_generation_is_none_not_a_crash(text):
    """Issue 39 item 4: "²" and other non-ASCII digits passed ``isdigit`` and then failed in
    ``int()`` (a ValueError out of the sync instead of "no generation")."""
    assert Generation.parse(text) is None
