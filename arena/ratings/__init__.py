"""Ratings math for cinch-arena: pure functions over plain data.

``bt`` fits ratings, ``rate`` rates a tournament (``report`` for pairs, ``tables`` at tables of n seats), ``luck``
measures what the duplicate design saves, ``gsprt`` holds the SPRT
arithmetic and ``sprt`` the sequential test itself. See docs/ratings.md.
"""

from .bt import RatingFitError, build_design, fit
from .data import DRAW_FLAGS, FAULT_KINDS, BlockOutcome, GameOutcome
from .gsprt import (EloEstimate, estimate, llr_logistic, llr_normalized, llr_pentanomial, llr_points,
                    llr_points_mean, logistic_score, logistic_to_normalized, matchup_bounds, matchup_elo,
                    normalized_to_logistic, pentanomial, pentanomial_estimate, points_estimate, score_to_logistic)
from .luck import PairingGain, candidate_halves, format_gain, pairing_gain
from .rate import rate
from .report import (BootstrapFits, BotSummary, CrossEntry, LuckSummary, RatingReport, bootstrap_fits, crosstable,
                     luck_summary)
from .sprt import (EXIT_ERROR, EXIT_FAILED, EXIT_INCONCLUSIVE, EXIT_PASSED, MATCHUP_LABELS, SPRT, MatchupStatus,
                   MatchupTest, SPRTRun, SPRTStatus, drive, format_status)
from .luck import factor_of as luck_factor

__all__ = [
    "BlockOutcome", "BootstrapFits", "BotSummary", "CrossEntry", "DRAW_FLAGS", "EXIT_ERROR", "EXIT_FAILED",
    "EXIT_INCONCLUSIVE", "EXIT_PASSED", "EloEstimate", "FAULT_KINDS", "GameOutcome", "LuckSummary",
    "MATCHUP_LABELS", "MatchupStatus", "MatchupTest", "PairingGain", "RatingFitError", "RatingReport", "SPRT",
    "SPRTRun", "SPRTStatus", "bootstrap_fits", "build_design", "candidate_halves", "crosstable", "drive",
    "estimate", "fit", "format_gain", "format_status", "llr_logistic", "llr_normalized", "llr_pentanomial",
    "llr_points", "llr_points_mean", "logistic_score", "logistic_to_normalized", "luck_factor", "luck_summary",
    "matchup_bounds", "matchup_elo", "normalized_to_logistic", "pairing_gain", "pentanomial",
    "pentanomial_estimate", "points_estimate", "rate", "score_to_logistic",
]

