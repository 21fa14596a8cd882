"""Pairings are complete, keyed by identity and independent of list order."""

from __future__ import annotations

from itertools import combinations

from arena.schedule import gauntlet, mixed, round_robin

from .conftest import fake_entry

BOTS = [fake_entry(n) for n in "edcba"]


def test_round_robin_every_unordered_pair_once_whatever_the_order() -> None:
    rr = round_robin(BOTS)
    assert len(rr) == 10
    assert {frozenset((p.side_a[0].name, p.side_b[0].name)) for p in rr} == {frozenset(c) for c in combinations("abcde", 2)}
    assert all(p.side_a[0] == p.side_a[1] and p.side_b[0] == p.side_b[1] for p in rr)
    assert [p.key for p in round_robin(list(reversed(BOTS)))] == [p.key for p in rr]


def test_gauntlet_candidate_is_side_a() -> None:
    cand, *bases = BOTS
    g = gauntlet(cand, bases)
    assert len(g) == 4 and all(p.side_a == (cand, cand) for p in g)


def test_mixed_all_splits_of_all_four_subsets() -> None:
    four = mixed(BOTS[:4])
    assert len(four) == 3
    splits = {frozenset((frozenset(e.name for e in p.side_a), frozenset(e.name for e in p.side_b))) for p in four}
    assert len(splits) == 3
    for p in four:
        assert sorted(e.name for e in p.bots) == ["b", "c", "d", "e"]
        assert p.side_a[0].name == "b"  # the smallest ident always sits in side A
    assert len(mixed(BOTS)) == 5 * 3
    assert len({p.key for p in mixed(BOTS)}) == 15


def test_keys_survive_adding_an_entry() -> None:
    before = {p.key for p in round_robin(BOTS[:3])}
    assert before < {p.key for p in round_robin(BOTS)}
