"""The Monte Carlo bot's simulator matches the engine and its sampler respects the view."""

from __future__ import annotations

import random

import pytest

from arena.engine import Deal, KeyedSource, Play

from arena.engine.view import deal_view

from cinch_bot.cards import tables_for
from cinch_bot.scoring import scorer
from cinch_bot.strategy import Facts, choose_under
from cinch_bot.sim import Sampler

from ..profiles import four_seat_profiles_under_test, quick_first
from .conftest import check_sample


@pytest.mark.parametrize("profile", quick_first(four_seat_profiles_under_test()), ids=lambda p: p.name)
def test_simulator_scores_like_the_engine(profile):
    """The play state the bot builds from its view (with the true hands as the
    determinization) plays and scores every deal as the engine does, cards
    out of play included. Partnership tables only: the sampler deals four hands in
    pairs, and at other tables montecarlo plays the greedy policy."""
    rng = random.Random(2)
    params = profile.model_dump(mode="json")
    tables = tables_for(params)
    played = 0
    for k in range(150):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource("sim-check"))
        while not deal.done and deal.phase != "play":
            deal.apply(deal.choice.sample(rng))
        if deal.done:  # all passed (a redeal), or every card of play forced
            continue
        played += 1
        seat = deal.to_act
        view = deal_view(deal, seat).to_dict()
        facts = Facts(view, tables, params)
        st = Sampler(view, facts).state([list(h) for h in deal.hands], view)
        t = st.t
        n_sim = sum(len(tr.plays) for tr in deal.tricks)  # cards played (forced ones before the first decision)
        while not st.done:
            card = st.policy_move()
            engine_plays = [c for tr in deal.tricks for _, c, _ in tr.plays]
            if len(engine_plays) == n_sim:  # the engine waits for this very decision
                assert deal.to_act == st.to_act
                assert sorted(st.legal()) == sorted(deal.choice.cards)
                under = ()
                if deal.choice.under_count:
                    hand = st.hands[st.to_act]
                    under = tuple(choose_under(card, [c for c in hand if c in t.pointless], deal.choice.under_count, t))
                deal.apply(Play(card, under))
            else:  # the engine played a forced card itself: the simulator must agree
                assert len(st.legal()) == 1 and engine_plays[n_sim] == card
            st.play(card)
            n_sim += 1
        assert deal.done and n_sim == sum(len(tr.plays) for tr in deal.tricks)
        assert st.points() == deal.points
        assert scorer(params)(st.points(), facts.bidder_side, facts.bid, facts.dark) == tuple(
            deal.scores_after[s] - deal.scores_before[s] for s in (0, 1))
    assert played >= 100


def test_sampler_is_consistent_with_truth_and_view(states):
    rng = random.Random(4)
    checked = 0
    for s in states[::7]:
        if s.kind != "play":
            continue
        f = Facts(s.view)
        check_sample(s, f, Sampler(s.view, f), rng)
        checked += 1
    assert checked > 300


def test_search_finds_the_obvious_capture():
    # Hearts trump, seat 0 last to play on a trick holding the 5H of an opponent: AH captures it.
    view = {
        "seat": 0, "partner": 2, "dealer": 3, "hand": ["AH", "3C", "4S", "7D", "8D", "9S"],
        "maker": 1, "bid": 7, "trump": "H", "discard_counts": [5, 5, 5, 5], "receive_counts": [2, 2, 2, 2],
        "reshuffles": 0, "discarded": [], "rob_stock": None,
        "tricks": [{"leader": 1, "plays": [{"seat": 1, "card": "5H"}, {"seat": 2, "card": "2C"}, {"seat": 3, "card": "KH"}], "winner": None}],
    }
    from .conftest import make_bot

    bot = make_bot("montecarlo", samples=8)
    bot.start_game({"type": "game"}, 1)
    legal = {"cards": ["AH"], "under": 0, "under_from": []}
    assert bot.decide("play", view, legal)["card"] == "AH"
    legal = {"cards": ["AH", "3C", "4S", "7D", "8D", "9S"], "under": 0, "under_from": []}
    assert bot.decide("play", view, legal)["card"] == "AH"


def test_time_budget_stops_sampling_early(monkeypatch):
    """With a tiny CPU budget the bot samples far fewer times than its count."""
    from cinch_bot import sim

    from .conftest import make_bot

    drawn = []
    real = sim.Sampler.sample
    monkeypatch.setattr(sim.Sampler, "sample", lambda self, rng: drawn.append(1) or real(self, rng))
    view = {
        "seat": 0, "partner": 2, "dealer": 3, "hand": ["AH", "3C", "4S", "7D", "8D", "9S"],
        "maker": 1, "bid": 7, "trump": "H", "discard_counts": [5, 5, 5, 5], "receive_counts": [2, 2, 2, 2],
        "reshuffles": 0, "discarded": [], "rob_stock": None,
        "tricks": [{"leader": 1, "plays": [{"seat": 1, "card": "5H"}, {"seat": 2, "card": "2C"}, {"seat": 3, "card": "KH"}], "winner": None}],
    }
    legal = {"cards": ["AH", "3C", "4S", "7D", "8D", "9S"], "under": 0, "under_from": []}
    counts = []
    for kw in ({}, {"time_ms": 1}):
        drawn.clear()
        bot = make_bot("montecarlo", samples=300, **kw)
        bot.start_game({"type": "game"}, 3)
        assert bot.decide("play", view, legal)["card"] == "AH"
        counts.append(len(drawn))
    assert counts[0] == 300
    assert 1 <= counts[1] < 300
