"""Swiss pairing (webui.hall.swiss), pure: similar records meet, no rematch where it can be
avoided, the fewest rematches where it cannot, the bye to the lowest-ranked without one."""

from __future__ import annotations

import itertools

import pytest

from webui.hall.swiss import Entrant, PairingError, met, swiss_round


def field(n: int) -> list[Entrant]:
    """n players ranked 1..n, ids 101.., wins falling with rank."""
    return [Entrant(100 + r, f"P{r}", r, wins=(n - r) // 2) for r in range(1, n + 1)]


def ids(result) -> list[tuple[int, int]]:
    return [(p.a.player_id, p.b.player_id) for p in result.pairs]


def test_first_against_second_and_so_on_when_nobody_met():
    result = swiss_round(field(6), played=[])
    assert ids(result) == [(101, 102), (103, 104), (105, 106)]
    assert [p.table for p in result.pairs] == [1, 2, 3]
    assert result.bye is None and result.rematches == 0


def test_entrants_are_ranked_by_their_rank_not_the_order_given():
    assert ids(swiss_round(list(reversed(field(4))), played=[])) == [(101, 102), (103, 104)]


def test_a_rematch_is_avoided_by_the_nearest_other_pairing():
    result = swiss_round(field(4), played=[met(101, 102)])
    assert ids(result) == [(101, 103), (102, 104)] and result.rematches == 0


def test_a_rematch_deep_in_the_field_moves_only_what_it_must():
    played = [met(101, 102), met(103, 104), met(105, 106), met(107, 108), met(105, 107)]
    result = swiss_round(field(8), played)
    assert result.rematches == 0
    for p in result.pairs:
        assert met(p.a.player_id, p.b.player_id) not in played
    assert ids(result)[0] == (101, 103)


def test_the_fewest_rematches_when_they_cannot_all_be_avoided():
    everyone = [met(a, b) for a, b in itertools.combinations(range(101, 105), 2)]
    result = swiss_round(field(4), everyone)
    assert result.rematches == 2  # four players who all met: both tables are rematches
    played = [met(101, 102), met(101, 103), met(101, 104)]  # 101 met everyone
    result = swiss_round(field(4), played)
    assert result.rematches == 1 and ids(result) == [(101, 102), (103, 104)]


def test_odd_field_bye_to_the_lowest_ranked_without_one():
    result = swiss_round(field(5), played=[])
    assert result.bye is not None and result.bye.player_id == 105
    assert ids(result) == [(101, 102), (103, 104)]
    result = swiss_round(field(5), played=[], had_bye=[105])
    assert result.bye.player_id == 104 and ids(result) == [(101, 102), (103, 105)]
    everyone_had_one = swiss_round(field(3), played=[], had_bye=[101, 102, 103])
    assert everyone_had_one.bye.player_id == 103


def test_each_player_once_and_every_pair_is_a_table():
    result = swiss_round(field(11), played=[met(101, 102)], had_bye=[111])
    seen = [p.a.player_id for p in result.pairs] + [p.b.player_id for p in result.pairs]
    assert sorted([*seen, result.bye.player_id]) == list(range(101, 112))
    assert all(p.a.rank < p.b.rank for p in result.pairs)


def test_refused_fields():
    with pytest.raises(PairingError):
        swiss_round(field(1), played=[])
    twice = [*field(3), Entrant(101, "again", 9)]
    with pytest.raises(PairingError):
        swiss_round(twice, played=[])


def test_a_big_field_pairs_quickly():
    players = field(64)
    played = [met(100 + r, 100 + r + 1) for r in range(1, 64)]  # neighbours met
    result = swiss_round(players, played)
    assert result.rematches == 0 and len(result.pairs) == 32
