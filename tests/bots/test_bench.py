"""The in-process duplicate benchmark runs and sees the obvious margin."""

from __future__ import annotations

from arena.bench.bots import duplicate_match, elo, load_bot_class, wilson
from arena.commands import main
from arena.match.settings import MatchSettings


def test_heuristic_clearly_beats_random():
    r = duplicate_match(load_bot_class("heuristic"), load_bot_class("random"), 4, "bench-test", MatchSettings())
    assert r["games"] == 8 and r["unfinished_games"] == 0
    assert r["score_rate"] >= 0.75 and r["mean_final_score_diff"] > 0
    lo, hi = r["score_rate_95"]
    assert lo <= r["score_rate"] <= hi and hi - lo > 0.05


def test_elo_and_interval_helpers():
    assert elo(0.5) == 0 and elo(0.75) > 150
    lo, hi = wilson(1.0, 60)
    assert 0.9 < lo < 1.0 and hi > 0.999


def test_main_prints_json_last(capsys):
    assert main(["bench", "bots", "--blocks", "1", "--pairing", "random:heuristic"]) == 0
    import json

    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert json.loads(last)["pairings"]["random-vs-heuristic"]["games"] == 2
