"""Every ``arena bench`` subcommand runs, at a tiny size, and ends with one JSON object.

These check that the benchmarks work and report what they claim to; the
figures themselves are measured by running the commands (README), never
asserted here.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from ..cli import arena

TINY = {
    "engine": ["--seconds", "0.2"],
    "protocol": ["--decisions", "40", "--starts", "2"],
    "scheduler": ["--blocks", "1", "--rounds", "1", "--deals", "1", "--sandbox", "none"],
    "fairtime": ["--matches", "1", "--blocks", "1", "--deals", "1", "--hogs", "0", "--sandbox", "rlimit",
                 "--decision-ms", "5000", "--nice", "none"],
    "bots": ["--blocks", "1", "--pairing", "random:heuristic"],
    "site": ["--games", "12", "--bots", "3", "--bootstrap", "10", "--history-bootstrap", "0"],
    "serve": ["--sandbox", "none", "--games", "0", "--cases", "uploads"],
    "ratings": ["--profiles", "five-hand", "--entrants", "5", "--blocks", "2,4", "--tournaments", "2", "--big", "2",
                "--bootstrap", "20"],
    "startup": ["--repeat", "1"],
}
KEYS = {
    "engine": {"deals_per_s", "deals"},
    "protocol": {"raw_rtt_us", "thaw_freeze_p50_us_rlimit_paused", "cycle_p50_us_rlimit_paused", "trip_p50_us_rlimit_paused"},
    "scheduler": {"games_per_s_1", "games_per_s_2", "speedup", "cores_busy_1", "cores_busy_2", "speedup_bound"},
    "fairtime": {"timeouts", "decisions"},
    "bots": {"pairings"},
    "site": {"games", "build_cpu_seconds", "files", "largest_file_bytes"},
    "serve": {"upload_to_accepted_s", "ten_concurrent_s", "upload_to_first_block_s", "upload_to_rated_site_s"},
    "ratings": {"cells", "wall_s"},
    "startup": {"help", "run_module", "one_block_run"},
}


#: The ones that take many seconds even at their tiny size run in the slow suite.
SLOW = {"fairtime", "scheduler", "serve", "startup"}


@pytest.fixture(scope="module")
def protocol_run() -> tuple[Any, set[int] | None, set[int] | None]:
    """One tiny `arena bench protocol` for the tests of this module (it starts a seat at every level,
    gvisor's too), with this process's cores before and after it."""
    cores = getattr(os, "sched_getaffinity", None)
    before = cores(0) if cores else None
    ran = arena("bench", "protocol", *TINY["protocol"])
    return ran, before, cores(0) if cores else None


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(TINY)])
def test_bench_runs_and_ends_with_one_json_object(name: str, request: pytest.FixtureRequest) -> None:
    if name in ("scheduler", "fairtime"):
        request.getfixturevalue("ray_session")  # the session's Ray instance, not one per bench
    ran = request.getfixturevalue("protocol_run")[0] if name == "protocol" else arena("bench", name, *TINY[name])
    assert ran.code == 0, ran.err
    last = json.loads(ran.out.strip().splitlines()[-1])
    assert KEYS[name] <= set(last), last


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this system")
def test_the_protocol_bench_gives_the_caller_its_cores_back(protocol_run: tuple[Any, set[int], set[int]]) -> None:
    """It pins itself to one core to measure; a test session (or script) that goes on
    must not stay pinned: everything it started later would share that core."""
    ran, before, after = protocol_run
    assert ran.code == 0, ran.err
    assert json.loads(ran.out.strip().splitlines()[-1])["pinned"] is True
    assert after == before


def test_a_paused_decision_alone_gives_its_parts_and_the_cores_back() -> None:
    """What `arena bench tournament` reports beside a game at gvisor (here at rlimit, which pauses
    with the same freezer): a decision's p50 and p99, and its parts without the harness."""
    from arena.bench.protocol import paused_decision

    cores = getattr(os, "sched_getaffinity", None)
    before = cores(0) if cores else None
    d = paused_decision("rlimit", decisions=20, batches=2)
    assert (cores(0) if cores else None) == before
    assert d["decisions"] == 20 and 0 < d["rtt_p50_us"] <= d["rtt_p99_us"]
    assert d["cycle_p50_us"] > 0 and d["trip_p50_us"] > 0 and d["thaw_freeze_p50_us"] > 0


def test_an_unknown_bench_is_one_sentence() -> None:
    ran = arena("bench", "nosuch")
    assert ran.code == 2 and "give a benchmark" in ran.err


def test_rotation_seats_each_entrant_at_every_seat_once() -> None:
    from arena.bench.bots import rotation_seating

    for n in range(2, 7):
        seatings = [rotation_seating(n, r) for r in range(n)]
        for e in range(n):
            assert sorted(s.index(e) for s in seatings) == list(range(n))


def test_bench_rotation_plays_blocks_of_n_games_on_one_key(capsys) -> None:
    import json as _json

    from arena.commands import main as arena_main

    assert arena_main(["bench", "rotation", "--profile", "cutthroat-3", "--blocks", "3", "--bots", "random"]) == 0
    out = _json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["bench"] == "rotation" and out["games"] == 9 and out["entrants"] == ["random"] * 3
    assert out["gain_final_score"]["rotations"] == 3 and len(out["win_rate"]) == 3
    assert abs(sum(out["win_rate"]) - 1) < 1e-3  # one winner a game (or shared when nobody won); rounded to 4 places


def _scale(*stored: str) -> dict:  # type: ignore[type-arg]
    ran = arena("bench", "serve", "--cases", "scale", "--teams", "3", "--stored", ",".join(stored), "--scratch", "4",
                "--bootstrap", "10", "--pool", "1", "--sandbox", "none")
    assert ran.code == 0, ran.err
    scale: dict = json.loads(ran.out.strip().splitlines()[-1])["scale"]  # type: ignore[type-arg]
    for st in scale["stages"]:
        assert st["blocks"] == 4 and 0 < st["rebuild_cpu_s"] <= st["batch_cpu_s"]
        assert 0 < st["rebuild_wall_s"] <= st["batch_wall_s"] and 0 < st["rss_end_mb"] <= st["rss_peak_mb"]
    assert scale["scratch"]["games"] == 4 and scale["scratch"]["cpu_ms_per_game"] > 0
    return scale


@pytest.mark.slow  # about 5 s of CPU; the one run of the scale case, whose every figure _scale checks
def test_the_serve_bench_scale_case_compares_two_store_sizes() -> None:
    """Three teams, a store synthesised to 4 games, two batches of the ladder's real games with the site
    rebuilt after each, a build from scratch of 4 games: every figure the scale case reports is there."""
    scale = _scale("4", "8")
    first, second = scale["stages"]
    assert first["stored_games"] == 4 and second["stored_games"] == 12  # 4 synthesised + the first batch's 8
    assert scale["rebuild_cpu_ratio"] == round(second["rebuild_cpu_s"] / first["rebuild_cpu_s"], 2)


def test_the_serve_bench_refuses_a_scale_case_it_cannot_make() -> None:
    ran = arena("bench", "serve", "--cases", "scale", "--teams", "2")
    assert ran.code == 2 and "at least 3 teams" in ran.err
    ran = arena("bench", "serve", "--cases", "scale", "--stored", "1000,x")
    assert ran.code == 2 and "game counts" in ran.err
    ran = arena("bench", "serve", "--cases", "scale,speed")
    assert ran.code == 2 and "unknown case 'speed'" in ran.err
    ran = arena("bench", "serve", "--cases", "ladder", "--ladder-bot", "nope")
    assert ran.code == 2 and "--ladder-bot" in ran.err and "heuristic" in ran.err


@pytest.mark.slow
def test_the_serve_bench_ladder_case_plays_on_one_and_two_workers() -> None:
    ran = arena("bench", "serve", "--cases", "ladder", "--ladder-teams", "3", "--batches", "1", "--no-cluster",
                "--sandbox", "none", "--ladder-bot", "random")
    assert ran.code == 0, ran.err
    lad = json.loads(ran.out.strip().splitlines()[-1])["ladder_games_per_s"]
    for name in ("1", "2"):
        r = lad[name]
        assert r["games"] > 0 and r["games_per_s"] >= r["games_per_s_with_rebuild"] > 0
        assert r["cpu_per_game_s"] == round(r["cpu_s"] / r["games"], 4) and 0 < r["busy"] <= 1
        assert abs(sum(r["cpu_split"].values()) - r["cpu_s"]) < 0.05 and r["cpu_split"]["server"] > 0
    assert lad["2"]["cpu_split"]["ray"] > 0 and lad["1"]["cpu_split"]["ray"] == 0  # Ray's own processes, on Ray only
    assert lad["bot"] == "random" and "teams of random on 2 workers" in ran.out and "ceiling on 2 cores" in ran.out
    assert lad["errors"] == {} and lad["cluster"] is None
    assert lad["speedup_2"] == round(lad["2"]["games_per_s"] / lad["1"]["games_per_s"], 3)
    assert lad["ceiling_2"] == round(2 * lad["1"]["cpu_per_game_s"] / lad["2"]["cpu_per_game_s"], 3)


def test_the_serve_benchs_competitions_play_tempo_free_at_a_contained_level(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """At `rlimit` the server's default tempo is fixed (every decision waits out a 400 ms slot): the bench,
    which times the site and the harness, would time the slots' sleep instead."""
    from arena.bench.serve_scale import setup
    from arena.serve.serve import open_service

    setup(tmp_path / "c", 3, 2, "rlimit", 0)
    svc = open_service(tmp_path / "c")
    assert svc.config.match.sandbox.value == "rlimit" and svc.config.match.time.tempo == "free"
