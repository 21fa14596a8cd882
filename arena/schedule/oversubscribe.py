"""How many blocks to play at once when the tempo is fixed, and in how many worker processes (issue 41).

A fixed-tempo game mostly waits: every answer is held to its slot and every seat not on move is
frozen, so a game uses a fraction of a core (the heuristic bot at gvisor with an 80 ms slot: 46
decisions in 3.7 s of slots). Playing only as many blocks as cores would leave the machine idle;
this plays up to ``PER_CORE`` blocks a core, within a memory budget: by default half of the memory
available when the run starts. One worker process a core plays its share of them at once in
threads: a worker's start (about a second of CPU, seconds of wall time on a loaded machine) and
its memory are paid once a core instead of once a block (measured on the 2-core machine of
docs/benchmarks.md: 12 workers of one block took longer to start than their blocks took to play).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

#: Blocks played at once per core with a fixed tempo, at most. 10 a core (21 blocks on the 2-core
#: machine) played no faster than 6 (13 blocks), with more memory and more Ray workers to start.
PER_CORE = 6
#: MB the four seats of one block in play take (peak proportional set size, shared pages counted
#: once; the heuristic bot at gvisor: the whole tree's peak with 13 blocks at once, 3.3 GB, less Ray's
#: own processes and its workers, is about 220 MB a block, its seats' start-up included), with room to spare.
SEATS_MB = {"gvisor": 250, "bwrap": 4 * 30, "rlimit": 4 * 30, "none": 4 * 30}
#: MB one worker process takes (Ray's worker with the harness loaded: about 65 MB measured playing 6 blocks in threads,
#: proportional set size), whatever blocks it plays, with room to spare.
WORKER_MB = 150


@dataclass(frozen=True)
class Oversubscription:
    """``blocks`` at once, played by ``workers`` processes of up to ``threads`` blocks each, and why."""

    blocks: int
    workers: int
    threads: int
    why: str


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def available_mb() -> int | None:
    """MemAvailable of /proc/meminfo in MB, or None where it is not known."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def block_mb(level: str, threads: int = 1) -> float:
    """MB one block in play takes at ``level``: its seats and its share of the worker that plays it."""
    return SEATS_MB.get(level, SEATS_MB["gvisor"]) + WORKER_MB / max(1, threads)


def fixed_tempo_workers(level: str, n_cores: int | None = None, budget_mb: int | None = None,
                        units: int | None = None) -> Oversubscription:
    """Blocks at once, worker processes and threads a process for a fixed-tempo run on this machine;
    ``units``: the units of work the run has to play, which bound it (a block a thread that would get
    nothing costs nothing, but a worker process that would get nothing costs its start all the same)."""
    n_cores = n_cores or cores()
    seats = SEATS_MB.get(level, SEATS_MB["gvisor"])
    workers_at_most = n_cores
    if budget_mb is None:
        avail = available_mb()
        budget_mb = avail // 2 if avail is not None else n_cores * (seats + WORKER_MB)
    n = max(n_cores, min(n_cores * PER_CORE, (budget_mb - workers_at_most * WORKER_MB) // seats))
    few = units is not None and 0 < units < n
    n = units if few and units is not None else n
    workers = min(n_cores, n)
    threads = math.ceil(n / workers)
    why = (f"tempo fixed: {n} blocks at once on {n_cores} cores, {workers} worker process{'es' * (workers != 1)} of"
           f" up to {threads} thread{'s' * (threads != 1)} (seats off move are frozen; memory budget {budget_mb} MB at"
           f" about {block_mb(level, threads):.0f} MB a block at level {level}"
           + (f"; the run has {units} units to play)" if few else ")"))
    return Oversubscription(n, workers, threads, why)
