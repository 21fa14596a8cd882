"""Tournament report: ratings, bootstrap intervals, LOS, crosstable, luck.

Everything here is a pure function of ``list[BlockOutcome]`` plus a seed.
"""

from __future__ import annotations

import hashlib
import math
import random
from array import array
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, Iterable, Sequence

from .._json import JsonObject
from . import bt, luck
from .data import DRAW_FLAGS, BlockOutcome, GameOutcome, TableBlock
from .memo import ResampleMemo
from .tdist import t_cdf, t_quantile

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
    #: Degrees of freedom of the resamples behind the interval (None without a bootstrap), and why the
    #: interval (and every LOS of the bot) is withheld, if it is: ``TOO_FEW_BLOCKS``.
    df: int | None = None
    withheld: str | None = None

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


@dataclass(frozen=True)
class MakerFit:
    """The maker's side's fitted advantage at a called-partner table (Elo), its interval, or why withheld."""

    rating: float
    ci_low: float | None
    ci_high: float | None
    df: int | None
    withheld: str | None


@dataclass(frozen=True)
class TableFit:
    """What a fit of tables of n seats adds: the seats, what a contest is ("finish" or "deal"), how many
    contests were fitted, and the maker's side's advantage (None without a fitted maker term)."""

    seats: int
    contests: str
    contest_count: int
    maker_advantage: MakerFit | None


@dataclass
class RatingReport:
    bots: list[BotSummary]
    #: los[a][b]: how likely a is the stronger (``los_table``); None where withheld (too few blocks).
    los: dict[str, dict[str, float | None]]
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
    table: TableFit | None = None

    def rating(self, bot: str) -> float:
        for b in self.bots:
            if b.bot == bot:
                return b.rating
        raise KeyError(bot)

    def to_dict(self) -> JsonObject:
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
        out: JsonObject = clean(d)
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
    """The percentile interval of ``vals`` (kept for comparison: the report's intervals are
    ``centred_interval``s, which percentile intervals of few blocks are not: they can miss their estimate)."""
    s = sorted(v for v in vals if not math.isnan(v))
    if not s:
        return None
    a = (1.0 - level) / 2.0
    return quantile(s, a), quantile(s, 1.0 - a)


#: Fewest degrees of freedom a bootstrap SD needs for an interval or a LOS to be reported
#: (docs/ratings.md, *Intervals*: measured by ``arena bench ratings``).
MIN_DF = 3
#: What a withheld interval or LOS says instead.
TOO_FEW_BLOCKS = "too few blocks"


def sd(vals: Sequence[float]) -> float:
    """The standard deviation of ``vals`` about their mean (n - 1 in the denominator; 0 for fewer than 2)."""
    n = len(vals)
    if n < 2:
        return 0.0
    m = sum(vals) / n
    return math.sqrt(max(0.0, sum((v - m) ** 2 for v in vals) / (n - 1)))


def centred_interval(estimate: float, vals: Sequence[float], df: float, level: float = 0.95,
                     bounds: tuple[float, float] = (-math.inf, math.inf)) -> tuple[float, float] | None:
    """``estimate`` +- t(df) times the resamples' SD, cut to ``bounds`` (a correlation's range): an
    interval that always holds its estimate, as wide as the resamples' degrees of freedom say it must
    be. None where the sample cannot carry one: no resamples, or fewer than ``MIN_DF`` degrees of freedom."""
    vals = [v for v in vals if not math.isnan(v)]
    if not vals or df < MIN_DF:
        return None
    half = t_quantile(0.5 + level / 2.0, df) * sd(vals)
    return max(bounds[0], estimate - half), min(bounds[1], estimate + half)


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


@dataclass
class BotTally:
    """One bot's counts over its games, as its leaderboard row shows them (two pairs and tables count
    into the same tally: ``add`` each game's result)."""

    games: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    def add(self, score: float, result: str) -> None:
        """One game: the bot's score in it and whether it was a win, a draw or a loss."""
        self.games += 1
        self.score += score
        if result == "win":
            self.wins += 1
        elif result == "draw":
            self.draws += 1
        else:
            self.losses += 1


def _bot_stats(games: Sequence[GameOutcome], bots: Sequence[str]) -> dict[str, BotTally]:
    st = {b: BotTally() for b in bots}
    for g in games:
        seats = [(b, g.score_a) for b in g.side_a] + [(b, 1.0 - g.score_a) for b in g.side_b]
        per: dict[str, list[float]] = {}
        for b, s in seats:
            per.setdefault(b, []).append(s)
        for b, ss in per.items():
            s = sum(ss) / len(ss)
            st[b].add(s, "win" if s == 1.0 else "loss" if s == 0.0 else "draw")
        if g.forfeit_by is not None:
            st[g.forfeit_by].forfeits += 1
        for b, kind in g.faults:
            if b in st:
                st[b].faults[kind] += 1
    return st


# ---------------------------------------------------------------- main entry


@dataclass
class Draws:
    """What the resamples drew: ``weights[r][u]``, the weight of unit u in resample r (how often it was
    drawn, times n/(n-1) for its stratum of n units: the rescaled bootstrap, see :func:`bootstrap_fits`),
    and ``unit_of[i]``, block i's unit."""

    weights: list[list[float]] = field(default_factory=list)
    unit_of: list[int] = field(default_factory=list)

    @classmethod
    def per_block(cls, multiplicities: Sequence[Sequence[float]]) -> "Draws":
        """Each block its own unit, weighed as given."""
        return cls([list(m) for m in multiplicities], list(range(len(multiplicities[0]))) if multiplicities else [])

    def multiplicities(self) -> list[list[float]]:
        """``[r][i]``: the weight of block i in resample r."""
        return [[w[u] for u in self.unit_of] for w in self.weights]

    def columns(self) -> list[list[float]]:
        """``[u][r]``: unit u's weight in each resample."""
        return [list(col) for col in zip(*self.weights)] if self.weights else []

    def digest(self) -> str:
        """What a memo's sums depend on of the draws."""
        flat = array("d", (x for w in self.weights for x in w))
        return hashlib.blake2b(flat.tobytes() + repr(len(self.weights)).encode(), digest_size=16).hexdigest()


@dataclass
class BootstrapFits:
    """Full-data fit plus refits on resamples (same order as ``bots``); ``draws``: what each kept resample
    drew (``multiplicities``: per resample, each block's weight)."""

    bots: list[str]
    full: list[float]
    samples: list[list[float]]
    draws: Draws
    failures: int
    resample: str = "key"
    terms: list[str] = field(default_factory=list)  # parameters after the bots' (the maker term)
    #: Per parameter (bots, then terms): the degrees of freedom of its resamples (``parameter_df``).
    df: list[int] = field(default_factory=list)
    #: Per parameter: the parameters whose records are exchangeable with it, itself included (``exchangeable``).
    orbits: list[tuple[int, ...]] = field(default_factory=list)
    #: Degrees of freedom of the whole resampling (every unit): the luck figures'.
    total_df: int = 0

    @property
    def multiplicities(self) -> list[list[float]]:
        return self.draws.multiplicities()


def resample_unit(blocks: Sequence[Block], resample: str) -> str:
    """The unit ``resample`` ("key", "pairing", "block" or "auto") resolves to for these blocks.

    "auto" is "key": whole deal keys are what is independent (block i of every pairing or table shares
    its deals), and with intervals on the resamples' degrees of freedom a few keys give wide intervals,
    or none ("too few blocks"), rather than short ones (docs/ratings.md: at tables the per-table
    bootstrap covered 89-92 % at 2-4 blocks, the key bootstrap 94 %)."""
    if resample not in ("key", "pairing", "block", "auto"):
        raise ValueError(f"resample must be 'key', 'pairing', 'block' or 'auto', got {resample!r}")
    return "key" if resample == "auto" else resample


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


def parameter_df(strata: Sequence[Sequence[Sequence[int]]], informs: Sequence[bool]) -> int:
    """Degrees of freedom of a resampled statistic that only the blocks with ``informs[i]`` move:
    per stratum of n units of which m hold such a block, min(m, n - 1) (a stratum of n units has n - 1,
    and units that never move the statistic add none), summed over the strata. Rescaled draws of a
    stratum of one unit always repeat it: 0."""
    total = 0
    for units in strata:
        m = sum(1 for u in units if any(informs[i] for i in u))
        total += min(m, len(units) - 1)
    return total


def _units_df(sizes: Sequence[int], stratum_of: Sequence[int], units: Iterable[int]) -> int:
    """``parameter_df`` from the units (numbered over the strata) that hold an informing block."""
    m = [0] * len(sizes)
    for u in units:
        m[stratum_of[u]] += 1
    return sum(min(k, n - 1) for k, n in zip(m, sizes))


def _contest_key(g: GameOutcome, rename: dict[str, str]) -> tuple[object, float]:
    key, flipped = bt.matchup_key([rename.get(b, b) for b in g.side_a], [rename.get(b, b) for b in g.side_b], g.maker_a)
    return key, (1.0 - g.score_a) if flipped else g.score_a


def _structure(blocks: Sequence[Block], strata: Sequence[Sequence[Sequence[int]]], rename: dict[str, str]) -> object:
    """What a resampling sees of the data, as a canonical multiset: per stratum its units, per unit its
    blocks, per block its contests as the fit counts them (bots renamed by ``rename``)."""
    return sorted(
        sorted(sorted(tuple(sorted((_contest_key(g, rename) for g in blocks[i].contests), key=repr)) for i in unit)
               for unit in units) for units in strata)


_BLANK = "\x00"  # a name no bot has


def _blanked(blocks: Sequence[Block], bots: Sequence[str]) -> list[dict[int, int]]:
    """Per bot, each of its contests (numbered over all blocks) as the fit counts it with the bot's own name
    blanked, hashed: what ``_may_swap`` compares."""
    index = {b: i for i, b in enumerate(bots)}
    out: list[dict[int, int]] = [{} for _ in bots]
    c = 0
    for blk in blocks:
        for g in blk.contests:
            for b in {*g.side_a, *g.side_b}:
                if b in index:
                    out[index[b]][c] = hash(_contest_key(g, {b: _BLANK}))
            c += 1
    return out


def _may_swap(a: dict[int, int], b: dict[int, int]) -> bool:
    """A necessary condition for two bots' records to be exchangeable, at the cost of their own contests:
    swapping their names maps the contests of the first without the second one to one onto those of the
    second without the first, each the same with its own bot's name blanked, so those multisets (summed
    hashes) agree. Whatever passes is then compared whole (``_structure``); the answer is the same as
    comparing every pair whole, which took minutes on a ladder whose bots tie in score."""
    return (sum(h for c, h in a.items() if c not in b) == sum(h for c, h in b.items() if c not in a)
            and sum(1 for c in a if c not in b) == sum(1 for c in b if c not in a))


def exchangeable(blocks: Sequence[Block], strata: Sequence[Sequence[Sequence[int]]], bots: Sequence[str],
                 full: Sequence[float], anchor: str | None = None) -> list[tuple[int, ...]]:
    """Per bot, the bots with records exchangeable with its own (itself included): swapping the two
    names maps every stratum's units onto a stratum's units, contest for contest. Their resampled
    ratings then have one distribution, so the report pools the resamples over them: identical records
    get identical intervals and LOS 1/2 whatever the draws (a bootstrap's Monte Carlo noise would split
    them). Only bots with equal ratings are tried; the anchor is exchangeable with none (its rating
    never moves)."""
    n = len(bots)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    base: object = None
    own: list[dict[int, int]] | None = None
    for i in range(n):
        for j in range(i + 1, n):
            if anchor in (bots[i], bots[j]) or root(i) == root(j):
                continue
            if abs(full[i] - full[j]) > 1e-6 * (1.0 + abs(full[i])):
                continue
            if own is None:
                own = _blanked(blocks, bots)
            if not _may_swap(own[i], own[j]):
                continue
            if base is None:
                base = _structure(blocks, strata, {})
            if _structure(blocks, strata, {bots[i]: bots[j], bots[j]: bots[i]}) == base:
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [tuple(groups[root(i)]) for i in range(n)]


def draw(strata: Sequence[Sequence[Sequence[int]]], blocks: int, bootstrap: int, seed: int) -> Draws:
    """The resamples' draws from ``random.Random(seed)``: in every stratum of n units, n - 1 of them with
    replacement, each weighing n/(n-1) (one unit alone is kept, weighing 1)."""
    rng = random.Random(seed)
    unit_of = [0] * blocks
    base = []
    u = 0
    for units in strata:
        base.append(u)
        for unit in units:
            for i in unit:
                unit_of[i] = u
            u += 1
    weights = []
    for _ in range(bootstrap if blocks else 0):
        w = [0.0] * u
        for s, units in enumerate(strata):
            n_u = len(units)
            k, step = (n_u - 1, n_u / (n_u - 1)) if n_u > 1 else (1, 1.0)
            for x in rng.choices(range(n_u), k=k):
                w[base[s] + x] += step
        weights.append(w)
    return Draws(weights, unit_of)


def _sums(columns: Sequence[Sequence[float]], items: Sequence[tuple[int, float]], size: int) -> list[list[float]]:
    """A matchup's games and score in each resample: its contests' (unit, score) added in block order."""
    n = [0.0] * size
    s = [0.0] * size
    for u, sc in items:
        col = columns[u]
        n = [a + c for a, c in zip(n, col)]
        s = [a + c * sc for a, c in zip(s, col)]
    return [n, s]


def bootstrap_fits(
    blocks: Sequence[Block],
    *,
    anchor: tuple[str, float] | None = None,
    prior: bool = True,
    bootstrap: int = 1000,
    seed: int = 0,
    resample: str = "auto",
    memo: ResampleMemo | None = None,
) -> BootstrapFits:
    """Fit all games, then refit ``bootstrap`` resamples.

    ``resample="key"`` draws whole deal keys with replacement (block i of
    every pairing together: they share their deals); ``"pairing"`` draws
    blocks within each pairing (stratified); ``"block"`` draws single blocks;
    ``"auto"`` (default) is ``"key"`` (``resample_unit``). Draws come from ``random.Random(seed)``. Each refit works on
    per-matchup aggregated counts, warm-started from the full fit. Resamples
    whose fit fails (possible only with ``prior=False``) are counted in
    ``failures`` and left out. ``memo``: the per-matchup sums of an earlier call, reused where a matchup's
    blocks are the same (``memo.ResampleMemo``: the same numbers as summing again).
    """
    games = [g for blk in blocks for g in blk.contests]
    design = bt.build_design(games)
    bots = design.bots
    full = bt.fit(design, anchor=anchor, prior=prior)
    pos = {key: m for m, key in enumerate(design.matchups)}
    index = {b: i for i, b in enumerate([*bots, *design.terms])}
    strata = resampling_units(blocks, resample)
    drawn = draw(strata, len(blocks), bootstrap, seed)
    items: list[list[tuple[int, float]]] = [[] for _ in design.matchups]  # per matchup: (unit, score) in block order
    params = [*bots, *design.terms]
    moved: list[set[int]] = [set() for _ in params]  # moved[p]: the units holding a contest of parameter p
    where: dict[tuple[tuple[str, ...], tuple[str, ...], bool], tuple[int, bool, list[int]]] = {}
    for i, blk in enumerate(blocks):
        u = drawn.unit_of[i]
        for g in blk.contests:
            sides = (g.side_a, g.side_b, g.maker_a)
            at = where.get(sides)
            if at is None:  # the matchup of these sides, whether they are seen from its other side, its parameters
                key, flipped = bt.matchup_key(*sides)
                m = pos[(tuple(index[b] for b, _ in key), tuple(c for _, c in key))] if key else -1
                at = where[sides] = (m, flipped, [index[b] for b, _ in key])
            m, flipped, ps = at
            if m >= 0:
                items[m].append((u, (1.0 - g.score_a) if flipped else g.score_a))
            for x in ps:
                moved[x].add(u)
    out = BootstrapFits(bots, full, [], Draws([], drawn.unit_of), 0, resample_unit(blocks, resample),
                        list(design.terms))
    sizes = [len(units) for units in strata]
    stratum_of = [s for s, n in enumerate(sizes) for _ in range(n)]
    out.df = [_units_df(sizes, stratum_of, moved[p]) for p in range(len(params))]
    out.total_df = _units_df(sizes, stratum_of, range(len(stratum_of)))
    out.orbits = [*exchangeable(blocks, strata, bots, full, anchor[0] if anchor else None),
                  *((len(bots) + t,) for t in range(len(design.terms)))]
    size = len(drawn.weights)
    if not size:
        return out
    memo = memo if memo is not None else ResampleMemo()
    columns = drawn.columns()
    section = drawn.digest()
    sums = [memo.get("fit", section, repr(([params[x] for x in idx], cf)), it, partial(_sums, columns, it, size))
            for (idx, cf), it in zip(design.matchups, items)]
    for r in range(size):
        n = [c[0][r] for c in sums]
        s = [c[1][r] for c in sums]
        try:
            smp = bt.fit(design, anchor=anchor, prior=prior, games=n, scores=s, start=full, tol=RESAMPLE_TOL)
        except bt.RatingFitError:
            out.failures += 1
            continue
        out.samples.append(smp)
        out.draws.weights.append(drawn.weights[r])
    return out


#: A resample's fit stops once a Newton step moves no rating by this much (Elo): the step taken already put
#: it within about the square of that (Newton converges quadratically), far below what its spread measures.
RESAMPLE_TOL = 1e-4


def _group_sums(columns: Sequence[Sequence[float]], items: Sequence[tuple[int, float, float]],
                size: int) -> list[list[float]]:
    """A pairing's within-group sums of squares of T and D and its total weight in each resample
    (``luck.sums_of_squares`` of the group alone, each block weighing its unit's weight)."""
    wsum = [0.0] * size
    at = [0.0] * size
    ad = [0.0] * size
    for u, a, b in items:
        col = columns[u]
        wsum = [x + c for x, c in zip(wsum, col)]
        at = [x + c * (a + b) for x, c in zip(at, col)]
        ad = [x + c * (a - b) for x, c in zip(ad, col)]
    mt = [x / w if w > 0 else 0.0 for x, w in zip(at, wsum)]
    md = [x / w if w > 0 else 0.0 for x, w in zip(ad, wsum)]
    ss_t = [0.0] * size
    ss_d = [0.0] * size
    for u, a, b in items:
        col = columns[u]
        ss_t = [x + c * (a + b - m) ** 2 if c else x for x, c, m in zip(ss_t, col, mt)]
        ss_d = [x + c * (a - b - m) ** 2 if c else x for x, c, m in zip(ss_d, col, md)]
    return [ss_t, ss_d, wsum]


def luck_summary(blocks: Sequence[BlockOutcome], statistic: str = "score",
                 multiplicities: Sequence[Sequence[float]] = (), level: float = 0.95,
                 df: float = math.inf, draws: Draws | None = None, memo: ResampleMemo | None = None
                 ) -> LuckSummary | None:
    """rho and 1/(1+rho) of ``statistic`` with a bootstrap interval (``centred_interval`` on ``df``
    degrees of freedom, within rho's range [-1, 1]) over the resamples' ``draws`` (or their
    ``multiplicities``); ``memo``: each pairing's sums of an earlier call, reused where its blocks are the same.

    None for "points" unless every block carries points differences.
    """
    per: list[tuple[tuple[str, str], tuple[float, float]] | None] = [luck.block_halves(b, statistic) for b in blocks]
    if statistic == "points" and (not per or any(x is None for x in per)):
        return None
    if draws is None:
        draws = Draws.per_block(multiplicities)
    order: dict[tuple[str, str], int] = {}
    groups: list[list[tuple[float, float]]] = []
    items: list[list[tuple[int, float, float]]] = []  # per group: (unit, x1, x2) in block order
    for i, item in enumerate(per):
        assert item is not None
        g, h = item
        gi = order.setdefault(g, len(order))
        if gi == len(groups):
            groups.append([])
            items.append([])
        groups[gi].append(h)
        if draws.weights:
            items[gi].append((draws.unit_of[i], h[0], h[1]))
    gain = luck.pairing_gain({i: g for i, g in enumerate(groups)}, statistic)
    rho_samples: list[float] = []
    size = len(draws.weights)
    if size:
        memo = memo if memo is not None else ResampleMemo()
        columns = draws.columns()
        section = draws.digest()
        sums = [memo.get(f"luck {statistic}", section, repr(g), it, partial(_group_sums, columns, it, size))
                for g, it in zip(order, items)]
        for r in range(size):
            ss_t = ss_d = df_r = 0.0
            for c in sums:  # summed over the pairings in their order, as luck.sums_of_squares does
                w = c[2][r]
                if w > 0:
                    ss_t += c[0][r]
                    ss_d += c[1][r]
                    df_r += w - 1.0
            rho = luck.rho_from_sums(ss_t, ss_d) if df_r >= luck.MIN_DF else None
            if rho is not None:
                rho_samples.append(rho)
    rho_ci = (centred_interval(gain.rho, rho_samples, df, level, (-1.0, 1.0))
              if rho_samples and gain.rho is not None else None)
    f_ci = (luck.factor_of(rho_ci[1]), luck.factor_of(rho_ci[0])) if rho_ci else None  # the map is decreasing
    return LuckSummary(gain.rho, rho_ci, gain.factor, f_ci, len(blocks), statistic, gain.note)


#: Games per bot below which the 95% intervals are flagged as rough (see docs/ratings.md).
FEW_GAMES = 100


def parameter_interval(bf: BootstrapFits, i: int, level: float = 0.95) -> tuple[float, float] | None:
    """Parameter ``i``'s interval (``centred_interval``) from its resamples, pooled over its orbit."""
    if not bf.samples:
        return None
    vals = [smp[j] for j in bf.orbits[i] for smp in bf.samples] if bf.orbits else [smp[i] for smp in bf.samples]
    return centred_interval(bf.full[i], vals, bf.df[i] if bf.df else 0, level)


def los_table(bf: BootstrapFits) -> dict[str, dict[str, float | None]]:
    """los[a][b]: how likely a is the stronger, P(T < d / SD) with d the rating difference, SD the
    resamples' SD of it (pooled over both bots' orbits) and T Student's t with the fewer of the two bots'
    degrees of freedom: the probability the interval of the difference puts on a side of 0, so a LOS of
    97.5 % is a difference whose 95 % interval ends at 0. Exactly 1/2 for exchangeable records; None
    (withheld) where either bot has fewer than ``MIN_DF`` degrees of freedom. Empty without resamples."""
    los: dict[str, dict[str, float | None]] = {}
    if not bf.samples:
        return los
    bots, full = bf.bots, bf.full
    orbit = bf.orbits or [(i,) for i in range(len(bots))]
    for i, a in enumerate(bots):
        los[a] = {}
        for j, b in enumerate(bots):
            if i == j:
                continue
            df = min(bf.df[i], bf.df[j]) if bf.df else 0
            if df < MIN_DF:
                los[a][b] = None
            elif orbit[i] == orbit[j]:
                los[a][b] = 0.5
            else:
                d = full[i] - full[j]
                spread = sd([smp[x] - smp[y] for x in orbit[i] for y in orbit[j] for smp in bf.samples])
                if spread <= 1e-9:
                    los[a][b] = 1.0 if d > 1e-6 else 0.0 if d < -1e-6 else 0.5
                else:
                    los[a][b] = t_cdf(d / spread, df)
    return los


def bot_summaries(bf: BootstrapFits, stats: dict[str, BotTally], level: float) -> list[BotSummary]:
    """Every bot's line, best first: its rating, interval (or why it is withheld) and counts."""
    out = []
    for i, b in enumerate(bf.bots):
        ci = parameter_interval(bf, i, level)
        df = bf.df[i] if bf.samples else None
        d = stats[b]
        out.append(BotSummary(
            bot=b, rating=bf.full[i], ci_low=ci[0] if ci else None, ci_high=ci[1] if ci else None,
            games=d.games, score=d.score, wins=d.wins, draws=d.draws, losses=d.losses,
            forfeits=d.forfeits, faults=dict(sorted(d.faults.items())), df=df,
            withheld=TOO_FEW_BLOCKS if df is not None and df < MIN_DF else None))
    out.sort(key=lambda x: (-x.rating, x.bot))
    return out


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
    memo: ResampleMemo | None = None,
) -> RatingReport:
    """Rate every bot from all games of the two-pair duplicate ``blocks``.

    Ratings: batch Bradley-Terry fit (see :mod:`arena.ratings.bt`).
    Intervals, LOS and the rho interval come from ``bootstrap`` resamples
    (``resample``: whole deal keys, single blocks, or "auto") drawn with
    ``random.Random(seed)``; ``bootstrap=0`` skips them. ``memo``: what an earlier call on the same
    draws summed per matchup and pairing (``memo.ResampleMemo``), brought up to date: the same report.
    """
    pairs = list(blocks)
    games = [g for blk in pairs for g in blk.games]
    if memo is not None:
        memo.begin()
    bf = bootstrap_fits(pairs, anchor=anchor, prior=prior, bootstrap=bootstrap, seed=seed, resample=resample,
                        memo=memo)
    nb = len(pairs)

    summaries = bot_summaries(bf, _bot_stats(games, bf.bots), level)
    los = los_table(bf)
    luck_score = luck_summary(pairs, "score", (), level, bf.total_df, bf.draws, memo)
    assert luck_score is not None
    luck_pts = luck_summary(pairs, "points", (), level, bf.total_df, bf.draws, memo)
    if memo is not None:
        memo.end()

    note = interval_note(summaries, bool(bf.samples), level)

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
