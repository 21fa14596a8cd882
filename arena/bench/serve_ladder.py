"""``arena bench serve``'s ladder case: games per second the ladder plays on 1 and 2 workers and a cluster.

For each backend (``workers: 1``, the server's process; ``workers: 2``, an
embedded Ray instance; ``ray_address`` of a two-node loopback cluster of one
CPU each, ``raycluster``), a fresh competition of ``teams`` accepted copies
of bots/minimal, and in a child process (the server, started as ``arena
serve`` starts its backend) one batch to start the workers, then
``batches`` batches of the ladder's default size timed: games stored per
second of the batches' play (each batch's wall time less its site rebuild,
which runs in the server's process whatever the backend), and per second of
the whole batches; and the CPU seconds of the server and everything it
started (its bots, its Ray instance: ``tree_cpu``) over the timed batches,
so a machine that other work loads can be read too (games per CPU second).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

from ..sandbox.proctree import tree_cpu_seconds
from .raycluster import LoopbackCluster
from .serve_scale import BOT, setup

BOTS = BOT.parent  # the repository's bots/

Backend = Literal["1", "2", "cluster"]
BACKENDS: tuple[Backend, ...] = ("1", "2", "cluster")


class BatchFigures(TypedDict):
    """One backend's timed batches (``server_batches``, in the server's child process)."""

    games: int
    wall_s: float
    rebuild_wall_s: float
    cpu_s: float
    games_per_cpu_s: float | None
    games_per_s: float | None
    games_per_s_with_rebuild: float | None
    nodes: NotRequired[int]  # the cluster's
    cluster_start_s: NotRequired[float]


#: ``run_ladder``'s figures: the competition, each backend's batches (none: the cluster not asked
#: for), and 2 workers over 1 (games per second, games per CPU second).
LadderFigures = TypedDict("LadderFigures", {
    "teams": int, "batches": int, "bot": str, "1": BatchFigures | None, "2": BatchFigures | None,
    "cluster": BatchFigures | None, "speedup_2": float | None, "per_cpu_2": float | None})


def tree_cpu(root: int | None = None) -> float:
    """CPU seconds of a process (default this one) and its descendants alive now, with what each has
    reaped (``proctree.tree_cpu_seconds``, every reaped child counted): the server's, its bots' and its Ray
    instance's, which ``time.process_time`` (this process alone) misses. Linux /proc only."""
    return tree_cpu_seconds(os.getpid() if root is None else root, every_reaped=True)


def server_batches(folder: Path, batches: int) -> BatchFigures:
    """In the server's child process: a warm-up batch, then ``batches`` batches timed."""
    from arena.serve import ladder
    from arena.serve.serve import open_service

    svc = open_service(folder)
    ray = ladder.start_backend(svc)
    rebuild = [0.0]
    publish = ladder.publish

    def timed(svc: Any) -> None:
        w0 = time.perf_counter()
        publish(svc)
        rebuild[0] += time.perf_counter() - w0

    setattr(ladder, "publish", timed)  # the same call, timed
    try:
        ladder.run_batch(svc)  # the workers start, the bots are shipped
        rebuild[0] = 0.0
        w0, c0 = time.perf_counter(), tree_cpu()
        played = sum(ladder.run_batch(svc) for _ in range(batches))
        wall, cpu = time.perf_counter() - w0, tree_cpu() - c0
    finally:
        if ray is not None:
            ray.shutdown()
    return {"games": 2 * played, "wall_s": round(wall, 3), "rebuild_wall_s": round(rebuild[0], 3),
            "cpu_s": round(cpu, 2), "games_per_cpu_s": round(2 * played / cpu, 3) if played and cpu else None,
            "games_per_s": round(2 * played / (wall - rebuild[0]), 3) if played else None,
            "games_per_s_with_rebuild": round(2 * played / wall, 3) if played else None}


def _child(folder: Path, batches: int, env: dict[str, str]) -> BatchFigures:
    r = subprocess.run([sys.executable, "-m", "arena.bench.serve_ladder", str(folder), str(batches)],
                       capture_output=True, text=True, env={**os.environ, **env})
    if r.returncode:
        raise RuntimeError(f"arena bench serve: the ladder's batches failed: {r.stderr.strip()[-2000:]}")
    out: BatchFigures = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def run_ladder(root: Path, *, teams: int, batches: int, sandbox: str, cluster: bool = True,
               bot: str = "minimal") -> LadderFigures:
    """Each backend in turn, on a fresh competition in ``root`` (made here) of copies of ``bot`` (a folder
    of bots/: ``minimal`` answers at once, so the harness's and Ray's own costs bound what 2 workers
    gain; a bot that thinks, ``heuristic``, shows what a competition of such bots gets)."""
    out: LadderFigures = {"teams": teams, "batches": batches, "bot": bot, "1": None, "2": None, "cluster": None,
                          "speedup_2": None, "per_cpu_2": None}
    source = BOTS / bot
    for name in BACKENDS:
        if name == "cluster" and not cluster:
            out[name] = None
            continue
        folder = root / f"workers-{name}"
        if name != "cluster":
            setup(folder, teams, 2, sandbox, 0, f"  workers: {name}\n", source)
            out[name] = _child(folder, batches, {})
            continue
        with LoopbackCluster(root / "ray") as c:
            t0 = time.monotonic()
            c.start_head(cpus=1)
            c.add_node(cpus=1)
            started = time.monotonic() - t0
            setup(folder, teams, 2, sandbox, 0, f"  workers: 2\n  ray_address: {c.address}\n", source)
            out[name] = {**_child(folder, batches, {k: v for k, v in c.env().items() if k.startswith("RAY_")}),
                         "nodes": 2, "cluster_start_s": round(started, 1)}
    w1, w2 = out["1"], out["2"]
    assert w1 is not None and w2 is not None  # (always played)
    one, two = w1["games_per_s"], w2["games_per_s"]
    out["speedup_2"] = round(two / one, 3) if one and two else None
    one, two = w1["games_per_cpu_s"], w2["games_per_cpu_s"]
    out["per_cpu_2"] = round(two / one, 3) if one and two else None  # 2 workers' games per CPU second over 1's
    return out


if __name__ == "__main__":
    print(json.dumps(server_batches(Path(sys.argv[1]), int(sys.argv[2]))))
