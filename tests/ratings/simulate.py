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
                        shared: float = 0.0) -> float:
    """Share of 95% bootstrap intervals of rating differences that hold the true difference."""
    from arena.ratings import bootstrap_fits
    from arena.ratings.report import percentile_interval

    rng = random.Random(seed)
    hit = total = 0
    names = sorted(true)
    for _ in range(n_tournaments):
        blocks = round_robin(true, blocks_per_pair, rng, luck=luck, draw=draw, shared=shared)
        bf = bootstrap_fits(blocks, prior=prior, bootstrap=n_boot, seed=rng.randrange(1 << 30), resample=resample)
        idx = {b: i for i, b in enumerate(bf.bots)}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                ci = percentile_interval([s[idx[a]] - s[idx[b]] for s in bf.samples])
                total += 1
                hit += ci is not None and ci[0] <= true[a] - true[b] <= ci[1]
    return hit / total


# ------------------------------------------------------------ tables of n seats


def table_tournament(true: dict[str, float], blocks: int, rng: random.Random, *, deals: int = 8,
                     maker_edge: float = 80.0, eagerness: dict[str, float] | None = None, alone: float = 0.1,
                     luck: float = 0.6, contests: str = "deal") -> list:
    """Five-hand-like blocks at one table of every bot (``len(true)`` seats), by rotation.

    Each block has a random seat order; rotation r seats bot ``order[(s - r) % n]`` at seat s.
    ``contests="deal"``: each game has ``deals`` deals; a deal's maker is drawn by the bots'
    ``eagerness`` (how often each bids), its partner uniformly from the others (none with
    probability ``alone``), and the maker's side wins with probability
    logistic(mean(maker side) - mean(others) + maker_edge) on the Elo scale. A deal's luck is
    shared by the rotations: with probability ``luck`` a rotation's deal k has the block's seats
    of maker and partner for deal k and is decided by the block's uniform number for it. ``contests="finish"``: each game's finish is a Plackett-Luce order of the
    seats (strength 10^(r/400)), the uniforms shared by the rotations the same way; the contests
    are every two seats by finish.
    """
    from arena.ratings.data import TableBlock, TableGame
    from arena.ratings.tables import deal_contests, finish_contests

    bots = sorted(true)
    n = len(bots)
    eager = eagerness or {b: 1.0 for b in bots}
    out = []
    for k in range(blocks):
        order = bots[:]
        rng.shuffle(order)
        shared = [rng.random() for _ in range(max(deals, n))]
        deal_seats = []
        for d in range(deals):
            m = rng.randrange(n)
            deal_seats.append((m, None if rng.random() < alone else rng.choice([s for s in range(n) if s != m])))
        games = []
        for r in range(n):
            seats = tuple(order[(s - r) % n] for s in range(n))
            us = [shared[d] if rng.random() < luck else rng.random() for d in range(max(deals, n))]
            if contests == "finish":
                left, place = list(range(n)), []
                for d in range(n - 1):
                    w = [10 ** (true[seats[s]] / 400.0) for s in left]
                    x, acc = us[d] * sum(w), 0.0
                    for s, ws in zip(left, w):
                        acc += ws
                        if x < acc:
                            break
                    place.append(s)
                    left.remove(s)
                place += left
                scores = tuple(float(n - place.index(s)) for s in range(n))
                g = TableGame(seats, place[0], scores)
                games.append(TableGame(seats, place[0], scores, finish_contests(g)))
                continue
            dl = []
            totals = [0.0] * n
            for d in range(deals):
                if us[d] == shared[d]:  # the same cards: the same seats bid and the same luck decides
                    maker, partner = deal_seats[d]
                else:
                    maker = rng.choices(range(n), weights=[eager[seats[s]] for s in range(n)])[0]
                    partner = None if rng.random() < alone else rng.choice([s for s in range(n) if s != maker])
                sides = [0 if s in (maker, partner) else 1 for s in range(n)]
                a = [true[seats[s]] for s in range(n) if sides[s] == 0]
                b = [true[seats[s]] for s in range(n) if sides[s] == 1]
                p = 1.0 / (1.0 + 10.0 ** (-(sum(a) / len(a) - sum(b) / len(b) + maker_edge) / 400.0))
                won = us[d] < p
                change = [(1.0 if (sides[s] == 0) == won else 0.0) for s in range(n)]
                totals = [t + c for t, c in zip(totals, change)]
                dl.append((sides, change, maker))
            games.append(TableGame(seats, None, tuple(totals), deal_contests(seats, dl)))
        out.append(TableBlock(f"t#{k}", "t", tuple(games)))
    return out


def table_coverage(true: dict[str, float], blocks: int, n_tournaments: int, n_boot: int, seed: int,
                   **kw) -> tuple[float, float]:
    """(share of 95% bootstrap intervals of each bot's rating, relative to the mean, that hold its
    true rating relative to the mean; mean absolute error of the point ratings)."""
    from arena.ratings import bootstrap_fits
    from arena.ratings.report import percentile_interval

    rng = random.Random(seed)
    mean = sum(true.values()) / len(true)
    hit = total = 0
    err = 0.0
    for _ in range(n_tournaments):
        blks = table_tournament(true, blocks, rng, **kw)
        bf = bootstrap_fits(blks, bootstrap=n_boot, seed=rng.randrange(1 << 30))
        for i, b in enumerate(bf.bots):
            ci = percentile_interval([s[i] for s in bf.samples])
            total += 1
            hit += ci is not None and ci[0] <= true[b] - mean <= ci[1]
            err += abs(bf.full[i] - (true[b] - mean))
    return hit / total, err / total
