"""A rule-based bot: hand-evaluation bidding and greedy, point-aware card play.

Strategy lives in ``cinch_bot.strategy`` so the Monte Carlo bot can reuse
the same evaluation for bidding and a related policy in its rollouts.
"""

from __future__ import annotations

from typing import Any

from cinch_bot import run
from cinch_bot.strategy import EvaluatingBot, Facts, choose_play


class HeuristicBot(EvaluatingBot):
    name = "heuristic"
    version = "1.0"

    def choose_top(self, view: dict[str, Any], facts: Facts, cards: list[int]) -> int:
        f = facts
        return choose_play(f.hand, cards, f.trick, f.seat, f.t, f.outside_trumps, f.bidder_side, f.sides)


if __name__ == "__main__":
    run(HeuristicBot())
