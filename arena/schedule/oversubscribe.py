"""How many blocks to play at once when the tempo is fixed (issue 41).

A fixed-tempo game mostly waits: every answer is held to its slot and every seat not on move is
frozen, so a game uses a fraction of a core (the heuristic bot at gvisor with a 150 ms slot: about
a third). Playing only as many blocks as cores would leave the machine idle; this plays up to
``PER_CORE`` blocks a core, within a memory budget: by default half of the memory available when
the run starts, at the memory a block takes at its sandbox level (measured on the 2-core machine
of docs/benchmarks.md: four seats' memory at their peak, plus the worker that plays them).
"""

from __future__ import annotations

import os

#: Blocks played at once per core with a fixed tempo, at most. 10 a core (21 blocks on the 2-core
#: machine) played no faster than 6 (13 blocks), with more memory and more Ray workers to start.
PER_CORE = 6
#: MB one block in play takes: four seats (peak proportional set size, heuristic bot: 134 MB at
#: gvisor, shared pages counted once) plus the worker process that plays them, with room to spare.
BLOCK_MB = {"gvisor": 150 + 150, "bwrap": 4 * 30 + 150, "rlimit": 4 * 30 + 150, "none": 4 * 30 + 150}


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


def fixed_tempo_workers(level: str, n_cores: int | None = None, budget_mb: int | None = None,
                        units: int | None = None) -> tuple[int, str]:
    """(blocks at once, the sentence that says why) for a fixed-tempo run on this machine; ``units``: the
    units of work the run has to play, which bound it (a Ray worker that would get nothing costs its
    start, about a second of CPU, all the same)."""
    n_cores = n_cores or cores()
    if budget_mb is None:
        avail = available_mb()
        budget_mb = avail // 2 if avail is not None else n_cores * BLOCK_MB.get(level, BLOCK_MB["gvisor"])
    per = BLOCK_MB.get(level, BLOCK_MB["gvisor"])
    n = max(n_cores, min(n_cores * PER_CORE, budget_mb // per))
    few = units is not None and 0 < units < n
    n = units if few and units is not None else n
    return n, (f"tempo fixed: {n} blocks at once on {n_cores} cores (seats off move are frozen; memory budget"
               f" {budget_mb} MB at about {per} MB a block at level {level}"
               + (f"; the run has {units} units to play)" if few else ")"))
