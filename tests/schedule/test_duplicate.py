"""Duplicate halves really swap the cards, also when the games differ in length."""

from __future__ import annotations

from arena.engine import replay
from arena.match import MatchSettings
from arena.schedule import BlockTask, block_key, run_block

from .conftest import fake_entry, policy_factory

NAMES = ["wa", "wb", "xa", "xb"]
MODES = {"wa": "random", "wb": "first", "xa": "random", "xb": "last"}
ENTRIES = {n: fake_entry(n) for n in NAMES}


def _task(b: int, settings: MatchSettings) -> BlockTask:
    e = ENTRIES
    return BlockTask(
        pairing="p", block=b, block_key=block_key("dup-seed", b), side_a=(e["wa"].ident, e["wb"].ident),
        side_b=(e["xa"].ident, e["xb"].ident), settings=settings, config_hash="h",
    )


def _check_swap(line) -> None:
    g0, g1 = line.games
    side_a = {"wa", "wb"}
    for s in range(4):  # every seat changes partnership between the halves
        assert (g0.seats[s].bot in side_a) != (g1.seats[s].bot in side_a)
    r0, r1 = replay(g0.record), replay(g1.record)
    for k in range(min(len(r0.deals), len(r1.deals))):
        d0, d1 = g0.record["deals"][k], g1.record["deals"][k]
        assert d0["deck"] == d1["deck"] and d0["dealer"] == d1["dealer"]
        for s in range(4):  # the same seat, hence the other partnership, holds the same cards
            assert r0.deals[k].dealt[s] == r1.deals[k].dealt[s]
    assert g0.seeds != g1.seeds


def test_halves_swap_cards_even_when_lengths_differ() -> None:
    settings = MatchSettings(format="game", max_deals=25)
    differing = 0
    for b in range(12):
        out = run_block(_task(b, settings), {e.ident: e for e in ENTRIES.values()}, make_player=policy_factory(MODES))
        _check_swap(out.line)
        n0, n1 = (len(g.record["deals"]) for g in out.line.games)
        differing += n0 != n1
        if differing >= 2:
            break
    assert differing >= 1, "no block with games of different length found"
