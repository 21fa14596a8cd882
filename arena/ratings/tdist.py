"""Student's t distribution: what turns a bootstrap SD of few degrees of freedom into an interval.

Pure functions, no dependencies: the CDF from the regularized incomplete beta function
(evaluated by its continued fraction, the modified Lentz method), the quantile by bisection
on the CDF (monotone, so it always converges). ``df = math.inf`` is the normal distribution.
"""

from __future__ import annotations

import math
from functools import lru_cache

_EPS = 1e-15
_TINY = 1e-300


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (converges for x < (a+1)/(a+b+2))."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_cf(a, b, x) / a
    return 1.0 - front * _beta_cf(b, a, 1.0 - x) / b


def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with ``df`` > 0 degrees of freedom."""
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return 1.0 if x > 0 else 0.0
    if math.isinf(df):
        return 0.5 * math.erfc(-x / math.sqrt(2.0))
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + x * x))  # P(T > |x|)
    return 1.0 - tail if x > 0 else tail


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The x with P(T <= x) = p, 0 < p < 1 (bisection to 1e-12 of the CDF's argument)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)
