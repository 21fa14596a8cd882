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

On a busy machine the wall-clock figures say little (each runnable process
gets its share, and 2 workers are more processes); the CPU per game does:
``cpu_per_game_s`` per backend, split by whose it is (``cpu_split``: the
server, Ray's own processes, Ray's workers, the bots with every process that
ended meanwhile), and 2 workers' ceiling on 2 cores, ``ceiling_2`` = 2 x the
CPU per game on 1 worker / on 2 (2.0 when both cost the same; what 2 workers
could reach over 1 on an idle machine with every core busy). ``busy`` says
whether both workers had a unit to play: the share of ``workers`` x the timed
wall with a unit in flight (the gaps: the site rebuild and the next batch's
choice between batches, a batch's last units played alone).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

from ..sandbox.proctree import _CLK_TCK, _stat_fields, descendants, tree_cpu_seconds
from .raycluster import LoopbackCluster
from .serve_scale import BOT, setup

BOTS = BOT.parent  # the repository's bots/

Backend = Literal["1", "2", "cluster"]
BACKENDS: tuple[Backend, ...] = ("1", "2", "cluster")


#: whose CPU ``cpu_split`` tells apart
Kind = Literal["server", "ray", "ray_workers", "bots"]
KINDS: tuple[Kind, ...] = ("server", "ray", "ray_workers", "bots")


class BatchFigures(TypedDict):
    """One backend's timed batches (``server_batches``, in the server's child process)."""

    games: int
    wall_s: float
    rebuild_wall_s: float
    cpu_s: float
    cpu_per_game_s: float | None
    cpu_split: dict[str, float]  # KINDS -> CPU seconds over the timed batches
    busy: float | None  # share of workers x wall with a unit in flight
    idle_s: float  # wall with no unit in flight at all: between batches
    games_per_cpu_s: float | None
    games_per_s: float | None
    games_per_s_with_rebuild: float | None
    nodes: NotRequired[int]  # the cluster's
    cluster_start_s: NotRequired[float]


#: ``run_ladder``'s figures: the competition, each backend's batches (none: the cluster not asked
#: for), and 2 workers over 1 (games per second, games per CPU second).
LadderFigures = TypedDict("LadderFigures", {
    "teams": int, "batches": int, "bot": str, "1": BatchFigures | None, "2": BatchFigures | None,
    "cluster": BatchFigures | None, "speedup_2": float | None, "per_cpu_2": float | None,
    "ceiling_2": float | None, "ceiling_cluster": float | None, "errors": dict[str, str]})


def tree_cpu(root: int | None = None) -> float:
    """CPU seconds of a process (default this one) and its descendants alive now, with what each has
    reaped (``proctree.tree_cpu_seconds``, every reaped child counted): the server's, its bots' and its Ray
    instance's, which ``time.process_time`` (this process alone) misses. Linux /proc only."""
    return tree_cpu_seconds(os.getpid() if root is None else root, every_reaped=True)


def kind_of(pid: int, server: int) -> Kind:
    """Whose process ``pid`` is, by its command line: the server's own, Ray's (GCS, raylet, its monitors and
    agents), a Ray worker (``ray::...``, which plays the units), or else a bot's (with its wrappers)."""
    if pid == server:
        return "server"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "bots"
    if cmd.startswith("ray::"):
        return "ray" if "Agent" in cmd.split(" ", 1)[0] else "ray_workers"
    if "default_worker.py" in cmd:
        return "ray_workers"
    return "ray" if "/ray/" in cmd or "ray.scripts" in cmd else "bots"


#: pid -> (kind, its own CPU seconds): a snapshot of the processes ``cpu_split`` reads
Snapshot = dict[int, tuple[Kind, float]]


def snapshot(roots: list[int], server: int) -> Snapshot:
    """Each live process below ``roots``: its kind and its own CPU (utime + stime, its threads')."""
    out: Snapshot = {}
    for root in roots:
        for pid in descendants(root):
            fields = _stat_fields(pid)
            if fields is not None:
                out[pid] = (kind_of(pid, server), (int(fields[11]) + int(fields[12])) / _CLK_TCK)
    return out


def cpu_split(before: Snapshot, after: Snapshot, total: float) -> dict[str, float]:
    """``total`` CPU seconds split by kind: each process alive at the end its own growth, and ``bots`` the
    rest (the bots, their wrappers and every process that ended meanwhile, reaped into its parent's
    count), which is mostly bots: Ray's processes and the server live through the batches."""
    split = dict.fromkeys(KINDS, 0.0)
    for pid, (kind, cpu) in after.items():
        if kind != "bots":
            split[kind] += cpu - (before[pid][1] if pid in before else 0.0)
    split["bots"] = total - sum(split.values())
    return {k: round(v, 2) for k, v in split.items()}


class Watched:
    """A backend whose units in flight are counted over time (``busy``): the loop's own backend, wrapped."""

    def __init__(self, inner: Any, log: list[tuple[float, int]]) -> None:
        self.inner, self.log = inner, log

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def submit(self, *args: Any, **kwargs: Any) -> None:
        self.inner.submit(*args, **kwargs)
        self.log.append((time.perf_counter(), +1))

    def wait(self) -> Any:
        try:
            return self.inner.wait()
        finally:
            self.log.append((time.perf_counter(), -1))

    def close(self) -> None:
        self.inner.close()


def busy_share(log: list[tuple[float, int]], start: float, end: float, workers: int) -> tuple[float | None, float]:
    """(share of ``workers`` x the span with a unit in flight on each, wall with none in flight at all)."""
    if end <= start:
        return None, 0.0
    n, t, busy, idle = 0, start, 0.0, 0.0
    for at, step in sorted(log) + [(end, 0)]:
        at = min(max(at, start), end)
        busy += min(n, workers) * (at - t)
        idle += (at - t) if n == 0 else 0.0
        n, t = max(0, n + step), at
    return round(busy / (workers * (end - start)), 3), round(idle, 3)


def server_batches(folder: Path, batches: int, roots: list[int] | None = None) -> BatchFigures:
    """In the server's child process: a warm-up batch, then ``batches`` batches timed; ``roots``: more
    process trees whose CPU is the ladder's (a cluster's nodes, which the server did not start)."""
    from arena.schedule import runner
    from arena.serve import ladder
    from arena.serve.serve import open_service

    svc = open_service(folder)
    ray = ladder.start_backend(svc)
    rebuild = [0.0]
    publish = ladder.publish
    make_backend = getattr(runner, "make_backend")  # the loop's, looked up there at each batch
    inflight: list[tuple[float, int]] = []
    me = os.getpid()
    every = [me, *(roots or [])]

    def timed(svc: Any) -> None:
        w0 = time.perf_counter()
        publish(svc)
        rebuild[0] += time.perf_counter() - w0

    def watched(*args: Any, **kwargs: Any) -> Any:
        return Watched(make_backend(*args, **kwargs), inflight)

    setattr(ladder, "publish", timed)  # the same call, timed
    setattr(runner, "make_backend", watched)  # the same backend, its units in flight counted
    try:
        ladder.run_batch(svc)  # the workers start, the bots are shipped
        rebuild[0] = 0.0
        inflight.clear()
        s0 = snapshot(every, me)
        w0, c0 = time.perf_counter(), sum(tree_cpu(r) for r in every)
        played = sum(ladder.run_batch(svc) for _ in range(batches))
        w1, cpu = time.perf_counter(), sum(tree_cpu(r) for r in every) - c0
        split = cpu_split(s0, snapshot(every, me), cpu)
    finally:
        if ray is not None:
            ray.shutdown()
    wall, games = w1 - w0, 2 * played
    busy, idle = busy_share(inflight, w0, w1, svc.config.competition.workers)
    return {"games": games, "wall_s": round(wall, 3), "rebuild_wall_s": round(rebuild[0], 3),
            "cpu_s": round(cpu, 2), "cpu_per_game_s": round(cpu / games, 4) if games else None,
            "cpu_split": split, "busy": busy, "idle_s": idle,
            "games_per_cpu_s": round(games / cpu, 3) if games and cpu else None,
            "games_per_s": round(games / (wall - rebuild[0]), 3) if games else None,
            "games_per_s_with_rebuild": round(games / wall, 3) if games else None}


def _child(folder: Path, batches: int, env: dict[str, str], roots: list[int] | None = None) -> BatchFigures:
    r = subprocess.run([sys.executable, "-m", "arena.bench.serve_ladder", str(folder), str(batches),
                        *(str(p) for p in roots or [])], capture_output=True, text=True, env={**os.environ, **env})
    if r.returncode:
        raise RuntimeError(f"arena bench serve: the ladder's batches failed: {r.stderr.strip()[-2000:]}")
    out: BatchFigures = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def run_ladder(root: Path, *, teams: int, batches: int, sandbox: str, cluster: bool = True,
               bot: str = "minimal") -> LadderFigures:
    """Each backend in turn, on a fresh competition in ``root`` (made here) of copies of ``bot`` (a folder
    of bots/: ``minimal`` answers at once, so the harness's and Ray's own costs bound what 2 workers
    gain; a bot that thinks, ``heuristic``, shows what a competition of such bots gets). A backend that
    fails (on a loaded machine Ray's start can time out) is said in ``errors``; the others' figures stay."""
    out: LadderFigures = {"teams": teams, "batches": batches, "bot": bot, "1": None, "2": None, "cluster": None,
                          "speedup_2": None, "per_cpu_2": None, "ceiling_2": None, "ceiling_cluster": None,
                          "errors": {}}
    source = BOTS / bot
    for name in BACKENDS:
        if name == "cluster" and not cluster:
            continue
        try:
            out[name] = _backend(root, name, teams, batches, sandbox, source)
        except RuntimeError as e:
            said = [ln for ln in str(e).strip().splitlines() if ln.strip() and not ln.lstrip().startswith("(")]
            out["errors"][name] = "\n".join(said[-3:])[-500:]  # the traceback's last lines: what failed
    w1, w2 = out["1"], out["2"]
    if w1 is None:
        return out
    if w2 is not None:
        one, two = w1["games_per_s"], w2["games_per_s"]
        out["speedup_2"] = round(two / one, 3) if one and two else None
        one, two = w1["games_per_cpu_s"], w2["games_per_cpu_s"]
        out["per_cpu_2"] = round(two / one, 3) if one and two else None  # 2 workers' games per CPU second over 1's
    out["ceiling_2"] = ceiling(w1, w2)
    out["ceiling_cluster"] = ceiling(w1, out["cluster"])
    return out


def _backend(root: Path, name: Backend, teams: int, batches: int, sandbox: str, source: Path) -> BatchFigures:
    """One backend's timed batches on a fresh competition in ``root``; RuntimeError if it could not play."""
    folder = root / f"workers-{name}"
    if name != "cluster":
        setup(folder, teams, 2, sandbox, 0, f"  workers: {name}\n", source)
        return _child(folder, batches, {})
    with LoopbackCluster(root / "ray") as c:
        t0 = time.monotonic()
        c.start_head(cpus=1)
        c.add_node(cpus=1)
        started = time.monotonic() - t0
        setup(folder, teams, 2, sandbox, 0, f"  workers: 2\n  ray_address: {c.address}\n", source)
        env = {k: v for k, v in c.env().items() if k.startswith("RAY_")}
        return {**_child(folder, batches, env, [n.proc.pid for n in c.nodes]),  # the nodes' CPU too
                "nodes": 2, "cluster_start_s": round(started, 1)}


def ceiling(one: BatchFigures, two: BatchFigures | None) -> float | None:
    """What 2 workers (2 cores) could play over 1 with every core busy: 2 x one's CPU per game / two's."""
    a, b = one["cpu_per_game_s"], two["cpu_per_game_s"] if two is not None else None
    return round(2 * a / b, 3) if a and b else None


if __name__ == "__main__":
    print(json.dumps(server_batches(Path(sys.argv[1]), int(sys.argv[2]), [int(p) for p in sys.argv[3:]])))
