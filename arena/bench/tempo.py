"""``arena bench tournament``'s tempo part: games per second with tempo free and tempo fixed, one run.

A fixed tempo holds every answer to its slot, so a game takes about ``slot_ms`` x its decisions of
wall time and little CPU; the scheduler plays more blocks at once than there are cores to make up
for it (``arena.schedule.oversubscribe``). Both modes play the same round robin (four copies of
one bot under other names, so there are six pairings to spread) through the real runner on an
embedded Ray instance: free with one block a core, fixed with the scheduler's own number (one
worker process a core playing its blocks in threads). Free
plays half its blocks before the fixed run and half after, so a machine whose load drifts over the
run (other work) weighs on both modes alike, and fixed starts its workers once, as a run does. Games per second count from the
moment the workers are up to the last stored block (``games_per_s``: what runs of this size get, the
start of Ray's workers included, more of them with a fixed tempo), and from the first stored block
to the last (``steady_games_per_s``: the rate of a long run, once its workers are up). While a run
plays, the memory of this process's whole tree (Ray's workers and every sandbox, proportional set
size) is sampled every 2 s: its peak over the blocks at once is the memory a concurrent block takes
(Ray's own processes and the workers included; a block plays its games one after the other, so it is
also the memory of a concurrent game).
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

#: The time control of both modes: the CPU limit, and the fixed mode's slot above it. As a server's
#: defaults are (docs/server.md, "Time mode and format"), what the bot needs: the heuristic bot uses
#: at most 2 ms of CPU a decision at gvisor, and a fixed-tempo game costs its decisions x the slot.
#: (With 100 and 150 ms, fixed ran 0.27-0.60x free's games per second; docs/benchmarks.md.)
DECISION_MS, SLOT_MS = 40, 80


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

    def steady(self) -> tuple[int, float]:
        """(games, seconds) from the first stored block to the last (the workers' start and the first
        blocks' launches left out): the rate once the run is going."""
        if len(self.stored) < 2:
            return 0, 0.0
        return sum(g for _, g in self.stored[1:]), self.stored[-1][0] - self.stored[0][0]


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

    def sample() -> None:  # every 2 s: reading smaps of a hundred processes is work the games wait for
        while not done.wait(2.0):
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
    lat = [x for ln in lines for g in ln["run"]["games"] for p in g["players"] for x in p["latency_ms"]]
    steady_games, steady_s = clock.steady()
    return {"games": games, "wall_s": wall, "steady_games": steady_games, "steady_s": steady_s,
            "faults": _faults(lines), "blocks_missing": max(0, len(result.tasks) - len(lines)),
            "latency_ms_sum": sum(lat), "answers": len(lat), "late": sum(1 for x in lat if x > SLOT_MS),
            "load_after": [round(x, 2) for x in os.getloadavg()], "blocks_at_once": clock.capacity,
            "peak_tree_mb": peak[0]}


def _faults(lines: list[dict[str, Any]]) -> list[str]:
    """Every fault of the stored games, named (bot, kind, message, and the times the judge measured):
    an honest bot's stall is a finding to report beside the rate, not a reason to stop measuring."""
    out = []
    for ln in lines:
        runs = ln.get("run", {}).get("games", [])
        for i, g in enumerate(ln["games"]):
            extra = runs[i].get("faults", []) if i < len(runs) else []
            for j, f in enumerate(g["faults"]):
                m = extra[j].get("measured") if j < len(extra) else None
                out.append(f"{f.get('bot', '?')}: {f.get('kind')}: {f.get('message')}" + (f" (measured {m})" if m else ""))
    return out


def _combined(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One mode's runs as one: games over the sum of their times, the largest peak per block."""
    games, wall = sum(r["games"] for r in runs), sum(r["wall_s"] for r in runs)
    sg, ss = sum(r["steady_games"] for r in runs), sum(r["steady_s"] for r in runs)
    answers = sum(r["answers"] for r in runs)
    at_once = max(r["blocks_at_once"] for r in runs)
    peak = max(r["peak_tree_mb"] for r in runs)
    faults = [f for r in runs for f in r["faults"]]
    return {"games": games, "wall_s": round(wall, 2), "games_per_s": round(games / wall, 3) if wall > 0 else None,
            "faults": len(faults), "fault_examples": faults[:3], "blocks_missing": sum(r["blocks_missing"] for r in runs),
            "steady_games_per_s": round(sg / ss, 3) if ss > 0 else None,
            "latency_ms_mean": round(sum(r["latency_ms_sum"] for r in runs) / max(1, answers), 2),
            "after_slot_share": round(sum(r["late"] for r in runs) / max(1, answers), 3),
            "load_after": [r["load_after"] for r in runs], "blocks_at_once": at_once, "peak_tree_mb": round(peak),
            "mb_per_block": round(peak / max(1, at_once))}


#: The order the modes play in, with the share of the blocks each plays: a load that drifts
#: over the run weighs on both alike.
ORDER = (("free", 0.5), ("fixed", 1.0), ("free", 0.5))


def measure_tempo(bot: Path, level: str, blocks: int = 2, deals: int = 2, tmp: Path | None = None) -> dict[str, Any]:
    """Both modes on the same round robin of ``blocks`` blocks a pairing (free's in two halves around
    fixed's, ``ORDER``): games per second, and fixed's as a share of free's."""
    import tempfile

    half = max(1, blocks // 2)
    runs: dict[str, list[dict[str, Any]]] = {"free": [], "fixed": []}
    with tempfile.TemporaryDirectory(prefix="arena-bench-tempo-") as scratch:
        root = tmp or Path(scratch)
        entries = _copies(bot, root)
        for i, (mode, share) in enumerate(ORDER):
            n = half if share < 1 else 2 * half
            runs[mode].append(_play(entries, level, mode, n, deals, root / f"{mode}-{i}"))
    free, fixed = _combined(runs["free"]), _combined(runs["fixed"])
    a, b = fixed["steady_games_per_s"], free["steady_games_per_s"]
    return {"bot": bot.name, "level": level, "decision_ms": DECISION_MS, "slot_ms": SLOT_MS, "deals": deals,
            "free": free, "fixed": fixed, "blocks_per_pairing": 2 * half, "order": [m for m, _ in ORDER],
            "fixed_vs_free": _ratio(fixed["games_per_s"], free["games_per_s"]), "fixed_vs_free_steady": _ratio(a, b)}


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a and b else None


def print_tempo(r: dict[str, Any], bot: str, level: str, blocks: int) -> None:
    """``arena bench tournament``'s tempo part: measure into ``r`` (its JSON line) and print a summary,
    the faults of each mode named (a fault is reported, the measure goes on)."""
    from .tournament import bot_folder

    tp = r["tempo"] = measure_tempo(bot_folder(bot), level, blocks)
    name = Path(bot).name
    for m in ("free", "fixed"):
        x = tp[m]
        print(f"  tempo {m:<5} {tp['bot']} at {level}: {x['games_per_s']} games/s ({x['games']} games in {x['wall_s']} s,"
              f" {x['blocks_at_once']} blocks at once, peak {x['peak_tree_mb']} MB: about {x['mb_per_block']} MB a block;"
              f" bot latency {x['latency_ms_mean']} ms mean, {100 * x['after_slot_share']:.0f}% past {tp['slot_ms']} ms;"
              f" load {x['load_after']})")
        if x["faults"] or x["blocks_missing"]:
            print(f"  tempo {m:<5} faults: {x['faults']} in {x['games']} games, {x['blocks_missing']} blocks not stored;"
                  f" first: {'; '.join(x['fault_examples']) or '-'}")
    r[f"tempo_fixed_vs_free_{name}_{level}"] = tp["fixed_vs_free"]
    r[f"tempo_fixed_vs_free_steady_{name}_{level}"] = tp["fixed_vs_free_steady"]
    r[f"tempo_faults_{name}_{level}"] = tp["free"]["faults"] + tp["fixed"]["faults"]
    print(f"  tempo fixed is {tp['fixed_vs_free']}x tempo free's games per second ({tp['fixed_vs_free_steady']}x once"
          f" the workers are up: {tp['fixed']['steady_games_per_s']} against {tp['free']['steady_games_per_s']})"
          f" (decision limit {tp['decision_ms']} ms, slot {tp['slot_ms']} ms, {tp['deals']}-deal games)")
