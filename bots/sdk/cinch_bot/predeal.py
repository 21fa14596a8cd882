"""The part of a deal before trick play, simulated for search bots: the auction, the discard,
the fill and the rob, on sampled deals, up to a ``PlayState`` the solver can solve.

A bot that evaluates its bid or its trump by solving sampled deals needs, for each sample,
the hands as play begins: every seat keeps its trumps, the dealer fills the other hands from
the stock in order and robs it (RULES.md 5). This models the profiles whose deal runs that way
(``supported``: pagat62 and the profiles that differ from it only in points, scoring, bids or
the play rules), not the kitties, widows, second deals, chosen discards and other robs of the
rest, where a bot keeps its hand evaluation. The other seats bid and rob as the SDK's
heuristics do (``cinch_bot.strategy``): a model of the table, not knowledge of it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from .cards import Tables, card_index, card_name, deck_of, param
from .sim import PlayState
from .strategy import best_trump, choose_bid, keep_key


def supported(profile: Mapping[str, Any] | None) -> bool:
    """Whether ``DealModel`` plays this profile's deals as the engine does up to trick play."""
    return (param(profile, "players") == 4 and param(profile, "sides") == "pairs"
            and param(profile, "discard") == "non_trumps" and param(profile, "rob") == "take_trumps"
            and param(profile, "rob_from") == "stock" and param(profile, "extra_trumps") == "play_under"
            and not param(profile, "kitty") and not param(profile, "widow") and not param(profile, "second_deal")
            and not param(profile, "joker") and param(profile, "call") is None
            and int(param(profile, "hand_size")) == 6 and sum(param(profile, "packets")) == 9)


def auction_supported(profile: Mapping[str, Any] | None) -> bool:
    """Whether ``DealModel.auction`` follows this profile's auction (one round, the dealer
    last, bids without a suit); the trump and the rob need only ``supported``."""
    return (supported(profile) and param(profile, "auction") == "once_around"
            and param(profile, "bid_start") == "left" and not param(profile, "bid_suits")
            and param(profile, "dealer_low_bid") is None)


class DealModel:
    """One seat's knowledge of a deal before play (a ``bid``, ``trump`` or ``rob`` view), and
    the deals consistent with it.

    ``sample`` deals the cards this seat has not seen: nine to each other seat and the rest,
    in a random order, as the stock. ``play_state`` plays a sampled deal to the first lead
    for a maker and a trump: discards, the fill (a pile reshuffled in a random order when the
    stock runs out), the dealer's rob.
    """

    def __init__(self, view: Mapping[str, Any], profile: Mapping[str, Any] | None, tables: Sequence[Tables]) -> None:
        self.profile = profile
        self.tables = tables
        self.seat: int = int(view["seat"])
        self.dealer: int = int(view["dealer"])
        self.dealt = [card_index(c) for c in view.get("dealt") or view["hand"]]
        self.order = [(self.dealer + 1 + i) % 4 for i in range(4)]  # bidding and filling order: the dealer last
        self.unseen = sorted(deck_of(profile) - set(self.dealt))
        self.bids = [(int(b["seat"]), int(b["amount"])) for b in view.get("bids") or []]
        self.hand_size = int(param(profile, "hand_size"))
        self.mode = str(param(profile, "play"))
        self.first_trump = bool(param(profile, "first_lead_trump"))

    def sample(self, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """The nine cards each seat was dealt (this seat's as they were) and the stock, top first."""
        cards = list(self.unseen)
        rng.shuffle(cards)
        hands: list[list[int]] = []
        pos = 0
        for s in range(4):
            if s == self.seat:
                hands.append(list(self.dealt))
            else:
                hands.append(cards[pos:pos + 9])
                pos += 9
        return hands, cards[pos:]

    def consistent(self, hands: Sequence[Sequence[int]], margin: float) -> bool:
        """Whether each bid made so far is what the heuristic bidder would have made with the
        sampled hand (a pass with a hand it would not bid, a bid with one it would)."""
        high = 0
        for i, (seat, amount) in enumerate(self.bids):
            if seat != self.seat:
                would = self.heuristic_bid(hands[seat], seat, high, margin, self.bids[:i])
                if (amount > 0) != (would > 0):
                    return False
            high = max(high, amount)
        return True

    def legal_bids(self, seat: int, high: int) -> dict[str, Any]:
        """The bid choice of ``seat`` when ``high`` is the highest bid so far (0: none)."""
        p = self.profile
        lo, hi = int(param(p, "min_bid")), int(param(p, "max_bid"))
        forced = param(p, "dealer_forced_bid")
        if seat == self.dealer and high == 0 and forced is not None:
            amounts = list(range(int(forced), hi + 1)) if param(p, "forced_bid_any") else [int(forced)]
            return {"pass": False, "bids": amounts}
        return {"pass": True, "bids": list(range(max(lo, high + 1), hi + 1))}

    def heuristic_bid(self, hand: Sequence[int], seat: int, high: int, margin: float,
                      bids_so_far: Sequence[tuple[int, int]]) -> int:
        """What ``choose_bid`` bids with ``hand`` after ``bids_so_far`` (0: pass)."""
        view = {"hand": [card_name(c) for c in hand], "seat": seat, "dealer": self.dealer, "partner": (seat + 2) % 4,
                "bids": [{"seat": s, "amount": a} for s, a in bids_so_far]}
        legal = self.legal_bids(seat, high)
        if not legal["bids"]:
            return 0
        act = choose_bid(view, legal, margin, self.tables)
        return int(act["amount"]) if act["type"] == "bid" else 0

    def auction(self, hands: Sequence[Sequence[int]], my_bid: int, margin: float) -> tuple[int, int]:
        """(maker, bid) when this seat bids ``my_bid`` (0: pass) now and the seats after it
        bid as the heuristic does; (-1, 0) when everybody passes (a void deal)."""
        bids = list(self.bids) + [(self.seat, my_bid)]
        high = max((a for _, a in bids), default=0)
        maker = max(bids, key=lambda b: b[1])[0] if high else -1
        me = self.order.index(self.seat)
        for s in self.order[me + 1:]:
            a = self.heuristic_bid(hands[s], s, high, margin, bids)
            bids.append((s, a))
            if a > high:
                high, maker = a, s
        return maker, high

    def heuristic_trump(self, hand: Sequence[int], seat: int) -> int:
        """The suit ``best_trump`` names with ``hand``."""
        return best_trump(hand, seat == self.dealer, self.tables)[0]

    def play_state(self, hands: Sequence[Sequence[int]], stock: Sequence[int], maker: int, trump: int,
                   rng: random.Random, dealer_take: Sequence[int] | None = None) -> PlayState:
        """The deal at the first lead: every seat keeps its trumps, the dealer fills the others
        from ``stock`` (its left first) and robs: every trump of the stock, then the plain cards
        ``choose_rob`` prefers (or ``dealer_take``), blind from the reshuffled pile if short."""
        t = self.tables[trump]
        power = t.power
        kept = [[c for c in h if power[c] >= 0] for h in hands]
        pile = [c for h in hands for c in h if power[c] < 0]
        stock = list(stock)
        size = self.hand_size

        def draw(n: int) -> list[int]:
            nonlocal stock, pile
            got: list[int] = []
            while len(got) < n:
                if not stock:
                    if not pile:
                        break
                    stock, pile = pile, []
                    rng.shuffle(stock)
                k = n - len(got)
                got += stock[:k]
                del stock[:k]
            return got

        for s in self.order[:-1]:
            need = size - len(kept[s])
            if need > 0:
                kept[s] += draw(need)
        d = self.dealer
        trumps = [c for c in stock if power[c] >= 0]
        plains = [c for c in stock if power[c] < 0]
        short = max(0, size - len(kept[d]) - len(trumps))
        if dealer_take is not None:
            take = list(dealer_take)
        else:
            take = sorted(plains, key=lambda c: keep_key(c, t), reverse=True)[:short]
        kept[d] += trumps + take
        stock = [c for c in stock if c not in trumps and c not in take]
        if len(kept[d]) < size:
            stock = []
            kept[d] += draw(size - len(kept[d]))
        low_side = next((s % 2 for s in range(4) if t.low in kept[s]), -1)
        return PlayState(t, kept, [], maker, 0, [0, 0], low_side, maker % 2, self.mode, size, self.first_trump)

