"""The random baseline: uniform over legal plays, with a sane bidding rule.

Uniformly random bids would make hopeless contracts and rarely let a game
reach 62, so this bot bids only with a long trump suit holding a pedro.
"""

from __future__ import annotations

from typing import Any

from cinch_bot import Bot, bid_action, left_pedro, random_legal, run
from cinch_bot.cards import SUITS, is_trump


def suit_strength(hand: list[str], trump: str) -> tuple[int, bool]:
    """Number of trumps held, and whether a pedro is among them."""
    trumps = [c for c in hand if is_trump(c, trump)]
    pedro = ("5" + trump) in trumps or left_pedro(trump) in trumps
    return len(trumps), pedro


def longest_suit(hand: list[str], suits: str | list[str] = SUITS) -> str:
    """The suit of ``suits`` (the legal ones) with the most trumps, a pedro breaking ties."""
    return max(suits, key=lambda s: suit_strength(hand, s))


class RandomBot(Bot):
    name = "random"
    version = "1.0"

    def decide(self, kind: str, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        if kind == "bid":
            bids = legal.get("bids", [])
            suit = longest_suit(view["hand"])  # where bids name their trump, the bid names this suit
            if legal.get("pass") and bids:
                n, pedro = suit_strength(view["hand"], suit)
                if n >= 4 and pedro:
                    return bid_action(legal, bids[0], suit)
                return {"type": "pass"}
            if legal.get("suited"):
                return bid_action(legal, bids[0], suit)
            return random_legal(legal, kind, self.rng)
        if kind == "trump":
            return {"type": "trump", "suit": longest_suit(view["hand"], legal.get("suits") or SUITS)}
        return random_legal(legal, kind, self.rng)  # also any kind a rule profile adds


if __name__ == "__main__":
    run(RandomBot())
