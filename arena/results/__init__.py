"""The tournament results store: append-only JSON Lines and its schema."""

from .schema import SCHEMA_VERSION, BotRef, GameLine, ResultLine, RunInfo
from .store import ResultsStore, StoreError, comparable, write_stderr
from .standings import Standing, standings

__all__ = [
    "SCHEMA_VERSION", "BotRef", "GameLine", "ResultLine", "ResultsStore", "RunInfo", "Standing", "StoreError",
    "comparable", "standings", "write_stderr",
]
