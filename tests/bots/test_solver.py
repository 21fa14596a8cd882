"""The exact solver agrees with brute-force minimax and with the engine's scoring."""

from __future__ import annotations

import random

import pytest

from arena.engine import Deal, KeyedSource, Play
from arena.engine.view import deal_view

from cinch_bot.cards import tables_for
from cinch_bot.solver import Solver, solve
from cinch_bot.strategy import Facts, choose_under
from cinch_bot.sim import Sampler

from ..profiles import four_seat_profiles_under_test


def brute(st) -> int:
    """Final points difference (side 0 minus side 1) under plain minimax, no pruning, no table."""
    if st.done:
        p = st.points()
        return p[0] - p[1]
    out = []
    for card in st.legal():
        child = st.copy()
        child.play(card)
        out.append(brute(child))
    return max(out) if st.to_act % 2 == 0 else min(out)


def endings(profile, cards_left: int, count: int, seed: str):
    """(deal, play state) pairs with at most ``cards_left`` cards in hand, from randomly played deals."""
    rng = random.Random(seed)
    params = profile.model_dump(mode="json")
    tables = tables_for(params)
    k = 0
    while count and k < 400:
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource(seed))
        k += 1
        while not deal.done and (deal.phase != "play" or sum(len(h) for h in deal.hands) > cards_left):
            deal.apply(deal.choice.sample(rng))
        if deal.done:
            continue
        view = deal_view(deal, deal.to_act).to_dict()
        facts = Facts(view, tables, params)
        yield deal, Sampler(view, facts).state([list(h) for h in deal.hands], view)
        count -= 1


@pytest.mark.parametrize("profile", four_seat_profiles_under_test(), ids=lambda p: p.name)
def test_solver_matches_brute_force(profile):
    """Every legal card's solved value equals plain minimax on small endings, and
    the solved points add up to the solved difference."""
    checked = 0
    for _, st in endings(profile, 9, 6, "solver-brute"):
        sol = solve(st)
        assert sol.points[0] - sol.points[1] == brute(st)
        for card, v in sol.values.items():
            child = st.copy()
            child.play(card)
            assert v == brute(child)
        best = max if st.to_act % 2 == 0 else min
        assert sol.values[sol.best] == best(sol.values.values())
        checked += 1
    assert checked >= 3


@pytest.mark.slow
@pytest.mark.parametrize("profile", four_seat_profiles_under_test(), ids=lambda p: p.name)
def test_solved_line_scores_as_the_engine(profile):
    """Playing the solver's best line in the engine's own deal gives the solver's points."""
    checked = 0
    for deal, st in endings(profile, 16, 3, "solver-engine"):
        sol = solve(st)
        solver = Solver()
        t = st.t
        n_sim = sum(len(tr.plays) for tr in deal.tricks)
        while not st.done:
            card = solver.solve(st).best if len(st.legal()) > 1 else st.legal()[0]
            engine_plays = [c for tr in deal.tricks for _, c, _ in tr.plays]
            if len(engine_plays) == n_sim:  # the engine waits for this decision (else it played a forced card)
                under = ()
                if deal.choice.under_count:
                    hand = st.hands[st.to_act]
                    under = tuple(choose_under(card, [c for c in hand if c in t.pointless],
                                               deal.choice.under_count, t))
                deal.apply(Play(card, under))
            else:
                assert engine_plays[n_sim] == card
            st.play(card)
            n_sim += 1
        assert deal.done
        assert st.points() == deal.points == sol.points
        checked += 1
    assert checked >= 2
