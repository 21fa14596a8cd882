"""``arena bench tournament``'s tempo part: games per second with tempo free and tempo fixed, one run.

A fixed tempo holds every answer to its slot, so a game takes about ``slot_ms`` x its decisions of
wall time and little CPU; the scheduler plays more blocks at once than there are cores to make up
for it (``arena.schedule.oversubscribe``). Both modes play the same round robin (four copies of
one bot under other names, so there are six pairings to spread) through the real runner on an
embedded Ray instance: free with one block a core, fixed with the scheduler's own number. Games
per second count from the moment the workers are up to the last stored block (``games_per_s``:
what a run of this size gets, the start of Ray's workers included, more of them with a fixed
tempo), and from the first stored block to the last (``steady_games_per_s``: the rate of a long
run, once its workers are up). While the fixed run
plays, the memory of this process's whole tree (Ray's workers and every sandbox, proportional set
size) is sampled: its peak over the blocks at once is the memory a concurrent block takes.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import yaml

from ..sandbox import proctree
from ..results import ResultLine
from ..schedule import RunObserver, build_tournament, run_tournament
from ..schedule.oversubscribe import cores

#: The time control of both modes: the CPU limit, and the fixed mode's slot above it.
DECISION_MS, SLOT_MS = 100, 150


class _Clock(RunObserver):
    """When the workers were up, and when each block was stored (with its games)."""

    def __init__(self) -> None:
        self.up: float | None = None
        self.capacity = 0
        self.stored: list[tuple[float, int]] = []

    def started(self, capacity: int) -> None:
        self.up, self.capacity = time.monotonic(), capacity

    def line(self, line: ResultLine) -> None:
        self.stored.append((time.monotonic(), len(line.games)))

    def steady(self) -> float | None:
        """Games a second from the first stored block to the last (the workers' start and the first
        blocks' launches left out): the rate once the run is going."""
        if len(self.stored) < 2 or self.stored[-1][0] <= self.stored[0][0]:
            return None
        return sum(g for _, g in self.stored[1:]) / (self.stored[-1][0] - self.stored[0][0])


def _tree_pss_mb() -> float:
    """The proportional set size of this process's tree: shared pages (the runsc binary, the Python
    runtime the workers share) counted once over all who map them, not once each."""
    total = 0
    for pid in proctree.descendants(os.getpid()):
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                total += next((int(ln.split()[1]) for ln in fh if ln.startswith("Pss:")), 0)
        except OSError:
            continue
    return total / 1024


def _copies(bot: Path, tmp: Path, n: int = 4) -> list[Path]:
    """``n`` copies of a bot folder under other names (a round robin needs distinct entries)."""
    out = []
    for i in range(n):
        d = tmp / f"{bot.name}-{'abcdefgh'[i]}"
        shutil.copytree(bot, d, ignore=shutil.ignore_patterns("__pycache__"))
        m = yaml.safe_load((d / "bot.yaml").read_text())
        m["name"] = d.name
        (d / "bot.yaml").write_text(yaml.safe_dump(m))
        out.append(d)
    return out


def _play(entries: list[Path], level: str, tempo: str, blocks: int, deals: int, out: Path) -> dict[str, Any]:
    time_ = {"decision_ms": DECISION_MS, **({"tempo": "fixed", "slot_ms": SLOT_MS} if tempo == "fixed" else {})}
    data: dict[str, Any] = {
        "name": f"bench-tempo-{tempo}", "entries": [str(e) for e in entries], "schedule": {"kind": "round_robin"},
        "blocks": blocks, "seed": "bench-tempo", "backend": "ray", "out": str(out),
        "match": {"sandbox": level, "format": "deals", "deals": deals, "restart": "per-lineage", "lineage_blocks": 2,
                  "time": time_},
        **({} if tempo == "fixed" else {"workers": cores()}),  # fixed: the scheduler's own number
    }
    t = build_tournament(data, out.parent, f"bench tempo {tempo}")
    clock = _Clock()
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.5):
            peak[0] = max(peak[0], _tree_pss_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        result = run_tournament(t, observer=clock)
    finally:
        done.set()
        sampler.join()
    wall = time.monotonic() - (clock.up or time.monotonic())
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    games = sum(len(ln["games"]) for ln in lines)
    faults = [f"{f['kind']}: {f['message']}" for ln in lines for g in ln["games"] for f in g["faults"]]
    if not result.complete or faults:
        raise RuntimeError(f"benchmark tournament ({tempo}) incomplete or faulted: {len(faults)} faults, {faults[:3]}"
                           + "".join(f"; {m}" for ln in lines for g in ln["run"]["games"] for m in
                                     [f"measured {x.get('measured')}" for x in g["faults"]][:3]))
    lat = [x for ln in lines for g in ln["run"]["games"] for p in g["players"] for x in p["latency_ms"]]
    late = sum(1 for x in lat if x > SLOT_MS) / max(1, len(lat))
    steady = clock.steady()
    return {"games": games, "wall_s": round(wall, 2), "games_per_s": round(games / wall, 3),
            "steady_games_per_s": None if steady is None else round(steady, 3),
            "latency_ms_mean": round(sum(lat) / max(1, len(lat)), 2), "after_slot_share": round(late, 3),
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "blocks_at_once": clock.capacity, "peak_tree_mb": round(peak[0]),
            "mb_per_block": round(peak[0] / max(1, clock.capacity))}


def measure_tempo(bot: Path, level: str, blocks: int = 2, deals: int = 2, tmp: Path | None = None) -> dict[str, Any]:
    """Both modes on the same round robin: games per second, and fixed's as a share of free's."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="arena-bench-tempo-") as scratch:
        root = tmp or Path(scratch)
        entries = _copies(bot, root)
        free = _play(entries, level, "free", blocks, deals, root / "free")
        fixed = _play(entries, level, "fixed", blocks, deals, root / "fixed")
    a, b = fixed["steady_games_per_s"], free["steady_games_per_s"]
    return {"bot": bot.name, "level": level, "decision_ms": DECISION_MS, "slot_ms": SLOT_MS, "deals": deals,
            "free": free, "fixed": fixed, "fixed_vs_free": round(fixed["games_per_s"] / free["games_per_s"], 3),
            "fixed_vs_free_steady": round(a / b, 3) if a and b else None}
