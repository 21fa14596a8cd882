"""The tournament results store: append-only JSON Lines, its schema and its one reader."""

from .schema import SCHEMA_VERSION, BotRef, GameLine, ResultLine, RunInfo, game_id
from .standings import Standing, bot_ids, seat_ref, side_a_halves, side_a_sample, standings
from .store import (LoadedResults, ResultsError, ResultsScan, ResultsStore, combined_digest, comparable, line_digest,
                    line_key, read_results, results_path, scored_digest, stderr_path, without_records, write_stderr)

__all__ = [
    "SCHEMA_VERSION", "BotRef", "GameLine", "LoadedResults", "ResultLine", "ResultsError", "ResultsScan", "ResultsStore", "combined_digest", "line_digest", "RunInfo",
    "Standing", "bot_ids", "comparable", "game_id", "line_key", "read_results", "results_path", "scored_digest", "side_a_halves", "side_a_sample", "seat_ref", "standings",
    "stderr_path", "without_records", "write_stderr",
]
