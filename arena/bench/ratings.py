"""``arena bench ratings``: the ratings' intervals at tables of n seats, measured against known strengths.

Synthetic tournaments (``table_tournament``) are drawn from known ratings, rated by the report's own
code (``arena.ratings.rate``: the same bootstrap, intervals, withholding and LOS as a leaderboard), and
scored: bias and spread of the ratings, coverage of the reported 95 % intervals (bots and the maker's
side), intervals withheld ("too few blocks"), intervals that miss their own estimate, and the LOS of two
bots of equal strength. docs/ratings.md (*Intervals at tables, measured*) holds the figures; the last
printed line is one JSON object.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Sequence

from arena.ratings import rate
from arena.ratings.data import TableBlock, TableGame
from arena.ratings.tables import deal_contests, finish_contests

#: The kinds of table the study models: cut-throat's finishes, five-hand's called-partner deals.
KINDS = {"cutthroat-3": ("finish", 3), "five-hand": ("deal", 5)}

#: Known strengths by entrants (mean not 0: ratings are measured relative to the mean); the two
#: ``twin`` bots are equally strong, for the LOS of bots that differ only by luck.
STRENGTHS = {
    5: {"a": -200.0, "b": -60.0, "twin1": 0.0, "twin2": 0.0, "e": 150.0},
    6: {"a": -200.0, "b": -60.0, "twin1": 0.0, "twin2": 0.0, "e": 150.0, "f": 80.0},
}
#: How often each bot becomes the maker at five-hand (an eager bidder must not be rated up for it).
EAGERNESS = {"a": 4.0, "b": 1.0, "twin1": 0.5, "twin2": 0.5, "e": 0.25, "f": 2.0}


def table_tournament(true: dict[str, float], blocks: int, rng: random.Random, *, seats: int | None = None,
                     deals: int = 8, maker_edge: float = 80.0, eagerness: dict[str, float] | None = None,
                     alone: float = 0.1, luck: float = 0.6, contests: str = "deal") -> list[TableBlock]:
    """Blocks by rotation at tables of ``seats`` (default: one table of every bot), every combination
    of the bots a table (``schedule.tables: all``), block k of every table on one deal key.

    Each table's block has a random seat order; rotation r seats bot ``order[(s - r) % n]`` at seat s.
    ``contests="deal"``: each game has ``deals`` deals; a deal's maker is drawn by the bots'
    ``eagerness`` (how often each bids), its partner uniformly from the others (none with probability
    ``alone``), and the maker's side wins with probability logistic(mean(maker side) - mean(others) +
    ``maker_edge``) on the Elo scale. A deal's luck is the key's: with probability ``luck`` a
    rotation's deal d (at any table of the block) has the key's seats of maker and partner for deal d
    and is decided by the key's uniform number for it, as the same cards would. ``contests="finish"``:
    each game's finish is a Plackett-Luce order of the seats (strength 10^(r/400)), the uniforms shared
    the same way; the contests are every two seats by finish. Both are the fitted model exactly, so the
    true ratings are what the fit estimates.
    """
    bots = sorted(true)
    n = seats or len(bots)
    eager = eagerness or {b: 1.0 for b in bots}
    tables = [list(t) for t in combinations(bots, n)]
    out = []
    for k in range(blocks):
        shared = [rng.random() for _ in range(max(deals, n))]
        deal_seats = []
        for d in range(deals):
            m = rng.randrange(n)
            deal_seats.append((m, None if rng.random() < alone else rng.choice([s for s in range(n) if s != m])))
        for table in tables:
            order = table[:]
            rng.shuffle(order)
            games = [_game(tuple(order[(s - r) % n] for s in range(n)), shared, deal_seats, true, eager, rng,
                           deals=deals, maker_edge=maker_edge, alone=alone, luck=luck, contests=contests)
                     for r in range(n)]
            tid = "+".join(table) if len(tables) > 1 else "t"
            out.append(TableBlock(f"{tid}#{k}", tid, tuple(games)))
    return out


def _game(seats: tuple[str, ...], shared: list[float], deal_seats: list[tuple[int, int | None]],
          true: dict[str, float], eager: dict[str, float], rng: random.Random, *, deals: int, maker_edge: float,
          alone: float, luck: float, contests: str) -> TableGame:
    n = len(seats)
    us = [shared[d] if rng.random() < luck else rng.random() for d in range(len(shared))]
    if contests == "finish":
        left, place = list(range(n)), []
        for d in range(n - 1):
            w = [10 ** (true[seats[s]] / 400.0) for s in left]
            x, acc = us[d] * sum(w), 0.0
            pick = left[-1]
            for s, ws in zip(left, w):
                acc += ws
                if x < acc:
                    pick = s
                    break
            place.append(pick)
            left.remove(pick)
        place += left
        scores = tuple(float(n - place.index(s)) for s in range(n))
        g = TableGame(seats, place[0], scores)
        return TableGame(seats, place[0], scores, finish_contests(g))
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
    return TableGame(seats, None, tuple(totals), deal_contests(seats, dl))


@dataclass(frozen=True)
class Outcome:
    """One synthetic tournament rated: per bot (rating, truth, interval low, high), the maker term's (rating,
    interval low, high) where fitted, and the twins' LOS."""

    bots: dict[str, tuple[float, float, float | None, float | None]]
    maker: tuple[float, float | None, float | None] | None
    twin_los: float | None


@dataclass(frozen=True)
class Cell:
    """One cell of the study: how the intervals, the maker term and the twins' LOS fared over its
    tournaments (shares as fractions; None where nothing was shown)."""

    kind: str
    entrants: int
    blocks: int
    tournaments: int
    bootstrap: int
    resample: str
    bias: dict[str, float]
    max_abs_bias: float
    rmse: float
    coverage: float | None
    coverage_se: float | None
    withheld: float
    intervals_missing_their_estimate: int
    maker_coverage: float | None
    maker_withheld: float | None
    twin_los_withheld: float
    twin_los_beyond_95: float | None
    twin_los_at_0_or_1: float | None


def one_tournament(kind: str, entrants: int, blocks: int, t: int, *, bootstrap: int = 200, seed: int = 0,
                   maker_edge: float = 120.0, resample: str = "auto") -> Outcome:
    """Tournament ``t`` of a cell, rated as a leaderboard would be: per bot (rating - truth, interval
    or None), the maker term's (rating, interval) and the twins' LOS. Its own seed, so a cell's
    tournaments can be run in any order or split over processes and give the same figures."""
    contests, seats = KINDS[kind]
    true = STRENGTHS[entrants]
    mean = sum(true.values()) / len(true)
    rng = random.Random(f"{seed}/{kind}/{entrants}/{blocks}/{t}")
    blks = table_tournament(true, blocks, rng, contests=contests, seats=seats, maker_edge=maker_edge,
                            eagerness=EAGERNESS if contests == "deal" else None)
    rep = rate(blks, bootstrap=bootstrap, seed=rng.randrange(1 << 30), resample=resample)
    m = rep.table.maker_advantage if rep.table else None
    return Outcome({b.bot: (b.rating, true[b.bot] - mean, b.ci_low, b.ci_high) for b in rep.bots},
                   (m.rating, m.ci_low, m.ci_high) if m else None, rep.los.get("twin1", {}).get("twin2"))


def study_cell(kind: str, entrants: int, blocks: int, tournaments: int, *, bootstrap: int = 200, seed: int = 0,
               maker_edge: float = 120.0, workers: int = 1, resample: str = "auto") -> Cell:
    """One cell of the study: ``tournaments`` synthetic tournaments of ``kind`` (a key of ``KINDS``) with
    ``entrants`` bots of ``STRENGTHS`` at ``blocks`` blocks, each rated as a leaderboard would be."""
    from functools import partial

    run_one = partial(one_tournament, kind, entrants, blocks, bootstrap=bootstrap, seed=seed, maker_edge=maker_edge,
                      resample=resample)
    if workers > 1:
        from multiprocessing import get_context

        with get_context("spawn").Pool(workers) as pool:
            results = pool.map(run_one, range(tournaments), chunksize=max(1, tournaments // (4 * workers)))
    else:
        results = [run_one(t) for t in range(tournaments)]
    bots = sorted(STRENGTHS[entrants])
    err: dict[str, list[float]] = {b: [] for b in bots}
    shown = hit = missed_estimate = withheld = 0
    mk_shown = mk_hit = mk_withheld = mk_total = 0
    twin_los: list[float | None] = []
    for r in results:
        for b, (rating, truth, lo, hi) in r.bots.items():
            err[b].append(rating - truth)
            if lo is None or hi is None:
                withheld += 1
                continue
            shown += 1
            hit += lo <= truth <= hi
            missed_estimate += not lo <= rating <= hi
        if r.maker:
            rating, lo, hi = r.maker
            mk_total += 1
            if lo is None or hi is None:
                mk_withheld += 1
            else:
                mk_shown += 1
                mk_hit += lo <= maker_edge <= hi
                missed_estimate += not lo <= rating <= hi
        twin_los.append(r.twin_los)
    total = tournaments * len(bots)
    bias = {b: sum(e) / len(e) for b, e in err.items()}
    los = [x for x in twin_los if x is not None]
    return Cell(
        kind=kind, entrants=entrants, blocks=blocks, tournaments=tournaments, bootstrap=bootstrap, resample=resample,
        bias={b: round(v, 1) for b, v in bias.items()},
        max_abs_bias=round(max(abs(v) for v in bias.values()), 1),
        rmse=round(math.sqrt(sum(x * x for e in err.values() for x in e) / total), 1),
        coverage=round(hit / shown, 4) if shown else None,
        coverage_se=round(math.sqrt(hit / shown * (1 - hit / shown) / shown), 4) if shown else None,
        withheld=round(withheld / total, 4),
        intervals_missing_their_estimate=missed_estimate,
        maker_coverage=round(mk_hit / mk_shown, 4) if mk_shown else None,
        maker_withheld=round(mk_withheld / mk_total, 4) if mk_total else None,
        twin_los_withheld=round(1 - len(los) / len(twin_los), 4),
        twin_los_beyond_95=round(sum(1 for x in los if x < 0.025 or x > 0.975) / len(los), 4) if los else None,
        twin_los_at_0_or_1=round(sum(1 for x in los if x <= 0.005 or x >= 0.995) / len(los), 4) if los else None,
    )


def cell_line(c: Cell) -> str:
    """One line of the printed summary."""
    def f(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}%"
    return (f"{c.kind:<11} {c.entrants} entrants {c.blocks:>2} blocks x{c.tournaments}: "
            f"coverage {f(c.coverage)} (+-{f(c.coverage_se)}), withheld {f(c.withheld)}, "
            f"maker coverage {f(c.maker_coverage)} withheld {f(c.maker_withheld)}, "
            f"max |bias| {c.max_abs_bias}, rmse {c.rmse}, missing estimate {c.intervals_missing_their_estimate}, "
            f"twin LOS withheld {f(c.twin_los_withheld)} beyond 2.5/97.5% {f(c.twin_los_beyond_95)}")


def study(kinds: Sequence[str], entrants: Sequence[int], blocks: Sequence[int], tournaments: int, *,
          bootstrap: int = 200, seed: int = 0, big: int | None = None, echo: bool = False,
          workers: int = 1, resample: str = "auto") -> list[Cell]:
    """Every cell; ``big`` tournaments (default ``tournaments``) at 20 blocks, where coverage is promised."""
    out = []
    for kind in kinds:
        for e in entrants:
            for b in blocks:
                n = big if big is not None and b == 20 else tournaments
                cell = study_cell(kind, e, b, n, bootstrap=bootstrap, seed=seed, workers=workers, resample=resample)
                if echo:
                    print(cell_line(cell), flush=True)
                out.append(cell)
    return out


def run(args: Any) -> int:
    t0 = time.perf_counter()
    cells = study(args.profiles.split(","), [int(x) for x in args.entrants.split(",")],
                  [int(x) for x in args.blocks.split(",")], args.tournaments, bootstrap=args.bootstrap,
                  seed=args.seed, big=args.big, echo=True, workers=args.workers, resample=args.resample)
    print(json.dumps({"bench": "ratings", "wall_s": round(time.perf_counter() - t0, 1),
                      "cells": [asdict(c) for c in cells]}, sort_keys=True))
    return 0
