"""The SPRT of ``arena sprt`` lives in :mod:`arena.ratings.sprt`; re-exported here for old imports."""

from ..ratings.sprt import (CANDIDATE_SEATS, EXIT_ERROR, EXIT_FAILED, EXIT_INCONCLUSIVE, EXIT_PASSED,  # noqa: F401
                            MATCHUP_LABELS, MatchupStatus, MatchupTest, SPRTRun, drive, format_status)
