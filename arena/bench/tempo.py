"""``arena bench tournament``'s tempo part: games per second with tempo free and tempo fixed, one run.

A fixed tempo holds every answer to its slot, so a game takes about ``slot_ms`` x its decisions of
wall time and little CPU; the scheduler plays more blocks at once than there are cores to make up
for it (``arena.schedule.oversubscribe``). Both modes play the same round robin (four copies of
one bot under other names, so there are six pairings to spread) through the real runner on an
embedded Ray instance: free with one block a core, fixed with the scheduler's own number. Games
per second count from the moment the workers are up to the last stored block. While the fixed run
plays, the resident memory of this process's whole tree (Ray's workers and every sandbox) is
sampled: its peak over the blocks at once is the memory a concurrent block takes.
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
from ..schedule import RunObserver, build_tournament, run_tournament
from ..schedule.oversubscribe import cores

#: The time control of both modes: the CPU limit, and the fixed mode's slot above it.
DECISION_MS, SLOT_MS = 100, 150


class _Clock(RunObserver):
    def __init__(self) -> None:
        self.up: float | None = None
        self.capacity = 0

    def started(self, capacity: int) -> None:
        self.up, self.capacity = time.monotonic(), capacity


def _tree_rss_mb() -> float:
    total = 0
    for pid in proctree.descendants(os.getpid()):
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/status") as fh:
                total += next((int(ln.split()[1]) for ln in fh if ln.startswith("VmRSS:")), 0)
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
            peak[0] = max(peak[0], _tree_rss_mb())

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
    faults = sum(len(g["faults"]) for ln in lines for g in ln["games"])
    if not result.complete or faults:
        raise RuntimeError(f"benchmark tournament ({tempo}) incomplete or faulted: {faults} faults")
    return {"games": games, "wall_s": round(wall, 2), "games_per_s": round(games / wall, 3),
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
    return {"bot": bot.name, "level": level, "decision_ms": DECISION_MS, "slot_ms": SLOT_MS, "deals": deals,
            "free": free, "fixed": fixed, "fixed_vs_free": round(fixed["games_per_s"] / free["games_per_s"], 3)}
