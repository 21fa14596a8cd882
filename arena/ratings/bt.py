"""Batch Bradley-Terry fit on the Elo scale with mean-of-members sides.

Model: a side's strength is the mean of its bots' ratings (a partnership of
two at a four-seat table, a seat alone at cut-throat, the maker and its
called partner against the other three at five-hand) and
P(A beats B) = 1 / (1 + 10 ** (-(mean(r_A) - mean(r_B) + h) / 400)), where
h is the maker's side's advantage, fitted only when some contest is marked
as one between the maker's side and the rest (``GameOutcome.maker_a``) and
0 otherwise.  Draws are
half a win, so the log-likelihood of a game with score s is
s*log(p) + (1-s)*log(1-p).  The fit maximises the sum over all games with
Newton's method (the log-likelihood is concave in the ratings) plus a line
search, so it converges from any start.  The optional prior is a set of
virtual draws between every pair of bots: it depends on rating differences
only, so the anchor is a pure offset.

Games are first aggregated into *matchups*: the vector of rating coefficients
(+1/|A| per seat on the first side, -1/|B| per seat on the other, +1 for the
maker term when side A is the maker's) together with
the number of games and the first side's total score.  The likelihood depends
only on these sums, which is what makes bootstrap refits cheap.
"""

from __future__ import annotations

import math
from operator import mul
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .data import GameOutcome

#: d(ln odds)/d(Elo): ratings are on the base-10, 400-point logistic scale.
C = math.log(10.0) / 400.0
#: The parameter of the maker's side's advantage (Elo), after the bots in a design that has it.
MAKER_TERM = "@maker"


class RatingFitError(ValueError):
    """The maximum-likelihood ratings do not exist or are not identified."""


Matchup = tuple[tuple[int, ...], tuple[float, ...]]


def matchup_key(side_a: Sequence[str], side_b: Sequence[str],
                maker_a: bool = False) -> tuple[tuple[tuple[str, float], ...], bool]:
    """Canonical coefficient vector of a game and whether side A was negated.

    Returns ``(key, flipped)``.  ``key`` is a sorted tuple of (bot, coef) with
    the first coefficient positive; ``flipped`` says the key is seen from side
    B, so the score must be taken as 1 - score_a.  An empty key means the game
    carries no rating information (the same bots on both sides).  ``maker_a``
    adds the maker term (coefficient 1) for side A; a contest whose sides hold
    the same bots then still measures the advantage.
    """
    coef: dict[str, float] = {}
    for b in side_a:
        coef[b] = coef.get(b, 0.0) + 1.0 / len(side_a)
    for b in side_b:
        coef[b] = coef.get(b, 0.0) - 1.0 / len(side_b)
    if maker_a:
        coef[MAKER_TERM] = 1.0
    items = tuple(sorted((b, c) for b, c in coef.items() if abs(c) > 1e-12))
    if items and items[0][1] < 0:
        return tuple((b, -c) for b, c in items), True
    return items, False


@dataclass
class Design:
    """Bots and aggregated matchups; counts live in parallel lists.

    The parameters are the bots' ratings, then ``terms`` (the maker term
    when some game has one): neither held to the mean nor in the prior.
    """

    bots: list[str]
    matchups: list[Matchup]
    games: list[float]
    scores: list[float]
    terms: list[str] = field(default_factory=list)

    @property
    def params(self) -> int:
        return len(self.bots) + len(self.terms)


def build_design(games: Iterable[GameOutcome], bots: Sequence[str] | None = None) -> Design:
    """Aggregate games into matchups (first-side score totals)."""
    games = list(games)
    if bots is None:
        seen: set[str] = set()
        for g in games:
            seen.update(g.side_a)
            seen.update(g.side_b)
        bots = sorted(seen)
    terms = [MAKER_TERM] if any(g.maker_a for g in games) else []
    index = {b: i for i, b in enumerate([*bots, *terms])}
    pos: dict[tuple[tuple[str, float], ...], int] = {}
    design = Design(list(bots), [], [], [], terms)
    keys: dict[tuple[tuple[str, ...], tuple[str, ...], bool], tuple[tuple[tuple[str, float], ...], bool]] = {}
    for g in games:
        sides = (g.side_a, g.side_b, g.maker_a)  # a store repeats few sides: each one's key made once
        kf = keys.get(sides)
        if kf is None:
            kf = keys[sides] = matchup_key(*sides)
        key, flipped = kf
        if not key:
            continue
        m = pos.get(key)
        if m is None:
            m = pos[key] = len(design.matchups)
            design.matchups.append((tuple(index[b] for b, _ in key), tuple(c for _, c in key)))
            design.games.append(0.0)
            design.scores.append(0.0)
        design.games[m] += 1.0
        design.scores[m] += (1.0 - g.score_a) if flipped else g.score_a
    return design


def _log_sigmoid(x: float) -> float:
    """log(1/(1+exp(-x))) without overflow."""
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def cholesky_solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` for a symmetric positive definite ``a`` (Cholesky, rows of L grown in place: about
    half the work of an elimination with pivoting, which a definite matrix does not need). A pivot that is
    not clearly positive means the ratings are not identified."""
    n = len(b)
    scale = max((a[i][i] for i in range(n)), default=0.0) or 1.0
    low: list[list[float]] = []  # row i of L: its i + 1 entries
    for i in range(n):
        ai = a[i]
        li: list[float] = []
        for j in range(i):
            lj = low[j]
            li.append((ai[j] - sum(map(mul, li, lj))) / lj[j])  # map stops at len(li) == j
        d = ai[i] - sum(map(mul, li, li))
        if d <= 1e-13 * scale:
            raise RatingFitError(
                "ratings are not identified: the bots do not form one connected "
                "comparison graph (enable the prior or add games)"
            )
        li.append(math.sqrt(d))
        low.append(li)
    y: list[float] = []
    for i in range(n):
        li = low[i]
        y.append((b[i] - sum(map(mul, li, y))) / li[i])
    x = [0.0] * n
    for i in range(n - 1, -1, -1):  # L^T x = y, column by column
        li = low[i]
        xi = x[i] = y[i] / li[i]
        if xi:
            y[:i] = [yk - lk * xi for yk, lk in zip(y, li)]
    return x


Row = tuple[tuple[int, ...], tuple[float, ...], float, float]
#: a row of two bots with coefficients +1 and -1 (all a ladder of pairs has): (i, j, games, score of i)
Pair = tuple[int, int, float, float]


def prior_rows(k: int) -> list[Row]:
    """The symmetric prior as virtual games: (indices, coefficients, games, score).

    Each bot gets one virtual draw in total, split evenly over the other
    k - 1 bots (a draw of weight 1/(k-1) between every pair). It depends on
    rating differences only, so the anchor stays a pure offset and bots with
    identical records get identical ratings.
    """
    if k < 2:
        return []
    w = 1.0 / (k - 1)
    return [((i, j), (1.0, -1.0), w, 0.5 * w) for i in range(k) for j in range(i + 1, k)]


def _rows(design: Design, prior: bool, games: Sequence[float], scores: Sequence[float]) -> list[Row]:
    # the prior's virtual draws are between bots, plus one for each term (the maker's side drawing with the
    # rest at equal strength: it keeps a maker's side that won or lost every contest finite, as the bots')
    rows = [(idx, cf, n, s) for (idx, cf), n, s in zip(design.matchups, games, scores) if n > 0.0]
    if not prior:
        return rows
    k = len(design.bots)
    return rows + prior_rows(k) + [((k + t,), (1.0, ), 1.0, 0.5) for t in range(len(design.terms))]


def _split(rows: Sequence[Row]) -> tuple[list[Pair], list[Row]]:
    """The rows of two parameters with coefficients +1 and -1, merged per pair (the likelihood is linear in
    a row's games and score, so a pairing's games and the prior's virtual draw between the same two bots are
    one row), and the rest as they are."""
    pairs: dict[tuple[int, int], list[float]] = {}
    rest: list[Row] = []
    for idx, cf, n, s in rows:
        if len(idx) == 2 and cf[0] == 1.0 and cf[1] == -1.0:
            i, j = idx
            if i > j:
                i, j, s = j, i, n - s
            acc = pairs.get((i, j))
            if acc is None:
                pairs[(i, j)] = [n, s]
            else:
                acc[0] += n
                acc[1] += s
        else:
            rest.append((idx, cf, n, s))
    return [(i, j, n, s) for (i, j), (n, s) in pairs.items()], rest


def log_likelihood(design: Design, r: Sequence[float], prior: bool,
                   games: Sequence[float] | None = None, scores: Sequence[float] | None = None) -> float:
    """Log-likelihood (natural log) of ratings ``r`` incl. the virtual draws."""
    rows = _rows(design, prior, design.games if games is None else games,
                 design.scores if scores is None else scores)
    return _ll(*_split(rows), r)


def _ll(pairs: Sequence[Pair], rest: Sequence[Row], r: Sequence[float]) -> float:
    ll = 0.0
    exp, log1p = math.exp, math.log1p
    for i, j, n, s in pairs:
        x = C * (r[i] - r[j])
        # _log_sigmoid(x) and _log_sigmoid(-x), which share log1p(exp(-|x|)): the same values, one exp
        lg = log1p(exp(-abs(x)))
        if x >= 0:
            ll += s * -lg + (n - s) * (-x - lg)
        else:
            ll += s * (x - lg) + (n - s) * -lg
    for idx, cf, n, s in rest:
        x = C * sum(c * r[i] for i, c in zip(idx, cf))
        lg = math.log1p(math.exp(-abs(x)))
        if x >= 0:
            ll += s * -lg + (n - s) * (-x - lg)
        else:
            ll += s * (x - lg) + (n - s) * -lg
    return ll


def fit(
    design: Design,
    *,
    anchor: tuple[str, float] | None = None,
    prior: bool = True,
    games: Sequence[float] | None = None,
    scores: Sequence[float] | None = None,
    start: Sequence[float] | None = None,
    tol: float = 1e-7,
    max_iter: int = 200,
) -> list[float]:
    """Maximum-likelihood ratings (Elo units), one per ``design.bots`` entry, then one per
    ``design.terms`` entry (the maker's side's advantage).

    The fit holds the mean rating at 0; ``anchor=(bot, value)`` then shifts
    every rating by the same amount so that bot reads ``value`` (a pure
    offset: differences never depend on the anchor). With ``prior`` the
    symmetric virtual draws of :func:`prior_rows` keep perfect scores and
    disconnected groups finite. ``games``/``scores`` override the design's
    counts (bootstrap resamples); ``start`` is a warm start. Raises
    :class:`RatingFitError` when the optimum is at infinity (perfect scores
    without prior) or the ratings are not identified.
    """
    games = design.games if games is None else games
    scores = design.scores if scores is None else scores
    nb = len(design.bots)
    k = design.params
    if nb == 0:
        return [0.0] * k
    fixed = -1
    if anchor is not None:
        try:
            fixed = design.bots.index(anchor[0])
        except ValueError:
            raise RatingFitError(f"anchor bot {anchor[0]!r} played no games") from None
    r = list(start) if start is not None else [0.0] * k
    mean = sum(r[:nb]) / nb
    r = [x - mean for x in r[:nb]] + r[nb:]
    pairs, rest = _split(_rows(design, prior, games, scores))
    ll = _ll(pairs, rest, r)
    cc, exp = C * C, math.exp
    for _ in range(max_iter):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]  # minus the Hessian; its lower triangle is what is solved
        for i, j, n, s in pairs:  # i < j: the row's terms at (i, i), (j, j) and (j, i)
            x = C * (r[i] - r[j])
            if x >= 0:  # _sigmoid(x), written out
                p = 1.0 / (1.0 + exp(-x))
            else:
                e = exp(x)
                p = e / (1.0 + e)
            g = C * (s - n * p)
            w = cc * n * p * (1.0 - p)
            grad[i] += g
            grad[j] -= g
            hess[i][i] += w
            hj = hess[j]
            hj[j] += w
            hj[i] -= w
        for idx, cf, n, s in rest:
            x = 0.0
            for i, c in zip(idx, cf):
                x += c * r[i]
            p = _sigmoid(C * x)
            g = C * (s - n * p)
            w = cc * n * p * (1.0 - p)
            for a_pos, i in enumerate(idx):
                ci = cf[a_pos]
                grad[i] += ci * g
                hrow = hess[i]
                wc = w * ci
                for j, cj in zip(idx, cf):
                    hrow[j] += wc * cj
        # The likelihood depends on the bots' rating differences only: the Newton step with the first bot
        # held still, then moved to the surface mean(bot ratings) = 0 (the terms are free).
        sol = cholesky_solve([row[1:] for row in hess[1:]], grad[1:])
        shift = sum(sol[:nb - 1]) / nb
        step = [-shift] + [x - shift for x in sol[:nb - 1]] + sol[nb - 1:]
        # Backtracking line search keeps the (concave) likelihood increasing.
        t = 1.0
        while True:
            cand = [ri + t * si for ri, si in zip(r, step)]
            ll_new = _ll(pairs, rest, cand)
            if ll_new >= ll - 1e-12 * (1.0 + abs(ll)) or t < 1e-8:
                break
            t *= 0.5
        r, ll = cand, ll_new
        move = max(abs(t * si) for si in step)
        if max(abs(x) for x in r) > 1e5:
            raise RatingFitError(
                "ratings diverge: some bot or group has a perfect score, so the "
                "maximum-likelihood rating is infinite (fit with prior=True)"
            )
        if move < tol:
            if fixed >= 0:
                assert anchor is not None
                shift = anchor[1] - r[fixed]
                r = [x + shift for x in r[:nb]] + r[nb:]
                r[fixed] = anchor[1]
            return r
    raise RatingFitError("Bradley-Terry fit did not converge (perfect scores without prior?)")
