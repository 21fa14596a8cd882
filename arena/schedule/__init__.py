"""Tournaments: configs, pairings, block tasks, backends, the one loop, resume.

``SPRTStop`` (and with it the ratings' SPRT code) loads on first use: only
``arena sprt`` and SPRT configs stop by a test.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from ..match.keys import block_key
from .config import ConfigError, SPRTSpec, Tournament, TournamentConfig, build_tournament, load_config
from .pairings import Pairing, gauntlet, mixed, round_robin, sprt_matchups
from .runner import (
    Admission, BackendChoice, BotChange, BotsChanged, EntriesFailed, ExtensionNotAsked, OtherTournament, Plan, Played,
    RunObserver, RunOptions, RunRefused, RunResult, admit, check, choose_backend, keep_played_restart, plan, plan_tasks,
    play, read_meta, run_tournament, summarize,
)
from .scheduler import LoopEvents, RunOutcome, StoppingRule, run_tasks
from .lineage import PlanRefused, check_plan, make_units
from .task import TaskOutput, run_block
from .unit import BatchTask, BlockTask, Unit

if TYPE_CHECKING:
    from .stopping import SPRTStop

__getattr__ = lazy_names(__name__, {".stopping": ("SPRTStop",)})

__all__ = [
    "Admission", "BackendChoice", "BotChange", "BotsChanged", "EntriesFailed", "ExtensionNotAsked", "OtherTournament",
    "Plan", "Played", "RunObserver", "admit", "check", "choose_backend", "keep_played_restart", "plan", "play", "read_meta",
    "summarize",
    "BatchTask", "BlockTask", "ConfigError", "PlanRefused", "Unit", "check_plan", "make_units", "LoopEvents", "Pairing", "RunOptions", "RunOutcome", "RunRefused", "RunResult",
    "SPRTSpec", "SPRTStop", "StoppingRule", "TaskOutput", "Tournament", "TournamentConfig", "block_key",
    "build_tournament", "gauntlet", "load_config", "mixed", "plan_tasks", "round_robin", "run_block", "run_tasks",
    "run_tournament", "sprt_matchups",
]
