"""Ratings math for cinch-arena: pure functions over plain data.

See docs/ratings.md for definitions.
"""

from .bt import RatingFitError, build_design, fit
from .data import DRAW_FLAGS, FAULT_KINDS, BlockOutcome, GameOutcome
from .report import (BootstrapFits, BotSummary, CrossEntry, LuckSummary, RatingReport, crosstable,
                     bootstrap_fits, luck_correlation, luck_factor, rate,
                     same_cards_residuals)

__all__ = [
    "BlockOutcome", "BootstrapFits", "BotSummary", "bootstrap_fits", "same_cards_residuals", "CrossEntry", "DRAW_FLAGS", "FAULT_KINDS", "GameOutcome",
    "LuckSummary", "RatingFitError", "RatingReport", "build_design", "crosstable", "fit",
    "luck_correlation", "luck_factor", "rate",
]

from .sprt import (SPRT, SPRTStatus, EloEstimate, llr_pentanomial, llr_points,  # noqa: E402
                   logistic_to_normalized, matchup_bounds, matchup_elo, normalized_to_logistic,
                   pentanomial, pentanomial_estimate, points_estimate)

__all__ += [
    "SPRT", "SPRTStatus", "EloEstimate", "llr_pentanomial", "llr_points", "logistic_to_normalized",
    "matchup_bounds", "matchup_elo", "normalized_to_logistic", "pentanomial", "pentanomial_estimate",
    "points_estimate",
]

from .sequential import (EXIT_ERROR, EXIT_FAILED, EXIT_INCONCLUSIVE, EXIT_PASSED, MATCHUP_LABELS,  # noqa: E402
                         MatchupStatus, MatchupTest, SPRTRun, format_status)

__all__ += ["EXIT_ERROR", "EXIT_FAILED", "EXIT_INCONCLUSIVE", "EXIT_PASSED", "MATCHUP_LABELS", "MatchupStatus",
            "MatchupTest", "SPRTRun", "format_status"]
