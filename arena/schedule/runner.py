"""Running a tournament from a validated config: the library call behind ``arena run`` and ``arena sprt``.

Order of work: lock the output folder, check it holds this tournament (or
an explicit extension of it), check each new entry's conformance, play the
missing blocks through the one loop (with the SPRT as stopping rule when
the config has one), then write the summary and publish the seed once the
tournament is complete. Rating is the caller's step (``arena.publish``).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import __version__
from ..match.check import check_entry
from ..players import BotEntry
from ..players.manifest import file_digests
from ..results import SCHEMA_VERSION, ResultsError, ResultsStore, results_path
from .backends import make_backend
from .config import Tournament
from .ladder import record_run
from .lock import FolderLock
from .progress import Progress
from .scheduler import InOrderFeed, RunOutcome, StoppingRule, block_key, run_tasks
from .tables import table_tasks
from .task import BlockTask

META_NAME = "tournament.json"
SUMMARY_NAME = "summary.json"


class RunRefused(RuntimeError):
    """The run cannot start as asked; the message says why and what to do."""


class EntriesFailed(RunRefused):
    """Entries failed the conformance check before any game: the bots' fault (each is named)."""


@dataclass
class RunOptions:
    extend: bool = False  # entries or blocks were added on purpose
    new_versions: bool = False  # a changed bot enters as a new version instead of being refused
    skip_check: bool = False
    on_block: Callable[[int, int], None] | None = None  # (blocks done, blocks total) after each stored block
    live_table: Callable[[list[dict[str, Any]]], str] | None = None  # stored lines -> provisional standings shown


@dataclass
class RunResult:
    tournament: Tournament
    tasks: list[BlockTask]
    lines: list[dict[str, Any]]  # this tournament's stored lines, in key order
    outcome: RunOutcome | None
    complete: bool
    wall_s: float
    interrupted: bool = False
    summary: dict[str, Any] = field(default_factory=dict)


def plan_tasks(t: Tournament) -> list[BlockTask]:
    """Every (pairing, block) of the tournament, block by block (at tables of n seats: every table's)."""
    if t.config.at_tables:
        return table_tasks(t)
    pairings = t.pairings
    h = t.config_hash()
    tasks: list[BlockTask] = []
    for b in range(t.config.blocks):
        key = block_key(t.config.seed, b)
        df = t.deal_files[b] if b < len(t.deal_files) else None
        for p in pairings:
            tasks.append(
                BlockTask(
                    pairing=p.key, block=b, block_key=key,
                    side_a=(p.side_a[0].ident, p.side_a[1].ident), side_b=(p.side_b[0].ident, p.side_b[1].ident),
                    settings=t.settings, config_hash=h, deal_file=df, nice=t.config.nice,
                )
            )
    return tasks


def _entry_meta(e: BotEntry) -> dict[str, Any]:
    return {"name": e.name, "version": e.manifest.version, "digest": e.digest, "ident": e.ident, "dir": e.dir,
            "files": file_digests(e.dir), "manifest": e.manifest.model_dump(mode="json", exclude_defaults=True)}


def tournament_meta(t: Tournament, *, complete: bool, entries: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    c = t.config
    return {
        "schema": SCHEMA_VERSION,
        "name": c.name,
        "config_hash": t.config_hash(),
        "seed": c.seed if complete else None,  # secret until the tournament is complete
        "complete": complete,
        "match": c.match.model_dump(mode="json"),
        "schedule": c.schedule.model_dump(mode="json"),
        "sprt": c.sprt.model_dump(mode="json") if c.sprt else None,
        "blocks": c.blocks,
        "harness_version": __version__,
        "entries": entries if entries is not None else [_entry_meta(e) for e in t.entries],
        "deal_files": t.deal_digests,
        "anchor": (t.by_ref[c.anchor].name if c.anchor in t.by_ref else c.anchor) if c.anchor else None,
        "retired": list(c.retire),  # the ratings leave these versions out (arena.publish.versions)
    }


def write_json(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    tmp.replace(path)


def read_meta(out: Path) -> dict[str, Any] | None:
    try:
        obj = json.loads((out / META_NAME).read_text())
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def _recorded(out: Path) -> bool:
    """Whether the folder holds at least one whole results line (a torn tail alone is nothing
    recorded). Reads only up to the first newline: what the line says is the store's to judge."""
    try:
        with open(results_path(out), "rb") as fh:
            while chunk := fh.read(1 << 16):
                if b"\n" in chunk:
                    return True
    except FileNotFoundError:
        return False
    except OSError:
        return True  # unreadable: let loading the store say what is wrong with it
    return False


def compare(old: dict[str, Any], t: Tournament, options: RunOptions) -> tuple[list[str], list[str]]:
    """(what this run adds, why it is another tournament) against the folder's previous run."""
    new = tournament_meta(t, complete=False)
    differs = []
    if old.get("config_hash") and old["config_hash"] != new["config_hash"]:
        # The hash covers seed, match settings and deal files: name which of them moved.
        if old.get("match") != new["match"]:
            keys = sorted(k for k in set(old.get("match") or {}) | set(new["match"])
                          if (old.get("match") or {}).get(k) != new["match"].get(k))
            differs.append("match." + ", match.".join(keys))
        if old.get("deal_files") != new["deal_files"]:
            differs.append("deal_files")
        if not differs:
            differs.append("seed")
    next_gauntlet = False
    for k in ("name", "schedule", "sprt"):
        if k in old and old[k] != new[k]:
            if k == "schedule" and _next_candidate(old[k], new[k]):
                next_gauntlet = True  # the ladder: a new candidate plays its gauntlet, earlier ones stay
            else:
                differs.append(k)
    if isinstance(old.get("blocks"), int) and new["blocks"] < old["blocks"] and t.config.sprt is None:
        differs.append(f"blocks (fewer: {new['blocks']} < {old['blocks']})")
    old_entries = {e["name"]: e for e in old.get("entries") or [] if isinstance(e, dict)}
    now = {e.name: e for e in t.entries}
    removed = sorted(set(old_entries) - set(now))
    if removed:
        differs.append(f"entries (removed: {', '.join(removed)})")
    added = []
    if isinstance(old.get("blocks"), int) and new["blocks"] > old["blocks"]:
        added.append(f"blocks {old['blocks']} -> {new['blocks']}")
    for name in sorted(set(now) - set(old_entries)):
        added.append(f"entry {name}")
    if next_gauntlet:
        added.append(f"gauntlet candidate {new['schedule'].get('candidate')}")
    return added, differs


def _next_candidate(old: Any, new: dict[str, Any]) -> bool:
    """Both runs are gauntlets that differ only in who is the candidate (and whom it meets)."""
    if not isinstance(old, dict) or old.get("kind") != "gauntlet" or new.get("kind") != "gauntlet":
        return False
    same = {k: v for k, v in old.items() if k not in ("candidate", "baselines")}
    return same == {k: v for k, v in new.items() if k not in ("candidate", "baselines")}


def changed_bots(old: dict[str, Any], t: Tournament) -> list[str]:
    """One line per entry whose files changed since the folder's previous run.

    Entries are matched by digest first: an entry the folder already holds is
    unchanged, even beside another of its name (an SPRT's candidate copied
    from its baseline). An entry with a new digest changed if the folder held
    its name under a digest no entry has now.
    """
    before_all = [e for e in old.get("entries") or [] if isinstance(e, dict)]
    known = {e.get("digest") for e in before_all}
    now = {e.digest for e in t.entries}
    out = []
    for e in t.entries:
        if e.digest in known:
            continue
        prev = next((p for p in reversed(before_all) if p.get("name") == e.name and p.get("digest") not in now), None)
        if prev is None:
            continue  # a name the folder never held, or whose every version is still here: a new entry
        before, after = prev.get("files") or {}, file_digests(e.dir)
        files = sorted(f for f in set(before) | set(after) if before.get(f) != after.get(f))
        shown = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        out.append(f"{e.name}: digest {str(prev.get('digest'))[:12]} -> {e.digest[:12]}"
                   f" (version {prev.get('version')} -> {e.manifest.version}); changed: {shown or 'libraries it uses'}")
    return out


def check_entries(playing: list[BotEntry], t: Tournament, say: Callable[[str], None]) -> None:
    """The conformance probes for every entry about to play; ``EntriesFailed`` names each that failed."""
    say(f"arena run: checking {len(playing)} entries (arena check-bot probes)...")
    bad = []
    for entry in playing:
        report = check_entry(entry, t.settings)
        if not report.ok:
            bad.append(f"{entry.ident} failed the conformance check:\n{report.summary()}")
    if bad:
        raise EntriesFailed("\n".join(bad) + f"\n{len(bad)} of {len(playing)} entries failed; fix each,"
                            " or run with --skip-check to let the games judge them")


def run_tournament(
    t: Tournament,
    *,
    options: RunOptions | None = None,
    stop: StoppingRule | None = None,
    say: Callable[[str], None] = print,
    progress_stream: Any = None,
) -> RunResult:
    """Play what is missing of ``t``; raise ``RunRefused`` if the folder holds another tournament."""
    options = options or RunOptions()
    out = t.out
    out.mkdir(parents=True, exist_ok=True)
    lock = FolderLock(out).acquire()
    try:
        return _run_locked(t, options, stop, say, progress_stream)
    finally:
        lock.release()


def _run_locked(t: Tournament, options: RunOptions, stop: StoppingRule | None, say: Callable[[str], None],
                progress_stream: Any) -> RunResult:
    out = t.out
    old = read_meta(out)
    if old is not None and not _recorded(out):
        old = None  # a run that recorded nothing (refused entries, stopped before a block) binds nothing
    old_entries: list[dict[str, Any]] = []
    if old is not None:
        changed = changed_bots(old, t)
        if changed and not options.new_versions:
            raise RunRefused(
                "these bots changed since this folder's last run:\n  " + "\n  ".join(changed)
                + "\nrun with --new-version to enter each as a new version (rated separately), or restore its files"
            )
        added, differs = compare(old, t, options)
        if differs:
            raise RunRefused(f"{out} holds another tournament (differs in: {'; '.join(differs)}); use another 'out' folder")
        if added and not options.extend:
            raise RunRefused(f"this run would extend the tournament in {out} ({'; '.join(added)}); "
                             "run with --extend to play the new games")
        if changed:
            say("arena run: new versions enter as new entries: " + "; ".join(changed))
        current = {e.digest for e in t.entries}
        old_entries = [e for e in old.get("entries") or [] if isinstance(e, dict) and e.get("digest") not in current]
    store = ResultsStore(out)
    h = t.config_hash()
    try:
        store.load(expect_hash=h)
    except ResultsError as e:
        raise RunRefused(str(e)) from None
    if store.repaired_bytes:
        say(f"arena run: cut off a torn last line ({store.repaired_bytes} bytes) of {store.path}")
    tasks = plan_tasks(t)
    keys = {x.key for x in tasks}
    feed = InOrderFeed(stop, tasks, store.lines) if stop is not None else None  # what is stored counts first
    todo = [x for x in tasks if x.key not in store.lines and (stop is None or stop.wants(x))]
    entries_meta = old_entries + [_entry_meta(e) for e in t.entries]
    say(f"arena run: {t.config.name}: {len(tasks)} blocks ({len(keys & set(store.lines))} already done),"
        f" {len(t.entries)} entries, backend {t.config.backend}, out {out}")
    t0 = time.monotonic()
    used = {i for x in todo for i in x.idents}
    playing = [e for e in t.entries if e.ident in used]
    if playing and not options.skip_check:
        check_entries(playing, t, say)
    # Only now is the folder this tournament's: a run refused before here leaves it as it was.
    write_json(out / META_NAME, tournament_meta(t, complete=False, entries=entries_meta))
    outcome: RunOutcome | None = None
    interrupted = False
    if todo:
        address = t.config.ray_address or os.environ.get("RAY_ADDRESS") or None
        if t.config.backend == "ray":
            say(f"arena run: joining the Ray cluster at {address}..." if address
                else f"arena run: starting {t.config.workers} Ray workers...")
        # On a cluster `workers` caps the blocks at once only when given; else every CPU of the cluster plays.
        cap = t.config.workers if "workers" in t.config.model_fields_set else None
        backend = make_backend(t.config.backend, {e.ident: e for e in playing}, t.config.workers, address, cap=cap)
        progress = Progress(len(tasks), [ln for k, ln in store.lines.items() if k in keys], progress_stream,
                            parallel=backend.capacity, listener=options.on_block,
                            table=options.live_table)
        try:
            outcome = run_tasks(tasks, backend, store, attempts=t.config.retries, stop=stop, feed=feed, events=progress,
                                bot_dirs={e.ident: e.dir for e in t.entries})
        except KeyboardInterrupt:
            interrupted = True
        finally:
            backend.close()
            progress.finish()
    mine = [store.lines[k] for k in sorted(store.lines) if k in keys]
    wanted = [x for x in tasks if stop is None or x.key in store.lines or stop.wants(x)]
    complete = not interrupted and (stop.done if stop is not None else len(mine) == len(tasks))
    summary = {
        **tournament_meta(t, complete=complete, entries=entries_meta),
        "blocks_total": len(tasks),
        "blocks_wanted": len(wanted),
        "blocks_done": len(mine),
        "games": sum(len(ln.get("games") or ()) for ln in mine),
        "played_now": outcome.played if outcome else 0,
        "retries": outcome.retries if outcome else 0,
        "harness_failures": [{"pairing": k[0], "block": k[1], "error": why} for k, why in (outcome.failures if outcome else [])],
        "wall_s": round(time.monotonic() - t0, 3),
    }
    write_json(out / META_NAME, tournament_meta(t, complete=complete, entries=entries_meta))
    write_json(out / SUMMARY_NAME, summary)
    if outcome is not None and outcome.played:
        record_run(out, lines=len(store.lines), played=outcome.played, complete=complete, entries=entries_meta)
    return RunResult(t, tasks, mine, outcome, complete, time.monotonic() - t0, interrupted, summary)
