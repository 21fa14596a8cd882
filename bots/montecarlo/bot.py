"""The Monte Carlo baseline: determinized rollouts for every card it plays.

For each play decision it deals the unseen cards to the other hands many
times (``Sampler``: consistent with counts, kept-trump minimums and shown
voids), and for each sample plays every legal card followed by a greedy
rollout of the rest of the deal for all four seats. It plays the card with
the best total score difference, scored by the game's rule profile
(``cinch_bot.scoring``: sets, difference scoring, doubled full bids; cards
out of play that count for the bidders). Bidding, trump
and the rob use the SDK's hand evaluation. The budget is counted in
samples, not seconds, so its play depends only on its seed. An optional
time budget (``CINCH_MC_TIME_MS``, CPU milliseconds per decision) stops
sampling early when it runs out; with it set, play also depends on the
machine's speed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cinch_bot import run  # noqa: E402
from cinch_bot.strategy import EvaluatingBot, Facts, choose_play  # noqa: E402
from cinch_bot.scoring import scorer  # noqa: E402
from sim import Sampler  # noqa: E402

DEFAULT_SAMPLES = 120


class MonteCarloBot(EvaluatingBot):
    name = "montecarlo"
    version = "1.0"

    def __init__(self, samples: int | None = None, margin: float = EvaluatingBot.margin, time_ms: float | None = None) -> None:
        super().__init__()
        env = os.environ.get("CINCH_MC_SAMPLES")
        self.samples = samples if samples is not None else int(env) if env else DEFAULT_SAMPLES
        env_t = os.environ.get("CINCH_MC_TIME_MS")
        self.time_s = (time_ms if time_ms is not None else float(env_t) if env_t else 0.0) / 1000
        self.margin = margin

    def choose_top(self, view: dict[str, Any], facts: Facts, cards: list[int]) -> int:
        if len(cards) == 1:
            return cards[0]
        if "sides" in view:  # tables of other than four in pairs: the sampler deals four hands only, so play greedily
            f = facts
            return choose_play(f.hand, cards, f.trick, f.seat, f.t, f.outside_trumps, f.bidder_side, f.sides)
        return self.search(view, facts, cards)

    def search(self, view: dict[str, Any], f: Facts, tops: list[int]) -> int:
        """Sum each candidate's rollout value over shared samples; best total wins."""
        sampler = Sampler(view, f)
        side = f.seat % 2
        delta = scorer(self.profile)
        totals = [0.0] * len(tops)
        deadline = time.process_time() + self.time_s if self.time_s else None
        for n in range(self.samples):
            if deadline is not None and n and time.process_time() >= deadline:
                break
            root = sampler.state(sampler.sample(self.rng), view)
            for i, card in enumerate(tops):
                st = root.copy()
                st.play(card)
                d = delta(st.rollout(), f.bidder_side, f.bid, f.dark)
                totals[i] += d[side] - d[1 - side]
        return tops[max(range(len(tops)), key=lambda i: totals[i])]


if __name__ == "__main__":
    run(MonteCarloBot())
