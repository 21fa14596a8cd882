"""``arena bench scheduler``: games per second with 1 and 2 Ray workers, on a two-node
loopback cluster, and the per-block scheduling overhead.

One embedded Ray instance with two CPUs serves the first two measurements; "1 worker"
keeps one block in flight, "2 workers" keeps two, after a warm-up that has started both
worker processes. The two are measured in interleaved rounds and the median of each is
kept, so other load on the machine skews both alike. Then the same blocks run on a real
two-node cluster on loopback (``ray start`` twice, one CPU each, token authentication on,
the harness shipped with the job), two in flight.

Beside each rate the bench reads how many of the machine's cores were busy (``/proc/stat``,
every process, so other work on the machine counts too: the load average is printed). One
worker's four seats and its match loop overlap (bots read the notices while the loop runs
on), so one worker keeps more than one core busy, and two need twice that: their ceiling
on this machine is about ``cpus / cores busy with one`` times one worker's games, which the
bench prints beside the speedup (a measured ceiling, as noisy as the rates).

Overhead per Ray task (a block, or with ``--restart per-lineage`` a lineage batch) is
what the driver waited beyond the task's own play: submit to result minus the task's wall
time on the worker (the Ray task, shipping and unpacking
the bots, the node's sandbox check), over the 2-worker rounds. The workload is made so
bots and the match loop dominate (tiny deterministic bots, light sandbox), which is what a
tournament's throughput is made of. Last line: one JSON object.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..match import MatchSettings
from ..players import BotEntry, load_entry
from ..results import ResultsStore
from ..schedule.backends import RayBackend, quiet_ray_notices, ray_init_kwargs
from ..schedule.pairings import round_robin
from ..match.keys import Seed, block_key
from ..schedule.scheduler import run_tasks
from ..schedule.unit import BlockTask
from .raycluster import LoopbackCluster


def _tasks(entries: list[BotEntry], settings: MatchSettings, first_block: int, n: int) -> list[BlockTask]:
    """``n`` blocks, cycling over the round robin's pairings."""
    pairings = round_robin(entries)
    def ids(side: tuple[BotEntry, BotEntry]) -> tuple[str, str]:
        return side[0].ident, side[1].ident

    out = []
    for b in range(first_block, first_block + n):
        p = pairings[b % len(pairings)]
        out.append(BlockTask(p.key, b, block_key(Seed("bench-scheduler"), b), ids(p.side_a), ids(p.side_b), settings, "bench"))
    return out


def _busy_s() -> float | None:
    """CPU seconds the whole machine has been busy since boot (all cores); None without ``/proc/stat``."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal guest...: busy is the first seven without idle and
    # iowait; steal (time the hypervisor gave elsewhere) is not this machine's work, guest is already in user.
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks[:7]) - idle) / os.sysconf("SC_CLK_TCK")


def _measure(backend: RayBackend, tasks: list[BlockTask], out: Path) -> tuple[float, float | None]:
    """(games per second, cores of the machine busy meanwhile, or None where that cannot be read)."""
    store = ResultsStore(out)
    busy0 = _busy_s()
    t0 = time.monotonic()
    outcome = run_tasks(tasks, backend, store)
    dt = time.monotonic() - t0
    busy1 = _busy_s()
    if outcome.failures:
        raise SystemExit(f"bench: harness failures: {outcome.failures[:2]}")
    cores = (busy1 - busy0) / dt if busy0 is not None and busy1 is not None and dt > 0 else None
    return 2 * len(tasks) / dt, cores


def _overhead(timings: list[tuple[float, float]]) -> tuple[float, float, float] | None:
    """(overhead fraction of the driver's wait, mean overhead ms, mean block s) over (latency, wall) pairs;
    None without a timed block (a caller's instance that is not ours to time, say)."""
    if not timings or sum(lat for lat, _ in timings) <= 0:
        return None
    waited = sum(lat for lat, _ in timings)
    over = sum(max(0.0, lat - wall) for lat, wall in timings)
    return over / waited, 1000 * over / len(timings), sum(wall for _, wall in timings) / len(timings)


def run(args: Any) -> int:
    """Measure with the options ``arena bench scheduler`` parsed; print a summary, then one JSON line."""
    load_before = os.getloadavg()[0]  # other work on the machine: says how far to trust the figures
    settings = MatchSettings(sandbox=args.sandbox, restart=getattr(args, "restart", "per-game"),
                             lineage_blocks=getattr(args, "lineage_blocks", 2),
                             **({"format": "deals", "deals": args.deals} if args.deals else {}))
    entries = [load_entry(b) for b in args.bots]
    by_ident = {e.ident: e for e in entries}
    already = "ray" in sys.modules and sys.modules["ray"].is_initialized()
    cluster_note = "skipped (--no-cluster)" if args.no_cluster else \
        "skipped (this process already uses a Ray instance)" if already else ""
    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-")
    cluster = None
    cluster_rate = None
    cluster_startup = None
    cluster_over = None
    try:
        if not cluster_note:
            t0 = time.monotonic()
            cluster = LoopbackCluster(Path(tmp.name) / "cluster")
            os.environ.update({k: v for k, v in cluster.env().items() if k.startswith("RAY_")})  # before Ray loads
            cluster.start_head(cpus=1)
            cluster.add_node(cpus=1)
            cluster_startup = time.monotonic() - t0
        import ray

        t0 = time.monotonic()
        owns = not ray.is_initialized()  # a caller's running instance is used as it is
        if owns:
            quiet_ray_notices()
            ray.init(**ray_init_kwargs(2, None))
        backend = RayBackend(by_ident, workers=2, capacity=2)
        startup = time.monotonic() - t0
        try:
            _measure(backend, _tasks(entries, settings, 10_000, 2), Path(tmp.name) / "warm")  # start both workers
            backend.timings.clear()
            rates: dict[int, list[float]] = {1: [], 2: []}
            busy: dict[int, list[float]] = {1: [], 2: []}
            timings: list[tuple[float, float]] = []
            for r in range(args.rounds):  # interleaved, so background load hits both alike
                for width in (1, 2):
                    backend.capacity = width
                    tasks = _tasks(entries, settings, r * args.blocks, args.blocks)
                    rate, cores = _measure(backend, tasks, Path(tmp.name) / f"{width}-{r}")
                    rates[width].append(rate)
                    if cores is not None:
                        busy[width].append(cores)
                    if width == 2:
                        timings += backend.timings
                    backend.timings.clear()
            one, two = statistics.median(rates[1]), statistics.median(rates[2])
            cores1 = statistics.median(busy[1]) if busy[1] else None
            cores2 = statistics.median(busy[2]) if busy[2] else None
        finally:
            backend.close()
            if owns:
                ray.shutdown()
        if cluster is not None:
            # Two in flight, none waiting in a node's queue: the same width as "2 workers", and the
            # driver's wait is then the block plus its scheduling, nothing else.
            on_cluster = RayBackend(by_ident, workers=2, address=cluster.address, capacity=2)
            try:
                _measure(on_cluster, _tasks(entries, settings, 20_000, 2), Path(tmp.name) / "cwarm")
                nodes = len(on_cluster.pool.usable)
                got = [_measure(on_cluster, _tasks(entries, settings, 30_000 + r * args.blocks, args.blocks),
                                Path(tmp.name) / f"c-{r}") for r in range(args.rounds)]
                cluster_rate = statistics.median(rate for rate, _ in got)
                cluster_over = _overhead(on_cluster.timings[2:])  # the warm-up's blocks aside
            finally:
                on_cluster.close()
            cluster_note = f"{nodes} nodes x 1 CPU"
    finally:
        if cluster is not None:
            cluster.stop()
        tmp.cleanup()
    over = _overhead(timings)
    cpus = os.cpu_count() or 1
    # Two workers need twice one worker's cores; the machine has `cpus`. Two running at once also slow
    # each other (shared caches), which this ceiling leaves out.
    bound = min(2.0, cpus / cores1) if cores1 else None
    result = {
        "games_per_s_1": round(one, 3),
        "games_per_s_2": round(two, 3),
        "speedup": round(two / one, 3),
        "games_per_s_cluster": round(cluster_rate, 3) if cluster_rate is not None else None,
        "cluster": cluster_note,
        "cores_busy_1": round(cores1, 3) if cores1 is not None else None,
        "cores_busy_2": round(cores2, 3) if cores2 is not None else None,
        "speedup_bound": round(bound, 3) if bound is not None else None,
        "overhead_fraction": round(over[0], 4) if over else None,
        "overhead_ms_per_task": round(over[1], 1) if over else None,
        "task_s": round(over[2], 3) if over else None,
        "overhead_fraction_cluster": round(cluster_over[0], 4) if cluster_over else None,
        "startup_s": round(startup, 3),
        "cluster_startup_s": round(cluster_startup, 3) if cluster_startup is not None else None,
        "load_avg": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cpus": cpus,
        "blocks": args.blocks,
        "rounds": args.rounds,
        "sandbox": args.sandbox, "restart": settings.restart, "lineage_blocks": settings.lineage_blocks,
        "format": "deals" if args.deals else "game",
        "bots": [e.name for e in entries],
    }
    shown = (f"{cluster_rate:.2f} games/s ({cluster_note}; overhead {100 * cluster_over[0]:.2f}% of the wait)"
             if cluster_rate is not None and cluster_over else cluster_note)
    print(f"1 worker: {one:.2f} games/s   2 workers: {two:.2f} games/s   speedup {two / one:.2f}x   "
          f"start-up {startup:.2f} s   (load average {load_before:.1f} on {cpus} CPUs)\n"
          + (f"cores busy: {cores1:.2f} with 1 worker, {cores2:.2f} with 2, of {cpus}: the ceiling for 2 workers"
             f" here is about {bound:.2f}x\n" if cores1 and cores2 and bound else "")
          + f"two-node loopback cluster: {shown}\n"
          + (f"scheduling overhead per Ray task ({'a block' if settings.restart == 'per-game' else 'a lineage batch'}):"
             f" {over[1]:.1f} ms beside {1000 * over[2]:.0f} ms of play"
             f" ({100 * over[0]:.2f}% of the driver's wait)" if over else "scheduling overhead: no block was timed"),
          file=sys.stderr)
    print(json.dumps(result))
    return 0
