"""Same seed, same decisions; the bots never touch the global ``random`` state."""

from __future__ import annotations

import random

import pytest

from .conftest import PY_BOTS, quick_bot, subset


def _decisions(name: str, seed: int, states) -> list[dict]:
    if name == "pimc":
        states = states[::3]  # (its decisions cost the most: a third of them says as much)
    bot = quick_bot(name)
    bot.start_game({"type": "game", "seat": 0}, seed)
    return [bot.decide(s.kind, s.view, s.legal) for s in states]


@pytest.mark.parametrize("name", PY_BOTS)
def test_same_seed_same_decisions(name, states):
    sub = subset(states, 40)
    random.seed(1)
    a = _decisions(name, 42, sub)
    random.seed(2)  # global state must not matter
    b = _decisions(name, 42, sub)
    assert a == b


@pytest.mark.parametrize("name", ["random", "montecarlo", "pimc"])
def test_seed_changes_randomized_decisions(name, states):
    sub = subset(states, 40)
    assert _decisions(name, 1, sub) != _decisions(name, 2, sub)


def test_sdk_does_not_use_global_random(states):
    before = random.getstate()
    _decisions("random", 5, subset(states, 40))
    _decisions("montecarlo", 5, subset(states, 200))
    _decisions("pimc", 5, subset(states, 200))
    assert random.getstate() == before
