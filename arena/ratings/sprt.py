"""Sequential test for "candidate beats baseline" on duplicate blocks.

Units used throughout (see docs/ratings.md):

* **logistic Elo** -- the rating scale of :mod:`arena.ratings.bt`;
  expected score = 1 / (1 + 10 ** (-elo / 400)).
* **normalized Elo (nelo)** -- a per-game *t-value* scaled by 800/ln(10):
  nelo = (800 / ln 10) * (mu - 1/2) / sigma_pg, where mu is the expected
  score per game and sigma_pg the standard deviation per game of the paired
  design (sigma of a block's mean score times sqrt 2).  Equal nelo means
  equal difficulty to detect, whatever the draw rate or card luck.

The pentanomial generalized SPRT follows the published fishtest design
(M. Van den Bergh, "normalized Elo" notes): each block is one sample with five
outcomes (candidate total 0, 1/2, 1, 3/2, 2), empty cells are regularized to a
count of 1e-3, the distribution is fitted by maximum likelihood under the
constraint t = nelo0 and t = nelo1, and LLR = N * sum_i phat_i * log(p1_i / p0_i).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Literal, Sequence

from .data import BlockOutcome

#: normalized Elo per unit of per-game t-value: 800 / ln(10).
NELO_PER_T = 800.0 / math.log(10.0)
#: Block mean score (per game) of each pentanomial cell.
PENTA_VALUES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Count given to empty pentanomial cells (fishtest's regularization).
EMPTY_CELL = 1e-3
_Z975 = 1.959963984540054


# ------------------------------------------------------------ unit helpers


def logistic_score(elo: float) -> float:
    """Expected score per game for a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_logistic(score: float) -> float:
    """Logistic Elo of a mean score (clamped to [0.001, 0.999] to stay finite)."""
    s = min(max(score, 1e-3), 1.0 - 1e-3)
    return -400.0 * math.log10(1.0 / s - 1.0)


def logistic_to_normalized(elo: float, sigma_pg: float) -> float:
    """Logistic Elo -> normalized Elo, given the per-game standard deviation."""
    return NELO_PER_T * (logistic_score(elo) - 0.5) / sigma_pg


def normalized_to_logistic(nelo: float, sigma_pg: float) -> float:
    """Normalized Elo -> logistic Elo, given the per-game standard deviation."""
    return score_to_logistic(0.5 + nelo / NELO_PER_T * sigma_pg)


def matchup_elo(bot_elo_diff: float, candidate_seats: int) -> float:
    """Partnership Elo difference implied by a per-bot difference.

    The candidate side holds ``candidate_seats`` (1 or 2) candidate seats, the
    rest of its seats and both opposing seats are baseline.  With the
    mean-of-two model: 2 seats ("pair" matchup) -> d, 1 seat ("mixed") -> d/2.
    """
    if candidate_seats not in (1, 2):
        raise ValueError("candidate_seats must be 1 or 2")
    return bot_elo_diff * candidate_seats / 2.0


def matchup_bounds(elo0: float, elo1: float, matchup: Literal["pair", "mixed"]) -> tuple[float, float]:
    """Per-bot logistic Elo bounds -> partnership logistic Elo bounds.

    "pair": candidate+candidate vs baseline+baseline; "mixed":
    candidate+baseline vs baseline+baseline.  Convert the result to
    normalized Elo with :func:`logistic_to_normalized` for :class:`SPRT`.
    """
    seats = {"pair": 2, "mixed": 1}[matchup]
    return matchup_elo(elo0, seats), matchup_elo(elo1, seats)


# ------------------------------------------------------------ pentanomial


def pentanomial(totals: Iterable[float]) -> list[int]:
    """Counts of candidate block totals 0, 1/2, 1, 3/2, 2."""
    counts = [0] * 5
    for t in totals:
        counts[_cell(t)] += 1
    return counts


def _cell(total: float) -> int:
    i = round(total * 2)
    if not (0 <= i <= 4) or abs(i - total * 2) > 1e-9:
        raise ValueError(f"block total must be 0, 0.5, 1, 1.5 or 2, got {total!r}")
    return int(i)


def regularize(counts: Sequence[float]) -> list[float]:
    """Replace empty cells by 1e-3 so every outcome has positive mass."""
    return [c if c > 0 else EMPTY_CELL for c in counts]


def _mean_var(p: Sequence[float], a: Sequence[float]) -> tuple[float, float]:
    mu = sum(pi * ai for pi, ai in zip(p, a))
    return mu, sum(pi * (ai - mu) ** 2 for pi, ai in zip(p, a))


def _secular_root(phat: Sequence[float], b: Sequence[float]) -> float:
    """Root x of sum phat_i b_i / (1 + x b_i) = 0 on the interval where all
    1 + x b_i > 0 (the function decreases there from +inf to -inf)."""
    bmax, bmin = max(b), min(b)
    if not (bmin < 0.0 < bmax):
        raise ValueError("constraint unreachable: shifted outcomes do not straddle 0")
    lo, hi = -1.0 / bmax, -1.0 / bmin
    x = 0.0
    for _ in range(200):
        f = df = 0.0
        for pi, bi in zip(phat, b):
            q = 1.0 + x * bi
            f += pi * bi / q
            df -= pi * bi * bi / (q * q)
        if f > 0.0:
            lo = x
        else:
            hi = x
        if abs(f) < 1e-15 or hi - lo < 1e-15 * (1.0 + abs(x)):
            return x
        nx = x - f / df
        x = nx if lo < nx < hi else 0.5 * (lo + hi)
    return x


def constrained_mle(phat: Sequence[float], values: Sequence[float], t: float, ref: float) -> list[float]:
    """Most likely distribution on ``values`` with (mu - ref) / sigma == t.

    Lagrange conditions give p_i = phat_i / (1 + x * b_i) with
    b_i = (a_i - ref) - t * sigma * (1 + ((a_i - mu) / sigma) ** 2) / 2,
    where mu, sigma belong to the solution itself; iterate that fixed point,
    solving the 1-D equation for the multiplier x each round.
    """
    # Start from the uniform distribution; a very peaked empirical start can
    # make an intermediate step infeasible, so it is only the fallback.
    for start in ([1.0 / len(phat)] * len(phat), list(phat)):
        p = start
        try:
            for _ in range(200):
                mu, var = _mean_var(p, values)
                sigma = math.sqrt(var)
                b = [(ai - ref) - t * sigma * (1.0 + ((ai - mu) / sigma) ** 2) / 2.0 for ai in values]
                x = _secular_root(phat, b)
                new = [pi / (1.0 + x * bi) for pi, bi in zip(phat, b)]
                delta = max(abs(u - v) for u, v in zip(new, p))
                p = new
                if delta < 1e-13:
                    break
        except (ValueError, ZeroDivisionError):
            continue
        mu, var = _mean_var(p, values)
        if abs(sum(p) - 1.0) < 1e-9 and var > 0 and abs((mu - ref) / math.sqrt(var) - t) < 1e-7:
            return p
    raise ArithmeticError(f"constrained MLE did not converge for t={t}")


def pentanomial_t(nelo: float) -> float:
    """Normalized Elo -> t-value of a block's mean score (sqrt 2 * per game)."""
    return math.sqrt(2.0) * nelo / NELO_PER_T


def llr_pentanomial(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """Generalized log-likelihood ratio of H1 (nelo1) against H0 (nelo0)."""
    if sum(counts) == 0:
        return 0.0
    reg = regularize(counts)
    n = sum(reg)
    phat = [c / n for c in reg]
    p0 = constrained_mle(phat, PENTA_VALUES, pentanomial_t(nelo0), 0.5)
    p1 = constrained_mle(phat, PENTA_VALUES, pentanomial_t(nelo1), 0.5)
    return n * sum(ph * math.log(b / a) for ph, a, b in zip(phat, p0, p1))


# ------------------------------------------------------------ points mode


def _normal_profile(n: float, mean: float, var: float, t: float) -> float:
    """max over sigma of the normal log-likelihood with mu = t * sigma
    (additive constants dropped).  With u = 1/sigma the optimum solves
    (var + mean^2) u^2 - t mean u - 1 = 0."""
    m2 = var + mean * mean
    u = (t * mean + math.sqrt(t * t * mean * mean + 4.0 * m2)) / (2.0 * m2)
    return n * math.log(u) - 0.5 * n * (1.0 - t * mean * u + t * t)


def llr_points(n: int, total: float, total_sq: float, nelo0: float, nelo1: float) -> float:
    """Normal-model GLR for real-valued block samples (points differences).

    Samples are modelled as N(mu, sigma^2) with both unknown; H_k says
    mu / sigma = sqrt(2) * nelo_k / (800 / ln 10), the same t-value a
    pentanomial block would have.  Returns 0 until the variance is positive.
    """
    if n < 2:
        return 0.0
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    if var <= 1e-12 * (1.0 + mean * mean):
        return 0.0
    return _normal_profile(n, mean, var, pentanomial_t(nelo1)) - _normal_profile(n, mean, var, pentanomial_t(nelo0))


# ------------------------------------------------------------ estimates


@dataclass
class EloEstimate:
    """Display estimate with 95% intervals (normal approximation)."""

    blocks: float
    score: float | None  # mean score per game (pentanomial mode only)
    sigma_pg: float
    elo: float | None
    elo_ci: tuple[float, float] | None
    nelo: float
    nelo_ci: tuple[float, float]
    los: float  # P(candidate better), normal approximation


def _phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def pentanomial_estimate(counts: Sequence[float]) -> EloEstimate:
    """Logistic and normalized Elo of the candidate from pentanomial counts."""
    reg = regularize(counts)
    n = sum(reg)
    mu, var = _mean_var([c / n for c in reg], PENTA_VALUES)
    sigma_pg = math.sqrt(2.0 * var)
    se = sigma_pg / math.sqrt(2.0 * n)  # per-game mean over 2n games
    lo, hi = mu - _Z975 * se, mu + _Z975 * se
    nt = lambda s: NELO_PER_T * (s - 0.5) / sigma_pg  # noqa: E731
    return EloEstimate(
        blocks=sum(counts), score=mu, sigma_pg=sigma_pg,
        elo=score_to_logistic(mu), elo_ci=(score_to_logistic(lo), score_to_logistic(hi)),
        nelo=nt(mu), nelo_ci=(nt(lo), nt(hi)), los=_phi((mu - 0.5) / se),
    )


def points_estimate(n: int, total: float, total_sq: float) -> EloEstimate:
    """Normalized Elo of the candidate from points-difference block samples."""
    if n < 2:
        raise ValueError("need at least two blocks")
    mean = total / n
    sd = math.sqrt(max(total_sq / n - mean * mean, 1e-300))
    t = mean / sd
    se_t = math.sqrt((1.0 + t * t / 2.0) / n)
    k = NELO_PER_T / math.sqrt(2.0)
    return EloEstimate(
        blocks=n, score=None, sigma_pg=sd / math.sqrt(2.0), elo=None, elo_ci=None,
        nelo=k * t, nelo_ci=(k * (t - _Z975 * se_t), k * (t + _Z975 * se_t)),
        los=_phi(mean / (sd / math.sqrt(n))),
    )


# ------------------------------------------------------------ the test


@dataclass
class SPRTStatus:
    llr: float
    lower: float
    upper: float
    decision: str | None  # "H0" (candidate not better), "H1" (better), None
    inconclusive: bool
    blocks: int
    stopped_at: int | None
    estimate: EloEstimate | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SPRT:
    """Generalized SPRT of nelo0 (H0) against nelo1 (H1) on duplicate blocks.

    ``mode="pentanomial"``: ``add()`` takes the candidate's block total
    (0, 0.5, 1, 1.5 or 2).  ``mode="points"``: ``add()`` takes a real number,
    the candidate's points difference summed over the block.  Bounds are in
    normalized Elo in both modes.  The LLR is checked every ``batch`` blocks;
    the first crossing decides for good, and a test reaching ``max_blocks``
    without a crossing is inconclusive.
    """

    def __init__(self, nelo0: float, nelo1: float, alpha: float = 0.05, beta: float = 0.05,
                 max_blocks: int | None = None, *, mode: Literal["pentanomial", "points"] = "pentanomial",
                 batch: int = 1) -> None:
        if not nelo0 < nelo1:
            raise ValueError("need nelo0 < nelo1")
        if not (0 < alpha < 1 and 0 < beta < 1):
            raise ValueError("alpha and beta must be in (0, 1)")
        if mode not in ("pentanomial", "points"):
            raise ValueError(f"unknown mode {mode!r}")
        self.nelo0, self.nelo1 = nelo0, nelo1
        self.alpha, self.beta = alpha, beta
        self.max_blocks = max_blocks
        self.mode = mode
        self.batch = max(1, int(batch))
        self.lower = math.log(beta / (1.0 - alpha))
        self.upper = math.log((1.0 - beta) / alpha)
        self.counts = [0] * 5
        self.n = 0
        self.total = 0.0
        self.total_sq = 0.0
        self._decision: str | None = None
        self._stopped_at: int | None = None
        self._llr_cache: tuple[int, float] = (0, 0.0)

    def add(self, block_total: float) -> None:
        """Record one block (see class docstring for what the number is)."""
        if self.mode == "pentanomial":
            self.counts[_cell(block_total)] += 1
        self.n += 1
        self.total += block_total
        self.total_sq += block_total * block_total
        if self._decision is None and not self._expired(self.n - 1):
            if self.n % self.batch == 0 or (self.max_blocks is not None and self.n >= self.max_blocks):
                llr = self.llr()
                if llr >= self.upper:
                    self._decision, self._stopped_at = "H1", self.n
                elif llr <= self.lower:
                    self._decision, self._stopped_at = "H0", self.n

    def add_block(self, block: BlockOutcome, candidate: tuple[str, str]) -> None:
        """Record a block from the candidate partnership's point of view."""
        self.add(block.total_for(candidate) if self.mode == "pentanomial" else block.points_for(candidate))

    def _expired(self, n: int) -> bool:
        return self.max_blocks is not None and n >= self.max_blocks

    def llr(self) -> float:
        """Log-likelihood ratio of all blocks recorded so far."""
        if self._llr_cache[0] != self.n:
            if self.mode == "pentanomial":
                v = llr_pentanomial(self.counts, self.nelo0, self.nelo1)
            else:
                v = llr_points(self.n, self.total, self.total_sq, self.nelo0, self.nelo1)
            self._llr_cache = (self.n, v)
        return self._llr_cache[1]

    def status(self) -> SPRTStatus:
        est: EloEstimate | None = None
        if self.n >= 2:
            est = (pentanomial_estimate(self.counts) if self.mode == "pentanomial"
                   else points_estimate(self.n, self.total, self.total_sq))
        return SPRTStatus(
            llr=self.llr(), lower=self.lower, upper=self.upper, decision=self._decision,
            inconclusive=self._decision is None and self._expired(self.n),
            blocks=self.n, stopped_at=self._stopped_at, estimate=est,
        )
