"""A rule-based bot: hand-evaluation bidding and greedy, point-aware card play.

Strategy lives in ``cinch_bot.strategy`` so the Monte Carlo bot can reuse
the same evaluation for bidding and a related policy in its rollouts.
"""

from __future__ import annotations

from typing import Any

from cinch_bot import Bot, run
from cinch_bot.cards import SUITS, TABLES, card_index, card_name
from cinch_bot.strategy import Facts, best_trump, choose_bid, choose_play, choose_rob, choose_under


class HeuristicBot(Bot):
    name = "heuristic"
    version = "1.0"
    margin = 0.5

    def decide(self, kind: str, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        if kind == "bid":
            return choose_bid(view, legal, self.margin)
        if kind == "trump":
            hand = [card_index(c) for c in view["hand"]]
            suit, _ = best_trump(hand, view["seat"] == view["dealer"])
            return {"type": "trump", "suit": SUITS[suit]}
        if kind == "rob":
            return {"type": "rob", "take": choose_rob(legal)}
        return self.play(view, legal)

    def play(self, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        f = Facts(view)
        t = TABLES[f.trump]
        cards = [card_index(c) for c in legal["cards"]]
        top = choose_play(f.hand, cards, f.trick, f.seat, t, f.outside_trumps, f.bidder_side)
        n = int(legal.get("under") or 0)
        if not n:
            return {"type": "play", "card": card_name(top)}
        under = choose_under(top, [card_index(c) for c in legal["under_from"]], n, t)
        return {"type": "play", "card": card_name(top), "under": [card_name(c) for c in under]}


if __name__ == "__main__":
    run(HeuristicBot())
