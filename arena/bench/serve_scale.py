"""``arena bench serve``'s scale case: the ladder's batch and site rebuild with a large results store.

A competition of ``teams`` accepted teams (each a copy of bots/minimal) gets
its results store synthesised (``bench.synth``: real engine games, reused
under the pairings' names) up to each of the ``stored`` game counts in turn,
with the public site and the live page brought up to date (timed apart, as
"catch-up", with the ladder's index and standings tally and the team pages'
fault index); then the server (a child process: the ladder's ``run_batch``
with the web app loaded, so its memory is a server's) plays one batch of
``ladder_blocks`` (4) real blocks and rebuilds the site, and a team page's
faults and tempo audit are read. Measured: the batch's and the rebuild's CPU
and wall time, the server's RSS after the batch and after the view, its peak,
the Python heap blocks it keeps, and the view's CPU. Separately, a site is built from scratch over the first ``scratch``
games (CPU per game).
"""

from __future__ import annotations

import gc
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arena.publish.site import build_site
from arena.results import ResultsStore, StoreIndex
from arena.results.store import RESULTS_NAME
from arena.schedule import plan
from arena.serve import db
from arena.serve.ladder import ladder_tournament, publish, stored_tally, write_live_page
from arena.serve.serve import open_service
from arena.serve.service import STORE_INDEX
from arena.serve.faults import FaultIndex
from arena.serve.tally import Index

from . import synth

BOT = Path(__file__).resolve().parents[2] / "bots" / "minimal"


def setup(folder: Path, teams: int, pairing_blocks: int, sandbox: str, bootstrap: int, extra: str = "",
          bot: Path = BOT) -> None:
    """A competition folder with ``teams`` accepted copies of ``bot`` (validation skipped: the bot is ours);
    ``extra``: more lines of its ``competition`` section. Its games play tempo free: the benchmark times the
    site and the harness, and under the server's default fixed tempo every decision would wait out its slot
    (400 ms: a 4-block batch about 9 minutes of sleeping with every seat frozen, whatever the code costs)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "competition.yaml").write_text(
        f"competition:\n  seed: bench-scale\n  ladder_blocks: 4\n  ladder_pairing_blocks: {pairing_blocks}\n"
        f"  site_bootstrap: {bootstrap}\n{extra}match:\n  sandbox: {sandbox}\n  time:\n    tempo: free\n")
    svc = open_service(folder)
    for i in range(teams):
        token = db.add_team(svc.engine, f"team{i:02d}")
        team = db.team_for_token(svc.engine, token)
        assert team is not None
        dest = folder / "uploads" / f"team{i:02d}"
        shutil.copytree(bot, dest)
        sid = db.add_submission(svc.engine, team.id, str(dest), per_day=10)
        claimed = db.claim_next(svc.engine)
        assert claimed is not None and claimed.id == sid
        db.finish(svc.engine, sid, True, "accepted by the benchmark's setup")


def _spread(task: Any) -> bytes:
    """The order the store is filled in: a fixed shuffle of (pairing, block number), so every stage holds
    blocks of every block number over most pairings, as a ladder that has played a while does (filled by
    block number instead, a 2,000-game store of 50 teams held block 0 alone: its bootstrap, which draws
    whole block numbers, had nothing to draw, and the stages' rebuilds were not comparable)."""
    return hashlib.blake2b(f"{task.pairing}|{task.block}".encode(), digest_size=8).digest()


def fill(folder: Path, games: int, pools: dict[int, Any], pool: int = synth.POOL) -> None:
    """Synthesise lines into the store until it holds ``games`` games: the ladder's missing blocks in a fixed
    shuffled order (``_spread``), leaving out every pairing of the last team (so a batch has blocks to play); ``pools`` (block number -> its real blocks) is filled as needed and kept for the next call."""
    svc = open_service(folder)
    t = ladder_tournament(svc)
    assert t is not None
    store = ResultsStore(folder / "results")
    store.load(expect_hash=t.config_hash())
    p = plan(t, store)
    last = t.entries[-1].ident
    todo = sorted((x for x in p.todo if last not in x.side_a + x.side_b), key=_spread)
    need = max(0, games // 2 - len(store.lines))
    if need > len(todo):
        raise ValueError(f"the ladder has room for {len(todo) + len(store.lines)} blocks, not {games // 2}")
    todo = todo[:need]
    if todo:
        fresh = sorted({(x.block, x.block_key) for x in todo if x.block not in pools})
        pools.update(synth.pool(t, fresh, pool))
        synth.write(folder / "results", t, todo, pools, len(store.lines))


def catch_up(folder: Path) -> dict[str, float]:
    """Bring the public site and the live page up to date with the store, as the server's last batches would
    have; timed (a build of what was synthesised since)."""
    svc = open_service(folder)
    c0, w0 = time.process_time(), time.perf_counter()
    publish(svc)
    write_live_page(folder, svc.config.competition.name, done=0, total=0)  # as the server names it (its state's key)
    stored_tally(folder)  # the standings' tally and the choice's index, as each batch keeps them
    Index.load(folder).catch_up(folder / "results").save(folder)
    FaultIndex(folder / "results").refresh()  # the team pages' faults and tempo audit, as each batch keeps them
    index = StoreIndex.read(folder / STORE_INDEX)  # the runner's resume index, as each batch writes it
    ResultsStore(folder / "results", records=False, index=index).load()
    index.write(folder / STORE_INDEX)
    return {"catch_up_cpu_s": round(time.process_time() - c0, 2), "catch_up_wall_s": round(time.perf_counter() - w0, 2)}


def _rss() -> float | None:
    for row in Path("/proc/self/status").read_text().splitlines():
        k, _, v = row.partition(":")
        if k == "VmRSS":
            return round(int(v.split()[0]) / 1024, 1)
    return None


def server_batch(folder: Path) -> dict[str, Any]:
    """In the server's child process: one ladder batch and its site rebuild, timed (CPU of this process;
    the bots' processes are not in it)."""
    from arena.serve import ladder
    from arena.serve.app import make_app

    svc = open_service(folder)
    make_app(svc)  # the web app's modules are a server's memory too
    base = _rss()
    times: dict[str, float] = {}

    def timed(svc: Any) -> None:
        c0, w0 = time.process_time(), time.perf_counter()
        publish(svc)
        times["rebuild_cpu_s"] = round(time.process_time() - c0, 3)
        times["rebuild_wall_s"] = round(time.perf_counter() - w0, 3)

    setattr(ladder, "publish", timed)  # the same call, timed
    c0, w0 = time.process_time(), time.perf_counter()
    played = ladder.run_batch(svc)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    gc.collect()
    end, blocks = _rss(), sys.getallocatedblocks()
    c0 = time.process_time()
    team = ladder.ranked(svc.engine)[0].name
    svc.faults.of(team), svc.faults.tempo(team)  # a team page's private parts
    view = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"blocks": played, "batch_cpu_s": round(cpu, 3), "batch_wall_s": round(wall, 3), **times,
            "rss_start_mb": base, "rss_end_mb": end, "rss_peak_mb": round(peak, 1), "heap_blocks_end": blocks,
            "view_cpu_s": round(view, 3), "rss_after_view_mb": _rss()}


def stored_games(folder: Path) -> int:
    p = folder / "results" / RESULTS_NAME
    if not p.exists():
        return 0
    with open(p, "rb") as f:
        return 2 * sum(1 for row in f if row.strip())


def in_child(folder: Path) -> dict[str, Any]:
    """``server_batch`` in a fresh interpreter: the server's memory, not this benchmark's."""
    r = subprocess.run([sys.executable, "-m", "arena.bench.serve_scale", str(folder)], capture_output=True,
                       text=True)
    if r.returncode:
        raise RuntimeError(f"arena bench serve: the server's batch failed: {r.stderr.strip()[-2000:]}")
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def scratch(folder: Path, games: int, bootstrap: int) -> dict[str, Any]:
    """A site built from scratch (in this process) over the first ``games`` games of the store, as the server
    builds it (replays on demand)."""
    src = folder / "scratch-results"
    src.mkdir(exist_ok=True)
    n = 0
    with open(folder / "results" / RESULTS_NAME, "rb") as f, open(src / RESULTS_NAME, "wb") as out:
        for row in f:
            if n >= games:
                break
            out.write(row)
            n += 2
    c0, w0 = time.process_time(), time.perf_counter()
    build_site([src], folder / "scratch-site", bootstrap=bootstrap, history_bootstrap=0, replays=False)  # a server's
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {"games": n, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "cpu_ms_per_game": round(1000 * cpu / max(1, n), 2)}


def run_scale(folder: Path, *, teams: int, stored: list[int], scratch_games: int, sandbox: str,
              bootstrap: int, pool: int = synth.POOL) -> dict[str, Any]:
    """The scale case in ``folder`` (made here): each stored size in turn, then the build from scratch."""
    if teams < 3:
        raise ValueError("the scale case needs at least 3 teams (the last one's pairings are left to play)")
    room = (teams - 1) * (teams - 2) // 2  # pairings without the last team
    setup(folder, teams, max(stored) // 2 // room + 2, sandbox, bootstrap)
    pools: dict[int, Any] = {}
    stages = []
    for n in sorted(stored):
        t0 = time.perf_counter()
        fill(folder, n, pools, pool)
        synth_s = round(time.perf_counter() - t0, 2)
        before = stored_games(folder)
        up = catch_up(folder)
        stages.append({"stored_games": before, "synthesise_s": synth_s, **up, **in_child(folder)})
    return {"teams": teams, "site_bootstrap": bootstrap, "stages": stages,
            "scratch": scratch(folder, min(scratch_games, stored_games(folder)), bootstrap)}


if __name__ == "__main__":
    print(json.dumps(server_batch(Path(sys.argv[1]))))
