"""cinch_bot: a tiny standard-library SDK for cinch-arena bots (protocol v1).

    from cinch_bot import Bot, run, random_legal

    class MyBot(Bot):
        name, version = "mybot", "1.0"
        def decide(self, kind, view, legal):
            return random_legal(legal, kind, self.rng)

    if __name__ == "__main__":
        run(MyBot())
"""

from .bot import PROTOCOL, Bot, run
from .cards import (
    CARD_NAMES,
    JOKER,
    PAGAT62,
    POINT_CARDS,
    RANKS,
    SUITS,
    TABLES,
    TRUMP_ORDER,
    Tables,
    card_index,
    card_name,
    card_points,
    deck_of,
    effective_suit,
    indices,
    is_trump,
    left_pedro,
    names,
    param,
    rank,
    rank_value,
    sister_suit,
    suit,
    tables_for,
    trick_winner,
    trump_power,
    trumps_high_to_low,
)
from .legal import bid_action, is_legal, other_legal, random_legal

__all__ = [n for n in dir() if not n.startswith("_")]
__version__ = "1.0.0"
