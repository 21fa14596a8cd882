"""``arena bench scheduler``: games per second with 1 and 2 Ray workers, and start-up.

One embedded Ray instance with two CPUs serves both measurements; "1 worker"
keeps one block in flight, "2 workers" keeps two, after a warm-up that has
started both worker processes. The two are measured in interleaved rounds
and the median of each is kept, so other load on the machine skews both
alike. The workload is made so bots and the match
loop dominate (tiny deterministic bots, light sandbox), which is what a
tournament's throughput is made of. Last line: one JSON object.
"""

from __future__ import annotations

from typing import Any

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ..match import MatchSettings
from ..players import load_entry
from ..results import ResultsStore
from ..schedule.backends import RayBackend, quiet_ray_notices, ray_init_kwargs
from ..schedule.pairings import round_robin
from ..schedule.scheduler import block_key, run_tasks
from ..schedule.task import BlockTask



def _tasks(entries, settings: MatchSettings, first_block: int, n: int) -> list[BlockTask]:
    (p,) = round_robin(entries)
    ids = lambda side: (side[0].ident, side[1].ident)  # noqa: E731
    return [
        BlockTask(p.key, b, block_key("bench-scheduler", b), ids(p.side_a), ids(p.side_b), settings, "bench")
        for b in range(first_block, first_block + n)
    ]


def _measure(backend: RayBackend, tasks: list[BlockTask], out: Path) -> float:
    store = ResultsStore(out)
    t0 = time.monotonic()
    outcome = run_tasks(tasks, backend, store)
    dt = time.monotonic() - t0
    if outcome.failures:
        raise SystemExit(f"bench: harness failures: {outcome.failures[:2]}")
    return 2 * len(tasks) / dt


def run(args: Any) -> int:
    """Measure with the options ``arena bench scheduler`` parsed; print a summary, then one JSON line."""

    import ray

    settings = MatchSettings(sandbox=args.sandbox, **({"format": "deals", "deals": args.deals} if args.deals else {}))
    entries = [load_entry(b) for b in args.bots]
    t0 = time.monotonic()
    owns = not ray.is_initialized()  # a caller's running instance is used as it is
    if owns:
        quiet_ray_notices()
        ray.init(**ray_init_kwargs(2, None))
    backend = RayBackend({e.ident: e for e in entries}, workers=2, capacity=2)
    startup = time.monotonic() - t0
    try:
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            _measure(backend, _tasks(entries, settings, 10_000, 2), Path(tmp) / "warm")  # start both workers
            rates: dict[int, list[float]] = {1: [], 2: []}
            for r in range(args.rounds):  # interleaved, so background load hits both alike
                for width in (1, 2):
                    backend.capacity = width
                    tasks = _tasks(entries, settings, r * args.blocks, args.blocks)
                    rates[width].append(_measure(backend, tasks, Path(tmp) / f"{width}-{r}"))
            one, two = statistics.median(rates[1]), statistics.median(rates[2])
    finally:
        backend.close()
        if owns:
            ray.shutdown()
    result = {
        "games_per_s_1": round(one, 3),
        "games_per_s_2": round(two, 3),
        "speedup": round(two / one, 3),
        "startup_s": round(startup, 3),
        "blocks": args.blocks,
        "rounds": args.rounds,
        "sandbox": args.sandbox,
        "format": "deals" if args.deals else "game",
    }
    print(f"1 worker: {one:.2f} games/s   2 workers: {two:.2f} games/s   speedup {two / one:.2f}x   start-up {startup:.2f} s",
          file=sys.stderr)
    print(json.dumps(result))
    return 0
