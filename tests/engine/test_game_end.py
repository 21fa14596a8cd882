"""End of the game (rules 8) and the fixed-deals format."""

from __future__ import annotations

import random

import pytest

from arena.engine import Game
from engine_helpers import game_with_scores

TARGET, DECIDING = 62, 55


def expected_end(before, after, bidders, made):
    """rules 8 read independently: (over, winner, reason)."""
    if before[0] >= DECIDING and before[1] >= DECIDING and made:
        return True, bidders, "bidder_out"
    reached = [after[0] >= TARGET, after[1] >= TARGET]
    if reached.count(True) == 1:
        return True, reached.index(True), "target"
    return False, None, None


def play_out(g: Game, rng: random.Random) -> None:
    while not g.over:
        g.apply(g.choice.sample(rng))


def test_every_end_case_against_independent_rules():
    seen = set()
    starts = [(55, 55), (58, 61), (61, 61), (60, 40), (40, 60), (56, 70), (70, 56), (75, 80), (50, 55), (-10, 61), (0, 0)]
    for seed in range(600):
        rng = random.Random(seed)
        g = game_with_scores(starts[seed % len(starts)], key=f"end-{seed}", max_deals=40)
        play_out(g, rng)
        for i, deal in enumerate(g.deals):
            before, after = deal.scores_before, deal.scores_after
            assert before == (g.deals[i - 1].scores_after if i else starts[seed % len(starts)])
            over, winner, reason = expected_end(before, after, deal.maker % 2, deal.made)
            last = i == len(g.deals) - 1
            if over:
                assert last and g.over and g.winner == winner and g.end_reason == reason
                seen.add(reason)
                if reason == "bidder_out" and after[0] >= TARGET and after[1] >= TARGET:
                    seen.add("bidder_out_both_62")
                if reason == "bidder_out" and after[1 - winner] > after[winner]:
                    seen.add("bidder_out_behind")
            else:
                assert not last or g.end_reason == "cap"
                deciding = before[0] >= DECIDING and before[1] >= DECIDING
                if deciding and not deal.made:
                    seen.add("set_in_deciding_continues")
                if after[0] >= TARGET and after[1] >= TARGET:
                    seen.add("both_62_play_on")
                    if not last:  # the next deal is a deciding one
                        assert min(g.deals[i + 1].scores_before) >= DECIDING
        assert g.scores == g.deals[-1].scores_after
        if g.end_reason != "cap":
            assert g.winner in (0, 1) and not g.unfinished
    assert seen >= {
        "bidder_out", "target", "set_in_deciding_continues", "both_62_play_on", "bidder_out_both_62",
        "bidder_out_behind",
    }, seen


def test_bidder_out_wins_even_when_both_end_above_62():
    # a rare outcome under random play: search until found (the first is at seed 2217, 1.8 s of CPU in; a
    # change to the engine's dealing or play moves it, and the search goes on from there)
    for seed in range(2217, 22217):
        g = game_with_scores((55, 63) if seed % 2 else (63, 55), key=f"bo-{seed}")
        play_out(g, random.Random(seed))
        d = g.deals[0]
        if d.made and min(d.scores_after) >= 62 and d.scores_after[d.maker % 2] < d.scores_after[1 - d.maker % 2]:
            assert g.end_reason == "bidder_out" and g.winner == d.maker % 2 and len(g.deals) == 1
            return
    pytest.fail("no deal found where the bidders go out while behind")


def test_deal_cap_ends_unfinished_without_winner():
    g = Game(key="cap", max_deals=2)
    play_out(g, random.Random(0))
    assert len(g.deals) == 2  # 28 points at most: nobody can reach 62
    assert g.over and g.end_reason == "cap" and g.unfinished and g.winner is None
    with pytest.raises(RuntimeError):
        g.choice
    with pytest.raises(RuntimeError):
        g.apply(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Game(max_deals=0)
    with pytest.raises(ValueError):
        Game(fixed_deals=0)


def test_fixed_deals_winner_by_score_difference_and_draws():
    outcomes = set()
    for seed in range(400):
        n = 1 + seed % 3
        g = Game(key=f"fixed-{seed}", fixed_deals=n)
        play_out(g, random.Random(seed))
        assert len(g.deals) == n and g.end_reason == "deals"
        a, b = g.scores
        assert g.winner == (None if a == b else (0 if a > b else 1))
        outcomes.add(g.winner)
    assert outcomes == {0, 1, None}


def test_fixed_deals_ignore_the_target():
    g = game_with_scores((61, 61), key="fx", fixed_deals=3)
    play_out(g, random.Random(3))
    assert len(g.deals) == 3 and g.end_reason == "deals"


def test_dealer_rotates_left_each_deal():
    g = Game(key="rot", max_deals=9)
    play_out(g, random.Random(9))
    assert [d.dealer for d in g.deals] == [(g.first_dealer + k) % 4 for k in range(len(g.deals))]
    assert [d.index for d in g.deals] == list(range(len(g.deals)))
