"""``arena bench startup``: what the ``arena`` command pays in imports before it works.

Each case runs in fresh interpreters under ``python -X importtime``; its
figure is the time of the imports (the cumulative times of the top-level
ones, summed), the least over ``--repeat`` runs, since outside load only adds
to it. Wall time swells under load more than CPU time does, so for the cases
that only import (``--help``, the run's module) the CPU time of the process
beyond a bare interpreter's (``python -c pass``) is given too. Beside them:
how many modules were loaded and whether any of the heavy
dependencies only some commands need (Ray, the server's stack, numpy) was
among them. The one-block run is a real ``arena run`` of a serial one-block
tournament at sandbox level ``none`` (Ray's own start-up, for the default
backend, is a second or more and is not an import of the command's); its
imports before the line it writes before the first game are its start-up,
given apart from the whole run's (which adds the rating and the
leaderboard's templates at the end).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Dependencies of a few commands only: none may load where it is not used.
HEAVY = ("ray", "fastapi", "uvicorn", "starlette", "sqlalchemy", "numpy")
BOTS = Path(__file__).resolve().parents[2] / "bots"


@dataclass(frozen=True)
class Imports:
    """One run's imports: the total time, the modules, and the heavy ones among them."""

    ms: float
    modules: int
    arena_modules: int
    heavy: tuple[str, ...]


def parse_importtime(text: str, until: str | None = None) -> Imports:
    """The imports of ``-X importtime`` output: top-level cumulative times summed; with ``until``, only those
    before the first line that starts with it (what the process imported before it wrote that line)."""
    total_us = 0
    names: list[str] = []
    for line in text.splitlines():
        if until is not None and line.startswith(until):
            break
        if not line.startswith("import time:") or "[us]" in line:
            continue
        _, cumulative, name = line[len("import time:"):].split("|", 2)
        names.append(name.strip())
        if not name.startswith("  "):  # depth 0: its cumulative time holds its children's
            total_us += int(cumulative)
    tops = {n.split(".")[0] for n in names}
    return Imports(round(total_us / 1000, 1), len(names), sum(1 for n in names if n.split(".")[0] == "arena"),
                   tuple(h for h in HEAVY if h in tops))


def _env() -> dict[str, str]:
    """The child's environment: compiled bytecode read and written, as for any user."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(runs: list[list[str]], cwd: Path, until: str | None = None) -> tuple[Imports, float, Imports | None]:
    """The least import time over fresh runs of ``python -X importtime ARGV``, one per argv of
    ``runs``, the first a warm-up (bytecode compiled, files cached) not counted; the least
    CPU time (user + system, milliseconds) one whole process took; with ``until``, the least
    import time before the process's first stderr line starting with it."""
    best: Imports | None = None
    first: Imports | None = None
    best_cpu = float("inf")
    for i, argv in enumerate(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        ran = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=cwd, env=_env(),
                             capture_output=True, text=True, timeout=300)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if ran.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {ran.returncode}: {ran.stderr[-2000:]}")
        if i == 0 and len(runs) > 1:
            continue
        got = parse_importtime(ran.stderr)
        best = got if best is None or got.ms < best.ms else best
        if until is not None:
            head = parse_importtime(ran.stderr, until)
            first = head if first is None or head.ms < first.ms else first
        best_cpu = min(best_cpu, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    assert best is not None
    return best, round(best_cpu, 1), first


def one_block_config(folder: Path) -> Path:
    """A serial tournament of one block, one deal a game, two baselines at level ``none``."""
    cfg = folder / "one-block.yaml"
    cfg.write_text(json.dumps({  # JSON is YAML
        "name": "one-block", "entries": [str(BOTS / "minimal"), str(BOTS / "random")], "blocks": 1,
        "seed": "bench-startup", "backend": "serial", "out": str(folder / "run"),
        "match": {"format": "deals", "deals": 1, "sandbox": "none"},
    }))
    return cfg


#: The line a run writes before its first game (RunDisplay's plan line): what is imported before it is the
#: run's start-up; what comes after, the games' and the end's (the rating, the leaderboard's templates).
RUN_STARTS = "arena run: one-block:"
#: What each case runs, and how the summary names it.
CASES = {"python": (["-c", "pass"], "python -c pass (the interpreter alone)"),
         "help": (["-m", "arena", "--help"], "arena --help"),
         "run_module": (["-c", "import arena.commands.run"], "import arena.commands.run"),
         "one_block_run": (["-m", "arena", "run", "CONFIG", "--quiet", "--skip-check"],
                           "arena run, one block (serial, sandbox none)")}


def bench_startup(repeat: int = 5) -> dict[str, Any]:
    load = os.getloadavg()[0]
    out: dict[str, Any] = {"bench": "startup", "repeat": repeat}
    with tempfile.TemporaryDirectory(prefix="arena-bench-startup-") as tmp:
        folder = Path(tmp)
        cfg = str(one_block_config(folder))
        for name, (argv, _) in CASES.items():
            # a run writes its folder: each one plays into a fresh one
            runs = [[cfg if a == "CONFIG" else a for a in argv] + (["--out", str(folder / f"{name}-{i}")]
                    if "CONFIG" in argv else []) for i in range(repeat + 1)]
            imports, cpu, start = measure(runs, folder, RUN_STARTS if "CONFIG" in argv else None)
            out[name] = {"import_ms": imports.ms, "modules": imports.modules, "arena_modules": imports.arena_modules,
                         "heavy": list(imports.heavy), "process_cpu_ms": cpu}
            if start is not None:
                out[name].update(start_import_ms=start.ms, start_modules=start.modules, start_heavy=list(start.heavy))
        for name in ("help", "run_module"):  # processes that only import: their CPU beyond the interpreter's own
            out[name]["import_cpu_ms"] = round(out[name]["process_cpu_ms"] - out["python"]["process_cpu_ms"], 1)
    out["load_avg"] = [round(load, 2), round(os.getloadavg()[0], 2)]
    return out


def run(args: Any) -> int:
    r = bench_startup(repeat=args.repeat)
    print(f"arena start-up: the imports of fresh interpreters, least of {r['repeat']} runs"
          f" (load average {r['load_avg'][0]} -> {r['load_avg'][1]})")
    for key, (_, label) in CASES.items():
        c = r[key]
        heavy = ", ".join(c["heavy"]) or "none"
        beyond = f" ({c['import_cpu_ms']:.0f} beyond the interpreter's)" if "import_cpu_ms" in c else ""
        print(f"  {label:<45} {c['import_ms']:7.1f} ms of imports, {c['modules']} modules ({c['arena_modules']} of"
              f" arena); heavy: {heavy}; the whole process {c['process_cpu_ms']:.0f} ms of CPU{beyond}")
        if "start_import_ms" in c:
            print(f"  {'  of which before its first game':<45} {c['start_import_ms']:7.1f} ms of imports,"
                  f" {c['start_modules']} modules")
    print(json.dumps(r))
    return 0
