"""``arena bench site``: how long the static site of a large competition takes to build, on one core.

A synthetic competition is generated first (not timed): a round robin of
``bots`` self-partnerships whose games are real engine games with random
legal decisions and full records, seated and keyed as a tournament seats
them, with per-decision latencies in ``run`` so the time-use code has work.
Then ``build_site`` writes the whole site; the figure is its CPU time
(this process, one core) and wall time, with the file count and the
largest page.
"""

from __future__ import annotations

import json
import platform
import random
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.engine import DealKey, Game, game_record
from arena.match.keys import Seed, block_key
from arena.publish.site import build_site
from arena.results import game_id


def _seat(name: str) -> dict[str, str]:
    return {"bot": name, "digest": (name.encode().hex() * 64)[:64]}


def _game(names: list[str], key: str, rng: random.Random, side_a: int, max_deals: int) -> tuple[dict[str, Any], dict[str, Any]]:
    g = Game(key=DealKey(key), max_deals=max_deals)
    decisions = [0, 0, 0, 0]
    while not g.over:
        decisions[g.to_act] += 1
        g.apply(g.choice.sample(rng))
    rec = game_record(g)
    line = {"seats": [_seat(n) for n in names], "seeds": [1, 2, 3, 4], "side_a": side_a, "winner": rec["winner"],
            "end": rec["end"], "unfinished": rec["end"] == "cap", "scores": rec["scores"], "forfeit_by": None,
            "faults": [], "record": rec}
    run = {"wall_s": 0.1, "players": [{"bot": n, "startup_ms": 40.0,
                                       "latency_ms": [round(rng.uniform(0.05, 3.0), 3) for _ in range(decisions[s])],
                                       "cpu_ms": [], "stderr_bytes": 0, "stderr_dropped": 0}
                                      for s, n in enumerate(names)], "faults": []}
    return line, run


def generate(folder: Path, games: int, bots: int, seed: str = "bench-site", max_deals: int = 12) -> int:
    """Write ``results.jsonl`` (and a tournament.json) with about ``games`` games; returns the game count."""
    names = [f"bot{i:02d}" for i in range(bots)]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    blocks = max(1, -(-games // (2 * len(pairs))))
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(folder / "results.jsonl", "w") as f:
        for blk in range(blocks):
            key = block_key(Seed(seed), blk)
            for a, b in pairs:
                if n >= games:
                    break
                pairing = f"{a}+{a}~{b}+{b}"
                rng = random.Random(f"{pairing}|{blk}")
                g0, r0 = _game([a, b, a, b], key, rng, 0, max_deals)
                g1, r1 = _game([b, a, b, a], key, rng, 1, max_deals)
                for h, g in enumerate((g0, g1)):
                    g["id"] = game_id(pairing, blk, h)
                score_a = sum(0.5 if g["winner"] is None else float(g["winner"] == g["side_a"]) for g in (g0, g1))
                line = {"schema": 1, "config_hash": "bench", "pairing": pairing, "block": blk, "block_key": key,
                        "side_a": [_seat(a), _seat(a)], "side_b": [_seat(b), _seat(b)], "score_a": score_a,
                        "games": [g0, g1], "run": {"backend": "bench", "finished_at": 1.8e9 + n, "games": [r0, r1]}}
                f.write(json.dumps(line) + "\n")
                n += 2
    meta = {"name": "bench-site", "match": {"time": {"bank_ms": 120000, "decision_ms": 1000}}, "complete": True}
    (folder / "tournament.json").write_text(json.dumps(meta))
    return n


@dataclass(frozen=True)
class SiteBench:
    """``arena bench site``'s figures (its JSON line, in this order)."""

    bench: str
    games: int
    bots: int
    bootstrap: int
    generate_seconds: float
    build_cpu_seconds: float
    build_wall_seconds: float
    files: int
    site_bytes: int
    results_bytes: int
    largest_file: str
    largest_file_bytes: int
    target_seconds: int
    python: str


def bench_site(games: int = 10_000, bots: int = 8, bootstrap: int = 1000, history_bootstrap: int = 200,
               keep: Path | None = None) -> SiteBench:
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        root = keep or Path(tmp)
        t0 = time.perf_counter()
        n = generate(root / "results", games, bots)
        gen_s = time.perf_counter() - t0
        wall0, cpu0 = time.perf_counter(), time.process_time()
        b = build_site([root / "results"], root / "site", bootstrap=bootstrap, history_bootstrap=history_bootstrap)
        cpu_s, wall_s = time.process_time() - cpu0, time.perf_counter() - wall0
        total = sum(p.stat().st_size for p in (root / "site").rglob("*") if p.is_file())
        results_bytes = (root / "results" / "results.jsonl").stat().st_size
    return SiteBench("site", n, bots, bootstrap, round(gen_s, 2), round(cpu_s, 2), round(wall_s, 2), b.files, total,
                     results_bytes, b.largest[0], b.largest[1], 60, platform.python_version())


def run(args: Any) -> int:
    r = bench_site(args.games, args.bots, args.bootstrap, args.history_bootstrap)
    print(f"site of {r.games} games ({r.bots} bots, {r.results_bytes / 1e6:.0f} MB of results): "
          f"built in {r.build_cpu_seconds:.1f} s CPU ({r.build_wall_seconds:.1f} s wall), {r.files} files, "
          f"{r.site_bytes / 1e6:.0f} MB; largest file {r.largest_file} ({r.largest_file_bytes / 1e3:.0f} kB); "
          f"target under {r.target_seconds} s on one core")
    print(json.dumps(asdict(r)))
    return 0
