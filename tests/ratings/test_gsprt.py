"""GSPRT arithmetic: published answers, degenerate counts, properties, estimates."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.gsprt import (MAX_T, NELO_PER_T, Z975, estimate, llr_logistic, llr_normalized, llr_points,
                                 llr_points_mean, logistic_score, mle_expected, mle_t_value, normalized_t,
                                 points_estimate, results_to_pdf, score_to_logistic, secular)

DEGENERATE = [
    [0, 0, 0, 0, 5550], [5550, 0, 0, 0, 0], [0, 0, 5550, 0, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0],
    [0, 0, 0, 0, 1], [0, 1, 0, 0, 0], [0, 0, 0, 3, 0], [7, 0, 0, 0, 7], [0, 0, 0, 0, 0],
    [0, 0, 400, 0, 0], [1, 0, 0, 0, 10**6],
]


# ---------------------------------------------------------------- published answers


def test_all_blocks_won_known_answer() -> None:
    # Published: counts [0,0,0,0,5550], normalized Elo bounds [0, 5] -> LLR 111.798.
    assert llr_normalized([0, 0, 0, 0, 5550], 0.0, 5.0) == pytest.approx(111.798, rel=0.01)
    assert llr_normalized([0, 0, 0, 0, 5550], 0.0, 5.0) == pytest.approx(111.798, abs=1e-3)


def test_mirror_symmetry() -> None:
    # Reversing the counts and negating the bounds swaps the hypotheses.
    for counts in ([3, 11, 25, 14, 7], [0, 0, 0, 0, 5550], [2, 0, 9, 1, 0]):
        rev = list(reversed(counts))
        assert llr_normalized(rev, -5.0, 0.0) == pytest.approx(-llr_normalized(counts, 0.0, 5.0), rel=1e-9, abs=1e-9)
        assert llr_logistic(rev, -5.0, 0.0) == pytest.approx(-llr_logistic(counts, 0.0, 5.0), rel=1e-9, abs=1e-9)


def _hand_expected(phat: list[float], values: list[float], s: float) -> list[float]:
    """Expectation-constrained MLE by a damped Newton on the dual (independent route)."""
    c = [a - s for a in values]
    x = 0.0
    for _ in range(500):
        g = -sum(p * ci / (1 + x * ci) for p, ci in zip(phat, c))
        h = sum(p * ci * ci / (1 + x * ci) ** 2 for p, ci in zip(phat, c))
        step = -g / h
        lam = 1.0
        while any(1 + (x + lam * step) * ci <= 0 for ci in c):
            lam /= 2
        x += lam * step
        if abs(lam * step) < 1e-15:
            break
    return [p / (1 + x * ci) for p, ci in zip(phat, c)]


@pytest.mark.parametrize("counts,elo0,elo1", [
    ([3, 11, 25, 14, 7], 0.0, 10.0), ([1187, 7410, 13475, 7378, 1164], -2.0, 3.0), ([0, 4, 9, 6, 0], 0.0, 20.0),
    ([120, 80, 110], 0.0, 15.0), ([0, 10, 0], -10.0, 10.0),
])
def test_logistic_llr_by_hand(counts: list[int], elo0: float, elo1: float) -> None:
    reg = [c if c else 1e-3 for c in counts]
    n = sum(reg)
    phat = [c / n for c in reg]
    values = [i / (len(counts) - 1) for i in range(len(counts))]
    p0, p1 = (_hand_expected(phat, values, logistic_score(e)) for e in (elo0, elo1))
    want = n * sum(h * math.log(b / a) for h, a, b in zip(phat, p0, p1))
    assert llr_logistic(counts, elo0, elo1) == pytest.approx(want, rel=1e-7, abs=1e-9)


def test_trinomial_normalized_uses_the_per_game_t() -> None:
    n, values, phat = results_to_pdf([30, 40, 50])
    t = normalized_t(20.0, 3)
    assert t == pytest.approx(20.0 / NELO_PER_T)
    p = mle_t_value(phat, values, 0.5, t)
    mu = sum(a * b for a, b in zip(p, values))
    sd = math.sqrt(sum(pi * (a - mu) ** 2 for pi, a in zip(p, values)))
    assert (mu - 0.5) / sd == pytest.approx(t, abs=1e-9)
    assert llr_normalized([30, 40, 50], 0.0, 20.0) > 0


def test_bad_counts_and_bounds_are_value_errors() -> None:
    for bad in ([1, 2, 3, 4], [-1, 0, 0, 0, 0], [math.nan, 0, 0, 0, 1]):
        with pytest.raises(ValueError):
            llr_normalized(bad, 0, 5)
    with pytest.raises(ValueError):
        llr_normalized([1, 2, 3, 2, 1], 0, 5000)  # beyond any measurable effect
    with pytest.raises(ValueError):
        llr_logistic([1, 2, 3, 2, 1], 0, 1e6)  # score 1: no distribution has it


# ---------------------------------------------------------------- degenerate counts never crash


@pytest.mark.parametrize("counts", DEGENERATE)
@pytest.mark.parametrize("bounds", [(0.0, 5.0), (-5.0, 0.0), (0.0, 60.0), (-300.0, 300.0), (200.0, 400.0)])
def test_degenerate_counts_give_finite_llrs(counts: list[int], bounds: tuple[float, float]) -> None:
    a = llr_normalized(counts, *bounds)
    b = llr_logistic(counts, *bounds)
    assert math.isfinite(a) and math.isfinite(b)
    if sum(counts) == 0:
        assert a == 0.0 and b == 0.0


def test_the_published_iteration_is_not_needed_to_succeed() -> None:
    # Large t: the fixed-point step leaves the feasible region; the sigma search still meets the constraint.
    n, values, phat = results_to_pdf([0, 0, 2770, 0, 0])
    for t in (1.0, 2.0, -3.0, MAX_T):
        p = mle_t_value(phat, values, 0.5, t)
        mu = sum(a * b for a, b in zip(p, values))
        sd = math.sqrt(sum(pi * (a - mu) ** 2 for pi, a in zip(p, values)))
        assert sum(p) == pytest.approx(1.0) and (mu - 0.5) / sd == pytest.approx(t, rel=1e-6)


counts_st = st.lists(st.one_of(st.just(0), st.integers(0, 3), st.integers(0, 10**5)), min_size=5, max_size=5)


@settings(max_examples=150, deadline=None)
@given(counts=counts_st, lo=st.floats(-300, 300), width=st.floats(0.01, 300))
def test_llr_is_finite_for_any_counts(counts: list[int], lo: float, width: float) -> None:
    hi = lo + width
    for f in (llr_normalized, llr_logistic):
        v = f(counts, lo, hi)
        assert math.isfinite(v)


@settings(max_examples=100, deadline=None)
@given(counts=counts_st, s=st.floats(0.001, 0.999))
def test_expected_mle_meets_its_constraint(counts: list[int], s: float) -> None:
    _, values, phat = results_to_pdf(counts)
    p = mle_expected(phat, values, s)
    # near the pole 1 + x b -> 0 (a cell of weight 1e-3 among 1e5 blocks) about 8 digits survive
    assert all(x > 0 for x in p) and sum(p) == pytest.approx(1.0, abs=1e-7)
    assert sum(a * b for a, b in zip(p, values)) == pytest.approx(s, abs=1e-7)


# ---------------------------------------------------------------- points


def test_points_mean_llr_matches_the_normal_profile() -> None:
    xs = [3.0, -7.0, 12.0, 0.5, 4.0, -2.0, 9.0]
    n, tot, sq = len(xs), sum(xs), sum(x * x for x in xs)
    d0, d1 = 0.0, 5.0
    w = 1e-3  # one pseudo-sample of weight 1e-3 at each bound
    s = [(sum((x - d) ** 2 for x in xs) + w * (d1 - d0) ** 2) / (n + 2 * w) for d in (d0, d1)]
    assert llr_points_mean(n, tot, sq, d0, d1) == pytest.approx((n + 2 * w) / 2 * math.log(s[0] / s[1]))


def test_points_identical_samples_are_finite() -> None:
    assert math.isfinite(llr_points_mean(10, 0.0, 0.0, 0.0, 5.0)) and llr_points_mean(10, 0.0, 0.0, 0.0, 5.0) < -3
    assert llr_points_mean(10, 50.0, 250.0, 0.0, 5.0) > 3  # ten blocks of exactly +5
    assert llr_points_mean(0, 0.0, 0.0, 0.0, 5.0) == 0.0
    assert llr_points(10, 0.0, 0.0, 0.0, 5.0) == 0.0


# ---------------------------------------------------------------- estimates


def test_estimate_matches_the_published_definitions() -> None:
    counts = [21, 180, 520, 230, 49]
    n = sum(counts)
    vals = [0, 0.25, 0.5, 0.75, 1]
    score = sum(c * v for c, v in zip(counts, vals)) / n
    var = sum(c * (v - score) ** 2 for c, v in zip(counts, vals)) / n
    e = estimate(counts)
    elo = lambda s: -400 * math.log10(1 / s - 1)  # noqa: E731
    lo, hi = score - Z975 * math.sqrt(var / n), score + Z975 * math.sqrt(var / n)
    assert e.score == pytest.approx(score)
    assert e.elo == pytest.approx(elo(score))
    assert e.elo_error == pytest.approx((elo(hi) - elo(lo)) / 2)
    assert e.nelo == pytest.approx((score - 0.5) / math.sqrt(2 * var) * 800 / math.log(10))
    assert e.nelo_error == pytest.approx(Z975 * math.sqrt(var / n) / math.sqrt(2 * var) * 800 / math.log(10))
    assert e.los == pytest.approx((1 - math.erf(-(score - 0.5) / math.sqrt(2 * var / n))) / 2)
    assert e.note is None


def test_estimate_trinomial() -> None:
    e = estimate([40, 20, 60])  # L, D, W
    n, score = 120, (60 + 10) / 120
    var = (40 * score**2 + 20 * (0.5 - score) ** 2 + 60 * (1 - score) ** 2) / n
    assert e.score == pytest.approx(score) and e.sigma_pg == pytest.approx(math.sqrt(var))
    assert e.nelo == pytest.approx((score - 0.5) / math.sqrt(var) * NELO_PER_T)


@pytest.mark.parametrize("counts,phrase", [
    ([0, 0, 3, 0, 0], "cannot carry an interval"), ([0, 0, 0, 0, 4], "unbounded"),
    ([0, 1, 1, 0, 0], "too few"), ([0, 0, 0, 0, 0], "no blocks"),
])
def test_estimate_says_when_the_sample_cannot_carry_it(counts: list[int], phrase: str) -> None:
    e = estimate(counts)
    assert e.elo_ci is None and e.nelo_ci is None
    assert e.note is not None and phrase in e.note


def test_no_zero_width_interval_ever() -> None:
    for counts in ([0, 0, 0, 5, 5], [0, 0, 0, 0, 9], [1, 0, 0, 0, 8], [0, 0, 9, 0, 0], [0, 5, 5, 0, 0]):
        e = estimate(counts)
        for ci in (e.elo_ci, e.nelo_ci):
            assert ci is None or ci[1] - ci[0] > 1e-6


def test_score_conversions() -> None:
    assert score_to_logistic(0.5) == 0.0
    assert score_to_logistic(1.0) == math.inf and score_to_logistic(0.0) == -math.inf
    assert score_to_logistic(logistic_score(123.0)) == pytest.approx(123.0)


def test_points_estimate_degenerate() -> None:
    assert points_estimate(0, 0.0, 0.0).note == "no blocks yet"
    assert "cannot carry" in (points_estimate(6, 12.0, 24.0).note or "")
    e = points_estimate(20, 40.0, 40.0 * 40.0 / 20 + 19 * 9.0)
    assert e.score == pytest.approx(2.0) and e.nelo_ci is not None and e.nelo_ci[0] < e.nelo < e.nelo_ci[1]


# ---------------------------------------------------------------- the secular equation's root


def _bisected(phat: list[float], b: list[float]) -> float:
    """The root by plain bisection to the last bit: slow, but obviously right."""
    lo, hi = -1.0 / max(b), -1.0 / min(b)
    while True:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            return mid
        f = sum(p * x / (1.0 + mid * x) for p, x in zip(phat, b))
        if f == 0.0:
            return mid
        lo, hi = (mid, hi) if f > 0.0 else (lo, mid)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(1e-6, 1.0), min_size=3, max_size=5),
       st.lists(st.floats(-3.0, 3.0).filter(lambda v: abs(v) > 1e-9), min_size=5, max_size=5),
       st.floats(-50.0, 50.0))
def test_the_root_finder_agrees_with_bisection_from_any_start(w: list[float], raw: list[float], start: float) -> None:
    """Newton inside a bracket (started anywhere: outside the bracket falls back to 0) finds bisection's root."""
    phat = [x / sum(w) for x in w]
    b = raw[:len(phat)]
    if not min(b) < 0.0 < max(b):
        assert secular(phat, b, start) is None
        return
    x = secular(phat, b, start)
    assert x is not None
    lo, hi = -1.0 / max(b), -1.0 / min(b)
    assert lo <= x <= hi
    assert x == pytest.approx(_bisected(phat, b), rel=1e-9, abs=1e-12)
