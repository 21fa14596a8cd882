"""The tournament results store: append-only JSON Lines, its schema (typed lines) and its one reader."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from .standings import Standing, bot_ids, side_a_halves, side_a_sample, standings  # eager: standings is its module's name

if TYPE_CHECKING:
    from .schema import (SCHEMA_VERSION, BotRef, Fault, GameLine, JsonObject, PairsLine, Reproduce, ResultLine, RunInfo, Seating, TableLine,
                         game_id, parse_line, seatings, trusted_line)
    from .store import (LoadedResults, ResultsError, ResultsScan, ResultsStore, StoreIndex, combined_digest, comparable, line_digest,
                        line_key, read_results, results_path, scored_digest, stderr_path, stored_line, without_records, write_stderr)

__getattr__ = lazy_names(__name__, {
    ".schema": ("SCHEMA_VERSION", "BotRef", "Fault", "GameLine", "JsonObject", "PairsLine", "Reproduce", "ResultLine", "RunInfo", "Seating", "TableLine", "game_id", "parse_line", "seatings", "trusted_line"),
    ".store": ("LoadedResults", "ResultsError", "ResultsScan", "ResultsStore", "StoreIndex", "combined_digest", "comparable", "line_digest", "line_key", "read_results", "results_path", "scored_digest", "stderr_path", "stored_line", "without_records", "write_stderr"),
})

__all__ = [
    "SCHEMA_VERSION", "BotRef", "Fault", "GameLine", "JsonObject", "LoadedResults", "PairsLine", "ResultLine", "ResultsError",
    "Reproduce", "ResultsScan", "ResultsStore", "RunInfo", "StoreIndex", "Seating", "Standing", "TableLine", "bot_ids", "combined_digest",
    "comparable", "game_id", "line_digest", "line_key", "parse_line", "read_results", "results_path",
    "scored_digest", "seatings", "stored_line", "trusted_line", "side_a_halves", "side_a_sample", "standings", "stderr_path", "without_records",
    "write_stderr",
]
