"""Ratings at tables of n seats: individual ratings from contests of changing sides.

At a table without fixed pairs (cut-throat, five-hand, railroad; docs/rules.md 14)
a game is not one partnership against another, so the fit counts *contests*,
each side against side with a side's strength the mean of its bots' ratings
(``arena.ratings.bt``, the four-seat model with sides of one to five):

* **each for himself** (cut-throat): every seat is a side for the whole game, so
  each game gives one contest between every two seats, decided by where they
  finished (``TableGame.finish``: the winner ahead of all, then by final score;
  a forfeiting seat behind all). For a Plackett-Luce finishing order these
  pairwise results follow the Bradley-Terry model exactly, so the fit is
  consistent; the contests of one game are dependent, which the block bootstrap
  accounts for.
* **a called partner** (five-hand, railroad): the sides last one deal, so each
  scored deal gives one contest, the maker and its partner (or the maker alone)
  against the other seats, decided by which side's seats gained more in that
  deal (level: a draw). Being the maker's side is an advantage of its own (it
  chose the contract), fitted as one more parameter (``bt.MAKER_TERM``), so a
  bot that bids more often is not credited with the maker's edge. A forfeit adds
  a lost contest of the forfeiting seat against every other.

Intervals, LOS and the luck measure come from the same block bootstrap as the
four-seat report (``report.bootstrap_fits``): a unit is a table's whole block
(all its rotations), or every table's block of one deal key.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Sequence

from . import luck
from .data import DRAW_FLAGS, GameOutcome, TableBlock, TableGame
from .report import (MIN_DF, TOO_FEW_BLOCKS, BotTally, CrossEntry, MakerFit, TableFit, LuckSummary, RatingReport, bootstrap_fits, bot_summaries,
                     centred_interval, interval_note, los_table, parameter_interval)

#: How the contests of a table are built, by the profile's ``sides``.
CONTESTS = {"each": "finish", "called": "deal"}


def finish_contests(game: TableGame) -> tuple[GameOutcome, ...]:
    """One contest between every two seats (sides of one), decided by their finish."""
    out = []
    seats = game.seats
    for i in range(len(seats)):
        for j in range(i + 1, len(seats)):
            if seats[i] != seats[j]:
                out.append(GameOutcome((seats[i],), (seats[j],), game.finish(i, j)))
    return tuple(out)


def deal_contests(seats: Sequence[str], deals: Sequence[tuple[Sequence[int], Sequence[float], int]],
                  forfeit_by: int | None = None) -> tuple[GameOutcome, ...]:
    """The contests of a called-partner game: per scored deal ``(side of each seat, each seat's
    score change, maker)``, the maker's side against the rest by the change (``maker_a``); a
    forfeiting seat loses one more contest against every other seat."""
    out = []
    for sides, change, maker in deals:
        mine = sides[maker]
        a = [s for s in range(len(seats)) if sides[s] == mine]
        b = [s for s in range(len(seats)) if sides[s] != mine]
        if not b:
            continue
        ca, cb = change[a[0]], change[b[0]]
        score = 1.0 if ca > cb else 0.0 if ca < cb else 0.5
        out.append(GameOutcome(tuple(seats[s] for s in a), tuple(seats[s] for s in b), score, maker_a=True))
    if forfeit_by is not None:
        out += [GameOutcome((seats[forfeit_by],), (seats[j],), 0.0, forfeit_by=seats[forfeit_by])
                for j in range(len(seats)) if j != forfeit_by and seats[j] != seats[forfeit_by]]
    return tuple(out)


# ------------------------------------------------------------ luck: what rotation buys


def _cells(blocks: Sequence[TableBlock], statistic: str,
           weights: Sequence[float] | None = None) -> list[list[tuple[float, list[float]]]]:
    """One cell per (table, entrant): its blocks' weights and results (``luck.rotation_sums``)."""
    cells: dict[tuple[str, str], list[tuple[float, list[float]]]] = {}
    for i, blk in enumerate(blocks):
        w = 1.0 if weights is None else float(weights[i])
        for e, xs in blk.results(statistic).items():
            cells.setdefault((blk.group, e), []).append((w, xs))
    return list(cells.values())


def rotation_luck(blocks: Sequence[TableBlock], statistic: str = "standing",
                  multiplicities: Sequence[Sequence[float]] = (), level: float = 0.95,
                  df: float = math.inf) -> LuckSummary:
    """What duplicate by rotation buys, with a bootstrap interval (``centred_interval`` on ``df``
    degrees of freedom, within rho's range [-1/(n-1), 1]): rho (the mean correlation of one
    entrant's n results in a block) and factor = 1/(1 + (n-1) rho), how many times more games on
    independent deals the same precision would need (``luck.rotation_gain`` without intervals)."""
    ss_t, ss_1, df_t, df_1, n = luck.rotation_sums(_cells(blocks, statistic))
    n = n or max((len(b.games) for b in blocks), default=0)
    nb = len(blocks)
    if df_t < luck.MIN_DF:
        return LuckSummary(None, None, None, None, nb, statistic,
                           f"{nb} blocks are too few to measure what rotation saved", rotations=n)
    rho = luck.rotation_rho(ss_t, ss_1, df_t, df_1, n)
    if rho is None:
        return LuckSummary(None, None, None, None, nb, statistic, "no result varied: nothing to measure", rotations=n)
    samples = [r for mult in multiplicities
               if (r := luck.rotation_rho(*luck.rotation_sums(_cells(blocks, statistic, mult)))) is not None]
    rho_ci = centred_interval(rho, samples, df, level, (-1.0 / (n - 1), 1.0)) if samples else None
    f_ci = (luck.factor_of(rho_ci[1], n), luck.factor_of(rho_ci[0], n)) if rho_ci else None
    return LuckSummary(rho, rho_ci, luck.factor_of(rho, n), f_ci, nb, statistic, rotations=n)


# ------------------------------------------------------------ the report


def _table_stats(blocks: Sequence[TableBlock], bots: Sequence[str]) -> dict[str, BotTally]:
    st = {b: BotTally() for b in bots}
    for blk in blocks:
        for g in blk.games:
            for s, b in enumerate(g.seats):
                d = st.setdefault(b, BotTally())
                d.add(g.standing(s), "win" if g.winner == s else
                      "loss" if g.winner is not None or g.forfeit_by == s else "draw")
                d.forfeits += g.forfeit_by == s
            for b, kind in g.faults:
                if b in st:
                    st[b].faults[kind] += 1
    return st


def finish_crosstable(blocks: Sequence[TableBlock]) -> list[CrossEntry]:
    """Per two bots (sorted), over the games both played: how often the first finished ahead."""
    table: dict[tuple[str, str], list[float]] = {}
    for blk in blocks:
        for g in blk.games:
            for i, a in enumerate(g.seats):
                for j, b in enumerate(g.seats):
                    if a < b:
                        s = g.finish(i, j)
                        row = table.setdefault((a, b), [0, 0, 0, 0, 0.0])
                        row[0] += 1
                        row[1 if s == 1.0 else 2 if s == 0.5 else 3] += 1
                        row[4] += s
    return [CrossEntry(a, b, int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4]) for (a, b), r in sorted(table.items())]


def rate_tables(blocks: Sequence[TableBlock], *, anchor: tuple[str, float] | None = None, prior: bool = True,
                bootstrap: int = 1000, seed: int = 0, level: float = 0.95, resample: str = "auto") -> RatingReport:
    """Rate every bot from the contests of ``blocks`` (see the module docstring); the report has the
    four-seat report's shape, with a bot's games, wins and score counted by game and finish."""
    blocks = list(blocks)
    bf = bootstrap_fits(blocks, anchor=anchor, prior=prior, bootstrap=bootstrap, seed=seed, resample=resample)
    bots, full, samples = bf.bots, bf.full, bf.samples
    summaries = bot_summaries(bf, _table_stats(blocks, bots), level)
    note = interval_note(summaries, bool(samples), level)
    games = [g for blk in blocks for g in blk.games]
    flags = Counter(g.flag for g in games if g.flag is not None)
    kinds = {c.maker_a for blk in blocks for c in blk.contests}
    maker: MakerFit | None = None
    if bf.terms:
        k = len(bots)
        mci = parameter_interval(bf, k, level)
        mdf = bf.df[k] if samples else None
        maker = MakerFit(full[k], mci[0] if mci else None, mci[1] if mci else None, mdf,
                         TOO_FEW_BLOCKS if mdf is not None and mdf < MIN_DF else None)
    seats = max((len(g.seats) for g in games), default=0)
    return RatingReport(
        bots=summaries, los=los_table(bf), crosstable=finish_crosstable(blocks),
        luck=rotation_luck(blocks, "standing", bf.multiplicities, level, bf.total_df),
        anchor=f"{anchor[0]} fixed at {anchor[1]:g}" if anchor is not None else "mean of all bots fixed at 0",
        prior=prior, bootstrap=bootstrap, bootstrap_failures=bf.failures, seed=seed, games=len(games),
        blocks=len(blocks), flags={f: flags.get(f, 0) for f in sorted(DRAW_FLAGS | set(flags))},
        luck_points=rotation_luck(blocks, "final_score", bf.multiplicities, level, bf.total_df),
        resample=bf.resample, interval_note=note,
        table=TableFit(seats, "deal" if True in kinds else "finish", sum(len(blk.contests) for blk in blocks), maker),
    )

