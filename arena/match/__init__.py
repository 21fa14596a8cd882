"""Match running: one game, one duplicate block, over any kind of player; the
conformance checker and fault reproduction that drive them."""

from .block import (BlockResult, BlockSpec, PlayerFactory, play_block, play_blocks, play_table_blocks, rotation_seating,
                    seating)
from .game import GameResult, GameTiming, SeatFault, close_all, play_game
from .keys import DealKey, Seed, block_key, bot_seed
from .settings import FaultPolicy, MatchSettings
from ..players import TimeSettings

__all__ = [
    "BlockResult", "BlockSpec", "DealKey", "FaultPolicy", "GameResult", "GameTiming", "MatchSettings", "PlayerFactory", "SeatFault", "Seed",
    "TimeSettings", "block_key", "bot_seed", "close_all", "play_block", "play_blocks", "play_game", "play_table_blocks",
    "rotation_seating", "seating",
]
