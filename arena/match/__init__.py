"""Match running: one game, one duplicate block, over any kind of player."""

from .block import BlockResult, PlayerFactory, bot_seed, play_block, seating
from .game import GameResult, SeatFault, play_game
from .settings import FaultPolicy, MatchSettings, TimeSettings

__all__ = [
    "BlockResult", "FaultPolicy", "GameResult", "MatchSettings", "PlayerFactory", "SeatFault",
    "TimeSettings", "bot_seed", "play_block", "play_game", "seating",
]
