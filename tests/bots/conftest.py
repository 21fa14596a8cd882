"""Shared fixtures for the bot tests: in-process bot loading and engine states."""

from __future__ import annotations

import functools
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.engine import Choice, Deal, KeyedSource, RuleProfile
from arena.protocol import choice_to_dict

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
sys.path.insert(0, str(BOTS / "sdk"))
sys.path.insert(0, str(BOTS / "montecarlo"))

PY_BOTS = ("random", "heuristic", "montecarlo", "pimc")
#: The search bots' budgets in the legality tests: a few samples or nodes, the same code paths.
QUICK = {"montecarlo": {"samples": 4}, "pimc": {"nodes": 3000}}
#: The same, for the bots run as processes (their manifest's variables).
QUICK_ENV = {"CINCH_MC_SAMPLES": "4", "CINCH_PIMC_NODES": "3000"}
#: Bots whose decisions cost a search: the legality tests ask them only every n-th decision.
SEARCHERS = {"montecarlo": 12, "pimc": 30}


@dataclass
class State:
    """One decision from a randomly played deal, as the bot would see it."""

    deal: Deal
    choice: Choice
    view: dict[str, Any]
    legal: dict[str, Any]
    hands: list[list[int]]  # the true hands at this decision (for inference checks)

    @property
    def kind(self) -> str:
        return self.choice.kind


@functools.lru_cache(maxsize=16)
def collect(n_deals: int, seed: int, profile: RuleProfile | None = None) -> list[State]:
    """Play deals of ``profile`` (default pagat62) with uniform random decisions
    and keep every decision point.

    The deal is snapshotted through its view and legal dicts only, so later
    decisions of the same deal do not change a stored state. Cached: tests
    only read the states, and several bots are checked on the same ones.
    """
    from arena.engine.view import deal_view

    rng = random.Random(seed)
    profile = profile or RuleProfile()
    out: list[State] = []
    for k in range(n_deals):
        deal = Deal(profile, k, k % profile.players, (0,) * profile.score_slots, KeyedSource(f"bots-test-{seed}"))
        while not deal.done:
            choice = deal.choice
            out.append(State(deal, choice, deal_view(deal, choice.seat).to_dict(), choice_to_dict(choice), [list(h) for h in deal.hands]))
            deal.apply(choice.sample(rng))
    return out


@pytest.fixture(scope="session")
def states() -> list[State]:
    """Decision points of 400 random deals (bids, trumps, robs, plays, long hands)."""
    return collect(400, 1)


def subset(states: list[State], every: int) -> list[State]:
    """Every ``every``-th state plus every rob, discard and long-hand state (the rare, tricky ones)."""
    return [s for i, s in enumerate(states)
            if i % every == 0 or s.kind in ("rob", "discard") or (s.kind == "play" and s.legal["under"])]


def make_bot(name: str, **kw: Any) -> Any:
    from arena.bench.bots import load_bot_class

    return load_bot_class(name)(**kw)


def quick_bot(name: str) -> Any:
    """``name`` with the small search budget of ``QUICK`` (if it searches)."""
    return make_bot(name, **QUICK.get(name, {}))


def check_sample(state: Any, f: Any, sampler: Any, rng: random.Random) -> list[list[int]]:
    """The true hands of ``state`` satisfy every constraint ``sampler`` inferred from the
    seat's view (facts ``f``), and one sample keeps them: sizes, trumps kept, voids, no
    card twice or out of play, no sampled card of a suit a seat showed void in.
    Returns the sampled hands."""
    pool = set(sampler.trumps) | set(sampler.plains)
    t = f.t
    for o in sampler.others:
        true = state.hands[o]
        assert sampler.size[o] == len(true)
        assert sum(1 for c in true if t.power[c] >= 0) >= sampler.must[o]
        assert set(true) <= pool
        assert all(t.esuit[c] not in f.voids[o] for c in true)
    hands = sampler.sample(rng)
    dealt = [c for h in hands for c in h]
    assert hands[f.seat] == f.hand and len(dealt) == len(set(dealt))
    # every unseen trump is in a hand, but for one that may be a card nobody was dealt (sixty-three-joker)
    assert len(set(sampler.trumps) - set(dealt)) <= sampler.undealt and not set(dealt) & f.out
    for o in sampler.others:
        assert len(hands[o]) == sampler.size[o]
        assert all(t.esuit[c] not in f.voids[o] for c in hands[o])
    return hands
