"""``arena bench engine``: how many complete deals per second the rules engine plays.

Every decision is a uniformly random legal one (``choice.sample`` with an
explicit ``random.Random``), bids included, and each finished deal is
turned into its full record, so the figure covers what a tournament pays
per deal apart from the bots themselves.
"""

from __future__ import annotations

from typing import Any, TypedDict

import json
import platform
import random
import time

from arena.engine import Deal, DealKey, KeyedSource, RuleProfile, deal_record, get_profile, profile_names


class EngineFigures(TypedDict):
    """One profile's figures (the JSON line of ``arena bench engine``)."""

    bench: str
    profile: str
    deals: int
    cpu_seconds: float
    wall_seconds: float
    deals_per_s: float
    deals_per_wall_s: float
    events_per_deal: float
    python: str
    implementation: str
    machine: str
    seed: int


class ProfilesFigures(TypedDict):
    """Every profile's rate, and the slowest (``--profile all``)."""

    bench: str
    profile: str
    deals_per_s: dict[str, float]
    slowest: str
    slowest_deals_per_s: float
    deals: int
    python: str
    implementation: str
    machine: str
    seed: int


def play_deal(deal: Deal, rng: random.Random) -> int:
    """Play ``deal`` to the end with random legal decisions; return its record's number of events
    (the record is made, as every game's is)."""
    apply = deal.apply
    while not deal.done:
        apply(deal.choice.sample(rng))
    return len(deal_record(deal)["events"])


def bench_engine(seconds: float = 3.0, seed: int = 0, profile: RuleProfile | None = None) -> EngineFigures:
    """Play random deals for about ``seconds`` of CPU time; return the figures.

    Deals are independent (deal ``k`` of key ``bench-<seed>``, dealer
    ``k % players``), so the run is reproducible and its cost does not depend on
    game length. ``deals_per_s`` is per second of this process's CPU time,
    which is what "one core" means and is steadier than wall time on a busy
    machine; the wall-clock rate is reported beside it. A redeal (every seat
    passed, under profiles that redeal) counts as a deal: it is one.
    """
    profile = profile or RuleProfile()
    source = KeyedSource(DealKey(f"bench-{seed}"))
    rng = random.Random(seed)
    seats, scores = profile.players, (0,) * profile.score_slots
    deals = 0
    events = 0
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    deadline = cpu0 + seconds
    cpu = cpu0
    while cpu < deadline:
        for _ in range(100):  # check the clock only now and then
            deal = Deal(profile, deals, deals % seats, scores, source)
            events += play_deal(deal, rng)
            deals += 1
        cpu = time.process_time()
    cpu_s = cpu - cpu0
    wall_s = time.perf_counter() - wall0
    return {
        "bench": "engine",
        "profile": profile.name,
        "deals": deals,
        "cpu_seconds": round(cpu_s, 3),
        "wall_seconds": round(wall_s, 3),
        "deals_per_s": round(deals / cpu_s, 1),
        "deals_per_wall_s": round(deals / wall_s, 1),
        "events_per_deal": round(events / deals, 2),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "seed": seed,
    }


def bench_profiles(seconds: float = 3.0, seed: int = 0) -> ProfilesFigures:
    """``bench_engine`` for every registered profile, ``seconds`` each; the
    slowest profile is named, since the target holds for each of them."""
    results = {name: bench_engine(seconds, seed, get_profile(name)) for name in profile_names()}
    slowest = min(results, key=lambda n: results[n]["deals_per_s"])
    return {
        "bench": "engine",
        "profile": "all",
        "deals_per_s": {n: r["deals_per_s"] for n, r in results.items()},
        "slowest": slowest,
        "slowest_deals_per_s": results[slowest]["deals_per_s"],
        "deals": sum(r["deals"] for r in results.values()),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "seed": seed,
    }


def _line(result: EngineFigures) -> str:
    return (
        f"engine ({result['profile']}): {result['deals']} random deals in {result['cpu_seconds']} s of CPU ="
        f" {result['deals_per_s']:.0f} deals/s on one core"
        f" ({result['deals_per_wall_s']:.0f}/s wall clock)"
    )


def run(args: Any) -> int:
    """Measure with the options ``arena bench engine`` parsed; print a summary, then one JSON line."""
    name = getattr(args, "profile", "pagat62")
    if name == "all":
        every = bench_profiles(args.seconds, args.seed)
        for n, rate in every["deals_per_s"].items():
            print(f"engine ({n}): {rate:.0f} deals/s on one core")
        print(f"slowest: {every['slowest']} at {every['slowest_deals_per_s']:.0f} deals/s"
              f" (Python {every['python']} {every['implementation']}, {every['machine']})")
        print(json.dumps(every, sort_keys=True))
    else:
        result = bench_engine(args.seconds, args.seed, get_profile(name))
        print(_line(result) + f" (Python {result['python']} {result['implementation']}, {result['machine']})")
        print(json.dumps(result, sort_keys=True))
    return 0

