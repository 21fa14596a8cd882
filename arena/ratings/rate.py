"""``rate``: the one entry point of the ratings, for either kind of tournament.

Two-pair duplicate blocks go to ``report.rate_pairs``, blocks of a table of n
seats to ``tables.rate_tables``; both build the same ``RatingReport``.
"""

from __future__ import annotations

from typing import Sequence

from .data import BlockOutcome, TableBlock
from .memo import ResampleMemo
from .report import RatingReport, rate_pairs
from .tables import rate_tables


def rate(
    blocks: Sequence[BlockOutcome | TableBlock],
    *,
    anchor: tuple[str, float] | None = None,
    prior: bool = True,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    resample: str = "auto",
    memo: ResampleMemo | None = None,
) -> RatingReport:
    """Rate every bot from all games of ``blocks``, all of one kind (``ValueError`` for a mix). ``memo``: what
    the last call on a store that has since grown summed per matchup and pairing (two-pair blocks: see
    ``memo.ResampleMemo``; the same report, in less time)."""
    blocks = list(blocks)
    tables = [b for b in blocks if isinstance(b, TableBlock)]
    if not tables:
        return rate_pairs([b for b in blocks if isinstance(b, BlockOutcome)], anchor=anchor, prior=prior,
                          bootstrap=bootstrap, seed=seed, level=level, resample=resample, memo=memo)
    if len(tables) != len(blocks):
        raise ValueError("the blocks mix two-pair duplicate blocks and table blocks: rate each kind apart")
    return rate_tables(tables, anchor=anchor, prior=prior, bootstrap=bootstrap, seed=seed, level=level,
                       resample=resample)
