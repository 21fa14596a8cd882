"""The SPRT driver over synthetic block streams, and ``arena sprt`` exit codes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Iterator

import pytest

from ..cli import arena
from arena.ratings import MatchupTest, SPRTRun, format_status
from arena.ratings.sequential import drive
from arena.ratings import logistic_to_normalized

BOTS = Path(__file__).resolve().parents[2] / "bots"
RANDOM, HEURISTIC = str(BOTS / "random"), str(BOTS / "heuristic")
TOTALS = (0.0, 0.5, 1.0, 1.5, 2.0)
BETTER = (1, 2, 4, 6, 7)  # weights of the candidate side's block totals
WORSE = tuple(reversed(BETTER))
EVEN = (1, 3, 5, 3, 1)


def stream(seed: int, weights: dict[str, tuple[int, ...]], n: int = 5000) -> Iterator[tuple[str, float, float]]:
    """Alternating matchup samples; points = 10 per half point above even, plus noise."""
    rng = random.Random(seed)
    for _ in range(n):
        for m, w in weights.items():
            t = rng.choices(TOTALS, weights=w)[0]
            yield m, t, 10.0 * (t - 1.0) + rng.gauss(0.0, 4.0)


def _run(weights: dict[str, tuple[int, ...]], *, mode: str = "pentanomial", max_blocks: int = 2000,
         seed: int = 1) -> SPRTRun:
    run = SPRTRun.standard(0.0, 30.0, max_blocks=max_blocks, mode=mode)  # type: ignore[arg-type]
    drive(run, stream(seed, weights))
    return run


@pytest.mark.parametrize("mode", ["pentanomial", "points"])
def test_clearly_better_candidate_passes(mode: str) -> None:
    run = _run({"pair": BETTER, "mixed": BETTER}, mode=mode)
    assert run.verdict() == "passed" and run.exit_code() == 0
    for t in run.tests.values():
        s = t.status()
        assert s.decision == "H1" and s.llr >= s.upper and s.stopped_at == s.blocks


@pytest.mark.parametrize("mode", ["pentanomial", "points"])
def test_clearly_worse_candidate_fails(mode: str) -> None:
    run = _run({"pair": WORSE, "mixed": WORSE}, mode=mode)
    assert run.verdict() == "failed" and run.exit_code() == 1
    assert any(t.status().decision == "H0" for t in run.tests.values())
    assert run.pending() == []  # a failed matchup ends the whole run


def test_inconclusive_at_max_blocks() -> None:
    run = _run({"pair": EVEN, "mixed": EVEN}, max_blocks=12)
    assert run.verdict() == "inconclusive" and run.exit_code() == 2
    for t in run.tests.values():
        s = t.status()
        assert s.blocks == 12 and s.inconclusive and s.decision is None
        assert s.lower < s.llr < s.upper


def test_pass_needs_both_matchups_to_pass() -> None:
    # pair clearly better, mixed clearly worse (the candidate hurts its partner): fail
    mixed_bad = _run({"pair": BETTER, "mixed": WORSE})
    assert mixed_bad.tests["mixed"].status().decision == "H0"
    assert mixed_bad.verdict() == "failed"
    # pair passes, mixed stays even until the maximum: inconclusive, not passed
    mixed_even = _run({"pair": BETTER, "mixed": EVEN}, max_blocks=200)
    assert mixed_even.tests["pair"].status().decision == "H1"
    assert mixed_even.tests["mixed"].status().inconclusive
    assert mixed_even.verdict() == "inconclusive" and mixed_even.exit_code() == 2
    # a passed matchup takes no more blocks while the other goes on
    assert mixed_even.tests["pair"].n == mixed_even.tests["pair"].status().stopped_at < 200


def test_single_matchup_run() -> None:
    run = SPRTRun.standard(0.0, 30.0, max_blocks=2000, matchups=("pair",))
    assert drive(run, stream(2, {"pair": BETTER})) == "passed"


def test_no_decision_before_min_blocks() -> None:
    t = MatchupTest("pair", 0.0, 30.0, min_blocks=10)
    for _ in range(9):
        t.add(2.0)
    assert t.decision is None and t.status().llr > t.upper  # would have crossed already
    t.add(2.0)
    assert t.decision == "H1" and t.stopped_at == 10


def test_bounds_are_converted_per_matchup() -> None:
    pair = MatchupTest("pair", -4.0, 20.0)
    mixed = MatchupTest("mixed", -4.0, 20.0)
    assert (pair.elo0, pair.elo1) == (-4.0, 20.0)
    assert (mixed.elo0, mixed.elo1) == (-2.0, 10.0)  # one candidate seat of four: half the gap
    fixed = MatchupTest("mixed", 0.0, 20.0, sigma_pg=0.4)
    fixed.add(1.0)
    fixed.add(1.5)
    s = fixed.status()
    assert s.sigma_pg == 0.4
    assert s.nelo1 == pytest.approx(logistic_to_normalized(10.0, 0.4)) and s.nelo0 == pytest.approx(0.0)


def test_per_bot_estimate_doubles_the_mixed_matchup_elo() -> None:
    t = MatchupTest("mixed", 0.0, 30.0)
    for x in (2.0, 1.5, 1.0, 1.5, 0.5):
        t.add(x)
    s = t.status()
    assert s.estimate is not None and s.bot_elo == pytest.approx(2 * s.estimate.elo)
    assert "C+B vs B+B" in format_status(s) and "LLR" in format_status(s)


def test_points_mode_needs_points() -> None:
    t = MatchupTest("pair", 0.0, 30.0, mode="points")
    with pytest.raises(ValueError):
        t.add(1.0)


@pytest.mark.parametrize("kw", [dict(bot_elo0=10.0, bot_elo1=0.0), dict(alpha=0.0), dict(max_blocks=0),
                                dict(sigma_pg=-1.0)])
def test_bad_parameters(kw: dict) -> None:
    args = dict(matchup="pair", bot_elo0=0.0, bot_elo1=10.0) | kw
    with pytest.raises(ValueError):
        MatchupTest(**args)  # type: ignore[arg-type]


# ---------------------------------------------------------------- command line


def _sprt(argv: list[str]) -> tuple[int, str, str]:
    return tuple(arena("sprt", *argv))  # type: ignore[return-value]


@pytest.mark.parametrize("argv,msg", [
    ([], "required"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--elo0", "5", "--elo1", "5"], "elo0 (5) must be below elo1 (5)"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--points", "--format", "game"], "--points"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--matchups", "pair,triple"], "schedule.matchups.1: Input should be 'pair' or 'mixed' (got 'triple')"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--max-blocks", "0"], "blocks: Input should be greater than or equal to 1"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--sandbox", "docker"], "invalid choice"),
    (["--candidate", "/nonexistent/bot", "--baseline", RANDOM, "--sandbox", "none"], "no bot manifest"),
])
def test_cli_errors_exit_3(argv: list[str], msg: str) -> None:
    code, _, err = _sprt(argv)
    assert code == 3
    assert msg in err


def test_cli_help_exits_0(capsys) -> None:
    ran = arena("sprt", "--help")
    assert ran.code == 0 and "--elo0" in ran.out


def test_end_to_end_random_vs_itself_is_inconclusive(tmp_path) -> None:
    """Real bot processes (sandbox none): too few blocks to decide -> exit 2."""
    out_json = tmp_path / "sprt.json"
    code, out, err = _sprt(["--candidate", RANDOM, "--baseline", RANDOM, "--sandbox", "none",
                            "--max-blocks", "2", "--seed", "e2e", "--json", str(out_json), "--out", str(tmp_path / "r")])
    assert code == 2, err
    assert out.count("C+C vs B+B:") >= 2 and "C+B vs B+B:" in out and "LLR" in out
    assert "INCONCLUSIVE (exit 2)" in out
    doc = json.loads(out_json.read_text())
    assert doc["verdict"] == "inconclusive" and doc["exit"] == 2 and doc["seed"] == "e2e"
    assert {m: sum(v["pentanomial"]) for m, v in doc["matchups"].items()} == {"pair": 2, "mixed": 2}


@pytest.mark.slow
def test_end_to_end_heuristic_beats_random_passes(tmp_path) -> None:
    """A clearly stronger bot passes both matchups with wide bounds (about 10 s)."""
    code, out, err = _sprt(["--candidate", HEURISTIC, "--baseline", RANDOM, "--sandbox", "none", "--elo0", "0",
                            "--elo1", "150", "--max-blocks", "60", "--seed", "h1", "--quiet", "--out", str(tmp_path / "r")])
    assert code == 0, out + err
    assert "PASSED (exit 0)" in out
