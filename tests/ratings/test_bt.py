"""Bradley-Terry fit: known answer, mean-of-two model, prior, anchor."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings import BlockOutcome, GameOutcome, RatingFitError, build_design, fit, rate
from simulate import mixed

# (first, second): first's wins, draws, losses
KNOWN_COUNTS = {
    ("Alpha", "Bravo"): (3, 2, 1), ("Bravo", "Alpha"): (1, 2, 3),
    ("Alpha", "Charlie"): (4, 1, 1), ("Charlie", "Alpha"): (1, 1, 4),
    ("Alpha", "Delta"): (5, 1, 0), ("Delta", "Alpha"): (0, 2, 4),
    ("Bravo", "Charlie"): (3, 2, 1), ("Charlie", "Bravo"): (2, 2, 2),
    ("Bravo", "Delta"): (4, 1, 1), ("Delta", "Bravo"): (1, 1, 4),
    ("Charlie", "Delta"): (3, 2, 1), ("Delta", "Charlie"): (2, 1, 3),
}
KNOWN = {"Alpha": 159.35, "Bravo": 31.60, "Charlie": -40.42, "Delta": -150.53}


def _games(first: str, second: str) -> list[GameOutcome]:
    w, d, l = KNOWN_COUNTS[(first, second)]
    return ([GameOutcome((first, first), (second, second), 1.0)] * w
            + [GameOutcome((first, first), (second, second), 0.5)] * d
            + [GameOutcome((first, first), (second, second), 0.0)] * l)


def known_games() -> list[GameOutcome]:
    return [g for (a, b) in KNOWN_COUNTS for g in _games(a, b)]


def known_blocks() -> list[BlockOutcome]:
    """Pair each X-Y game with a Y-X game so the 72 games form 36 blocks."""
    out = []
    for (a, b) in KNOWN_COUNTS:
        if a < b:
            for k, (g1, g2) in enumerate(zip(_games(a, b), _games(b, a))):
                out.append(BlockOutcome(f"{a}{b}{k}", f"{a}-{b}", (g1, g2)))
    return out


def test_known_answer_fit() -> None:
    games = known_games()
    assert len(games) == 72
    design = build_design(games)
    r = dict(zip(design.bots, fit(design, prior=False)))
    for bot, want in KNOWN.items():
        assert r[bot] == pytest.approx(want, abs=0.01)
    assert sum(r.values()) == pytest.approx(0.0, abs=1e-9)


def test_known_answer_through_rate() -> None:
    rep = rate(known_blocks(), prior=False, bootstrap=0)
    assert rep.games == 72 and rep.blocks == 36
    for bot, want in KNOWN.items():
        assert rep.rating(bot) == pytest.approx(want, abs=0.01)
    assert rep.anchor == "mean of all bots fixed at 0"


def test_anchor_shifts_but_keeps_differences() -> None:
    design = build_design(known_games())
    free = dict(zip(design.bots, fit(design, prior=False)))
    anch = dict(zip(design.bots, fit(design, prior=False, anchor=("Delta", 100.0))))
    assert anch["Delta"] == 100.0
    for b in KNOWN:
        assert anch[b] - anch["Delta"] == pytest.approx(free[b] - free["Delta"], abs=1e-6)
    rep = rate(known_blocks(), anchor=("Delta", 100.0), bootstrap=0)
    assert rep.rating("Delta") == 100.0
    assert "Delta" in rep.anchor


def test_prior_shrinks_toward_center() -> None:
    design = build_design(known_games())
    ml = fit(design, prior=False)
    pr = fit(design, prior=True)
    for a, b in zip(ml, pr):
        assert abs(b) < abs(a)
        assert abs(b - a) < 10  # one virtual draw vs 36 real games


def _loglik(games: list[GameOutcome], r: dict[str, float]) -> float:
    """Written independently of arena.ratings.bt, straight from the model."""
    ll = 0.0
    for g in games:
        d = (r[g.side_a[0]] + r[g.side_a[1]]) / 2 - (r[g.side_b[0]] + r[g.side_b[1]]) / 2
        p = 1 / (1 + 10 ** (-d / 400))
        ll += g.score_a * math.log(p) + (1 - g.score_a) * math.log(1 - p)
    return ll


def test_mixed_partnership_fit_is_the_ml_point() -> None:
    true = {"a": 150.0, "b": 50.0, "c": 0.0, "d": -60.0, "e": -140.0}
    blocks = mixed(true, 120, random.Random(5))
    games = [g for blk in blocks for g in blk.games]
    # add self-partnership and "one bot on both sides" games too
    games += [GameOutcome(("a", "a"), ("b", "c"), 0.5), GameOutcome(("a", "b"), ("a", "c"), 1.0)]
    design = build_design(games)
    r = dict(zip(design.bots, fit(design, prior=False)))
    base = _loglik(games, r)
    h = 0.01
    for b in r:
        for other in r:
            if other == b:
                continue
            up = dict(r)
            up[b] += h
            up[other] -= h  # keep the mean fixed
            dn = dict(r)
            dn[b] -= h
            dn[other] += h
            grad = (_loglik(games, up) - _loglik(games, dn)) / (2 * h)
            assert abs(grad) < 1e-6
            assert _loglik(games, up) <= base and _loglik(games, dn) <= base


def test_mixed_partnerships_recover_truth() -> None:
    true = {"a": 200.0, "b": 80.0, "c": 0.0, "d": -100.0, "e": -180.0}
    blocks = mixed(true, 3000, random.Random(11))
    rep = rate(blocks, bootstrap=0)
    mean_true = sum(true.values()) / len(true)
    for b, t in true.items():
        assert rep.rating(b) == pytest.approx(t - mean_true, abs=25)


def test_perfect_score_prior_vs_no_prior() -> None:
    games = [GameOutcome(("x", "x"), ("y", "y"), 1.0)] * 5 + [GameOutcome(("y", "y"), ("z", "z"), 0.5)] * 4
    design = build_design(games)
    r = dict(zip(design.bots, fit(design, prior=True)))
    assert all(math.isfinite(v) for v in r.values())
    assert r["x"] > r["y"] and r["x"] > r["z"]
    with pytest.raises(RatingFitError):
        fit(design, prior=False)


def test_disconnected_without_prior_is_an_error() -> None:
    games = [GameOutcome(("x", "x"), ("y", "y"), s) for s in (1.0, 0.0, 0.5)]
    games += [GameOutcome(("u", "u"), ("v", "v"), s) for s in (1.0, 0.0, 0.0)]
    design = build_design(games)
    with pytest.raises(RatingFitError):
        fit(design, prior=False)
    assert len(fit(design, prior=True)) == 4


def test_unknown_anchor_is_an_error() -> None:
    with pytest.raises(RatingFitError):
        fit(build_design(known_games()), anchor=("Echo", 0.0))
