"""``arena bench fairtime``: a well-behaved bot must not lose on time under load.

Setting: 100 ms per decision (bot CPU time), a bot that spends about 50 ms
of CPU on each decision, as many matches at once as there are cores (Ray
workers), plus two CPU-hog processes that this bench starts and, at the
end, kills by pid. Passing means zero timeouts: the harness judges bot CPU
time, not wall time, and freezes bots that are not on move. Last line: one
JSON object.
"""

from __future__ import annotations

from typing import Any

import json
import os
import subprocess
import sys
import tempfile
import time

from ..match import MatchSettings
from ..players import load_entry
from ..results import ResultsStore
from ..schedule.backends import RayBackend, quiet_ray_notices, ray_init_kwargs
from ..match.keys import Seed, block_key
from ..schedule.scheduler import run_tasks
from ..schedule.unit import BlockTask

HOG = "while True:\n    pass\n"


def run(args: Any) -> int:
    """Measure with the options ``arena bench fairtime`` parsed; print a summary, then one JSON line."""

    import ray

    bot = load_entry(args.bot)
    settings = MatchSettings(
        sandbox=args.sandbox, format="deals", deals=args.deals,
        time={"decision_ms": args.decision_ms, "bank_ms": 600_000, "pause_idle": not args.no_pause},
    )
    ident = bot.ident
    # Self-play: the same bot in all four seats; every block is one pairing.
    tasks = [
        BlockTask(f"{ident}+{ident}~{ident}+{ident}#{b}", b, block_key(Seed("bench-fairtime"), b), (ident, ident), (ident, ident),
                  settings, "bench", nice=None if args.nice == "none" else int(args.nice))
        for b in range(args.blocks or args.matches)
    ]
    hogs = [subprocess.Popen([sys.executable, "-c", HOG], preexec_fn=(lambda: os.nice(args.hog_nice)) if args.hog_nice else None) for _ in range(args.hogs)]
    owns = not ray.is_initialized()  # a caller's running instance is used as it is
    if owns:
        quiet_ray_notices()
        ray.init(**ray_init_kwargs(args.matches, None))
    backend = RayBackend({ident: bot}, workers=args.matches, capacity=args.matches)
    t0 = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="arena-fairtime-") as tmp:
            store = ResultsStore(tmp)
            outcome = run_tasks(tasks, backend, store)
            lines = list(store.lines.values())
    finally:
        backend.close()
        if owns:
            ray.shutdown()
        for h in hogs:
            os.kill(h.pid, 9)
            h.wait()
    wall = time.monotonic() - t0
    faults = [f for ln in lines for g in ln.games for f in g.faults]
    players = [p for ln in lines for g in ln.run.games for p in g["players"]]
    cpu = sorted(x for p in players for x in p["cpu_ms"])
    lat = sorted(x for p in players for x in p["latency_ms"])
    def pct(xs: list[float], q: float) -> float | None:
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1) if xs else None

    result = {
        "timeouts": sum(f.kind == "timeout" for f in faults),
        "faults": len(faults),
        "decisions": len(cpu),
        "games": 2 * len(lines),
        "harness_failures": len(outcome.failures),
        "matches_at_once": args.matches,
        "hogs": args.hogs,
        "decision_ms": args.decision_ms,
        "cpu_ms_p50": pct(cpu, 0.5), "cpu_ms_max": pct(cpu, 1.0),
        "wall_ms_p50": pct(lat, 0.5), "wall_ms_p99": pct(lat, 0.99), "wall_ms_max": pct(lat, 1.0),
        "sandbox": args.sandbox,
        "nice": args.nice,
        "wall_s": round(wall, 2),
    }
    for f in faults:
        print(f"fault: seat {f.seat} deal {f.deal} decision {f.decision}: {f.kind}: {f.message}", file=sys.stderr)
    print(f"{result['decisions']} decisions, {result['timeouts']} timeouts; bot CPU p50 {result['cpu_ms_p50']} ms,"
          f" wall p50 {result['wall_ms_p50']} ms, max {result['wall_ms_max']} ms", file=sys.stderr)
    print(json.dumps(result))
    return 0 if result["timeouts"] == 0 and not outcome.failures else 1
