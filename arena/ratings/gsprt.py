"""Generalized SPRT arithmetic: log-likelihood ratios and Elo estimates.

Pure functions over counts and sums; the sequential test that uses them is
:mod:`arena.ratings.sprt`. Definitions follow the published ones (see
docs/ratings.md for the formulas):

* ``llr_normalized`` -- fishtest's ``LLR_normalized``: the t-value statistic,
  bounds in normalized Elo, multinomial maximum likelihood constrained to
  (mu - 1/2) / sigma = t, empty cells regularized to 1e-3.
* ``llr_logistic`` -- fishtest's ``LLR_logistic``: the expectation statistic,
  bounds in logistic Elo turned into an expected score L(elo).
* ``estimate`` -- score, logistic Elo with its error bar, normalized Elo and
  LOS from unregularized counts (the fastchess/cutechess definitions).

Every function returns a finite number (or ``None`` with a reason) for any
count vector; only arguments that mean nothing (negative counts, a score
bound outside (0, 1)) raise ``ValueError``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Sequence
from .._json import JsonObject

#: normalized Elo per unit of per-game t-value: 800 / ln(10).
NELO_PER_T = 800.0 / math.log(10.0)
#: Block mean score (per game) of each pentanomial cell.
PENTA_VALUES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Count given to empty cells (fishtest's regularization).
EMPTY_CELL = 1e-3
#: Two-sided 95% normal quantile.
Z975 = 1.959963984540054
#: Fewest blocks (or games, for a trinomial) an interval is printed for.
MIN_INTERVAL_SAMPLES = 5
#: Largest |t| accepted for a hypothesis (about 1000 normalized Elo per block).
MAX_T = 4.0


# ------------------------------------------------------------ unit helpers


def logistic_score(elo: float) -> float:
    """Expected score per game for a logistic Elo difference, 1 / (1 + 10^(-elo/400))."""
    z = elo * math.log(10.0) / 400.0
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def score_to_logistic(score: float) -> float:
    """Logistic Elo of a mean score, -400 log10(1/s - 1); +-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def logistic_to_normalized(elo: float, sigma_pg: float) -> float:
    """Logistic Elo -> normalized Elo, given the per-game standard deviation."""
    return NELO_PER_T * (logistic_score(elo) - 0.5) / sigma_pg


def normalized_to_logistic(nelo: float, sigma_pg: float) -> float:
    """Normalized Elo -> logistic Elo, given the per-game standard deviation."""
    return score_to_logistic(0.5 + nelo / NELO_PER_T * sigma_pg)


def matchup_elo(bot_elo_diff: float, candidate_seats: int) -> float:
    """Partnership effect implied by a per-bot one (mean-of-two model).

    The candidate side holds ``candidate_seats`` (1 or 2) candidate seats:
    2 ("pair") keeps d, 1 ("mixed") gives d/2.
    """
    if candidate_seats not in (1, 2):
        raise ValueError("candidate_seats must be 1 or 2")
    return bot_elo_diff * candidate_seats / 2.0


def matchup_bounds(elo0: float, elo1: float, matchup: str) -> tuple[float, float]:
    """Per-bot bounds -> the bounds of one matchup ("pair" d, "mixed" d/2)."""
    seats = {"pair": 2, "mixed": 1}.get(matchup)
    if seats is None:
        raise ValueError(f"unknown matchup {matchup!r}")
    return matchup_elo(elo0, seats), matchup_elo(elo1, seats)


# ------------------------------------------------------------ counts


def pentanomial(totals: Iterable[float]) -> list[int]:
    """Counts of candidate block totals 0, 1/2, 1, 3/2, 2."""
    counts = [0] * 5
    for t in totals:
        counts[penta_cell(t)] += 1
    return counts


def penta_cell(total: float) -> int:
    """Index 0..4 of a block total 0, 0.5, 1, 1.5 or 2 (ValueError otherwise)."""
    if not isinstance(total, (int, float)) or not math.isfinite(total):
        raise ValueError(f"block total must be 0, 0.5, 1, 1.5 or 2, got {total!r}")
    i = round(total * 2)
    if not (0 <= i <= 4) or abs(i - total * 2) > 1e-9:
        raise ValueError(f"block total must be 0, 0.5, 1, 1.5 or 2, got {total!r}")
    return int(i)


def _check_counts(counts: Sequence[float]) -> list[float]:
    if len(counts) not in (3, 5):
        raise ValueError(f"need 3 (L, D, W) or 5 (pentanomial) counts, got {len(counts)}")
    out = [float(c) for c in counts]
    if any(not math.isfinite(c) or c < 0 for c in out):
        raise ValueError(f"counts must be finite and >= 0, got {list(counts)!r}")
    return out


def regularize(counts: Sequence[float]) -> list[float]:
    """Replace empty cells by 1e-3 so every outcome has positive mass."""
    return [c if c > 0 else EMPTY_CELL for c in counts]


def results_to_pdf(counts: Sequence[float]) -> tuple[float, list[float], list[float]]:
    """(N, values, phat) of regularized counts; values are i / (len - 1)."""
    reg = regularize(_check_counts(counts))
    n = sum(reg)
    k = len(reg)
    return n, [i / (k - 1) for i in range(k)], [c / n for c in reg]


def _mean_var(p: Sequence[float], a: Sequence[float]) -> tuple[float, float]:
    mu = sum(pi * ai for pi, ai in zip(p, a))
    return mu, sum(pi * (ai - mu) ** 2 for pi, ai in zip(p, a))


# ------------------------------------------------------------ constrained MLE


def secular(phat: Sequence[float], b: Sequence[float], start: float = 0.0) -> float | None:
    """Root x of sum_i phat_i b_i / (1 + x b_i) = 0 with every 1 + x b_i > 0.

    On that interval, (-1/max b, -1/min b), the left side falls from +inf to
    -inf (its derivative, -sum phat_i b_i^2 / (1 + x b_i)^2, is negative), so
    Newton's step from 0 kept inside a shrinking bracket, bisecting whenever the
    step would leave it, finds the root to the last bit in a handful of steps
    where bisection alone took some sixty (an SPRT solves this at every block);
    ``None`` when the b_i do not straddle 0 (no such distribution exists).
    ``start``: where Newton begins if inside the bracket (the last root, in an iteration).
    """
    bmax, bmin = max(b), min(b)
    if not (bmin < 0.0 < bmax):
        return None
    lo, hi = -1.0 / bmax, -1.0 / bmin
    pairs = list(zip(phat, b))
    x = start if lo < start < hi else 0.0
    for _ in range(400):
        f = slope = 0.0
        for pi, bi in pairs:
            q = bi / (1.0 + x * bi)
            f += pi * q
            slope += pi * q * q
        if f > 0.0:
            lo = x
        elif f < 0.0:
            hi = x
        else:
            return x
        step = x + f / slope if slope > 0.0 else x
        if not lo < step < hi:
            step = 0.5 * (lo + hi)
            if not lo < step < hi:
                break  # the bracket is two neighbouring floats
        if step == x:
            break
        x = step
    return x


def _tilt(phat: Sequence[float], b: Sequence[float], x: float) -> list[float]:
    return [pi / (1.0 + x * bi) for pi, bi in zip(phat, b)]


def mle_expected(phat: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """Most likely distribution on ``values`` with expectation ``s``."""
    if not (min(values) < s < max(values)):
        raise ValueError(f"expected score {s!r} is outside ({min(values)}, {max(values)})")
    b = [a - s for a in values]
    x = secular(phat, b)
    assert x is not None  # b straddles 0 because s is inside the range
    return _tilt(phat, b, x)


def _t_of(p: Sequence[float], values: Sequence[float], ref: float) -> float:
    mu, var = _mean_var(p, values)
    return (mu - ref) / math.sqrt(var) if var > 0 else math.copysign(math.inf, mu - ref)


def _valid(p: Sequence[float] | None, values: Sequence[float], ref: float, t: float) -> bool:
    if p is None or any(not (pi > 0.0) or not math.isfinite(pi) for pi in p):
        return False
    return abs(sum(p) - 1.0) < 1e-7 and abs(_t_of(p, values, ref) - t) < 1e-7 * (1.0 + abs(t))


def _b_of(values: Sequence[float], ref: float, t: float, mu: float, sigma: float) -> list[float]:
    """Fishtest's shifted outcomes: a - ref - t sigma (1 + ((a - mu) / sigma)^2) / 2."""
    return [a - ref - t * (sigma * sigma + (a - mu) ** 2) / (2.0 * sigma) for a in values]


def _fixed_point(phat: Sequence[float], values: Sequence[float], ref: float, t: float) -> list[float] | None:
    """The published iteration: from uniform, p <- phat / (1 + x b(p))."""
    p = [1.0 / len(phat)] * len(phat)
    last = 0.0
    for _ in range(100):
        mu, var = _mean_var(p, values)
        if not var > 0.0:
            return None
        x = secular(phat, b := _b_of(values, ref, t, mu, math.sqrt(var)), last)
        if x is None:
            return None
        new, last = _tilt(phat, b, x), x
        delta = max(abs(u - v) for u, v in zip(new, p))
        p = new
        if delta < 1e-13:
            break
    return p


def _sigma_scan(phat: Sequence[float], values: Sequence[float], ref: float, t: float) -> list[float] | None:
    """Fallback with a guaranteed bracket: search the solution's sigma.

    On the constraint, mu = ref + t sigma; for each sigma the secular equation
    gives p(sigma) with sum p = 1 and sum p b = 0, and p is the MLE exactly
    when mean(p) = mu (then var(p) = sigma^2 follows). Scan sigma on a
    log grid, bisect every sign change, keep the most likely root.
    """
    span = max(values) - min(values)
    smax = span / 2.0
    if t > 0:
        smax = min(smax, (max(values) - ref) / t)
    else:
        smax = min(smax, (ref - min(values)) / -t)

    def gap(sigma: float) -> tuple[float, list[float]] | None:
        mu = ref + t * sigma
        b = _b_of(values, ref, t, mu, sigma)
        x = secular(phat, b)
        if x is None:
            return None
        p = _tilt(phat, b, x)
        return sum(pi * a for pi, a in zip(p, values)) - mu, p

    grid = [smax * math.pow(10.0, -12.0 + 12.0 * i / 600) for i in range(601)]
    grid[-1] = smax * (1.0 - 1e-12)
    best: list[float] | None = None
    best_ll = -math.inf
    prev: tuple[float, float] | None = None
    for s in grid:
        g = gap(s)
        if g is None:
            prev = None
            continue
        if g[0] == 0.0:
            lo = hi = s
        elif prev is not None and (prev[1] < 0.0) != (g[0] < 0.0):
            lo, hi = prev[0], s
        else:
            prev = (s, g[0])
            continue
        flo = prev[1] if prev is not None and lo != hi else g[0]
        for _ in range(200):
            if hi - lo <= 1e-15 * hi:
                break
            mid = 0.5 * (lo + hi)
            gm = gap(mid)
            if gm is None:
                break
            if (gm[0] < 0.0) == (flo < 0.0):
                lo, flo = mid, gm[0]
            else:
                hi = mid
        root = gap(0.5 * (lo + hi))
        if root is not None and all(pi > 0 for pi in root[1]):
            ll = sum(h * math.log(pi) for h, pi in zip(phat, root[1]))
            if ll > best_ll:
                best, best_ll = root[1], ll
        prev = (s, g[0])
    return best


def mle_t_value(phat: Sequence[float], values: Sequence[float], ref: float, t: float) -> list[float]:
    """Most likely distribution on ``values`` with (mu - ref) / sigma == t.

    The Lagrange conditions give p_i = phat_i / (1 + x b_i) with fishtest's
    b_i (see :func:`_b_of`), x found by bisection on its bracket. The
    published fixed-point iteration is tried first; if it leaves the feasible
    region or does not meet the constraint, a sigma search with a guaranteed
    bracket takes over. ``ArithmeticError`` means neither met the constraint
    (not seen for |t| <= MAX_T; the property tests look for it).
    """
    if t == 0.0:
        return mle_expected(phat, values, ref)
    p = _fixed_point(phat, values, ref, t)
    if _valid(p, values, ref, t):
        assert p is not None
        return p
    q = _sigma_scan(phat, values, ref, t)
    if q is not None and abs(_t_of(q, values, ref) - t) < 1e-6 * (1.0 + abs(t)):
        return q
    raise ArithmeticError(f"constrained MLE not found for t={t!r}")


# ------------------------------------------------------------ LLRs


def _llr(n: float, phat: Sequence[float], p0: Sequence[float], p1: Sequence[float]) -> float:
    return n * sum(h * (math.log(b) - math.log(a)) for h, a, b in zip(phat, p0, p1))


def normalized_t(nelo: float, cells: int = 5) -> float:
    """Normalized Elo -> t-value of one sample: a block (x sqrt 2) or a game."""
    t = nelo / NELO_PER_T
    return t * math.sqrt(2.0) if cells == 5 else t


def llr_normalized(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """GLR of nelo1 against nelo0 (t-value statistic), as fishtest's LLR_normalized.

    ``counts``: 5 pentanomial counts (blocks) or 3 L/D/W counts (games).
    Returns 0 for no samples.
    """
    counts = _check_counts(counts)
    if sum(counts) == 0:
        return 0.0
    t0, t1 = normalized_t(nelo0, len(counts)), normalized_t(nelo1, len(counts))
    if max(abs(t0), abs(t1)) > MAX_T:
        raise ValueError(f"normalized Elo bounds {nelo0}, {nelo1} are beyond any measurable effect")
    n, values, phat = results_to_pdf(counts)
    return _llr(n, phat, mle_t_value(phat, values, 0.5, t0), mle_t_value(phat, values, 0.5, t1))


def llr_logistic(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """GLR of elo1 against elo0 (expectation statistic), as fishtest's LLR_logistic.

    The hypotheses say the expected score per game is L(elo); ``counts`` are
    pentanomial (blocks) or L/D/W (games). Returns 0 for no samples.
    """
    counts = _check_counts(counts)
    if sum(counts) == 0:
        return 0.0
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    if not (0.0 < s0 < 1.0 and 0.0 < s1 < 1.0):
        raise ValueError(f"logistic Elo bounds {elo0}, {elo1} give a score of 0 or 1")
    n, values, phat = results_to_pdf(counts)
    return _llr(n, phat, mle_expected(phat, values, s0), mle_expected(phat, values, s1))


#: The pentanomial GSPRT of earlier versions: the t-value statistic.
llr_pentanomial = llr_normalized


def _normal_profile(n: float, mean: float, var: float, t: float) -> float:
    """max over sigma of the normal log-likelihood with mu = t * sigma
    (constants dropped). With u = 1/sigma the optimum solves
    (var + mean^2) u^2 - t mean u - 1 = 0."""
    m2 = var + mean * mean
    u = (t * mean + math.sqrt(t * t * mean * mean + 4.0 * m2)) / (2.0 * m2)
    return n * math.log(u) - 0.5 * n * (1.0 - t * mean * u + t * t)


def llr_points(n: int, total: float, total_sq: float, nelo0: float, nelo1: float) -> float:
    """Normal-model GLR on real block samples with bounds in normalized Elo.

    H_k: mean / sd = sqrt(2) nelo_k / (800 / ln 10), both unknown. Returns 0
    until the samples differ (a t-value needs a spread).
    """
    if n < 2:
        return 0.0
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    if var <= 1e-12 * (1.0 + mean * mean):
        return 0.0
    t0, t1 = normalized_t(nelo0), normalized_t(nelo1)
    return _normal_profile(n, mean, var, t1) - _normal_profile(n, mean, var, t0)


def llr_points_mean(n: int, total: float, total_sq: float, d0: float, d1: float) -> float:
    """Normal-model GLR on real block samples with bounds on the mean (points per block).

    H_k: mean = d_k, sd unknown, so LLR = N/2 log(S0 / S1) with S_k the mean
    square about d_k (the published ``LLR_alt`` form). As with the 1e-3
    cells of the pentanomial, the sample is regularized by one pseudo-sample
    of weight 1e-3 at each of d0 and d1, so identical samples give a large
    but finite LLR instead of a division by zero.
    """
    if n < 1:
        return 0.0
    w = EMPTY_CELL
    big_n = n + 2.0 * w
    gap2 = (d1 - d0) ** 2

    def s(d: float) -> float:
        ss = max(total_sq - 2.0 * d * total + n * d * d, 0.0)
        return (ss + w * gap2) / big_n

    return 0.5 * big_n * (math.log(s(d0)) - math.log(s(d1)))


# ------------------------------------------------------------ estimates


@dataclass
class EloEstimate:
    """Naive estimates with 95% normal intervals, or None and the reason.

    ``kind`` is "naive": after an SPRT stops early the estimate is biased
    away from the middle of the bounds (the stop happened because the
    running estimate was extreme); see docs/ratings.md.
    """

    blocks: float
    score: float | None
    sigma_pg: float | None
    elo: float | None
    elo_ci: tuple[float, float] | None
    nelo: float | None
    nelo_ci: tuple[float, float] | None
    los: float | None  # P(candidate better), normal approximation
    elo_error: float | None = None  # half-width of elo_ci (the "+/-" of fastchess)
    nelo_error: float | None = None
    note: str | None = None
    kind: str = "naive"

    def to_dict(self) -> JsonObject:
        return asdict(self)


def _phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def estimate(counts: Sequence[float]) -> EloEstimate:
    """Score, logistic Elo (+/-), normalized Elo (+/-) and LOS from raw counts.

    5 counts: blocks (pentanomial); 3: games (L, D, W). Score and variance
    come from the counts as they are (no regularization); the interval is
    score +/- 1.96 sd / sqrt(N) mapped through each scale. Where the sample
    cannot carry a figure it is None and ``note`` says why.
    """
    counts = _check_counts(counts)
    n = sum(counts)
    k = len(counts)
    unit = "blocks" if k == 5 else "games"
    if n == 0:
        return EloEstimate(0, None, None, None, None, None, None, None, note=f"no {unit} yet")
    values = [i / (k - 1) for i in range(k)]
    score, var = _mean_var([c / n for c in counts], values)
    sigma_pg = math.sqrt(2.0 * var if k == 5 else var)
    elo = _finite(score_to_logistic(score))
    notes = []
    if elo is None:
        notes.append(f"every {unit[:-1]} {'won' if score >= 1 else 'lost'}: the Elo is unbounded")
    if var <= 0.0:
        notes.append(f"all {n:g} {unit} had the same result: the sample cannot carry an interval")
        return EloEstimate(n, score, 0.0, elo, None, None, None, None, note="; ".join(notes))
    se = math.sqrt(var / n)
    los = _phi((score - 0.5) / se)
    nelo = NELO_PER_T * (score - 0.5) / sigma_pg
    if n < MIN_INTERVAL_SAMPLES:
        notes.append(f"{n:g} {unit} are too few for an interval")
        return EloEstimate(n, score, sigma_pg, elo, None, nelo, None, los, note="; ".join(notes))
    lo, hi = score - Z975 * se, score + Z975 * se
    nelo_ci = (NELO_PER_T * (lo - 0.5) / sigma_pg, NELO_PER_T * (hi - 0.5) / sigma_pg)
    elo_lo, elo_hi = _finite(score_to_logistic(lo)), _finite(score_to_logistic(hi))
    elo_ci = None
    elo_error = None
    if elo_lo is None or elo_hi is None:
        notes.append("the interval reaches a score of 0 or 1: no Elo interval")
    else:
        elo_ci = (elo_lo, elo_hi)
        elo_error = (elo_hi - elo_lo) / 2.0
    return EloEstimate(n, score, sigma_pg, elo, elo_ci, nelo, nelo_ci, los, elo_error=elo_error,
                       nelo_error=(nelo_ci[1] - nelo_ci[0]) / 2.0, note="; ".join(notes) or None)


def pentanomial_estimate(counts: Sequence[float]) -> EloEstimate:
    """:func:`estimate` for 5 pentanomial counts."""
    if len(counts) != 5:
        raise ValueError("need 5 pentanomial counts")
    return estimate(counts)


def points_estimate(n: int, total: float, total_sq: float) -> EloEstimate:
    """Estimates for real-valued block samples (points differences).

    There is no logistic Elo for points: ``score`` holds the mean per block,
    ``nelo`` the t-value in normalized Elo, ``los`` P(mean > 0); ``elo`` and
    ``elo_ci`` stay None (:func:`points_interval` gives the mean's interval).
    """
    if n < 1:
        return EloEstimate(0, None, None, None, None, None, None, None, note="no blocks yet")
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    if var <= 1e-12 * (1.0 + mean * mean):
        return EloEstimate(n, mean, 0.0, None, None, None, None, None,
                           note=f"all {n} blocks had the same points difference: the sample cannot carry an interval")
    sd = math.sqrt(var)
    t = mean / sd
    k = NELO_PER_T / math.sqrt(2.0)
    los = _phi(mean / (sd / math.sqrt(n)))
    if n < MIN_INTERVAL_SAMPLES:
        return EloEstimate(n, mean, sd / math.sqrt(2.0), None, None, k * t, None, los,
                           note=f"{n} blocks are too few for an interval")
    se_t = math.sqrt((1.0 + t * t / 2.0) / n)
    ci = (k * (t - Z975 * se_t), k * (t + Z975 * se_t))
    return EloEstimate(n, mean, sd / math.sqrt(2.0), None, None, k * t, ci, los,
                       nelo_error=(ci[1] - ci[0]) / 2.0)


def points_interval(n: int, total: float, total_sq: float) -> tuple[float, float] | None:
    """95% normal interval of the mean points per block (None below 5 blocks or with no spread)."""
    if n < MIN_INTERVAL_SAMPLES:
        return None
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    if var <= 0.0:
        return None
    h = Z975 * math.sqrt(var / n)
    return mean - h, mean + h
