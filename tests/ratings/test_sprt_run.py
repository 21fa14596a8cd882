"""The regression-test logic of ``arena sprt`` over synthetic block streams."""

from __future__ import annotations

import math
import random
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings import logistic_to_normalized
from arena.ratings.sprt import SPRT, MatchupTest, SPRTRun, drive, format_status

TOTALS = (0.0, 0.5, 1.0, 1.5, 2.0)
BETTER = (1, 2, 4, 6, 7)  # weights of the candidate side's block totals
WORSE = tuple(reversed(BETTER))
EVEN = (1, 3, 5, 3, 1)


def stream(seed: int, weights: dict[str, tuple[int, ...]], n: int = 5000,
           points_per_half: float = 10.0) -> Iterator[tuple[str, float, float]]:
    """Alternating matchup samples; points = 10 per half point above even, plus noise."""
    rng = random.Random(seed)
    for _ in range(n):
        for m, w in weights.items():
            t = rng.choices(TOTALS, weights=w)[0]
            yield m, t, points_per_half * (t - 1.0) + rng.gauss(0.0, 4.0)


def _run(weights: dict[str, tuple[int, ...]], *, mode: str = "pentanomial", max_blocks: int = 2000,
         seed: int = 1, bounds: tuple[float, float] = (0.0, 30.0)) -> SPRTRun:
    run = SPRTRun.standard(*bounds, max_blocks=max_blocks, mode=mode)  # type: ignore[arg-type]
    drive(run, stream(seed, weights))
    return run


# BETTER has a mean total of 1.4: +4 points per block in the stream's points model.
POINT_BOUNDS = (0.0, 2.0)


@pytest.mark.parametrize("mode,bounds", [("pentanomial", (0.0, 30.0)), ("points", POINT_BOUNDS)])
def test_clearly_better_candidate_passes(mode: str, bounds: tuple[float, float]) -> None:
    run = _run({"pair": BETTER, "mixed": BETTER}, mode=mode, bounds=bounds)
    assert run.verdict() == "passed" and run.exit_code() == 0
    for t in run.tests.values():
        s = t.status()
        assert s.decision == "H1" and s.llr >= s.upper and s.stopped_at == s.blocks


@pytest.mark.parametrize("mode,bounds", [("pentanomial", (0.0, 30.0)), ("points", POINT_BOUNDS)])
def test_clearly_worse_candidate_fails(mode: str, bounds: tuple[float, float]) -> None:
    run = _run({"pair": WORSE, "mixed": WORSE}, mode=mode, bounds=bounds)
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
    mixed_bad = _run({"pair": BETTER, "mixed": WORSE})
    assert mixed_bad.tests["mixed"].status().decision == "H0"
    assert mixed_bad.verdict() == "failed"
    mixed_even = _run({"pair": BETTER, "mixed": EVEN}, max_blocks=200)
    assert mixed_even.tests["pair"].status().decision == "H1"
    assert mixed_even.tests["mixed"].status().inconclusive
    assert mixed_even.verdict() == "inconclusive" and mixed_even.exit_code() == 2
    assert mixed_even.tests["pair"].n == mixed_even.tests["pair"].status().stopped_at < 200


def test_single_matchup_run() -> None:
    run = SPRTRun.standard(0.0, 30.0, max_blocks=2000, matchups=("pair",))
    assert drive(run, stream(2, {"pair": BETTER})) == "passed"
    assert run.tests["pair"].beta == 0.05  # one matchup: nothing to split


def test_no_decision_before_min_blocks() -> None:
    t = MatchupTest("pair", 0.0, 100.0, min_blocks=20)
    for _ in range(19):
        t.add(2.0)
    assert t.decision is None and t.status().llr > t.upper  # would have crossed already
    t.add(2.0)
    assert t.decision == "H1" and t.stopped_at == 20


def test_bounds_are_converted_per_matchup() -> None:
    pair, mixed = MatchupTest("pair", -4.0, 20.0), MatchupTest("mixed", -4.0, 20.0)
    assert (pair.elo0, pair.elo1) == (-4.0, 20.0) and pair.unit == "logistic"
    assert (mixed.elo0, mixed.elo1) == (-2.0, 10.0)  # one candidate seat of four: half the gap
    pts = MatchupTest("mixed", 0.0, 8.0, mode="points")
    assert pts.unit == "points" and (pts.elo0, pts.elo1) == (0.0, 4.0)
    run = SPRTRun.standard(0.0, 20.0, sigma_pg=0.4)  # a fixed sigma from an earlier run: the t-value test
    assert run.tests["pair"].unit == "normalized"
    assert run.tests["pair"].elo1 == pytest.approx(logistic_to_normalized(20.0, 0.4))


def test_bonferroni_keeps_the_run_false_fail_rate_within_beta() -> None:
    run = SPRTRun.standard(0.0, 10.0, beta=0.05)
    assert [t.beta for t in run.tests.values()] == [0.025, 0.025]
    assert [t.alpha for t in run.tests.values()] == [0.05, 0.05]
    assert "false fail <= 0.04938" in run.error_rates() and "Bonferroni" in run.error_rates()
    loose = SPRTRun.standard(0.0, 10.0, beta=0.05, error_control="per-matchup")
    assert "false fail <= 0.0975" in loose.error_rates()


def test_points_mode_decides_on_points_not_on_game_results() -> None:
    # The case: every block 1-1 on game results, the candidate 25 points per block better.
    rng = random.Random(3)
    run = SPRTRun.standard(0.0, 10.0, mode="points", max_blocks=400)
    drive(run, ((m, 1.0, 25.0 + rng.gauss(0, 30)) for _ in range(400) for m in ("pair", "mixed")))
    assert run.verdict() == "passed"
    same = SPRTRun.standard(0.0, 10.0, mode="points", max_blocks=400)
    drive(same, ((m, 1.0, rng.gauss(0, 30)) for _ in range(400) for m in ("pair", "mixed")))
    assert same.verdict() in ("failed", "inconclusive")


@pytest.mark.parametrize("mode,unit,points", [("pentanomial", "logistic", 0.0), ("pentanomial", "normalized", 0.0),
                                              ("points", "points", 0.0), ("points", "normalized", 0.0)])
def test_two_copies_of_one_bot_end_in_a_verdict(mode: str, unit: str, points: float) -> None:
    # Every block 1-1 (and, for a deterministic bot, exactly level on points).
    run = SPRTRun.standard(0.0, 10.0, mode=mode, unit=unit, max_blocks=300)  # type: ignore[arg-type]
    verdict = drive(run, ((m, 1.0, points) for _ in range(300) for m in ("pair", "mixed")))
    assert verdict in ("failed", "inconclusive")
    for t in run.tests.values():
        line = format_status(t.status())
        assert "[" not in line.split("LLR")[1].split("]", 1)[1] or "cannot carry" in line


def test_first_blocks_all_level_do_not_crash() -> None:
    # About 63% of Cinch blocks are 1-1: a run may open with many in a row.
    rng = random.Random(5)
    for lead in (2, 3, 10, 40):
        run = SPRTRun.standard(0.0, 10.0, max_blocks=300)
        samples = [(m, 1.0, None) for _ in range(lead) for m in ("pair", "mixed")]
        samples += [(m, rng.choices(TOTALS, weights=(1, 4, 14, 4, 1))[0], None) for _ in range(300) for m in ("pair", "mixed")]
        assert drive(run, samples) in ("passed", "failed", "inconclusive")


def test_points_mode_needs_points() -> None:
    t = MatchupTest("pair", 0.0, 30.0, mode="points")
    with pytest.raises(ValueError):
        t.add(1.0)
    with pytest.raises(ValueError):
        t.add(1.0, math.nan)


@pytest.mark.parametrize("kw", [dict(bot_elo0=10.0, bot_elo1=0.0), dict(alpha=0.0), dict(max_blocks=0),
                                dict(min_blocks=0), dict(unit="points"), dict(bot_elo1=math.inf),
                                dict(mode="points", unit="logistic"), dict(matchup="triple")])
def test_bad_parameters(kw: dict) -> None:
    args = dict(matchup="pair", bot_elo0=0.0, bot_elo1=10.0) | kw
    with pytest.raises(ValueError):
        MatchupTest(**args)  # type: ignore[arg-type]


def test_bad_run_parameters() -> None:
    with pytest.raises(ValueError):
        SPRTRun.standard(0.0, 10.0, matchups=())
    with pytest.raises(ValueError):
        SPRTRun.standard(0.0, 10.0, mode="points", sigma_pg=0.3)
    with pytest.raises(ValueError):
        SPRTRun.standard(0.0, 10.0, error_control="holm")


def test_per_bot_estimate_doubles_the_mixed_matchup_elo() -> None:
    t = MatchupTest("mixed", 0.0, 30.0)
    for x in (2.0, 1.5, 1.0, 1.5, 0.5, 1.0):
        t.add(x)
    s = t.status()
    assert s.estimate is not None and s.estimate.elo is not None
    assert s.bot_elo == pytest.approx(2 * s.estimate.elo)
    assert "C+B vs B+B" in format_status(s) and "LLR" in format_status(s)


def test_status_after_a_stop_labels_the_estimate_naive() -> None:
    t = MatchupTest("pair", 0.0, 30.0, min_blocks=5)
    for x in [2.0, 1.5, 2.0, 2.0, 1.5, 2.0, 2.0, 1.0, 2.0, 2.0] * 5:
        t.add(x)
    s = t.status()
    assert s.verdict == "passed" and "naive" in format_status(s)


# ---------------------------------------------------------------- property: any stream ends in a verdict

streams = st.lists(st.sampled_from(TOTALS), min_size=0, max_size=60)


@settings(max_examples=60, deadline=None)
@given(totals=streams, lo=st.floats(-50, 50), width=st.floats(0.5, 80), unit=st.sampled_from(["logistic", "normalized"]),
       min_blocks=st.integers(1, 12))
def test_any_pentanomial_stream_never_crashes(totals: list[float], lo: float, width: float, unit: str,
                                              min_blocks: int) -> None:
    s = SPRT(lo, lo + width, max_blocks=len(totals) or None, unit=unit, min_blocks=min_blocks)  # type: ignore[arg-type]
    for x in totals:
        s.add(x)
        assert math.isfinite(s.llr())
    st_ = s.status()
    if totals:
        assert st_.decision is not None or st_.inconclusive
        assert st_.decision is None or (st_.stopped_at or 0) >= min_blocks


@settings(max_examples=40, deadline=None)
@given(xs=st.lists(st.one_of(st.just(0.0), st.floats(-60, 60)), min_size=1, max_size=40),
       lo=st.floats(-10, 10), width=st.floats(0.1, 20))
def test_any_points_stream_never_crashes(xs: list[float], lo: float, width: float) -> None:
    s = SPRT(lo, lo + width, max_blocks=len(xs), mode="points", unit="points")
    for x in xs:
        s.add(x)
        assert math.isfinite(s.llr())
    assert s.status().decision is not None or s.status().inconclusive
