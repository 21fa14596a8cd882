"""Perfect-information Monte Carlo: sample the unseen cards, solve each world exactly.

For each play decision it deals the unseen cards to the other hands
(``cinch_bot.sim.Sampler``: counts, kept-trump minimums and shown voids
respected) and values every legal card in each world by the exact solver
(``cinch_bot.solver``) once the hands hold at most ``SOLVE_CARDS`` cards;
earlier in the deal a pure-Python exact solve of a world takes far longer
than a decision's budget (measured: about 0.8 s with five tricks left), so
there the world is valued by the greedy rollout instead. It plays the card
with the best total points difference over the worlds. The budget counts
search nodes (a rollout counts one node per card it plays), never seconds,
so its play depends only on its seed. Bidding, trump, discard and the rob
use the SDK's hand evaluation (not yet the solver).
"""

from __future__ import annotations

import os
from typing import Any

from cinch_bot import run
from cinch_bot.sim import Sampler
from cinch_bot.solver import Solver
from cinch_bot.strategy import EvaluatingBot, Facts

DEFAULT_NODES = 6000
SOLVE_CARDS = 12


class PimcBot(EvaluatingBot):
    name = "pimc"
    version = "0.1"

    def __init__(self, nodes: int | None = None, solve_cards: int | None = None) -> None:
        super().__init__()
        env = os.environ.get("CINCH_PIMC_NODES")
        self.nodes = nodes if nodes is not None else int(env) if env else DEFAULT_NODES
        env_c = os.environ.get("CINCH_PIMC_SOLVE_CARDS")
        self.solve_cards = solve_cards if solve_cards is not None else int(env_c) if env_c else SOLVE_CARDS
        self.last_nodes = 0

    def choose_top(self, view: dict[str, Any], facts: Facts, cards: list[int]) -> int:
        return cards[0] if len(cards) == 1 else self.search(view, facts, cards)

    def search(self, view: dict[str, Any], f: Facts, tops: list[int]) -> int:
        """Sum each candidate's value (own side's points minus the other's) over shared worlds."""
        sampler = Sampler(view, f)
        sign = 1 if f.seat % 2 == 0 else -1
        totals = [0] * len(tops)
        used = 0
        worlds = 0
        while used < self.nodes or not worlds:
            root = sampler.state(sampler.sample(self.rng), view)
            exact = sum(len(h) for h in root.hands) <= self.solve_cards
            solver = Solver()
            for i, card in enumerate(tops):
                st = root.copy()
                st.play(card)
                if exact:
                    p = st.points()
                    v = p[0] - p[1] + solver.value(st)
                else:
                    n = sum(len(h) for h in st.hands)
                    p = st.rollout()
                    v = p[0] - p[1]
                    used += n
                totals[i] += sign * v
            used += solver.nodes
            worlds += 1
        self.last_nodes = used
        return tops[max(range(len(tops)), key=lambda i: totals[i])]


if __name__ == "__main__":
    run(PimcBot())
