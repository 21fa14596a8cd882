"""Tournaments: configs, pairings, block tasks, backends, resume."""

from .config import ConfigError, Tournament, TournamentConfig, load_config
from .pairings import Pairing, gauntlet, mixed, round_robin
from .scheduler import block_key, plan_tasks, run_tasks
from .task import BlockTask, TaskOutput, run_block

__all__ = [
    "BlockTask", "ConfigError", "Pairing", "TaskOutput", "Tournament", "TournamentConfig", "block_key",
    "gauntlet", "load_config", "mixed", "plan_tasks", "round_robin", "run_block", "run_tasks",
]
