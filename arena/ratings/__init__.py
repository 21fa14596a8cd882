"""Ratings math for cinch-arena: pure functions over plain data.

See docs/ratings.md for definitions.
"""

from .bt import RatingFitError, build_design, fit
from .data import DRAW_FLAGS, FAULT_KINDS, BlockOutcome, GameOutcome
from .report import (BotSummary, CrossEntry, LuckSummary, RatingReport, crosstable,
                     luck_correlation, luck_factor, rate)

__all__ = [
    "BlockOutcome", "BotSummary", "CrossEntry", "DRAW_FLAGS", "FAULT_KINDS", "GameOutcome",
    "LuckSummary", "RatingFitError", "RatingReport", "build_design", "crosstable", "fit",
    "luck_correlation", "luck_factor", "rate",
]
