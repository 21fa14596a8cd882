"""A deal's score change under a rule profile (docs/rules.md 7 and 11).

Search bots score thousands of simulated deals per decision, and a deal is
worth what the game's profile says, not what pagat62 says: a set costs the
bid, or pays the defenders, a made full bid may double, a bid in the dark
wins or loses its own value. One function reads
every scoring parameter of the profile so no bot keeps a copy of the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cards import param, tables_for


def deal_total(profile: Mapping[str, Any] | None) -> int:
    """The points the cards of one deal carry under ``profile``."""
    return tables_for(profile)[0].total


Scorer = Callable[[Sequence[int], int, int, bool], tuple[int, int]]


def scorer(profile: Mapping[str, Any] | None) -> Scorer:
    """``deal_delta`` with the profile's parameters read once: for rollouts."""
    difference = param(profile, "scoring") == "difference"
    gap = param(profile, "set_rule") == "total_plus_gap"
    doubles = bool(param(profile, "full_bid_doubles"))
    total = deal_total(profile)
    dark_value = param(profile, "dark_bid")

    def delta(points: Sequence[int], bidder_side: int, bid: int, dark: bool = False) -> tuple[int, int]:
        b, d = bidder_side, 1 - bidder_side
        out = [0, 0]
        made = points[b] >= bid
        if difference:
            if made:
                diff = points[b] - points[d]
                out[b if diff > 0 else d] = abs(diff)
            else:
                out[d] = (total + bid - points[b]) if gap else (points[d] + bid)
        else:
            out[d] = points[d]
            out[b] = (2 * bid if doubles and bid == total else points[b]) if made else -bid
            if dark and dark_value:
                out[b] = dark_value if made else -dark_value
        return out[0], out[1]

    return delta


def deal_delta(points: Sequence[int], bidder_side: int, bid: int,
               profile: Mapping[str, Any] | None = None, dark: bool = False) -> tuple[int, int]:
    """Score change per side ``(side0, side1)`` for a deal with these ``points``.

    ``standard``: each side adds its points; bidders short of their bid lose
    the bid instead; with ``full_bid_doubles`` a made bid of the deal's whole
    total scores double. ``difference``: made, the side with more points
    scores the difference; set, the defenders score their points plus the
    bid (``points_plus_bid``) or the deal's total plus the bidders'
    shortfall (``total_plus_gap``). A bid made in the ``dark`` (before the
    deal, under a profile with ``dark_bid``) scores or loses ``dark_bid``.
    """
    return scorer(profile)(points, bidder_side, bid, dark)
