"""The in-process duplicate benchmark runs and sees the obvious margin."""

from __future__ import annotations

from arena.bench.bots import duplicate_match, elo, elo_text, load_bot_class, mean_interval, wilson
from arena.commands import main
from arena.match.settings import MatchSettings


def test_heuristic_clearly_beats_random():
    r = duplicate_match(load_bot_class("heuristic"), load_bot_class("random"), 4, "bench-test", MatchSettings())
    assert r["games"] == 8 and r["unfinished_games"] == 0
    assert r["score_rate"] >= 0.75 and r["mean_final_score_diff"] > 0
    lo, hi = r["score_rate_95"]
    assert lo <= r["score_rate"] <= hi and hi - lo > 0.05
    dlo, dhi = r["score_diff_95"]
    assert dlo <= r["mean_final_score_diff"] <= dhi and dhi > dlo


def test_the_score_difference_interval_says_what_the_blocks_can_carry():
    assert mean_interval([5.0]) is None and mean_interval([]) is None  # one block: no spread to read
    assert mean_interval([3.0, 3.0, 3.0]) == [3.0, 3.0]  # identical blocks: the interval the data give
    lo, hi = mean_interval([10.0, -2.0, 4.0, 8.0])
    assert lo < 5.0 < hi and round((lo + hi) / 2, 2) == 5.0


def test_elo_and_interval_helpers():
    assert elo(0.5) == 0 and elo(0.75) > 150
    lo, hi = wilson(1.0, 60)
    assert 0.9 < lo < 1.0 and hi > 0.999
    # a perfect (or nil) record has no finite Elo: none is printed, only the interval's finite end
    assert elo(1.0) is None and elo(0.0) is None
    assert elo_text(1.0, None, elo(lo), None) == f"Elo not finite (a perfect record; 95% {elo(lo):+.0f} to +inf)"
    assert elo_text(0.0, None, None, -300.4) == "Elo not finite (a nil record; 95% -inf to -300)"
    assert elo_text(0.75, elo(0.75), 10.2, None) == f"Elo {elo(0.75):+.0f} [+10, +inf]"


def test_main_prints_json_last(capsys):
    assert main(["bench", "bots", "--blocks", "1", "--pairing", "random:heuristic"]) == 0
    import json

    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert json.loads(last)["pairings"]["random-vs-heuristic"]["games"] == 2
    assert json.loads(last)["pairings"]["random-vs-heuristic"]["score_diff_95"] is None
    assert json.loads(last)["profile"] == "pagat62"


def test_main_plays_the_profile_it_is_given(capsys):
    import json

    assert main(["bench", "bots", "--blocks", "1", "--pairing", "heuristic:random", "--profile", "monterey-widow"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    doc = json.loads(out[-1])
    assert doc["profile"] == "monterey-widow" and doc["pairings"]["heuristic-vs-random"]["games"] == 2
    assert out[0].startswith("heuristic vs random (monterey-widow): score rate")
    assert main(["bench", "bots", "--profile", "no-such-rules"]) == 2  # bad input, named, before any game
    assert "--profile: unknown rule profile 'no-such-rules'" in capsys.readouterr().err


def test_bench_solver_times_the_solver_at_six_five_and_four_tricks(capsys):
    import json

    assert main(["bench", "solver", "--positions", "2", "--twin", "1"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    doc = json.loads(out[-1])
    assert doc["profile"] == "pagat62" and "decisions" not in doc
    for left in ("6", "5", "4"):
        row = doc["solve"][left]
        assert row["positions"] == 2 and row["nodes_per_position"] > 0 and row["max_ms"] >= row["mean_ms"] > 0
    assert any(line.startswith("  6 tricks left: ") for line in out)
    assert len(doc["load_before"]) == 3
