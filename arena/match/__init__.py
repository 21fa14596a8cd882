"""Match running: one game, one duplicate block, over any kind of player; the
conformance checker and fault reproduction that drive them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

from ..players import TimeSettings

if TYPE_CHECKING:
    from .block import (BlockResult, BlockSpec, PlayerFactory, play_block, play_blocks, play_table_blocks, rotation_seating,
                        seating)
    from .game import GameResult, GameTiming, SeatFault, close_all, play_game
    from .keys import DealKey, Seed, block_key, bot_seed
    from .settings import FaultPolicy, MatchSettings

__getattr__ = lazy_names(__name__, {
    ".block": ("BlockResult", "BlockSpec", "PlayerFactory", "play_block", "play_blocks", "play_table_blocks", "rotation_seating", "seating"),
    ".game": ("GameResult", "GameTiming", "SeatFault", "close_all", "play_game"),
    ".keys": ("DealKey", "Seed", "block_key", "bot_seed"),
    ".settings": ("FaultPolicy", "MatchSettings"),
})

__all__ = [
    "BlockResult", "BlockSpec", "DealKey", "FaultPolicy", "GameResult", "GameTiming", "MatchSettings", "PlayerFactory", "SeatFault", "Seed",
    "TimeSettings", "block_key", "bot_seed", "close_all", "play_block", "play_blocks", "play_game", "play_table_blocks",
    "rotation_seating", "seating",
]
