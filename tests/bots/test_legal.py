"""Every bot answers every decision with a legal action (checked by the engine)."""

from __future__ import annotations

import pytest

from arena.engine import action_from_dict

from ..profiles import profiles_under_test, quick_first
from .conftest import PY_BOTS, SEARCHERS, collect, quick_bot, subset


def _check(bot, states) -> dict[str, int]:
    seen = {"bid": 0, "trump": 0, "discard": 0, "rob": 0, "call": 0, "take_widow": 0, "play": 0, "under": 0}
    for st in states:
        action = bot.decide(st.kind, st.view, st.legal)
        assert st.choice.is_legal(action_from_dict(action)), (st.kind, st.legal, action)
        seen[st.kind] += 1
        if st.kind == "play" and st.legal["under"]:
            seen["under"] += 1
    return seen


@pytest.mark.parametrize("name", PY_BOTS)
def test_bot_plays_only_legal_actions(name, states):
    bot = quick_bot(name)
    bot.start_game({"type": "game", "seat": 0}, 7)
    seen = _check(bot, subset(states, SEARCHERS.get(name, 1)))
    # The sample must exercise the constrained choices, or the test proves little.
    assert all(seen[k] > 0 for k in seen if k not in ("discard", "call", "take_widow")), seen


def test_states_include_every_kind(states):
    kinds = {s.kind for s in states}
    assert kinds == {"bid", "trump", "rob", "play"}
    assert any(s.kind == "rob" and len(s.legal["from"]) > s.legal["take"] > 0 for s in states)
    assert any(s.kind == "play" and s.legal["under"] > 0 for s in states)


@pytest.mark.parametrize("profile", quick_first(profiles_under_test()), ids=lambda p: p.name)
@pytest.mark.parametrize("name", PY_BOTS)
def test_bot_plays_only_legal_actions_under_every_profile(name, profile):
    """Every decision a profile asks (its discards and free robs included), answered
    legally by the bot told that profile."""
    states = collect(30, 3, profile)
    bot = quick_bot(name)
    bot.start_game({"type": "game", "seat": 0, "profile": profile.model_dump(mode="json")}, 7)
    seen = _check(bot, subset(states, 8 if name in SEARCHERS else 2))
    assert seen["bid"] and seen["play"], seen
    if profile.discard == "choose":  # (extra trumps to show are rare: test_strategy covers them)
        assert seen["discard"], seen
    if profile.call is not None:  # a called partner: the call is answered legally too
        assert seen["call"], seen
    if profile.widow:  # a widow taken up or left (monterey-widow): answered legally too
        assert seen["take_widow"], seen
