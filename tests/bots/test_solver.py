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


# -- the compiled core and its pure-Python twin --------------------------------------------------

from cinch_bot import solver as solver_module  # noqa: E402
from cinch_bot.solver import compiled, core_for, solve_cards, solve_value  # noqa: E402

needs_core = pytest.mark.skipif(not compiled(), reason="the compiled solver core is not built here "
                                "(no C compiler when the project was installed): test_the_core_is_built")


def test_the_core_is_built_where_a_c_compiler_is():
    """`make test` installs the project, which builds the core with the machine's C compiler;
    without one the SDK answers in pure Python (the same answers, slower)."""
    import shutil

    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler: the pure-Python twin answers")
    assert compiled(), "cinch_bot._solver is missing or stale: run `make` (pip install -e .) again"


def reference_values(st, cards):
    solver = Solver()
    out = []
    for card in cards:
        child = st.copy()
        child.play(card)
        q = child.points()
        out.append(q[0] - q[1] + solver.value(child))
    return out


def check_twins(st) -> int:
    """The core and the twin: the same values and the same positions searched, with and without a
    node limit that stops them halfway; the values are the reference solver's. Returns the nodes."""
    cards = st.legal()
    got, nodes = solve_cards(st, cards)
    assert (got, nodes) == solve_cards(st, cards, python=True)
    assert got == reference_values(st, cards)
    best = max(got) if st.to_act % 2 == 0 else min(got)
    assert solve_value(st) == solve_value(st, python=True) and solve_value(st)[0] == best
    if nodes > 1:
        half = solve_cards(st, cards, limit=nodes // 2)
        assert half == solve_cards(st, cards, limit=nodes // 2, python=True)
        assert half[0] is None and half[1] == nodes // 2 + 1
    return nodes


@needs_core
@pytest.mark.parametrize("profile", four_seat_profiles_under_test(), ids=lambda p: p.name)
def test_the_core_and_its_python_twin_give_the_same_answers(profile):
    """Endings of up to three tricks under every profile (long hands, trumps-only and oregon
    play, Low to holder or capturer): equal values and node counts, even when a limit stops them."""
    searched = [check_twins(st) for cards_left in (6, 12) for _, st in endings(profile, cards_left, 4, "twins")]
    assert len(searched) >= 6


@needs_core
@pytest.mark.slow
@pytest.mark.parametrize("profile", four_seat_profiles_under_test(), ids=lambda p: p.name)
def test_the_core_and_its_twin_agree_on_longer_endings(profile):
    searched = [check_twins(st) for _, st in endings(profile, 17, 3, "twins-long")]
    assert len(searched) >= 2


@needs_core
def test_the_core_solves_whole_deals_as_its_twin():
    """Six tricks to play (pagat62, after random bidding): the sizes a bid is valued at."""
    from arena.engine import PROFILES

    for _, st in endings(PROFILES["pagat62"], 24, 2, "twins-deal"):
        cards = st.legal()[:1]
        assert solve_cards(st, cards) == solve_cards(st, cards, python=True)


@pytest.mark.parametrize("python", [False, True], ids=["core", "twin"])
def test_the_solver_refuses_what_is_not_a_position(python):
    from arena.engine import PROFILES

    if not python and not compiled():
        pytest.skip("the core is not built")
    _, st = next(endings(PROFILES["pagat62"], 8, 1, "refuse"))
    core = core_for(st, python)
    h = [sum(1 << c for c in hand) for hand in st.hands]
    ok = (h[0], h[1], h[2], h[3], tuple(st.trick), st.to_act, st.tricks_done, st.in_trick, st.done)
    illegal = next(c for c in range(52) if c not in st.legal())
    with pytest.raises(ValueError, match="not legal"):
        core.solve(*ok, [illegal], 1000)
    for bad in ((1 << 60, *ok[1:]), (*ok[:4], ((5, 3),), *ok[5:]), (*ok[:5], 4, *ok[6:])):
        with pytest.raises(ValueError):
            core.solve(*bad, None, 1000)


def test_a_core_built_from_other_source_is_not_loaded(tmp_path, monkeypatch, capsys):
    """The core's compiled-in SHA-256 must be its source's: a stale build is refused (the SDK
    then solves in pure Python), so a bot's identity, which covers the source, covers what runs."""
    if not compiled():
        pytest.skip("the core is not built")
    import cinch_bot._solver as built

    monkeypatch.setattr(built, "SOURCE_SHA256", "0" * 64)
    assert solver_module._load_core() is None
    assert "was not built from" in capsys.readouterr().err
    monkeypatch.undo()
    assert solver_module._load_core() is built
