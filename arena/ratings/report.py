"""Tournament report: ratings, bootstrap intervals, LOS, crosstable, luck.

Everything here is a pure function of ``list[BlockOutcome]`` plus a seed.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from . import bt, luck
from .data import DRAW_FLAGS, BlockOutcome, GameOutcome, TableBlock

#: What a bootstrap resamples: a duplicate block of two pairs, or a table's rotation block.
Block = BlockOutcome | TableBlock


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

    ``rho``: correlation of one partnership's results in the two games of a
    block, from within-pairing centred block totals and differences (see
    :mod:`arena.ratings.luck`): negative when the cards decide. ``factor`` =
    1/(1+rho): how many times more unpaired games would give the same
    precision. ``statistic`` says which result it is measured on ("score":
    game results, what the ratings use; "points": points differences, what
    ``arena sprt --points`` tests).
    """

    rho: float | None
    rho_ci: tuple[float, float] | None
    factor: float | None
    factor_ci: tuple[float | None, float | None] | None
    blocks: int
    statistic: str = "score"
    note: str | None = None
    rotations: int = 2  # games per block: 2 for a duplicate block, n for a table's rotation block


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
    luck_points: LuckSummary | None = None
    resample: str = "key"
    interval_note: str | None = None
    #: At a table of n seats (``tables.rate_tables``): seats, contests ("finish" or "deal"), their
    #: count and the maker's side's fitted advantage (rating and interval); None for two pairs.
    table: dict[str, Any] | None = None

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
        out: dict[str, Any] = clean(d)
        return out


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
    """Full-data fit plus refits on resamples (same order as ``bots``).

    ``multiplicities[r][i]`` is the weight of block i in resample r: how
    often it was drawn, times n/(n-1) for its stratum of n units (the
    rescaled bootstrap, see :func:`bootstrap_fits`).
    """

    bots: list[str]
    full: list[float]
    samples: list[list[float]]
    multiplicities: list[list[float]]
    failures: int
    resample: str = "key"
    terms: list[str] = field(default_factory=list)  # parameters after the bots' (the maker term)


#: Fewest distinct deal keys for resampling by key under ``resample="auto"`` (docs/ratings.md:
#: with 4 keys, key resampling covered 81% against 92% for blocks; with 20 keys 89% against 87%).
MIN_KEYS = 20


def resample_unit(blocks: Sequence[Block], resample: str) -> str:
    """The unit ``resample`` ("key", "pairing", "block" or "auto") resolves to for these blocks."""
    if resample not in ("key", "pairing", "block", "auto"):
        raise ValueError(f"resample must be 'key', 'pairing', 'block' or 'auto', got {resample!r}")
    if resample == "auto":
        return "key" if len({b.deal_key for b in blocks}) >= MIN_KEYS else "pairing"
    return resample


def resampling_units(blocks: Sequence[Block], resample: str) -> list[list[list[int]]]:
    """Strata of units of block indices: a resample draws, in every stratum
    of n units, n - 1 of them with replacement (see :func:`bootstrap_fits`).

    "key": one stratum, one unit per deal key (block i of every pairing);
    "pairing": one stratum per pairing (at tables: per table), one unit per
    block (the design's blocks per pairing are kept); "block": one stratum,
    one unit per block.
    """
    unit = resample_unit(blocks, resample)
    if unit == "block":
        return [[[i] for i in range(len(blocks))]]
    groups: dict[str, list[int]] = {}
    for i, blk in enumerate(blocks):
        groups.setdefault(blk.deal_key if unit == "key" else blk.group, []).append(i)
    if unit == "key":
        return [[groups[k] for k in sorted(groups)]]
    return [[[i] for i in groups[k]] for k in sorted(groups)]


def bootstrap_fits(
    blocks: Sequence[Block],
    *,
    anchor: tuple[str, float] | None = None,
    prior: bool = True,
    bootstrap: int = 1000,
    seed: int = 0,
    resample: str = "auto",
) -> BootstrapFits:
    """Fit all games, then refit ``bootstrap`` resamples.

    ``resample="key"`` draws whole deal keys with replacement (block i of
    every pairing together: they share their deals); ``"pairing"`` draws
    blocks within each pairing (stratified); ``"block"`` draws single blocks;
    ``"auto"`` (default) uses keys when there are at least ``MIN_KEYS`` of
    them, else pairings (a bootstrap over a handful of keys is too coarse:
    see docs/ratings.md). Draws come from ``random.Random(seed)``. Each refit works on
    per-matchup aggregated counts, warm-started from the full fit. Resamples
    whose fit fails (possible only with ``prior=False``) are counted in
    ``failures`` and left out.
    """
    games = [g for blk in blocks for g in blk.contests]
    design = bt.build_design(games)
    bots = design.bots
    full = bt.fit(design, anchor=anchor, prior=prior)
    pos = {key: m for m, key in enumerate(design.matchups)}
    index = {b: i for i, b in enumerate([*bots, *design.terms])}
    contrib: list[tuple[tuple[int, float], ...]] = []
    for blk in blocks:
        items = []
        for g in blk.contests:
            key, flipped = bt.matchup_key(g.side_a, g.side_b, g.maker_a)
            if key:
                m = pos[(tuple(index[b] for b, _ in key), tuple(c for _, c in key))]
                items.append((m, (1.0 - g.score_a) if flipped else g.score_a))
        contrib.append(tuple(items))
    strata = resampling_units(blocks, resample)
    rng = random.Random(seed)
    out = BootstrapFits(bots, full, [], [], 0, resample_unit(blocks, resample), list(design.terms))
    nb, nm = len(blocks), len(design.matchups)
    for _ in range(bootstrap if nb else 0):
        mult = [0.0] * nb
        for units in strata:
            n_u = len(units)
            k, w = (n_u - 1, n_u / (n_u - 1)) if n_u > 1 else (1, 1.0)
            for unit in rng.choices(units, k=k):
                for i in unit:
                    mult[i] += w
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


def luck_summary(blocks: Sequence[BlockOutcome], statistic: str = "score",
                 multiplicities: Sequence[Sequence[float]] = (), level: float = 0.95) -> LuckSummary | None:
    """rho and 1/(1+rho) of ``statistic`` with a bootstrap interval.

    None for "points" unless every block carries points differences.
    """
    per: list[tuple[tuple[str, str], tuple[float, float]] | None] = [luck.block_halves(b, statistic) for b in blocks]
    if statistic == "points" and (not per or any(x is None for x in per)):
        return None
    order: dict[tuple[str, str], int] = {}
    groups: list[list[tuple[float, float]]] = []
    where: list[tuple[int, int]] = []
    for item in per:
        assert item is not None
        g, h = item
        gi = order.setdefault(g, len(order))
        if gi == len(groups):
            groups.append([])
        where.append((gi, len(groups[gi])))
        groups[gi].append(h)
    gain = luck.pairing_gain({i: g for i, g in enumerate(groups)}, statistic)
    rho_samples: list[float] = []
    for mult in multiplicities:
        w: list[list[float]] = [[0.0] * len(g) for g in groups]
        for i, (gi, k) in enumerate(where):
            w[gi][k] = float(mult[i])
        ss_t, ss_d, df, _ = luck.sums_of_squares(groups, w)
        r = luck.rho_from_sums(ss_t, ss_d) if df >= luck.MIN_DF else None
        if r is not None:
            rho_samples.append(r)
    rho_ci = percentile_interval(rho_samples, level) if rho_samples and gain.rho is not None else None
    f_ci = (luck.factor_of(rho_ci[1]), luck.factor_of(rho_ci[0])) if rho_ci else None  # the map is decreasing
    return LuckSummary(gain.rho, rho_ci, gain.factor, f_ci, len(blocks), statistic, gain.note)


#: Games per bot below which the 95% intervals are flagged as rough (see docs/ratings.md).
FEW_GAMES = 100


def los_table(bots: Sequence[str], samples: Sequence[Sequence[float]]) -> dict[str, dict[str, float]]:
    """los[a][b]: the share of resamples rating a above b (within 1e-6: one half)."""
    los: dict[str, dict[str, float]] = {}
    if samples:
        for i, a in enumerate(bots):
            los[a] = {}
            for j, b in enumerate(bots):
                if i != j:
                    above = sum(1.0 if smp[i] > smp[j] + 1e-6 else 0.5 if abs(smp[i] - smp[j]) <= 1e-6 else 0.0
                                for smp in samples)
                    los[a][b] = above / len(samples)
    return los


def interval_note(summaries: Sequence[BotSummary], resampled: bool, level: float) -> str | None:
    """What the figures cannot carry, said beside them: intervals from few games are rough, and a bot
    that won or lost every game sits where the prior's virtual draw puts it (the games set no distance)."""
    notes = []
    if resampled and summaries:
        fewest = min(b.games for b in summaries)
        if fewest < FEW_GAMES:
            notes.append(f"intervals from as few as {fewest} games per bot are rough: in simulated tournaments of "
                         f"this size they cover the truth less often than {round(100 * level)}% (docs/ratings.md)")
    for b in summaries:
        if b.games and b.score in (0, b.games):
            how = "lost" if b.score == 0 else "won"
            side = "below" if b.score == 0 else "above"
            notes.append(f"{b.bot} {how} all its {b.games} games: how far {side} the others it is comes from the "
                         f"prior's virtual draw, not from the games, so its rating is a bound, not a measurement")
    return "; ".join(notes) or None


def rate_pairs(
    blocks: Sequence[BlockOutcome],
    *,
    anchor: tuple[str, float] | None = None,
    prior: bool = True,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    resample: str = "auto",
) -> RatingReport:
    """Rate every bot from all games of the two-pair duplicate ``blocks``.

    Ratings: batch Bradley-Terry fit (see :mod:`arena.ratings.bt`).
    Intervals, LOS and the rho interval come from ``bootstrap`` resamples
    (``resample``: whole deal keys, single blocks, or "auto") drawn with
    ``random.Random(seed)``; ``bootstrap=0`` skips them.
    """
    pairs = list(blocks)
    games = [g for blk in pairs for g in blk.games]
    bf = bootstrap_fits(pairs, anchor=anchor, prior=prior, bootstrap=bootstrap, seed=seed, resample=resample)
    bots, full, samples = bf.bots, bf.full, bf.samples
    nb = len(pairs)

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
    summaries.sort(key=lambda x: (-x.rating, x.bot))

    los = los_table(bots, samples)
    luck_score = luck_summary(pairs, "score", bf.multiplicities, level)
    assert luck_score is not None
    luck_pts = luck_summary(pairs, "points", bf.multiplicities, level)

    note = interval_note(summaries, bool(samples), level)

    flags = Counter(g.flag for g in games if g.flag is not None)
    if anchor is not None:
        anchor_desc = f"{anchor[0]} fixed at {anchor[1]:g}"
    else:
        anchor_desc = "mean of all bots fixed at 0"
    return RatingReport(
        bots=summaries, los=los, crosstable=crosstable(pairs), luck=luck_score,
        anchor=anchor_desc, prior=prior, bootstrap=bootstrap, bootstrap_failures=bf.failures,
        seed=seed, games=len(games), blocks=nb,
        flags={f: flags.get(f, 0) for f in sorted(DRAW_FLAGS | set(flags))},
        luck_points=luck_pts, resample=bf.resample, interval_note=note,
    )
