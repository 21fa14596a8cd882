"""Running a tournament from a validated config: the library behind ``arena run``, ``arena sprt`` and the ladder.

A run is five steps, each returning data and saying nothing itself:
``admit`` (does the folder hold this tournament, or an extension of it that
was asked for; repair the store's torn tail), ``plan`` (every block, and
which are still to play), ``check`` (the conformance probes of each entry
about to play), ``play`` (the missing blocks through the one loop, with the
SPRT as stopping rule when the config has one) and ``summarize`` (the
summary, the seed published once the tournament is complete). Callers render
each step's data their own way: ``run_tournament`` chains the steps under the
folder's lock and hands every result to a ``RunObserver`` (the command's
terminal display, the server's live standings). Rating is the caller's step
(``arena.publish``).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, cast

from pydantic import ValidationError

from .. import __version__
from .._json import Json, JsonObject
from ..engine import DealKey
from ..engine.dealfile import DealFile
from ..match.check import CheckReport, check_entry
from ..match.settings import MatchSettings
from ..match.keys import block_key
from ..players import BotEntry
from ..players.manifest import file_digests
from ..results import SCHEMA_VERSION, ResultLine, ResultsError, ResultsStore, StoreIndex, results_path
from ..sandbox import judge
from .backends import make_backend
from .oversubscribe import fixed_tempo_workers
from .lineage import make_units
from .config import ScheduleSpec, Tournament

from .ladder import record_run
from .lock import FolderLock
from .scheduler import InOrderFeed, LoopEvents, RunOutcome, StoppingRule, run_tasks
from .tables import seat_order
from .unit import BlockTask

META_NAME = "tournament.json"
SUMMARY_NAME = "summary.json"


class TournamentMeta(TypedDict):
    """The folder's ``tournament.json`` as this release writes it (``tournament_meta``); one an earlier
    release wrote is read as a JSON object (``read_meta``)."""

    schema: int
    name: str
    config_hash: str
    seed: str | None  # secret until the tournament is complete
    complete: bool
    match: JsonObject
    schedule: JsonObject
    sprt: JsonObject | None
    blocks: int
    harness_version: str
    entries: list[JsonObject]  # ``_entry_meta`` of each entry, after the versions the folder held before
    deal_files: list[Json]
    anchor: str | None
    retired: list[Json]


class RunSummary(TournamentMeta):
    """``summary.json``: the meta and what this run played."""

    blocks_total: int
    blocks_wanted: int
    blocks_done: int
    games: int
    played_now: int
    retries: int
    harness_failures: list[Json]
    wall_s: float


class _TaskCommon(TypedDict):
    """What every task of a block shares (``plan_tasks``)."""

    block: int
    block_key: DealKey
    settings: MatchSettings
    config_hash: str
    deal_file: DealFile | None
    nice: int | None


class RunRefused(RuntimeError):
    """The run cannot start as asked; the message says why (the caller adds what to do)."""


@dataclass(frozen=True)
class BotChange:
    """An entry whose files changed since the folder's previous run."""

    name: str
    old_digest: str
    new_digest: str
    old_version: str | None
    new_version: str | None
    files: list[str]  # the files that differ; empty: only the libraries it uses changed


class BotsChanged(RunRefused):
    """Bots changed since the folder's last run and new versions were not asked for."""

    def __init__(self, changed: list[BotChange]) -> None:
        super().__init__("these bots changed since this folder's last run: " + ", ".join(c.name for c in changed))
        self.changed = changed


class OtherTournament(RunRefused):
    """The folder holds another tournament (``differs``: what differs)."""

    def __init__(self, out: Path, differs: list[str]) -> None:
        super().__init__(f"{out} holds another tournament (differs in: {'; '.join(differs)})")
        self.out, self.differs = out, differs


class ExtensionNotAsked(RunRefused):
    """The run would add to the folder's tournament (``added``) and extending was not asked for."""

    def __init__(self, out: Path, added: list[str]) -> None:
        super().__init__(f"this run would extend the tournament in {out} ({'; '.join(added)})")
        self.out, self.added = out, added


class EntriesFailed(RunRefused):
    """Entries failed the conformance check before any game: the bots' fault (``failed``: each one's report)."""

    def __init__(self, failed: list[tuple[str, CheckReport]], checked: int) -> None:
        super().__init__(f"{len(failed)} of {checked} entries failed the conformance check: "
                         + ", ".join(ident for ident, _ in failed))
        self.failed, self.checked = failed, checked


@dataclass
class RunOptions:
    extend: bool = False  # entries or blocks were added on purpose
    new_versions: bool = False  # a changed bot enters as a new version instead of being refused
    skip_check: bool = False
    halt: threading.Event | None = None  # set by another thread (a server stopping): the loop ends as on Ctrl-C
    records: bool = True  # keep the stored lines' game records in memory (``ResultsStore``; a server's ladder does not)
    # keep no stored line in memory, only this index of them (``StoreIndex``), which the caller keeps between
    # runs of the folder so each reads only what was appended (a server's ladder); the stopping rule must
    # then read no stored line (``reads_stored`` False), and the result's ``lines`` are this run's only
    index: StoreIndex | None = None


@dataclass
class Admission:
    """What ``admit`` found: the folder holds this tournament (or an extension of it that was asked for)."""

    store: ResultsStore  # loaded, a torn last line cut off
    earlier_entries: list[JsonObject]  # versions the folder held that this run no longer has (kept as history)
    changed: list[BotChange]  # entering as new versions
    added: list[str]  # what this run adds to the folder's tournament
    kept_per_game: bool = False  # the folder was played per-game and resumes so (``keep_played_restart``)

    @property
    def repaired_bytes(self) -> int:
        return self.store.repaired_bytes


@dataclass
class Plan:
    """Every block of the tournament, and those this run is to play."""

    tasks: list[BlockTask]
    todo: list[BlockTask]
    stored: list[ResultLine]  # this tournament's lines already in the store (none kept: with an index)
    playing: list[BotEntry]  # entries with a block to play
    feed: InOrderFeed | None  # the stopping rule's feed, primed with what is stored
    done: int = 0  # this tournament's blocks already in the store


@dataclass(frozen=True)
class BackendChoice:
    """Where the blocks will run: ``kind`` serial or ray; ``address`` a cluster's (None: an embedded instance)."""

    kind: str
    workers: int
    address: str | None
    cap: int | None  # at most this many blocks at once on a cluster (None: every CPU it has)
    why: str | None = None  # why ``workers`` is not the config's (a fixed tempo oversubscribes the cores)
    threads: int = 1  # blocks one worker process plays at once (a fixed tempo: its games mostly wait)


@dataclass
class Played:
    outcome: RunOutcome | None  # None: nothing was left to play
    interrupted: bool
    wall_s: float


class RunObserver(LoopEvents):
    """What a caller is told as ``run_tournament`` goes: each step's data, then the loop's events."""

    def admitted(self, admission: Admission) -> None: ...

    def planned(self, t: Tournament, plan: Plan) -> None: ...

    def checking(self, entries: list[BotEntry]) -> None: ...

    def starting(self, choice: BackendChoice) -> None:
        """Before the backend starts (joining a cluster can take a while)."""

    def started(self, capacity: int) -> None:
        """The backend is up and plays this many blocks at once."""

    def finished(self) -> None:
        """The loop ended (done, interrupted or failed)."""


@dataclass
class RunResult:
    tournament: Tournament
    tasks: list[BlockTask]
    lines: list[ResultLine]  # this tournament's stored lines, in key order (with an index: this run's)
    outcome: RunOutcome | None
    complete: bool
    wall_s: float
    interrupted: bool = False
    summary: RunSummary | None = None


def plan_tasks(t: Tournament) -> list[BlockTask]:
    """Every (pairing, block) of the tournament, block by block; at tables of n seats every (table,
    block), the table's entrants in the block's seat order (``tables.seat_order``)."""
    h = t.config_hash()
    tables = t.tables() if t.config.at_tables else None
    tasks: list[BlockTask] = []
    for b in range(t.config.blocks):
        key = block_key(t.config.seed, b)
        df = t.deal_files[b] if b < len(t.deal_files) else None
        common: _TaskCommon = {"block": b, "block_key": key, "settings": t.settings, "config_hash": h,
                                  "deal_file": df, "nice": t.config.nice}
        if tables is not None:
            tasks += [BlockTask(pairing=table.key, side_a=(), side_b=(),
                                table=tuple(e.ident for e in seat_order(table, key)), **common) for table in tables[b]]
        else:
            tasks += [BlockTask(pairing=p.key, side_a=(p.side_a[0].ident, p.side_a[1].ident),
                                side_b=(p.side_b[0].ident, p.side_b[1].ident), **common) for p in t.pairings]
    return tasks


def _entry_meta(e: BotEntry) -> JsonObject:
    return {"name": e.name, "version": e.manifest.version, "digest": e.digest, "ident": e.ident, "dir": e.dir,
            "files": dict[str, Json](file_digests(e.dir)), "manifest": e.manifest.model_dump(mode="json", exclude_defaults=True)}


def tournament_meta(t: Tournament, *, complete: bool, entries: list[JsonObject] | None = None) -> TournamentMeta:
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
        "deal_files": list[Json](t.deal_digests),
        "anchor": (t.by_ref[c.anchor].name if c.anchor in t.by_ref else c.anchor) if c.anchor else None,
        "retired": list[Json](c.retire),  # the ratings leave these versions out (arena.publish.versions)
    }


def write_json(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    tmp.replace(path)


def read_meta(out: Path) -> JsonObject | None:
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


def _stored_schedule(stored: Any) -> Any:
    """A folder's schedule as this release writes it: defaults spelled out (or left out) by the
    release that wrote the folder compare equal; one this release cannot read stays as stored."""
    try:
        return ScheduleSpec.model_validate(stored).model_dump(mode="json")
    except ValidationError:
        return stored


def _obj(value: Json) -> JsonObject:
    """A JSON object of a folder's meta as read (any release's, or a damaged one): empty when not an object."""
    return value if isinstance(value, dict) else {}


def _items(value: Json) -> list[Json]:
    """A JSON list of a folder's meta as read: empty when not a list."""
    return value if isinstance(value, list) else []


def compare(old: JsonObject, t: Tournament, options: RunOptions) -> tuple[list[str], list[str]]:
    """(what this run adds, why it is another tournament) against the folder's previous run."""
    new = tournament_meta(t, complete=False)
    differs = []
    added: list[str] = []
    if old.get("config_hash") and old["config_hash"] != new["config_hash"]:
        # The hash covers seed, match settings and deal files: name which of them moved.
        if old.get("match") != new["match"]:
            old_match = _obj(old.get("match"))
            keys = sorted(k for k in set(old_match) | set(new["match"]) if old_match.get(k) != new["match"].get(k))
            differs.append("match." + ", match.".join(keys))
        if old.get("deal_files") != new["deal_files"]:
            differs.append("deal_files")
        if not differs:
            differs.append("seed")
    next_gauntlet = False
    for k in ("name", "schedule", "sprt"):
        if k in old and (_stored_schedule(old[k]) if k == "schedule" else old[k]) != new[k]:
            if k == "schedule" and _next_candidate(old[k], new["schedule"]):
                next_gauntlet = True  # the ladder: a new candidate plays its gauntlet, earlier ones stay
            elif k == "schedule" and _other_tables(old[k], new["schedule"]):
                added.append(f"schedule.tables {_obj(old[k]).get('tables', 'all')} -> {new['schedule'].get('tables', 'all')}")
            else:
                differs.append(k)
    old_blocks = old.get("blocks")
    if isinstance(old_blocks, int) and new["blocks"] < old_blocks and t.config.sprt is None:
        differs.append(f"blocks (fewer: {new['blocks']} < {old_blocks})")
    old_entries = {cast(str, e["name"]): e for e in _items(old.get("entries")) if isinstance(e, dict)}
    now = {e.name: e for e in t.entries}
    removed = sorted(set(old_entries) - set(now))
    if removed:
        differs.append(f"entries (removed: {', '.join(removed)})")
    if isinstance(old_blocks, int) and new["blocks"] > old_blocks:
        added.append(f"blocks {old_blocks} -> {new['blocks']}")
    for name in sorted(set(now) - set(old_entries)):
        added.append(f"entry {name}")
    if next_gauntlet:
        added.append(f"gauntlet candidate {new['schedule'].get('candidate')}")
    return added, differs


def _other_tables(old: Json, new: JsonObject) -> bool:
    """Both schedules are the same but for ``tables`` (the design of each block's tables): more entries
    may need another design (the ladder's at a table of n), and the stored tables keep their results."""
    if not isinstance(old, dict):
        return False
    return {k: v for k, v in old.items() if k != "tables"} == {k: v for k, v in new.items() if k != "tables"}


def _next_candidate(old: Json, new: JsonObject) -> bool:
    """Both runs are gauntlets that differ only in who is the candidate (and whom it meets)."""
    if not isinstance(old, dict) or old.get("kind") != "gauntlet" or new.get("kind") != "gauntlet":
        return False
    same = {k: v for k, v in old.items() if k not in ("candidate", "baselines")}
    return same == {k: v for k, v in new.items() if k not in ("candidate", "baselines")}


def changed_bots(old: JsonObject, t: Tournament) -> list[BotChange]:
    """Each entry whose files changed since the folder's previous run.

    Entries are matched by digest first: an entry the folder already holds is
    unchanged, even beside another of its name (an SPRT's candidate copied
    from its baseline). An entry with a new digest changed if the folder held
    its name under a digest no entry has now.
    """
    before_all = [e for e in _items(old.get("entries")) if isinstance(e, dict)]
    known = {e.get("digest") for e in before_all}
    now = {e.digest for e in t.entries}
    out = []
    for e in t.entries:
        if e.digest in known:
            continue
        prev = next((p for p in reversed(before_all) if p.get("name") == e.name and p.get("digest") not in now), None)
        if prev is None:
            continue  # a name the folder never held, or whose every version is still here: a new entry
        before, after = _obj(prev.get("files")), file_digests(e.dir)
        files = sorted(f for f in set(before) | set(after) if before.get(f) != after.get(f))
        out.append(BotChange(e.name, str(prev.get("digest")), e.digest, cast("str | None", prev.get("version")),
                             e.manifest.version, files))
    return out


def keep_played_restart(t: Tournament, old: JsonObject | None = None) -> bool:
    """A folder played per-game resumes per-game where the config leaves ``match.restart`` unset.

    Per-lineage is the default; a folder whose ``tournament.json`` says per-game, or has no restart
    field (written before there was one), was played per-game. Resuming it so keeps its blocks'
    config hash, and a bot that remembers earlier games plays the rest as it played the start.
    ``old`` is the folder's meta (read here if not given; a folder with nothing recorded binds
    nothing). True when ``t`` was switched to per-game; a config that names ``restart`` stays as it is.
    """
    if old is None:
        old = read_meta(t.out) if _recorded(t.out) else None
    m = t.config.match
    if old is None or "restart" in m.model_fields_set or m.restart == "per-game":
        return False
    stored = old.get("match")
    if (stored.get("restart", "per-game") if isinstance(stored, dict) else "per-game") != "per-game":
        return False
    t.config = t.config.model_copy(update={"match": m.model_copy(update={"restart": "per-game"})})
    return True


def admit(t: Tournament, options: RunOptions) -> Admission:
    """Whether this run may write to ``t.out`` (call under the folder's lock); raises a ``RunRefused``.

    The folder must hold nothing, this tournament, or one this run extends
    with ``extend`` (more blocks, entries, a gauntlet's next candidate) or
    renews with ``new_versions`` (changed bots enter as new versions). The
    results store is loaded, its torn last line cut off. A folder played
    per-game resumes per-game unless the config names ``match.restart``.
    """
    out = t.out
    old = read_meta(out)
    if old is not None and not _recorded(out):
        old = None  # a run that recorded nothing (refused entries, stopped before a block) binds nothing
    kept = keep_played_restart(t, old) if old is not None else False
    earlier: list[JsonObject] = []
    changed: list[BotChange] = []
    added: list[str] = []
    if old is not None:
        changed = changed_bots(old, t)
        if changed and not options.new_versions:
            raise BotsChanged(changed)
        added, differs = compare(old, t, options)
        if differs:
            raise OtherTournament(out, differs)
        if added and not options.extend:
            raise ExtensionNotAsked(out, added)
        current = {e.digest for e in t.entries}
        entries = old.get("entries")
        earlier = [e for e in entries if isinstance(e, dict) and e.get("digest") not in current] \
            if isinstance(entries, list) else []
    store = ResultsStore(out, records=options.records, index=options.index)
    try:
        store.load(expect_hash=t.config_hash())
    except ResultsError as e:
        raise RunRefused(str(e)) from None
    return Admission(store, earlier, changed, added, kept)


def plan(t: Tournament, store: ResultsStore, stop: StoppingRule | None = None) -> Plan:
    """Every block of ``t`` and those still to play: not in the store, and wanted by the stopping rule."""
    if store.index is not None and stop is not None and getattr(stop, "reads_stored", True):
        raise ValueError("a store with an index keeps no stored line: the stopping rule would not see them")
    tasks = plan_tasks(t)
    keys = {x.key for x in tasks}
    feed = InOrderFeed(stop, tasks, store.lines) if stop is not None else None  # what is stored counts first
    stored_keys = store.keys
    todo = [x for x in tasks if x.key not in stored_keys and (stop is None or stop.wants(x))]
    used = {i for x in todo for i in x.idents}
    stored = [ln for k, ln in store.lines.items() if k in keys]
    return Plan(tasks, todo, stored, [e for e in t.entries if e.ident in used], feed,
                sum(x.key in stored_keys for x in tasks))


def check(t: Tournament, entries: list[BotEntry]) -> list[tuple[str, CheckReport]]:
    """The conformance probes of each entry (``arena check-bot``'s): (ident, report) of each that failed."""
    reports = [(e.ident, check_entry(e, t.settings)) for e in entries]
    return [(ident, r) for ident, r in reports if not r.ok]


def choose_backend(t: Tournament, units: int | None = None) -> BackendChoice:
    """The config's backend; on a cluster ``workers`` caps the blocks at once only when it was given.

    With a fixed tempo and no ``workers`` given, an embedded instance plays more blocks at once than
    there are cores, several in each worker process (``oversubscribe``): its games mostly wait; never
    more than the ``units`` to play."""
    address = t.config.ray_address or os.environ.get("RAY_ADDRESS") or None
    given = "workers" in t.config.model_fields_set
    cap = t.config.workers if given else None
    if t.settings.time.fixed and not given and address is None and t.config.backend == "ray":
        o = fixed_tempo_workers(t.settings.sandbox.value, units=units)
        return BackendChoice(t.config.backend, o.workers, address, cap, o.why, o.threads)
    return BackendChoice(t.config.backend, t.config.workers, address, cap)


def play(t: Tournament, admission: Admission, p: Plan, *, stop: StoppingRule | None = None,
         choice: BackendChoice | None = None, observer: RunObserver | None = None,
         halt: threading.Event | None = None) -> Played:
    """Play ``p.todo`` into the store; a Ctrl-C (or ``halt`` set by another thread) ends the loop with
    what is stored kept (``interrupted``)."""
    observer = observer or RunObserver()
    t0 = time.monotonic()
    if not p.todo:
        return Played(None, False, 0.0)
    choice = choice or choose_backend(t, units=len(make_units(p.todo)))
    observer.starting(choice)
    backend = make_backend(choice.kind, {e.ident: e for e in p.playing}, choice.workers, choice.address,
                           cap=choice.cap, halt=halt, threads=choice.threads)
    outcome: RunOutcome | None = None
    interrupted = False
    try:
        observer.started(backend.capacity)
        outcome = run_tasks(p.tasks, backend, admission.store, attempts=t.config.retries, stop=stop, feed=p.feed,
                            events=observer, bot_dirs={e.ident: e.dir for e in t.entries})
    except KeyboardInterrupt:
        interrupted = True
    finally:
        backend.close()
        observer.finished()
    return Played(outcome, interrupted, time.monotonic() - t0)


def claim(t: Tournament, admission: Admission) -> None:
    """The folder is this tournament's from now on (a run refused before this leaves it as it was)."""
    write_json(t.out / META_NAME, tournament_meta(t, complete=False, entries=_entries(t, admission)))


def _entries(t: Tournament, admission: Admission) -> list[JsonObject]:
    return admission.earlier_entries + [_entry_meta(e) for e in t.entries]


def summarize(t: Tournament, admission: Admission, p: Plan, played: Played,
              stop: StoppingRule | None = None) -> RunResult:
    """Write the summary and the folder's meta (the seed published once complete) and record the run."""
    out, store = t.out, admission.store
    keys = {x.key for x in p.tasks}
    outcome = played.outcome
    mine = [store.lines[k] for k in sorted(store.lines) if k in keys]
    stored = [x.key for x in p.tasks if x.key in store.keys]
    wanted = [x for x in p.tasks if stop is None or x.key in store.keys or stop.wants(x)]
    complete = not played.interrupted and (stop.done if stop is not None else len(stored) == len(p.tasks))
    entries = _entries(t, admission)
    summary: RunSummary = {
        **tournament_meta(t, complete=complete, entries=entries),
        "blocks_total": len(p.tasks),
        "blocks_wanted": len(wanted),
        "blocks_done": len(stored),
        "games": sum(store.games_of(k) for k in stored),
        "played_now": outcome.played if outcome else 0,
        "retries": outcome.retries if outcome else 0,
        "harness_failures": [{"pairing": k[0], "block": k[1], "error": why} for k, why in (outcome.failures if outcome else [])],
        "wall_s": round(played.wall_s, 3),
    }
    write_json(out / META_NAME, tournament_meta(t, complete=complete, entries=entries))
    write_json(out / SUMMARY_NAME, summary)
    if outcome is not None and outcome.played:
        record_run(out, lines=len(store.keys), played=outcome.played, complete=complete, entries=entries)
    return RunResult(t, p.tasks, mine, outcome, complete, played.wall_s, played.interrupted, summary)


def run_tournament(
    t: Tournament,
    *,
    options: RunOptions | None = None,
    stop: StoppingRule | None = None,
    observer: RunObserver | None = None,
) -> RunResult:
    """The steps in order under the folder's lock: play what is missing of ``t``.

    Raises a ``RunRefused`` if the folder holds another tournament (or an
    extension not asked for), ``EntriesFailed`` if an entry about to play
    fails its conformance check (unless ``skip_check``).
    """
    options = options or RunOptions()
    observer = observer or RunObserver()
    t.out.mkdir(parents=True, exist_ok=True)
    with FolderLock(t.out):
        # the run is the judge of its folder: what a killed run of it left (frozen sandboxes whose
        # watcher was killed too) ends here, and no other judge's
        judge.claim(t.out, hold=False)
        admission = admit(t, options)
        observer.admitted(admission)
        p = plan(t, admission.store, stop)
        observer.planned(t, p)
        if p.playing and not options.skip_check:
            observer.checking(p.playing)
            failed = check(t, p.playing)
            if failed:
                raise EntriesFailed(failed, len(p.playing))
        claim(t, admission)
        played = play(t, admission, p, stop=stop, observer=observer, halt=options.halt)
        return summarize(t, admission, p, played, stop)
