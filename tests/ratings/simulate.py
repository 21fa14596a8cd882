"""Synthetic duplicate-block tournaments drawn from known true ratings.

Each game's marginal outcome follows the rating model exactly (expected score
= logistic(mean-rating difference), draws split evenly around it); the two
halves of a block share "card luck": with probability ``luck`` both seat-A
outcomes are driven by the same uniform number, so same-cards scores
correlate positively.
"""

from __future__ import annotations

import math
import random
from typing import Sequence

from arena.ratings.data import BlockOutcome, GameOutcome


def expected(side_a: Sequence[str], side_b: Sequence[str], true: dict[str, float]) -> float:
    d = (true[side_a[0]] + true[side_a[1]] - true[side_b[0]] - true[side_b[1]]) / 2.0
    return 1.0 / (1.0 + 10.0 ** (-d / 400.0))


def _outcome(u: float, p: float, draw: float) -> float:
    d = min(draw, 2 * p, 2 * (1 - p))
    if u < p - d / 2:
        return 1.0
    if u < p + d / 2:
        return 0.5
    return 0.0


def simulate_block(bid: str, pid: str, side_p: tuple[str, str], side_q: tuple[str, str],
                   true: dict[str, float], rng: random.Random, luck: float, draw: float) -> BlockOutcome:
    p = expected(side_p, side_q, true)
    u1 = rng.random()
    u2 = u1 if rng.random() < luck else rng.random()
    g1 = GameOutcome(side_p, side_q, _outcome(u1, p, draw))
    g2 = GameOutcome(side_q, side_p, _outcome(u2, 1.0 - p, draw))
    return BlockOutcome(bid, pid, (g1, g2))


def round_robin(true: dict[str, float], blocks_per_pair: int, rng: random.Random,
                luck: float = 0.6, draw: float = 0.2, shared: float = 0.0) -> list[BlockOutcome]:
    """Self-partnerships, every pair of bots plays ``blocks_per_pair`` blocks.

    Block k of every pairing has id "pairing#k": it is played on the same
    deals. ``shared`` > 0 makes those deals matter across pairings: deal key
    k scales every rating gap by exp(shared * z_k), z_k standard normal (some
    deals reward skill more than others).
    """
    bots = sorted(true)
    amp = [math.exp(shared * rng.gauss(0.0, 1.0)) if shared else 1.0 for _ in range(blocks_per_pair)]
    out = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            for k in range(blocks_per_pair):
                first, second = ((a, a), (b, b)) if k % 2 == 0 else ((b, b), (a, a))
                scaled = {x: v * amp[k] for x, v in true.items()}
                out.append(simulate_block(f"{a}-{b}#{k}", f"{a}-{b}", first, second, scaled, rng, luck, draw))
    return out


def mixed(true: dict[str, float], n_blocks: int, rng: random.Random,
          luck: float = 0.6, draw: float = 0.2) -> list[BlockOutcome]:
    """Random mixed partnerships of four distinct bots per block."""
    bots = sorted(true)
    out = []
    for k in range(n_blocks):
        a, b, c, d = rng.sample(bots, 4)
        p, q = tuple(sorted((a, b))), tuple(sorted((c, d)))
        out.append(simulate_block(f"m{k}", f"{p}-{q}", p, q, true, rng, luck, draw))  # type: ignore[arg-type]
    return out


def difference_coverage(true: dict[str, float], blocks_per_pair: int, n_tournaments: int, n_boot: int, seed: int,
                        *, resample: str = "auto", prior: bool = True, luck: float = 0.6, draw: float = 0.2,
                        shared: float = 0.0, method: str = "t") -> float:
    """Share of 95% bootstrap intervals of rating differences that hold the true difference, among those
    given: the report's (``method="t"``: the estimate +- t on the fewer of the two bots' degrees of freedom
    times the resamples' SD, withheld below ``MIN_DF``) or the percentile interval (``"percentile"``,
    the method before issue 34)."""
    from arena.ratings import bootstrap_fits
    from arena.ratings.report import centred_interval, percentile_interval

    rng = random.Random(seed)
    hit = total = 0
    names = sorted(true)
    for _ in range(n_tournaments):
        blocks = round_robin(true, blocks_per_pair, rng, luck=luck, draw=draw, shared=shared)
        bf = bootstrap_fits(blocks, prior=prior, bootstrap=n_boot, seed=rng.randrange(1 << 30), resample=resample)
        idx = {b: i for i, b in enumerate(bf.bots)}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                x, y = idx[a], idx[b]
                diffs = [s[x] - s[y] for s in bf.samples]
                ci = (percentile_interval(diffs) if method == "percentile" else
                      centred_interval(bf.full[x] - bf.full[y], diffs, min(bf.df[x], bf.df[y])))
                if ci is None:
                    continue
                total += 1
                hit += ci[0] <= true[a] - true[b] <= ci[1]
    return hit / total if total else float("nan")


# ------------------------------------------------------------ tables of n seats

from arena.bench.ratings import table_tournament  # noqa: E402  (the one simulator: the study's)


def table_coverage(true: dict[str, float], blocks: int, n_tournaments: int, n_boot: int, seed: int,
                   **kw) -> tuple[float, float]:
    """(share of 95% bootstrap intervals of each bot's rating, relative to the mean, that hold its
    true rating relative to the mean; mean absolute error of the point ratings)."""
    from arena.ratings import bootstrap_fits
    from arena.ratings.report import parameter_interval

    rng = random.Random(seed)
    mean = sum(true.values()) / len(true)
    hit = total = 0
    err = 0.0
    for _ in range(n_tournaments):
        blks = table_tournament(true, blocks, rng, **kw)
        bf = bootstrap_fits(blks, bootstrap=n_boot, seed=rng.randrange(1 << 30))
        for i, b in enumerate(bf.bots):
            ci = parameter_interval(bf, i)
            total += 1
            hit += ci is not None and ci[0] <= true[b] - mean <= ci[1]
            err += abs(bf.full[i] - (true[b] - mean))
    return hit / total, err / total
