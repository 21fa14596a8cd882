"""The evaluating bots' choices for the decisions profiles add (discards, free robs)
and what a view of such a profile tells the Monte Carlo sampler."""

from __future__ import annotations

import random

import pytest

from arena.engine import get_profile

from cinch_bot import card_index, is_legal, tables_for
from cinch_bot.strategy import Facts, choose_discard, choose_rob
from cinch_bot.sim import Sampler

from ..profiles import four_seat_profiles_under_test, quick_first
from .conftest import check_sample, collect, make_bot

HEARTS = tables_for(None)[2]


def test_a_free_choice_of_discards_keeps_trumps_and_aces_within_the_bounds():
    hand = ["5H", "2H", "KH", "AS", "7C", "8D", "QS", "3C", "9D"]  # hearts trump: 3 trumps, one plain ace
    legal = {"least": 3, "most": 9, "from": hand}
    gone = choose_discard(legal, HEARTS)
    assert sorted(gone) == sorted(["7C", "8D", "QS", "3C", "9D"])
    assert is_legal({"type": "discard", "cards": gone}, legal, "discard")
    # At least five must go: the weakest of the cards it would keep go first (the ace before any trump).
    gone = choose_discard({**legal, "least": 6}, HEARTS)
    assert len(gone) == 6 and "AS" in gone and not {"5H", "2H", "KH"} & set(gone)
    # At most two may go: it keeps the best seven.
    assert sorted(choose_discard({**legal, "least": 0, "most": 2}, HEARTS)) == sorted(["3C", "7C"])


def test_extra_trumps_shown_are_the_weakest_pointless_ones():
    hand = ["AH", "KH", "JH", "TH", "9H", "5H", "5D", "3H"]  # eight trumps, two must go
    gone = choose_discard({"least": 2, "most": 2, "from": hand}, HEARTS)
    assert sorted(gone) == sorted(["3H", "9H"])


def test_a_free_rob_takes_point_trumps_then_high_trumps_then_aces():
    legal = {"take": 3, "from": ["AC", "4H", "2H", "KD", "JH", "9S"], "automatic": []}
    assert sorted(choose_rob(legal, HEARTS)) == sorted(["JH", "2H", "4H"])
    assert sorted(choose_rob(legal)) == sorted(["AC", "KD", "JH"])  # no trump known: high ranks


def test_shown_discards_leave_the_outside_trumps_unless_a_reshuffle_may_bring_them_back():
    view = {"seat": 0, "hand": ["AS"], "maker": 1, "bid": 3, "trump": "H", "discarded": ["7C"], "reshuffles": 0,
            "shown": [["7C"], ["KH", "4D"], [], ["JH"]], "tricks": []}
    foster = get_profile("foster1897").model_dump(mode="json")
    f = Facts(view, tables_for(foster), foster)
    assert card_index("KH") not in f.outside_trumps and card_index("JH") not in f.outside_trumps
    assert f.out == {card_index(c) for c in ("7C", "KH", "4D", "JH")} and not f.maybe
    f = Facts({**view, "reshuffles": 1}, tables_for(foster), foster)
    assert not f.out and f.maybe == {card_index(c) for c in ("7C", "KH", "4D", "JH")}
    assert card_index("KH") not in f.outside_trumps
    # Extra trumps shown never go back into a stock, whatever was reshuffled.
    ru51 = get_profile("ru51").model_dump(mode="json")
    f = Facts({**view, "reshuffles": 1, "discarded": ["KH"], "seat": 1, "hand": ["AS"]}, tables_for(ru51), ru51)
    assert card_index("KH") in f.out and card_index("JH") in f.out


@pytest.mark.parametrize("profile", quick_first(four_seat_profiles_under_test()), ids=lambda p: p.name)
def test_the_sampler_deals_the_hidden_cards_as_they_could_be(profile):
    """The true hands satisfy every constraint the sampler infers from a view, and
    every sample keeps them (sizes, trumps kept, voids, no card twice or out of
    play) and plays out from each legal card. Partnership tables only: elsewhere
    montecarlo does not sample."""
    params = profile.model_dump(mode="json")
    tables = tables_for(params)
    rng = random.Random(4)
    checked = 0
    for s in collect(40, 9, profile)[::3]:
        if s.kind != "play":
            continue
        f = Facts(s.view, tables, params)
        sampler = Sampler(s.view, f)
        # cards no seat holds: never dealt, or left face down in the stock by california's dealer
        left = len(s.deal.stock) if s.deal.reshuffles == 0 and s.choice.seat != s.deal.dealer else 0
        assert sampler.undealt == {"none": profile.stock_size, "choose": left}.get(profile.rob, 0)
        for _ in range(12):  # rare paths (cards moved between seats to keep a void) need many samples
            hands = check_sample(s, f, sampler, rng)
        # Every sample is a position the simulator can play out (a long hand is all trumps, ...).
        root = sampler.state(hands, s.view)
        for card in (card_index(c) for c in s.legal["cards"]):
            st = root.copy()
            st.play(card)
            points = st.rollout()
            assert st.done and sum(points) <= tables[f.trump].total
        checked += 1
    assert checked > 30


def test_the_sampler_leaves_one_unseen_card_undealt_under_the_joker():
    """sixty-three-joker: one card nobody was dealt, sampled into a place of its own;
    samples sometimes make it one of the unseen trumps (it leaves the hands) and
    sometimes a plain card, never more."""
    profile = get_profile("sixty-three-joker")
    params = profile.model_dump(mode="json")
    tables = tables_for(params)
    outcomes = set()
    for s in collect(12, 5, profile):
        if s.kind != "play":
            continue
        f = Facts(s.view, tables, params)
        sampler = Sampler(s.view, f)
        assert sampler.undealt == 1
        if not sampler.trumps:
            continue
        rng = random.Random(1)
        for _ in range(30):
            dealt = {c for h in sampler.sample(rng) for c in h}
            outcomes.add(len(set(sampler.trumps) - dealt))
    assert outcomes == {0, 1}
    assert Sampler(s.view, Facts(s.view, tables_for(None), None)).undealt == 0  # pagat62 deals every card


@pytest.mark.parametrize("name", ["heuristic", "montecarlo"])
def test_a_defender_keeps_its_point_trumps_where_they_would_count_for_the_bidders(name):
    foster = get_profile("foster1897").model_dump(mode="json")
    bot = make_bot(name, samples=4) if name == "montecarlo" else make_bot(name)
    bot.start_game({"type": "game", "seat": 1, "profile": foster}, 1)
    hand = ["5D", "2H", "7C", "8C", "9C", "TC", "JC", "QC", "KC"]  # hearts trump: the left pedro and Low
    view = {"seat": 1, "partner": 3, "dealer": 0, "hand": hand, "maker": 0, "bid": 5, "trump": "H"}
    action = bot.decide("discard", view, {"least": 3, "most": 9, "from": hand})
    assert action["type"] == "discard" and not {"5D", "2H"} & set(action["cards"]) and len(action["cards"]) == 7


def test_a_long_hand_is_all_trumps_in_every_sample(states):
    """A seat holding more than six cards kept only trumps and robbed only trumps
    (the fill and the rob stop at six), so every sample gives it trumps only."""
    rng = random.Random(6)
    seen = 0
    for s in states:
        if s.kind != "play" or s.view["tricks"][0]["plays"] and s.view["tricks"][0]["winner"] is not None:
            continue
        v = s.view
        long = [o for o in range(4) if o != v["seat"] and 9 - v["discard_counts"][o] + v["receive_counts"][o] > 6]
        if not long:
            continue
        f = Facts(v)
        sampler = Sampler(v, f)
        for _ in range(5):
            hands = sampler.sample(rng)
            assert all(f.t.power[c] >= 0 for o in long for c in hands[o])
        seen += 1
    assert seen >= 5
