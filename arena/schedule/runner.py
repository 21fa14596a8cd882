"""``arena run CONFIG``: run (or resume, or extend) a tournament.

Order of work: validate the config and every entry, check the results
folder belongs to this config, check each bot's conformance, play the
missing blocks, then publish the seed and (if available) the leaderboard.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tabulate import tabulate

from .. import __version__
from ..results import SCHEMA_VERSION, ResultsStore, StoreError, standings
from .backends import make_backend
from .config import ConfigError, Tournament, load_config
from .progress import Progress
from .scheduler import plan_tasks, run_tasks

META_NAME = "tournament.json"
SUMMARY_NAME = "summary.json"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="arena run", description="Run a tournament from a YAML config (resumable).")
    ap.add_argument("config", help="tournament config (YAML)")
    ap.add_argument("--workers", type=int, help="parallel blocks (embedded Ray)")
    ap.add_argument("--blocks", type=int, help="duplicate blocks per pairing")
    ap.add_argument("--seed", help="tournament seed (kept secret until the run completes)")
    ap.add_argument("--out", help="output folder (relative to the working directory)")
    ap.add_argument("--leaderboard", help="where to write the leaderboard (default: the config's, else <out>/leaderboard)")
    ap.add_argument("--backend", choices=["ray", "serial"])
    ap.add_argument("--ray-address", help="existing Ray cluster (default: $RAY_ADDRESS, else an embedded instance)")
    ap.add_argument("--skip-check", action="store_true", help="do not run the conformance check before the first game")
    ap.add_argument("--no-rate", action="store_true", help="do not rate the results at the end")
    return ap


_SHOW_REPROS = 10


def _meta(t: Tournament, *, complete: bool) -> dict[str, Any]:
    c = t.config
    return {
        "schema": SCHEMA_VERSION,
        "name": c.name,
        "config_hash": t.config_hash(),
        "seed": c.seed if complete else None,  # secret until the tournament is complete
        "complete": complete,
        "match": c.match.model_dump(mode="json"),
        "schedule": c.schedule.model_dump(mode="json"),
        "blocks": c.blocks,
        "harness_version": __version__,
        "entries": [
            {"name": e.name, "version": e.manifest.version, "digest": e.digest, "ident": e.ident} for e in t.entries
        ],
        "deal_files": t.deal_digests,
        "anchor": (t.by_ref[c.anchor].name if c.anchor in t.by_ref else c.anchor) if c.anchor else None,
    }


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    tmp.replace(path)


def check_meta(out: Path, config_hash: str) -> None:
    p = out / META_NAME
    if not p.exists():
        return
    try:
        old = json.loads(p.read_text()).get("config_hash")
    except ValueError:
        return
    if old and old != config_hash:
        raise StoreError(
            f"{out}: holds a tournament with config hash {old}, this config hashes to {config_hash}:"
            " seed, match settings or deal files changed. Use a new 'out' folder."
        )


def conformance(t: Tournament, stream: Any) -> bool:
    """Check every entry with ``arena.players.check`` when that module offers it."""
    try:
        from ..players.check import check_entry  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        return True
    ok = True
    for e in t.entries:
        report = check_entry(e, t.settings)
        if not report.ok:
            ok = False
            print(f"arena run: {e.ident} failed the conformance check:\n{report.summary()}", file=stream)
    return ok


def publish(results: Path, out: Path, stream: Any) -> None:
    """Rate the results and write leaderboards, if the publish step exists."""
    try:
        from ..publish.cli import main_rate  # type: ignore[import-not-found]
    except (ImportError, AttributeError):
        return
    try:
        main_rate([str(results), "--out", str(out)])
    except Exception as e:  # noqa: BLE001 - the tournament itself is done; say so and go on
        print(f"arena run: rating step failed: {type(e).__name__}: {e}", file=stream)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    err = sys.stderr
    overrides = {
        "workers": args.workers, "blocks": args.blocks, "seed": args.seed, "out": args.out,
        "backend": args.backend, "ray_address": args.ray_address, "leaderboard": args.leaderboard,
    }
    try:
        t = load_config(args.config, overrides)
    except ConfigError as e:
        print(f"arena run: {e}", file=err)
        return 2
    out = t.out
    out.mkdir(parents=True, exist_ok=True)
    store = ResultsStore(out)
    h = t.config_hash()
    try:
        check_meta(out, h)
        store.load(expect_hash=h)
    except StoreError as e:
        print(f"arena run: {e}", file=err)
        return 2
    if store.repaired_bytes:
        print(f"arena run: cut off a torn last line ({store.repaired_bytes} bytes) of {store.path}", file=err)
    tasks = plan_tasks(t)
    todo = [x for x in tasks if x.key not in store.lines]
    _write_json(out / META_NAME, _meta(t, complete=False))
    print(
        f"arena run: {t.config.name}: {len(tasks)} blocks ({len(tasks) - len(todo)} already done),"
        f" {len(t.entries)} entries, backend {t.config.backend}, out {out}",
        file=err,
    )
    if todo and not args.skip_check and not conformance(t, err):
        return 3

    outcome = None
    t0 = time.monotonic()
    if todo:
        keys = {k for k in (x.key for x in tasks)}
        progress = Progress(len(tasks), [ln for k, ln in store.lines.items() if k in keys], err)
        used = {i for x in todo for i in x.idents}
        backend = make_backend(t.config.backend, {e.ident: e for e in t.entries if e.ident in used}, t.config.workers, t.config.ray_address)
        try:
            outcome = run_tasks(
                tasks, backend, store, attempts=t.config.retries,
                on_line=progress.add, on_failure=progress.fail, on_retry=progress.retry,
                bot_dirs={e.name: e.dir for e in t.entries},
            )
        except KeyboardInterrupt:
            progress.finish()
            print("arena run: interrupted; run the same command again to resume", file=err)
            return 130
        finally:
            backend.close()
        progress.finish()

    keys = {x.key for x in tasks}
    mine = [store.lines[k] for k in sorted(store.lines) if k in keys]
    complete = len(mine) == len(tasks)
    table = standings(mine)
    summary = {
        **_meta(t, complete=complete),
        "blocks_total": len(tasks),
        "blocks_done": len(mine),
        "games": 2 * len(mine),
        "played_now": outcome.played if outcome else 0,
        "retries": outcome.retries if outcome else 0,
        "harness_failures": [{"pairing": k[0], "block": k[1], "error": e} for k, e in (outcome.failures if outcome else [])],
        "wall_s": round(time.monotonic() - t0, 3),
        "standings": [{"bot": s.bot, "games": s.games, "points": s.points, "rate": round(s.rate, 4), "faults": s.faults} for s in table],
    }
    _write_json(out / META_NAME, _meta(t, complete=complete))
    _write_json(out / SUMMARY_NAME, summary)
    print(tabulate([[s.bot, s.games, s.points, f"{s.rate:.3f}", s.faults] for s in table],
                   headers=["bot", "games", "points", "rate", "faults"]), file=err)
    repros = [r for ln in mine for r in (ln.get("run") or {}).get("reproduce", [])]
    for r in repros[:_SHOW_REPROS]:
        print(f"arena run: {r['bot']} {r['kind']} (game {r['game']}, seat {r['seat']}); reproduce: {r['command']}", file=err)
    if len(repros) > _SHOW_REPROS:
        print(f"arena run: ... {len(repros) - _SHOW_REPROS} more faults; each line's run.reproduce lists them", file=err)
    if not complete:
        for (pairing, block), why in (outcome.failures if outcome else []):
            print(f"arena run: harness failure, not scored: {pairing} block {block}: {why}", file=err)
        print(f"arena run: {len(tasks) - len(mine)} blocks missing; run again to retry them", file=err)
        return 1
    print(f"arena run: complete; seed published in {out / SUMMARY_NAME}", file=err)
    if not args.no_rate:
        publish(store.path, Path(t.config.leaderboard) if t.config.leaderboard else out / "leaderboard", err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
