"""Tournament report: ratings, bootstrap intervals, LOS, crosstable, luck.

Everything here is a pure function of ``list[BlockOutcome]`` plus a seed.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from . import bt
from .data import DRAW_FLAGS, BlockOutcome, GameOutcome


@dataclass
class BotSummary:
    """One bot's line in the table.

    ``score`` is the bot's points (1 per win, 1/2 per draw) summed over its
    games; a game where the bot sits on both sides counts as a draw for it.
    """

    bot: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    games: int
    score: float
    wins: int
    draws: int
    losses: int
    forfeits: int
    faults: dict[str, int] = field(default_factory=dict)

    @property
    def score_pct(self) -> float:
        return self.score / self.games if self.games else float("nan")


@dataclass
class CrossEntry:
    """Head-to-head of two partnerships, from ``first``'s point of view."""

    first: str
    second: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float


@dataclass
class LuckSummary:
    """How much the cards decide, and what the duplicate design buys.

    ``rho``: Pearson correlation over blocks between one partnership's
    results in the two games of a block (score minus fitted expectation, see
    ``same_cards_residuals``): negative when the cards decide. ``factor`` =
    1/(1+rho) is how many times more unpaired games would give the same
    precision as the paired design.
    """

    rho: float | None
    rho_ci: tuple[float, float] | None
    factor: float | None
    factor_ci: tuple[float | None, float | None] | None
    blocks: int


@dataclass
class RatingReport:
    bots: list[BotSummary]
    los: dict[str, dict[str, float]]
    crosstable: list[CrossEntry]
    luck: LuckSummary
    anchor: str
    prior: bool
    bootstrap: int
    bootstrap_failures: int
    seed: int
    games: int
    blocks: int
    flags: dict[str, int]

    def rating(self, bot: str) -> float:
        for b in self.bots:
            if b.bot == bot:
                return b.rating
        raise KeyError(bot)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (tuples become lists, inf becomes None)."""

        def clean(x: Any) -> Any:
            if isinstance(x, float) and not math.isfinite(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, (list, tuple)):
                return [clean(v) for v in x]
            return x

        d = asdict(self)
        for row, b in zip(d["bots"], self.bots):
            row["score_pct"] = b.score_pct
        return clean(d)


# ---------------------------------------------------------------- helpers


def partnership_label(side: Sequence[str]) -> str:
    """"X" for a self-partnership, "X+Y" (sorted) for a mixed one."""
    a, b = sorted(side)
    return a if a == b else f"{a}+{b}"


def quantile(sorted_vals: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of an already sorted sequence."""
    n = len(sorted_vals)
    if n == 0:
        return float("nan")
    pos = q * (n - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    return sorted_vals[lo] * (1.0 - frac) + sorted_vals[hi] * frac


def percentile_interval(vals: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    s = sorted(v for v in vals if not math.isnan(v))
    if not s:
        return None
    a = (1.0 - level) / 2.0
    return quantile(s, a), quantile(s, 1.0 - a)


def _weighted_pearson(x: Sequence[float], y: Sequence[float],
                     w: Sequence[int] | None = None) -> float | None:
    """Pearson correlation with integer multiplicities (bootstrap weights)."""
    w = w if w is not None else [1] * len(x)
    n = sum(w)
    if n < 3:
        return None
    mx = sum(k * a for k, a in zip(w, x)) / n
    my = sum(k * b for k, b in zip(w, y)) / n
    sxx = syy = sxy = 0.0
    for k, a, b in zip(w, x, y):
        if k:
            da, db = a - mx, b - my
            sxx += k * da * da
            syy += k * db * db
            sxy += k * da * db
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sxy / math.sqrt(sxx * syy)


def _expected_a(g: GameOutcome, r: dict[str, float]) -> float:
    d = (r[g.side_a[0]] + r[g.side_a[1]] - r[g.side_b[0]] - r[g.side_b[1]]) / 2.0
    return 1.0 / (1.0 + 10.0 ** (-d / 400.0))


def same_cards_residuals(blocks: Sequence[BlockOutcome],
                         ratings: dict[str, float]) -> tuple[list[float], list[float]]:
    """Residuals e1 = x1 - E[x1], e2 = x2 - E[x2] under the fitted ratings.

    x1 is side A's score in game 1 and x2 side A's score in game 2: the two
    partnerships that held the same cards.  Subtracting the model expectation
    removes the strength difference of the partnerships, which would
    otherwise show up as a spurious negative correlation.
    """
    e1, e2 = [], []
    for blk in blocks:
        g1, g2 = blk.games
        e1.append(g1.score_a - _expected_a(g1, ratings))
        e2.append(g2.score_a - _expected_a(g2, ratings))
    return e1, e2


def luck_factor(rho: float | None) -> float | None:
    """Unpaired/paired variance ratio 1/(1+rho) (inf when rho == -1)."""
    if rho is None:
        return None
    return math.inf if rho <= -1.0 else 1.0 / (1.0 + rho)


def _halves_correlation(e1: Sequence[float], e2: Sequence[float], weights: Sequence[int] | None = None) -> float | None:
    """Correlation of one partnership's residuals in the two halves: P's game-2
    result is one minus Q's, so it is minus the same-cards correlation."""
    r = _weighted_pearson(e1, e2, weights) if weights is not None else _weighted_pearson(e1, e2)
    return None if r is None else -r


def luck_correlation(blocks: Sequence[BlockOutcome], ratings: dict[str, float]) -> float | None:
    """rho of the tournament (see :class:`LuckSummary` and docs/ratings.md)."""
    e1, e2 = same_cards_residuals(blocks, ratings)
    return _halves_correlation(e1, e2)


def crosstable(blocks: Sequence[BlockOutcome]) -> list[CrossEntry]:
    """Per pair of partnerships (sorted labels), from the first's view."""
    table: dict[tuple[str, str], list[float]] = {}
    for blk in blocks:
        for g in blk.games:
            la, lb = partnership_label(g.side_a), partnership_label(g.side_b)
            s = g.score_a
            if lb < la:
                la, lb, s = lb, la, 1.0 - s
            row = table.setdefault((la, lb), [0, 0, 0, 0, 0.0])
            row[0] += 1
            row[1 if s == 1.0 else 2 if s == 0.5 else 3] += 1
            row[4] += s
    return [CrossEntry(a, b, int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4])
            for (a, b), r in sorted(table.items())]


def _bot_stats(games: Sequence[GameOutcome], bots: Sequence[str]) -> dict[str, dict[str, Any]]:
    st: dict[str, dict[str, Any]] = {b: {"games": 0, "score": 0.0, "wins": 0, "draws": 0, "losses": 0,
              "forfeits": 0, "faults": Counter()} for b in bots}
    for g in games:
        seats = [(b, g.score_a) for b in g.side_a] + [(b, 1.0 - g.score_a) for b in g.side_b]
        per: dict[str, list[float]] = {}
        for b, s in seats:
            per.setdefault(b, []).append(s)
        for b, ss in per.items():
            s = sum(ss) / len(ss)
            d = st[b]
            d["games"] += 1
            d["score"] += s
            d["wins" if s == 1.0 else "losses" if s == 0.0 else "draws"] += 1
        if g.forfeit_by is not None:
            st[g.forfeit_by]["forfeits"] += 1
        for b, kind in g.faults:
            if b in st:
                st[b]["faults"][kind] += 1
    return st


# ---------------------------------------------------------------- main entry


@dataclass
class BootstrapFits:
    """Full-data fit plus refits on block resamples (same order as ``bots``)."""

    bots: list[str]
    full: list[float]
    samples: list[list[float]]
    multiplicities: list[list[int]]
    failures: int


def bootstrap_fits(
    blocks: Sequence[BlockOutcome],
    *,
    anchor: tuple[str, float] | None = None,
    prior: bool = True,
    bootstrap: int = 1000,
    seed: int = 0,
) -> BootstrapFits:
    """Fit all games, then refit ``bootstrap`` resamples of whole blocks.

    Blocks are drawn with replacement by ``random.Random(seed)``.  Each refit
    works on per-matchup aggregated counts and is warm-started from the
    full-data fit, so a refit costs a couple of Newton steps.  Resamples whose
    fit fails (possible only with ``prior=False``) are counted in ``failures``
    and left out.
    """
    games = [g for blk in blocks for g in blk.games]
    design = bt.build_design(games)
    bots = design.bots
    full = bt.fit(design, anchor=anchor, prior=prior)
    pos = {key: m for m, key in enumerate(design.matchups)}
    index = {b: i for i, b in enumerate(bots)}
    contrib: list[tuple[tuple[int, float], ...]] = []
    for blk in blocks:
        items = []
        for g in blk.games:
            key, flipped = bt.matchup_key(g.side_a, g.side_b)
            if key:
                m = pos[(tuple(index[b] for b, _ in key), tuple(c for _, c in key))]
                items.append((m, (1.0 - g.score_a) if flipped else g.score_a))
        contrib.append(tuple(items))
    rng = random.Random(seed)
    out = BootstrapFits(bots, full, [], [], 0)
    nb, nm = len(blocks), len(design.matchups)
    for _ in range(bootstrap if nb else 0):
        mult = [0] * nb
        for i in rng.choices(range(nb), k=nb):
            mult[i] += 1
        n = [0.0] * nm
        s = [0.0] * nm
        for i, c in enumerate(mult):
            if c:
                for m, sc in contrib[i]:
                    n[m] += c
                    s[m] += c * sc
        try:
            smp = bt.fit(design, anchor=anchor, prior=prior, games=n, scores=s, start=full)
        except bt.RatingFitError:
            out.failures += 1
            continue
        out.samples.append(smp)
        out.multiplicities.append(mult)
    return out


def rate(
    blocks: Sequence[BlockOutcome],
    *,
    anchor: tuple[str, float] | None = None,
    prior: bool = True,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> RatingReport:
    """Rate every bot from all games of ``blocks``.

    Ratings: batch Bradley-Terry fit (see :mod:`arena.ratings.bt`).
    Intervals, LOS and the rho interval come from ``bootstrap`` resamples of
    whole blocks drawn with ``random.Random(seed)``; ``bootstrap=0`` skips them.
    """
    blocks = list(blocks)
    games = [g for blk in blocks for g in blk.games]
    bf = bootstrap_fits(blocks, anchor=anchor, prior=prior, bootstrap=bootstrap, seed=seed)
    bots, full, samples = bf.bots, bf.full, bf.samples
    nb = len(blocks)
    rho = luck_correlation(blocks, dict(zip(bots, full)))
    rho_samples: list[float] = []
    for smp, mult in zip(samples, bf.multiplicities):
        e1, e2 = same_cards_residuals(blocks, dict(zip(bots, smp)))
        rr = _halves_correlation(e1, e2, mult)
        if rr is not None:
            rho_samples.append(rr)

    stats = _bot_stats(games, bots)
    summaries = []
    for i, b in enumerate(bots):
        ci = percentile_interval([smp[i] for smp in samples], level) if samples else None
        d = stats[b]
        summaries.append(BotSummary(
            bot=b, rating=full[i], ci_low=ci[0] if ci else None, ci_high=ci[1] if ci else None,
            games=d["games"], score=d["score"], wins=d["wins"], draws=d["draws"],
            losses=d["losses"], forfeits=d["forfeits"], faults=dict(sorted(d["faults"].items())),
        ))
    summaries.sort(key=lambda x: -x.rating)

    los: dict[str, dict[str, float]] = {}
    if samples:
        for i, a in enumerate(bots):
            los[a] = {}
            for j, b in enumerate(bots):
                if i != j:
                    above = sum(1.0 if smp[i] > smp[j] else 0.5 if smp[i] == smp[j] else 0.0
                                for smp in samples)
                    los[a][b] = above / len(samples)

    rho_ci = percentile_interval(rho_samples, level) if rho_samples else None
    f_ci = (luck_factor(rho_ci[1]), luck_factor(rho_ci[0])) if rho_ci else None  # the map is decreasing
    luck = LuckSummary(rho, rho_ci, luck_factor(rho), f_ci, nb)

    flags = Counter(g.flag for g in games if g.flag is not None)
    if anchor is not None:
        anchor_desc = f"{anchor[0]} fixed at {anchor[1]:g}"
    else:
        anchor_desc = "mean of all bots fixed at 0"
    return RatingReport(
        bots=summaries, los=los, crosstable=crosstable(blocks), luck=luck,
        anchor=anchor_desc, prior=prior, bootstrap=bootstrap, bootstrap_failures=bf.failures,
        seed=seed, games=len(games), blocks=nb,
        flags={f: flags.get(f, 0) for f in sorted(DRAW_FLAGS | set(flags))},
    )
