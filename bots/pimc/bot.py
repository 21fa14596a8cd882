"""Perfect-information Monte Carlo: sample the unseen cards, solve each world exactly.

For each play decision it deals the unseen cards to the other hands
(``cinch_bot.sim.Sampler``: counts, kept-trump minimums and shown voids
respected) and solves every legal card in each world exactly
(``cinch_bot.solver``: the compiled core, or its pure-Python twin). Each
card's solved points are scored by the game's profile (``cinch_bot.scoring``:
a set costs the bid) and it plays the card with the best total over the
worlds.

The budget is counted, never timed: ``CINCH_PIMC_NODES`` search positions a
decision, each world also charged ``WORLD_COST`` for its sampling, and at
most ``CINCH_PIMC_WORLDS`` worlds. A world the budget cannot finish is
dropped whole. So its play depends only on its seed, on any machine and
under any load; the defaults are calibrated to stay under 100 ms of CPU a
decision on one core (bots/README.md).
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Callable
from typing import Any

from cinch_bot import run
from cinch_bot.cards import SUITS, card_index, card_name, param
from cinch_bot.predeal import DealModel, auction_supported, supported
from cinch_bot.scoring import scorer
from cinch_bot.sim import PlayState, Sampler
from cinch_bot.solver import solve_cards, solve_value
from cinch_bot.strategy import EvaluatingBot, Facts, best_trump, choose_bid, choose_play, estimate_points, keep_key

DEFAULT_NODES = 300_000
DEFAULT_WORLDS = 48
DEFAULT_DEALS = "bid,trump,rob"
WORLD_COST = 400
"""Nodes a world is charged for its sampling and set-up (about 60 us of Python, as the core
searches about 5-7 million positions a second)."""
DEAL_COST = 300
"""Nodes charged for playing a sampled deal to its first lead (``DealModel.play_state``), or for
one try at a deal consistent with the bids so far."""
TRIES = 8
"""Samples tried for a deal consistent with the bids so far, before taking the last one."""
TRUMP_SPREAD = 1.5
"""Suits the hand evaluation rates this close to the best are compared by solving."""
TRUMP_OVERRIDE = 2.0
"""Mean score change by which a solved suit must beat the hand evaluation's pick to replace it."""
DEFAULT_OPTIMISM = 1.0
"""Points a solved sampled deal overstates the maker's side by: both sides play it perfectly,
knowing every card, and the maker's side picks the trump that suits its cards."""
ROB_CANDIDATES = 10
"""Sets of plain cards a robbing dealer values by solving (the most promising by rank)."""


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw else default


def final_total(st: PlayState) -> int:
    """Both sides' points at the deal's end: what they have now and every point still in play."""
    cap = st.t.captured
    p = st.points()
    return p[0] + p[1] + sum(cap[c] for h in st.hands for c in h) + sum(cap[c] for _, c in st.trick)


class PimcBot(EvaluatingBot):
    name = "pimc"
    version = "0.2"

    def __init__(self, nodes: int | None = None, worlds: int | None = None, deals: str | None = None,
                 optimism: float | None = None) -> None:
        super().__init__()
        env_o = os.environ.get("CINCH_PIMC_OPTIMISM")
        self.optimism = optimism if optimism is not None else float(env_o) if env_o else DEFAULT_OPTIMISM
        self.nodes = nodes if nodes is not None else _env_int("CINCH_PIMC_NODES", DEFAULT_NODES)
        self.worlds = worlds if worlds is not None else _env_int("CINCH_PIMC_WORLDS", DEFAULT_WORLDS)
        # the decisions made by solving sampled deals (the others by hand evaluation, as the heuristic bot)
        raw = deals if deals is not None else os.environ.get("CINCH_PIMC_DEALS", DEFAULT_DEALS)
        self.deals = {k.strip() for k in raw.split(",") if k.strip()}
        unknown = self.deals - {"bid", "trump", "rob"}
        if unknown:
            raise ValueError(f"CINCH_PIMC_DEALS: {', '.join(sorted(unknown))} (the kinds are bid, trump and rob)")
        self.last_nodes = 0  # what the last search charged (tests, measurements)
        self.last_worlds = 0

    def decide(self, kind: str, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        """Bids, the trump and the rob by solving sampled deals where ``cinch_bot.predeal`` models
        the profile's deal; everything else as ``EvaluatingBot`` (play: ``choose_top``)."""
        self.last_nodes = self.last_worlds = 0
        profile = self.profile
        if kind not in self.deals:
            return super().decide(kind, view, legal)
        if kind == "bid" and view.get("phase") != "dark" and auction_supported(profile) and legal.get("bids"):
            return self.bid(view, legal)
        if kind == "trump" and supported(profile) and view.get("maker") == view.get("seat"):
            return self.trump(view, legal)
        if (kind == "rob" and supported(profile) and view.get("trump") and "take" in legal and "automatic" in legal
                and 0 < int(legal["take"]) < len(legal["from"])):
            return self.rob(view, legal)
        return super().decide(kind, view, legal)

    # ---- bidding, trump and the rob: solved sampled deals ----

    def _spend(self, n: int) -> bool:
        """Charge ``n`` nodes to this decision if they fit in its budget."""
        if self.last_nodes + n > self.nodes:
            return False
        self.last_nodes += n
        return True

    def _deals(self, model: DealModel, value: Callable[[list[list[int]], list[int], int], bool]) -> None:
        """Sample deals (consistent with the bids so far where one of ``TRIES`` is) and call
        ``value(hands, stock, seed)`` on each until it returns False or the budget ends."""
        while self.last_worlds < self.worlds and self._spend(WORLD_COST):
            for _ in range(TRIES):
                if not self._spend(DEAL_COST):
                    return
                hands, stock = model.sample(self.rng)
                if model.consistent(hands, self.margin):
                    break
            if not value(hands, stock, self.rng.getrandbits(32)):
                return
            self.last_worlds += 1

    def _solved(self, st: PlayState) -> tuple[int, int] | None:
        """Each side's final points under perfect play from ``st`` (None: over the budget)."""
        v, n = solve_value(st, self.nodes - self.last_nodes)
        self.last_nodes += n
        if v is None:
            return None
        total = final_total(st)
        p0 = (total + v) // 2
        return p0, total - p0

    def _outcome(self, model: DealModel, hands: list[list[int]], stock: list[int], seed: int, maker: int,
                 trump: int) -> tuple[int, int] | None:
        """Each side's points when ``maker`` names ``trump`` in the sampled deal and both sides
        play it perfectly; None when the budget ends first."""
        if not self._spend(DEAL_COST):
            return None
        return self._solved(model.play_state(hands, stock, maker, trump, random.Random(seed)))

    def bid(self, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        """The heuristic's bid rule on a solved estimate: this seat's side's mean points over
        sampled deals in which it makes the suit the hand evaluation rates best, solved for
        perfect play, less ``optimism`` (perfect play on both sides favours the maker)."""
        model = DealModel(view, self.profile, self.tables)
        hand = [card_index(c) for c in view["hand"]]
        me, side = model.seat, model.seat % 2
        trump = best_trump(hand, me == model.dealer, self.tables)[0]
        points: list[int] = []

        def value(hands: list[list[int]], stock: list[int], seed: int) -> bool:
            got = self._outcome(model, hands, stock, seed, me, trump)
            if got is None:
                return False
            points.append(got[side])
            return True

        self._deals(model, value)
        if not points:
            return super().decide("bid", view, legal)
        estimate = sum(points) / len(points) - self.optimism
        return choose_bid(view, legal, self.margin, self.tables, estimate)

    def trump(self, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        """Of the legal suits the hand evaluation rates within ``TRUMP_SPREAD`` points of the
        best, the one with the best mean score change over solved sampled deals; the hand
        evaluation's own pick unless another beats it there by ``TRUMP_OVERRIDE`` points (a
        dozen solved deals cannot tell suits apart more finely)."""
        model = DealModel(view, self.profile, self.tables)
        hand = [card_index(c) for c in view["hand"]]
        me, side = model.seat, model.seat % 2
        dealer = me == model.dealer
        rated = sorted(((estimate_points(hand, SUITS.index(x), dealer, self.tables), SUITS.index(x))
                        for x in (legal.get("suits") or SUITS)), reverse=True)
        suits = [s for e, s in rated if e >= rated[0][0] - TRUMP_SPREAD]
        if len(suits) == 1:
            return {"type": "trump", "suit": SUITS[suits[0]]}
        delta = scorer(self.profile)
        bid = int(view["bid"])
        totals = [0.0] * len(suits)

        def value(hands: list[list[int]], stock: list[int], seed: int) -> bool:
            world = []
            for s in suits:
                got = self._outcome(model, hands, stock, seed, me, s)
                if got is None:
                    return False
                d = delta(got, side, bid, False)
                world.append(d[side] - d[1 - side])
            for i, v in enumerate(world):
                totals[i] += v
            return True

        self._deals(model, value)
        best = max(range(len(suits)), key=lambda i: totals[i]) if self.last_worlds else 0
        if self.last_worlds and totals[best] - totals[0] < TRUMP_OVERRIDE * self.last_worlds:
            best = 0
        return {"type": "trump", "suit": SUITS[suits[best]]}

    def rob(self, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        """The plain cards to take from the stock: of the ``ROB_CANDIDATES`` sets the hand
        evaluation rates best, the one with the best mean score change over solved deals (the
        other hands sampled as in play)."""
        t = self.tables[SUITS.index(view["trump"])]
        k = int(legal["take"])
        pool = sorted((card_index(c) for c in legal["from"]), key=lambda c: keep_key(c, t), reverse=True)
        # the sets of the k + 2 best cards by rank (the heuristic's own pick first)
        cands = [list(c) for c in itertools.combinations(pool[:k + 2], k)][:ROB_CANDIDATES]
        auto = [card_index(c) for c in legal.get("automatic") or []]
        base = [card_index(c) for c in view["hand"]] + auto
        seen = dict(view, hand=[card_name(c) for c in base])
        f = Facts(seen, self.tables, self.profile)
        sampler = Sampler(seen, f)
        maker = int(view["maker"])
        side = f.seat % 2
        delta = scorer(self.profile)
        totals = [0.0] * len(cands)
        mode = str(param(self.profile, "play"))
        first = bool(param(self.profile, "first_lead_trump"))
        while self.last_worlds < self.worlds and self._spend(WORLD_COST):
            hands = sampler.sample(self.rng)
            world = []
            for c in cands:
                hs = [list(h) for h in hands]
                hs[f.seat] = base + c
                low_side = next((s % 2 for s in range(4) if t.low in hs[s]), -1)
                got = self._solved(PlayState(t, hs, [], maker, 0, [0, 0], low_side, maker % 2, mode, 6, first))
                if got is None:
                    break
                d = delta(got, maker % 2, f.bid, False)
                world.append(d[side] - d[1 - side])
            if len(world) < len(cands):
                break
            for i, v in enumerate(world):
                totals[i] += v
            self.last_worlds += 1
        pick = cands[max(range(len(cands)), key=lambda i: totals[i])] if self.last_worlds else pool[:k]
        return {"type": "rob", "take": [card_name(c) for c in pick]}

    # ---- play ----

    def choose_top(self, view: dict[str, Any], facts: Facts, cards: list[int]) -> int:
        f = facts
        if len(cards) == 1:
            return cards[0]
        if "sides" in view:  # tables of other than four in pairs: the sampler deals four hands only
            return choose_play(f.hand, cards, f.trick, f.seat, f.t, f.outside_trumps, f.bidder_side, f.sides)
        return self.search(view, f, cards)

    def search(self, view: dict[str, Any], f: Facts, tops: list[int]) -> int:
        """Score each candidate over solved worlds (own side's score change minus the other's)."""
        sampler = Sampler(view, f)
        delta = scorer(self.profile)
        side = f.seat % 2
        totals = [0.0] * len(tops)
        worlds = 0
        while worlds < self.worlds and self._spend(WORLD_COST):
            root = sampler.state(sampler.sample(self.rng), view)
            values, n = solve_cards(root, tops, self.nodes - self.last_nodes)
            self.last_nodes += n
            if values is None:  # the budget ends inside this world: it does not count
                break
            total = final_total(root)
            for i, v in enumerate(values):
                p0 = (total + v) // 2
                d = delta((p0, total - p0), f.bidder_side, f.bid, f.dark)
                totals[i] += d[side] - d[1 - side]
            worlds += 1
        self.last_worlds = worlds
        if not worlds:  # not one world fits the budget: the greedy policy
            return choose_play(f.hand, tops, f.trick, f.seat, f.t, f.outside_trumps, f.bidder_side, f.sides)
        return tops[max(range(len(tops)), key=lambda i: totals[i])]


if __name__ == "__main__":
    run(PimcBot())
