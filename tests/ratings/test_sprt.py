"""SPRT: LLR against independent hand computations, error rates, API."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings import BlockOutcome, GameOutcome
from arena.ratings.gsprt import (
    NELO_PER_T, llr_pentanomial, llr_points, logistic_to_normalized, matchup_bounds, matchup_elo,
    normalized_to_logistic, pentanomial_estimate,
)
from arena.ratings.sprt import SPRT

VALUES = [0.0, 0.25, 0.5, 0.75, 1.0]


# ---------------------------------------------------------------- hand computation
# Independent of arena.ratings.sprt: constrained MLE by profiling over the
# mean m.  For fixed m the t-constraint fixes the variance v = ((m-1/2)/t)^2,
# leaving two *linear* moment constraints whose dual is a convex 2-D problem
# (damped Newton); the best m is then found by a grid + golden-section scan.


def _dual_min(phat, cs):
    """min_y -sum phat log(1 + y.c_i) by damped Newton; returns (value, y)."""
    y = [0.0] * len(cs[0])

    def val(y):
        s = 0.0
        for p, c in zip(phat, cs):
            q = 1 + sum(yi * ci for yi, ci in zip(y, c))
            if q <= 0:
                return math.inf
            s -= p * math.log(q)
        return s

    cur = val(y)
    for _ in range(200):
        k = len(y)
        g = [0.0] * k
        h = [[0.0] * k for _ in range(k)]
        for p, c in zip(phat, cs):
            q = 1 + sum(yi * ci for yi, ci in zip(y, c))
            for i in range(k):
                g[i] -= p * c[i] / q
                for j in range(k):
                    h[i][j] += p * c[i] * c[j] / (q * q)
        if k == 1:
            step = [-g[0] / h[0][0]]
        else:
            det = h[0][0] * h[1][1] - h[0][1] * h[1][0]
            if det <= 1e-300:
                return -math.inf, y
            step = [-(h[1][1] * g[0] - h[0][1] * g[1]) / det, -(-h[1][0] * g[0] + h[0][0] * g[1]) / det]
        lam = 1.0
        while True:
            ny = [yi + lam * si for yi, si in zip(y, step)]
            nv = val(ny)
            if nv <= cur or lam < 1e-12:
                break
            lam /= 2
        if abs(cur - nv) < 1e-15 and max(abs(s) for s in step) * lam < 1e-12:
            return nv, ny
        y, cur = ny, nv
    return cur, y


def _profile(phat, m, t):
    v = ((m - 0.5) / t) ** 2
    cs = [(a - m, (a - m) ** 2 - v) for a in VALUES]
    value, y = _dual_min(phat, cs)
    p = [ph / (1 + y[0] * c[0] + y[1] * c[1]) for ph, c in zip(phat, cs)]
    return value, p


def hand_mle(phat, t):
    if t == 0:
        cs = [(a - 0.5,) for a in VALUES]
        _, y = _dual_min(phat, cs)
        return [ph / (1 + y[0] * c[0]) for ph, c in zip(phat, cs)]
    # m must lie on the side of 1/2 given by the sign of t
    lo, hi = (0.5, 1.0) if t > 0 else (0.0, 0.5)
    grid = [lo + (hi - lo) * k / 100 for k in range(1, 100)]
    best = max(grid, key=lambda m: _profile(phat, m, t)[0])
    a, b = best - (hi - lo) / 100, best + (hi - lo) / 100
    gr = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        c, d = b - gr * (b - a), a + gr * (b - a)
        if _profile(phat, c, t)[0] > _profile(phat, d, t)[0]:
            b = d
        else:
            a = c
    return _profile(phat, (a + b) / 2, t)[1]


def hand_llr(counts, nelo0, nelo1):
    reg = [c if c > 0 else 1e-3 for c in counts]
    n = sum(reg)
    phat = [c / n for c in reg]
    t0, t1 = (math.sqrt(2) * e / (800 / math.log(10)) for e in (nelo0, nelo1))
    p0, p1 = hand_mle(phat, t0), hand_mle(phat, t1)
    for p, t in ((p0, t0), (p1, t1)):  # the hand MLE satisfies the constraint
        mu = sum(pi * a for pi, a in zip(p, VALUES))
        sd = math.sqrt(sum(pi * (a - mu) ** 2 for pi, a in zip(p, VALUES)))
        assert sum(p) == pytest.approx(1, abs=1e-9) and (mu - 0.5) / sd == pytest.approx(t, abs=1e-7)
    return n * sum(ph * math.log(b / a) for ph, a, b in zip(phat, p0, p1))


@pytest.mark.parametrize("counts,nelo0,nelo1", [
    ([3, 11, 25, 14, 7], 0.0, 40.0),
    ([3, 11, 25, 14, 7], -10.0, 25.0),
    ([0, 4, 9, 6, 0], 5.0, 60.0),          # empty cells -> regularized
    ([8, 20, 31, 15, 6], 0.0, 20.0),       # candidate worse: LLR < 0
    ([1187, 7410, 13475, 7378, 1164], -5.0, 5.0),
])
def test_llr_matches_hand_computation(counts, nelo0, nelo1) -> None:
    want = hand_llr(counts, nelo0, nelo1)
    got = llr_pentanomial(counts, nelo0, nelo1)
    assert got == pytest.approx(want, rel=1e-6, abs=1e-7)


def test_llr_signs() -> None:
    assert llr_pentanomial([3, 11, 25, 14, 7], 0, 40) > 0
    assert llr_pentanomial([8, 20, 31, 15, 6], 0, 20) < 0
    assert llr_pentanomial([0, 0, 0, 0, 0], 0, 20) == 0.0


def test_points_llr_matches_brute_force() -> None:
    rng = random.Random(4)
    xs = [rng.gauss(3.0, 20.0) for _ in range(80)]
    nelo0, nelo1 = 0.0, 30.0

    def best_loglik(t):  # max over sigma, golden section on log sigma
        def ll(ls):
            s = math.exp(ls)
            return sum(-math.log(s) - (x - t * s) ** 2 / (2 * s * s) for x in xs)
        a, b = math.log(0.1), math.log(1000.0)
        gr = (math.sqrt(5) - 1) / 2
        for _ in range(200):
            c, d = b - gr * (b - a), a + gr * (b - a)
            if ll(c) > ll(d):
                b = d
            else:
                a = c
        return ll((a + b) / 2)

    t0, t1 = (math.sqrt(2) * e / NELO_PER_T for e in (nelo0, nelo1))
    want = best_loglik(t1) - best_loglik(t0)
    got = llr_points(len(xs), sum(xs), sum(x * x for x in xs), nelo0, nelo1)
    assert got == pytest.approx(want, rel=1e-6, abs=1e-7)


def test_estimate_by_hand() -> None:
    counts = [2, 6, 10, 8, 4]
    n = sum(counts)
    mu = sum(c * v for c, v in zip(counts, VALUES)) / n
    var = sum(c * (v - mu) ** 2 for c, v in zip(counts, VALUES)) / n
    est = pentanomial_estimate(counts)
    assert est.score == pytest.approx(mu)
    assert est.elo == pytest.approx(-400 * math.log10(1 / mu - 1))
    assert est.nelo == pytest.approx(NELO_PER_T * (mu - 0.5) / math.sqrt(2 * var))
    assert est.elo_ci[0] < est.elo < est.elo_ci[1]
    assert est.nelo_ci[0] < est.nelo < est.nelo_ci[1]
    assert 0.5 < est.los < 1.0


def test_unit_conversions() -> None:
    assert matchup_elo(40, 2) == 40 and matchup_elo(40, 1) == 20
    assert matchup_bounds(0, 20, "mixed") == (0, 10)
    assert matchup_bounds(0, 20, "pair") == (0, 20)
    # independent games without draws: sigma = 1/2 and nelo ~ logistic Elo for small Elo
    assert logistic_to_normalized(5.0, 0.5) == pytest.approx(5.0, rel=1e-3)
    assert normalized_to_logistic(logistic_to_normalized(37.0, 0.3), 0.3) == pytest.approx(37.0)


def test_class_decisions_and_bounds() -> None:
    s = SPRT(0, 40, alpha=0.05, beta=0.1)
    st = s.status()
    assert st.lower == pytest.approx(math.log(0.1 / 0.95))
    assert st.upper == pytest.approx(math.log(0.9 / 0.05))
    assert st.decision is None and not st.inconclusive
    for _ in range(200):
        s.add(2.0 if s.n % 3 else 1.0)
    st = s.status()
    assert st.decision == "H1" and st.stopped_at is not None and st.stopped_at < 200
    assert st.llr >= st.upper

    s = SPRT(0, 40, max_blocks=400)
    for _ in range(400):
        s.add(0.5 if s.n % 2 else 1.0)
    assert s.status().decision == "H0"

    s = SPRT(0, 10, max_blocks=20)
    for k in range(30):
        s.add([1.0, 1.5, 0.5, 1.0][k % 4])
    st = s.status()
    assert st.decision is None and st.inconclusive and st.blocks == 20  # blocks after the end are ignored
    with pytest.raises(ValueError):
        s.add(0.7)


def test_add_block_uses_candidate_view() -> None:
    p, q = ("c", "b"), ("b", "b")
    blk = BlockOutcome("1", "x", (GameOutcome(p, q, 1.0, points_diff=30), GameOutcome(q, p, 0.5, points_diff=-10)))
    s = SPRT(0, 20)
    s.add_block(blk, ("b", "c"))
    assert s.counts == [0, 0, 0, 1, 0]  # 1 + (1 - 0.5)
    t = SPRT(0, 20, mode="points")
    t.add_block(blk, p)
    assert t.total == 40.0


# ---------------------------------------------------------------- error rates


def _tilted(q, nelo):
    """Tilt q exponentially so that the block t-value equals nelo's."""
    target = math.sqrt(2) * nelo / NELO_PER_T

    def t_of(th):
        w = [qi * math.exp(th * a) for qi, a in zip(q, VALUES)]
        z = sum(w)
        p = [x / z for x in w]
        mu = sum(pi * a for pi, a in zip(p, VALUES))
        sd = math.sqrt(sum(pi * (a - mu) ** 2 for pi, a in zip(p, VALUES)))
        return (mu - 0.5) / sd, p

    lo, hi = -20.0, 20.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_of(mid)[0] < target:
            lo = mid
        else:
            hi = mid
    return t_of((lo + hi) / 2)[1]


def _run(nelo_true, nelo0, nelo1, n_tests, rng, batch):
    decisions = {"H0": 0, "H1": 0, None: 0}
    for _ in range(n_tests):
        # a random, roughly symmetric pentanomial shape: luck and draws vary
        e, m = rng.uniform(0.02, 0.2), rng.uniform(0.15, 0.35)
        q = [e, m, 1 - 2 * e - 2 * m, m, e]
        p = _tilted(q, nelo_true)
        cum = [sum(p[: i + 1]) for i in range(5)]
        s = SPRT(nelo0, nelo1, max_blocks=20000, batch=batch)
        while s.status().decision is None and s.n < 20000:
            for _ in range(batch):
                u = rng.random()
                s.add(next(i for i, c in enumerate(cum) if u <= c) / 2)
        decisions[s.status().decision] += 1
    return decisions


def _error_rates(n_tests, seed, batch):
    rng = random.Random(seed)
    under_h0 = _run(0.0, 0.0, 60.0, n_tests, rng, batch)
    under_h1 = _run(60.0, 0.0, 60.0, n_tests, rng, batch)
    return under_h0["H1"] / n_tests, under_h1["H0"] / n_tests


@pytest.mark.slow
def test_error_rates_near_alpha_beta() -> None:
    fp, fn = _error_rates(n_tests=300, seed=2024, batch=2)
    assert fp <= 0.05 + 0.035, fp
    assert fn <= 0.05 + 0.035, fn


def test_error_rates_detect_a_broken_test() -> None:
    # Sanity of the harness: far from H0 the test must almost always pass.
    rng = random.Random(7)
    res = _run(120.0, 0.0, 60.0, 60, rng, 2)
    assert res["H1"] >= 57


@pytest.mark.slow
@pytest.mark.parametrize(("nelo_true", "wrong"), [(0.0, "H1"), (60.0, "H0")], ids=["false-positives", "false-negatives"])
def test_error_rates_heavy(nelo_true: float, wrong: str) -> None:
    """3,000 tests under each hypothesis: each rate within 1.2 points of 5% (its standard error at
    3,000 is 0.4). The two halves are two tests, each its own stream, so a parallel run spreads them
    (the longest test of the slow suite)."""
    n_tests = 3000
    rate = _run(nelo_true, 0.0, 60.0, n_tests, random.Random(f"99-{wrong}"), 1)[wrong] / n_tests
    assert rate <= 0.05 + 0.012, rate


def test_points_mode_error_rates() -> None:
    rng = random.Random(31)
    nelo0, nelo1, sd = 0.0, 60.0, 25.0
    out = {}
    for name, nelo in (("h0", nelo0), ("h1", nelo1)):
        mean = math.sqrt(2) * nelo / NELO_PER_T * sd  # block t-value = mean / sd
        res = {"H0": 0, "H1": 0, None: 0}
        for _ in range(300):
            s = SPRT(nelo0, nelo1, mode="points", max_blocks=20000)
            while s.status().decision is None and s.n < 20000:
                s.add(rng.gauss(mean, sd))
            res[s.status().decision] += 1
        out[name] = res
    assert out["h0"]["H1"] / 300 <= 0.05 + 0.035, out
    assert out["h1"]["H0"] / 300 <= 0.05 + 0.035, out
