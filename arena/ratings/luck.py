"""What the duplicate design buys: paired against unpaired variance.

A block gives one side two results on the same deals, x1 (game 1) and x2
(game 2, holding the other seats' cards). The block total T = x1 + x2 is
what the ratings and the SPRT use; two games on independent deals would
give Var(x1) + Var(x2) instead of Var(T). With D = x1 - x2,

    Var(x1) + Var(x2) = (Var T + Var D) / 2,   rho = (Var T - Var D) / (Var T + Var D),

where rho is the correlation of the side's two results (negative when the
cards decide), and the factor ``unpaired / paired = 1 / (1 + rho)``.

Both variances are estimated *within groups* (a pairing of two
partnerships, or the one matchup of an SPRT): T and D are centred on their
group means, so strength differences between pairings never leak in. The
ratio of the pooled sums of squares estimates (1 + rho) / (1 - rho) whatever
each group's spread, and a group whose results never vary (a pairing won
every game) adds nothing to either sum.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Sequence

from .._json import JsonObject
from .data import BlockOutcome

Halves = tuple[float, float]
#: Fewest within-group degrees of freedom a factor is reported for.
MIN_DF = 2


@dataclass
class PairingGain:
    """Paired against unpaired variance of one statistic, per block.

    ``paired_var`` = Var(x1 + x2), ``unpaired_var`` = Var(x1) + Var(x2)
    (both pooled within groups), ``factor`` = unpaired / paired = 1/(1+rho):
    how many times more blocks independent deals would need for the same
    precision. None, with ``note``, where the sample cannot carry it.
    """

    statistic: str
    blocks: int
    df: int
    paired_var: float | None
    unpaired_var: float | None
    rho: float | None
    factor: float | None
    note: str | None = None

    def to_dict(self) -> JsonObject:
        d = asdict(self)
        if d["factor"] is not None and not math.isfinite(d["factor"]):
            d["factor"] = None
        return d


def sums_of_squares(groups: Sequence[Sequence[Halves]],
                    weights: Sequence[Sequence[float]] | None = None) -> tuple[float, float, float, float]:
    """(SS_T, SS_D, df, n): within-group sums of squares of T and D.

    ``weights`` (same shape as ``groups``) are multiplicities, for bootstrap
    resamples; df = sum over groups of (weight - 1) for groups with weight > 0.
    """
    ss_t = ss_d = df = n = 0.0
    for gi, g in enumerate(groups):
        w = weights[gi] if weights is not None else [1.0] * len(g)
        wsum = sum(w)
        if wsum <= 0:
            continue
        mt = sum(wk * (a + b) for wk, (a, b) in zip(w, g)) / wsum
        md = sum(wk * (a - b) for wk, (a, b) in zip(w, g)) / wsum
        for wk, (a, b) in zip(w, g):
            if wk:
                ss_t += wk * (a + b - mt) ** 2
                ss_d += wk * (a - b - md) ** 2
        df += wsum - 1.0
        n += wsum
    return ss_t, ss_d, df, n


def rho_from_sums(ss_t: float, ss_d: float) -> float | None:
    """rho = (SS_T - SS_D) / (SS_T + SS_D); None when nothing varied."""
    tot = ss_t + ss_d
    if tot <= 1e-12:
        return None
    return (ss_t - ss_d) / tot


def factor_of(rho: float | None, n: int = 2) -> float | None:
    """Unpaired/paired variance ratio 1/(1+(n-1) rho) of a block of ``n`` games on the same deals,
    ``rho`` the mean correlation of one side's results (inf when the block total cannot vary)."""
    if rho is None:
        return None
    d = 1.0 + (n - 1) * rho
    return math.inf if d <= 0.0 else 1.0 / d


def pairing_gain(halves: Sequence[Halves] | Mapping[Any, Sequence[Halves]], statistic: str = "score") -> PairingGain:
    """What pairing saved, measured on the blocks themselves.

    ``halves``: one side's (game 1, game 2) results per block, the statistic
    the test used (game score 0/0.5/1, or points difference), either one
    sequence (one matchup) or a mapping group -> sequence (pairings).
    """
    groups = list(halves.values()) if isinstance(halves, Mapping) else [list(halves)]
    groups = [list(g) for g in groups]
    ss_t, ss_d, df, n = sums_of_squares(groups)
    blocks = int(n)
    if df < MIN_DF:
        return PairingGain(statistic, blocks, int(df), None, None, None, None,
                           note=f"{blocks} blocks are too few to measure what pairing saved")
    vt, vd = ss_t / df, ss_d / df
    rho = rho_from_sums(ss_t, ss_d)
    if rho is None:
        return PairingGain(statistic, blocks, int(df), 0.0, 0.0, None, None,
                           note="no block result varied: nothing to measure")
    return PairingGain(statistic, blocks, int(df), vt, (vt + vd) / 2.0, rho, factor_of(rho))


def format_gain(g: PairingGain) -> str:
    """One line for a report: the factor, or why there is none."""
    what = "points difference" if g.statistic == "points" else "game score"
    if g.factor is None:
        return f"pairing ({what}): {g.note}"
    saved = ("every paired block came out level: pairing removed all of the variance" if not math.isfinite(g.factor)
             else f"unpaired deals would need {g.factor:.2f}x the blocks")
    return (f"pairing ({what}, {g.blocks} blocks): variance per block paired {g.paired_var:.4g} vs "
            f"unpaired {g.unpaired_var:.4g}, rho {g.rho:+.3f}: {saved}"
            + (" (rough: few blocks)" if g.blocks < 30 else ""))


# ------------------------------------------------------------ from block outcomes


def _label(side: Sequence[str]) -> str:
    a, b = sorted(side)
    return a if a == b else f"{a}+{b}"


def block_halves(blk: BlockOutcome, statistic: str = "score") -> tuple[tuple[str, str], Halves] | None:
    """(group, (x1, x2)) of a block from its reference partnership's view.

    The group is the sorted pair of partnership labels; the reference is the
    alphabetically first, so every block of a pairing is seen from the same
    side. ``statistic`` "points" needs points differences on both games
    (None otherwise).
    """
    g1, g2 = blk.games
    la, lb = _label(g1.side_a), _label(g1.side_b)
    first_is_a = la <= lb
    if statistic == "points":
        if g1.points_diff is None or g2.points_diff is None:
            return None
        x1, x2 = g1.points_diff, -g2.points_diff
    else:
        x1, x2 = g1.score_a, 1.0 - g2.score_a
    if not first_is_a:
        x1, x2 = (-x1, -x2) if statistic == "points" else (1.0 - x1, 1.0 - x2)
    return (min(la, lb), max(la, lb)), (x1, x2)


def candidate_halves(blocks: Sequence[BlockOutcome], partnership: tuple[str, str],
                     statistic: str = "score") -> list[Halves]:
    """(x1, x2) of ``partnership`` in each block (for :func:`pairing_gain`)."""
    key = sorted(partnership)
    out = []
    for blk in blocks:
        g1, g2 = blk.games
        if key not in (sorted(g1.side_a), sorted(g1.side_b)):
            raise ValueError(f"partnership {partnership!r} did not play block {blk.block_id}")
        if statistic == "points":
            if g1.points_diff is None or g2.points_diff is None:
                raise ValueError(f"block {blk.block_id} has no points_diff")
            a, b = g1.points_diff, -g2.points_diff
            out.append((a, b) if sorted(g1.side_a) == key else (-a, -b))
        else:
            a, b = g1.score_a, 1.0 - g2.score_a
            out.append((a, b) if sorted(g1.side_a) == key else (1.0 - a, 1.0 - b))
    return out


@dataclass
class RotationGain:
    """What duplicate by rotation buys at a table of n seats (docs/rules.md 14): a block plays
    the same deals n times, the entrants rotated through the seats, so each entrant holds each
    seat's cards once. ``paired_var`` is the variance of an entrant's block total (its n results
    summed), ``unpaired_var`` n times the variance of one result (n games on independent deals),
    both pooled within entrants; ``factor`` = unpaired / paired, how many times more blocks
    independent deals would need for the same precision (None: too few blocks)."""

    statistic: str
    blocks: int
    rotations: int
    paired_var: float
    unpaired_var: float
    factor: float | None

    def to_dict(self) -> JsonObject:
        d = asdict(self)
        for k in ("paired_var", "unpaired_var", "factor"):
            if d[k] is not None:
                d[k] = round(d[k], 4)
        return d


def rotation_sums(cells: Iterable[Sequence[tuple[float, Sequence[float]]]]) -> tuple[float, float, float, float, int]:
    """(SS_T, SS_1, df_T, df_1, n) of duplicate by rotation: each cell is one entrant (at one table)
    over its blocks, a row (weight, its n results of the block). SS_T: the block totals about the
    cell's mean; SS_1: the single results about the cell's mean. A cell of fewer than two blocks
    (or one block drawn again and again by a bootstrap) shows no spread of totals: left out."""
    ss_t = ss_1 = df_t = df_1 = 0.0
    n = 0
    for rows in cells:
        rows = [(w, xs) for w, xs in rows if w > 0]
        if len(rows) < 2:
            continue
        n = max(n, max(len(xs) for _, xs in rows))
        wsum = sum(w for w, _ in rows)
        singles = sum(w * len(xs) for w, xs in rows)
        mt = sum(w * sum(xs) for w, xs in rows) / wsum
        m1 = sum(w * x for w, xs in rows for x in xs) / singles
        ss_t += sum(w * (sum(xs) - mt) ** 2 for w, xs in rows)
        ss_1 += sum(w * (x - m1) ** 2 for w, xs in rows for x in xs)
        df_t += wsum - 1.0
        df_1 += singles - 1.0
    return ss_t, ss_1, df_t, df_1, n


def rotation_rho(ss_t: float, ss_1: float, df_t: float, df_1: float, n: int) -> float | None:
    """The mean correlation of one entrant's n results in a block, from Var(T) = n Var(x) (1 + (n-1) rho);
    None when the sample cannot carry it (fewer than MIN_DF degrees of freedom, no result varied)."""
    if df_t < MIN_DF or df_1 <= 0 or n < 2 or ss_1 <= 1e-12:
        return None
    paired, unpaired = ss_t / df_t, n * ss_1 / df_1
    return (paired / unpaired - 1.0) / (n - 1)


def rotation_gain(results: Sequence[Sequence[Sequence[float]]], statistic: str = "score") -> RotationGain:
    """``results[b][e]``: entrant ``e``'s n results in block ``b``, one per rotation.

    Both variances are centred on each entrant's own mean, so strength differences
    between entrants never count as luck (as ``pairing_gain`` does within pairings)."""
    blocks = len(results)
    entrants = len(results[0]) if results else 0
    n = len(results[0][0]) if entrants else 0
    ss_t, ss_1, df_t, df_1, _ = rotation_sums([[(1.0, results[b][e]) for b in range(blocks)] for e in range(entrants)])
    paired = ss_t / df_t if df_t > 0 else 0.0
    unpaired = n * ss_1 / df_1 if df_1 > 0 else 0.0
    factor = unpaired / paired if df_t >= MIN_DF and paired > 0 else None
    return RotationGain(statistic, blocks, n, paired, unpaired, factor)
