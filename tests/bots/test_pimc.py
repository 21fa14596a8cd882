"""The pimc bot: legal answers, determinism from its seed, and its node budget."""

from __future__ import annotations

from cinch_bot.legal import is_legal

from .conftest import make_bot, subset


def test_pimc_plays_legally_deterministically_within_budget(states):
    picked = [s for s in subset(states, 9) if s.kind == "play"][:25]
    assert picked
    answers = []
    for _ in range(2):
        bot = make_bot("pimc", nodes=600)
        bot.start_game({"type": "game", "seat": 0}, 7)
        run = []
        for s in picked:
            action = bot.decide(s.kind, s.view, s.legal)
            assert is_legal(action, s.legal, s.kind)
            run.append(action)
            assert bot.last_nodes < 600 + 2000  # the budget is checked between worlds: one world may overrun it
        answers.append(run)
    assert answers[0] == answers[1]
