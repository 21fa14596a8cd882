"""The continuous ladder: play between the ranked versions for as long as the competition is open.

Each team's latest accepted version is ranked; earlier ones are retired (their
games stay in the results store and their rows on the site as history). The
ladder is today's round robin called as a library (``run_tournament`` with
``extend`` and ``new_versions``): FOLDER/results is the one results store and
its resume plays only what is missing, so a server killed mid-batch continues
where the store ends. A batch is at most ``batch_blocks`` blocks (``ladder_blocks`` a
worker, so every worker has blocks to play), chosen by ``choice`` (the minimum of every unit first, then the blocks that
shrink the adjacent rating differences' variance most), so the order of play
is a function of the store, the seed, the accepted submissions and the batch size only. The
tournament's block count grows as the ladder plays (an extension, as
``arena run --extend`` makes). Batches play on the competition's backend
(``workers``, ``ray_address``: the runner's units, serial or on Ray). While a
batch plays, ``Live`` keeps the live standings (FOLDER/standings.json and the
provisional leaderboard page in FOLDER/live), rewritten after each stored block.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Mapping, Sequence
from math import comb
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..players import ManifestError
from ..players.manifest import MANIFEST_NAME, load_entry, read_manifest
from ..publish.rate import NothingToRate, PublishError
from ..publish.site import Naming, build_site, write_provisional
from ..publish.board import BotRow
from ..publish.site.model import SiteModel
from ..results import ResultLine, ResultsError, results_path
from ..sandbox.files import FolderRefused, copy_listing, remove_tree, walk_folder
from ..schedule import (
    Admission,
    BlockTask,
    ConfigError,
    Plan,
    RunObserver,
    RunOptions,
    Tournament,
    build_tournament,
    keep_played_restart,
    plan_tasks,
    read_meta,
    run_tournament,
)
from ..schedule.tables import MAX_ALL, valid_counts
from . import db
from .config import Competition
from .choice import Block, pick_batch, pick_continuous, strength_order
from .service import STORE_INDEX, label
from .tally import Index, Stored, Tally
from .validate import hide_paths

if TYPE_CHECKING:
    from .service import Service

log = logging.getLogger("arena.serve.ladder")


class Chosen:
    """A stopping rule that lets only the chosen blocks be played (the runner's filter); it reads no
    stored line, so the run keeps none (``RunOptions.index``)."""

    reads_stored = False

    def __init__(self, keys: Sequence[tuple[str, int]]) -> None:
        self.keys = set(keys)

    def add(self, task: BlockTask, line: ResultLine) -> None:
        pass

    def wants(self, task: BlockTask) -> bool:
        return task.key in self.keys

    @property
    def done(self) -> bool:
        return False


LIVE = "live"
STANDINGS = "standings.json"
SITE_STATE = "site-state"  # the public site's state (kept out of the folder that is served)
RATINGS = "ratings.json"  # each ladder version's rating as the site's last build fitted it (GET /api/leaderboard)
_VERSION_DIR = re.compile(r"-v(\d+)$")  # entry_dir's folder name: TEAM-vN
LIVE_STATE = "live-state"


def write_standings(folder: Path, tally: Tally, *, batch: tuple[int, int] | None) -> None:
    """FOLDER/standings.json: each bot's score rate over its stored games (``arena.results.standings``,
    a progress figure, not the rating, summed by ``tally``) and the batch playing, if any, as (blocks
    played, blocks chosen)."""
    doc = {"updated": round(time.time(), 3), "blocks_stored": tally.blocks,
           "batch": {"played": batch[0], "of": batch[1]} if batch else None,
           "standings": [{"bot": s.bot, "games": s.games, "faults": s.faults,
                          "score_rate": round(s.rate, 4) if s.games else None}
                         for s in tally.standings()]}
    tmp = folder / (STANDINGS + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    os.replace(tmp, folder / STANDINGS)


def stored_tally(folder: Path) -> Tally:
    """The standings' sums over the store, brought up to date (only what it gained is read) and kept."""
    tally = Tally.load(folder).catch_up(folder / "results")
    tally.save(folder)
    return tally


#: the live page is rewritten once the blocks it lacks are at least this share of the ladder's (every block while
#: the ladder has fewer than 100), and after the batch's last block
LIVE_SHARE = 100


class Live(RunObserver):
    """The live standings while a batch plays: after each stored block, FOLDER/standings.json (its sums kept in
    memory, each block added) and the provisional leaderboard page in FOLDER/live (the page ``arena run
    --site`` keeps while it runs; public: no path, no stderr). The page reads every stored block again (its
    fit's ledger), so it is rewritten after a block only when the blocks it lacks are at least a
    ``LIVE_SHARE``-th of the ladder's, and when the batch ends: a batch of 8 blocks on a ladder of 10,000 read
    the ledger 8 times for ratings that moved by less than a percent. A failure here is logged and never
    stops the games."""

    def __init__(self, folder: Path, chosen: int, name: str | None = None,
                 stop: threading.Event | None = None) -> None:
        self.folder, self.chosen, self.name = folder, chosen, name  # name: the competition's, for the page
        self.stop = stop  # set: the server is stopping, and the page waits for the next start
        self.tally = Tally()
        self.stored = self.total = 0
        self.played = self.shown = 0  # blocks stored by this batch; of them, on the live page

    def admitted(self, admission: Admission) -> None:
        try:
            self.tally = stored_tally(self.folder)  # each block this batch stores is added in memory
        except (ResultsError, OSError) as e:
            log.warning("ladder: live standings not read (the games go on): %s", e)
        self._write()

    def planned(self, t: Tournament, p: Plan) -> None:
        self.stored = p.done  # the ladder's blocks between ranked versions
        self.total = self.stored + self.chosen  # the ladder has no end while open: stored and this batch

    def line(self, line: ResultLine) -> None:
        self.tally.take(line)
        self.played += 1
        self._write()
        if self.played >= self.chosen or (self.played - self.shown) * LIVE_SHARE >= self.stored + self.played:
            self._page()

    def finished(self) -> None:
        if self.played > self.shown and not (self.stop is not None and self.stop.is_set()):
            self._page()  # a batch cut short by a block the harness failed on

    def _page(self) -> None:
        self.shown = self.played
        try:
            write_live_page(self.folder, self.name, done=self.stored + self.played, total=self.total)
        except (PublishError, ResultsError, OSError) as e:
            log.warning("ladder: live page not written (the games go on): %s", e)

    def _write(self) -> None:
        try:
            write_standings(self.folder, self.tally, batch=(self.played, self.chosen))
        except OSError as e:
            log.warning("ladder: live standings not written (the games go on): %s", e)


def write_live_page(folder: Path, name: str | None, *, done: int, total: int) -> None:
    """The provisional leaderboard page in FOLDER/live, its state in FOLDER/live-state (the state is keyed by
    the page's naming: a page written with another reads the whole store again)."""
    naming = None if name is None else site_naming(name, read_meta(folder / "results") or {})
    write_provisional(folder / "results", folder / LIVE, done=done, total=total, state=folder / LIVE_STATE,
                      naming=naming)


def entry_dir(folder: Path, sub: db.Entrant) -> Path:
    """The ladder's copy of an accepted submission, its manifest named after the team (names are unique).

    The copy walks the folder as hostile input (``walk_folder``: no links, no special files, capped, no
    recursion at any depth) and reads the manifest as such (``read_manifest``); FolderRefused or
    ManifestError say why the version cannot play. A partial copy is removed before the error goes on.
    """
    dest = folder / "ladder" / f"{sub.name}-v{sub.version}"
    if dest.exists():
        return dest
    tmp = dest.with_name(dest.name + ".tmp")
    remove_tree(tmp)
    dest.parent.mkdir(exist_ok=True)
    try:
        copy_listing(walk_folder(sub.folder), tmp)
        _, manifest = read_manifest(tmp / MANIFEST_NAME)
        manifest["name"] = sub.name
        (tmp / MANIFEST_NAME).write_text(yaml.safe_dump(manifest, sort_keys=True))
        os.replace(tmp, dest)  # whole or absent after a kill
    finally:
        remove_tree(tmp)
    return dest


def ranked(engine: Any) -> list[db.Entrant]:
    """Each team's latest accepted submission that is not retired, by team name."""
    latest: dict[str, db.Entrant] = {}
    for s in db.accepted(engine):
        latest[s.name] = s
    return [latest[k] for k in sorted(latest)]


def entry_problems(e: ConfigError, entries: int) -> dict[int, list[str]]:
    """The problems of a ladder's ConfigError that are one entry's (its field ``entries.I``), by entry."""
    bad: dict[int, list[str]] = {}
    for field, message in e.problems:
        head, _, index = field.partition(".")
        if head == "entries" and index.isdigit() and int(index) < entries:
            bad.setdefault(int(index), []).append(message)
    return bad


def retire(svc: Service, sub: db.Entrant, why: str) -> None:
    """Take a version the ladder cannot play out of it, with the reason on its team's page (no host path);
    the team's previous accepted version (if any) is ranked again and every other team plays on."""
    copy = svc.folder / "ladder" / f"{sub.name}-v{sub.version}"
    reason = hide_paths(hide_paths(hide_paths(why, f"{copy}.tmp"), sub.folder), str(copy))
    log.warning("ladder: %s version %s retired: %s", sub.name, sub.version, reason)
    db.retire(svc.engine, sub.id, reason)


def seats(svc: Service) -> int:
    """Entrants one unit needs: two versions for a pairing, n at a table of n seats."""
    prof = svc.config.match.profile
    return prof.players if prof.sides != "pairs" else 2


def waiting_for(svc: Service, teams: int) -> str | None:
    """Why nothing plays with this many ranked teams (one line for the front page and the log), or None."""
    need = seats(svc)
    if teams >= need:
        return None
    prof = svc.config.match.profile
    what = f"{prof.name} seats {need} players" if need > 2 else "a game needs two teams"
    return f"the ladder waits: {what}, and {teams} team{'s' * (teams != 1)} {'has' if teams == 1 else 'have'}" \
           " an accepted version"


def _schedule(svc: Service, n: int) -> dict[str, Any]:
    """The ladder's schedule for ``n`` versions: a round robin; at a table of n seats every combination of
    entrants while a block has at most ``MAX_ALL`` tables, else the smallest balanced design (``tables``)."""
    need = seats(svc)
    if need > 2 and comb(n, need) > MAX_ALL:
        return {"kind": "round_robin", "tables": valid_counts(n, need)[0]}
    return {"kind": "round_robin"}


def build_ladder(svc: Service, subs: Sequence[db.Entrant], *, out: Path, seed: str, blocks: int,
                 name: str = "ladder") -> Tournament:
    """The tournament of these accepted versions (copied by ``entry_dir``) on the competition's backend;
    ConfigError says what the tournament refuses (its problems with field ``entries.I``: one entry's fault)."""
    c = svc.config.competition
    data: dict[str, Any] = {
        "name": name, "entries": [str(entry_dir(svc.folder, s)) for s in subs],
        "match": svc.config.match.model_dump(mode="json", exclude_unset=True), "schedule": _schedule(svc, len(subs)),
        "blocks": blocks, "seed": seed, "out": str(out), **backend_fields(c)}
    if data["backend"] == "serial":  # the blocks play in the server's own process: its priority is left alone
        data["nice"] = None
    # on Ray, the runner's default priority, as arena run: Ray starts its workers at nice 15, and any other
    # load on the machine then took their CPU (2 workers played 0.3x the blocks of 1, which is serial)
    return build_tournament(data, svc.folder, "ladder")


def backend_fields(c: Competition) -> dict[str, Any]:
    """``backend``, ``workers`` and ``ray_address`` of a tournament from the competition's keys: one
    worker and no cluster plays in the server's process (serial); more workers, or a cluster, on Ray."""
    if c.ray_address:
        return {"backend": "ray", "ray_address": c.ray_address,
                **({"workers": c.workers} if "workers" in c.model_fields_set else {})}
    return {"backend": "ray" if c.workers > 1 else "serial", "workers": c.workers}


def start_backend(svc: Service) -> Any:
    """The Ray instance (embedded, or a cluster's driver) the ladder plays on, started in the server's main
    thread and kept for every batch (each batch's backend then only submits); None for the serial backend.
    Ctrl-C and SIGTERM set ``svc.stop``, which ends a batch's loop within the backend's poll period."""
    fields = backend_fields(svc.config.competition)
    if fields["backend"] != "ray":
        return None
    import ray

    from ..schedule.backends import ClusterUnavailable, explain_connect_error, quiet_ray_notices, ray_init_kwargs

    quiet_ray_notices()
    try:
        ray.init(**ray_init_kwargs(fields["workers"] if "workers" in fields else 1, fields.get("ray_address")))
    except Exception as e:  # noqa: BLE001 - also Ray's plain Exception: its node did not start within 30 s (load)
        raise ClusterUnavailable(explain_connect_error(fields.get("ray_address"), e)) from e
    log.info("ladder: playing on %s", f"the Ray cluster at {fields['ray_address']}" if fields.get("ray_address")
             else f"an embedded Ray instance of {fields['workers']} CPUs")
    return ray


def ladder_tournament(svc: Service, blocks: int | None = None) -> Tournament | None:
    """The ladder's tournament of the ranked versions, or None below the seats of one unit (``svc.ladder_waiting``
    says why). A version whose folder cannot be copied or whose entry the tournament refuses (its manifest,
    profile or limits) is retired, saying why, and the tournament is built again without it: one team's
    broken version never stops the others."""
    c = svc.config.competition
    while True:
        subs = ranked(svc.engine)
        why = waiting_for(svc, len(subs))
        if why != svc.ladder_waiting and why:
            log.info("%s", why)
        svc.ladder_waiting = why
        if why:
            return None
        good: list[db.Entrant] = []
        for s in subs:
            try:
                entry_dir(svc.folder, s)
                good.append(s)
            except (FolderRefused, ManifestError) as e:  # the version's own fault (a full disk is not: it raises)
                retire(svc, s, f"its folder could not be prepared for the ladder: {e}")
        if len(good) < len(subs):
            continue
        try:
            return build_ladder(svc, good, out=svc.folder / "results", seed=c.seed,
                                blocks=blocks or c.ladder_pairing_blocks)
        except ConfigError as e:
            bad = entry_problems(e, len(good))
            if not bad:
                raise  # not one entry's fault: logged by the loop and tried again later
            for i, problems in sorted(bad.items()):
                retire(svc, good[i], "the ladder refused it: " + "; ".join(problems))


def _block(task: BlockTask) -> Block:
    return Block(task.pairing, task.block, tuple(task.idents), task.games)


def ranking(t: Tournament, wins: Mapping[tuple[str, str], float]) -> list[str]:
    """The ranked versions' idents, best first by a Bradley-Terry fit of their games with each other
    (``choice.strength_order`` of ``choice.pairwise``'s wins), ties by name."""
    by_name = {e.name: e.ident for e in t.entries}
    return [by_name[n] for n in strength_order(list(by_name), wins)]


def choose(t: Tournament, stored: Stored, c: Competition,
           failed: Mapping[tuple[str, int], int]) -> list[tuple[str, int]]:
    """The next batch: the minimum of every unit first (``pick_batch``), then continuous play
    (``pick_continuous``), ``batch_blocks`` of them; ``t`` must have room for every unit's next batch (so
    every stored block of its units is one of its tasks). ``stored``: the store as ``tally.Index`` keeps it."""
    tasks = plan_tasks(t)
    done = [_block(x) for x in tasks if x.key in stored]
    games: dict[str, int] = {}
    for b in done:
        for ident in b.idents:
            games[ident] = games.get(ident, 0) + b.games
    todo = [x for x in tasks if x.key not in stored]
    below = [_block(x) for x in todo if x.block < c.ladder_pairing_blocks]
    if below:
        return pick_batch(below, games, batch_blocks(c), failed)
    wins: dict[tuple[str, str], float] = {}
    for unit in dict.fromkeys(x.pairing for x in tasks):
        for pair, w in stored.wins.get(unit, {}).items():
            wins[pair] = wins.get(pair, 0.0) + w
    return pick_continuous([_block(x) for x in todo], done, ranking(t, wins), batch_blocks(c), failed)


def batch_blocks(c: Competition) -> int:
    """Blocks a batch plays: ``ladder_blocks`` for each worker. With a batch of 4 blocks, 2 workers played
    1.45-2.27x the games per second of 1 (the batch's last blocks ran one at a time, a block's units are a
    pairing's blocks, the site is rebuilt between batches). Both choices are greedy, one block at a time:
    until every unit has its minimum a batch of 2n blocks is exactly two batches of n; past it, the ranking
    the choice reads is refitted once a batch, so the blocks chosen depend on the batch size (and through
    it on ``workers``), never on which worker plays what."""
    return c.ladder_blocks * c.workers


def room(out: Path, c: Competition) -> int:
    """Blocks the ladder's tournament needs so every unit has its next batch (``batch_blocks``): past the
    block count the folder holds (written before any block is played, so at least every stored block's
    number plus one), never below the minimum."""
    held = (read_meta(out) or {}).get("blocks")
    return max(c.ladder_pairing_blocks, held if isinstance(held, int) else 0) + batch_blocks(c)


def run_batch(svc: Service) -> int:
    """Play one batch and rebuild the public site; the number of blocks played (0: nothing to play)."""
    c = svc.config.competition
    out = svc.folder / "results"
    out.mkdir(parents=True, exist_ok=True)
    t = ladder_tournament(svc, room(out, c))
    if t is None:
        return 0
    if keep_played_restart(t):  # a ladder played before per-lineage was the default
        log.info("ladder: %s was played per-game and goes on per-game", out)
    chosen = _choose_from_store(svc.folder, t, c, svc.ladder_failures)
    played = 0
    if chosen:
        held = (read_meta(out) or {}).get("blocks")
        need = max([c.ladder_pairing_blocks, *([held] if isinstance(held, int) else []), *(b + 1 for _, b in chosen)])
        t.config = t.config.model_copy(update={"blocks": need})  # the tournament grows only as far as it plays
        played, interrupted = _play(svc, t, chosen)
        if interrupted:
            return played  # the server is stopping: what is stored stays, the site is rebuilt at the next start
    store = results_path(out)
    index = svc.folder / "public" / "index.html"
    # also a site older than the store: a server killed after a batch stored its blocks, before the rebuild
    if played or (store.exists() and (not index.exists() or index.stat().st_mtime < store.stat().st_mtime)):
        publish(svc)
    if store.exists() and (played or not (svc.folder / STANDINGS).exists()):
        write_standings(svc.folder, stored_tally(svc.folder), batch=None)
    if played:
        try:  # the team pages' faults and tempo audit: their views then read nothing of the store
            svc.faults.refresh()
        except OSError as e:
            log.warning("ladder: the fault index not brought up to date (a view will): %s", e)
    return played


# The steps of a batch each load what they need of the store and let it go before the next starts: the
# copies (the choice's store, the run's store and its result's lines, the site build) never live at once,
# so the server's peak, which its RSS keeps, is one step's, not their sum; the standings read only what
# the store gained (``tally``).

def _choose_from_store(folder: Path, t: Tournament, c: Competition,
                       failed: Mapping[tuple[str, int], int]) -> list[tuple[str, int]]:
    """``choose`` on the store as the ladder's index (``tally.Index``) holds it: only what the store gained
    since the last batch is read."""
    index = Index.load(folder).catch_up(folder / "results")
    index.save(folder)
    return choose(t, index.stored(t.config_hash()), c, failed)


def _play(svc: Service, t: Tournament, chosen: list[tuple[str, int]]) -> tuple[int, bool]:
    """Play the chosen blocks: (blocks played, interrupted); the run's result (every stored line) is
    released on return."""
    try:
        result = run_tournament(t, options=RunOptions(extend=True, new_versions=True, skip_check=True,
                                                      halt=svc.stop, records=False, index=svc.ladder_store),
                                stop=Chosen(chosen),
                                observer=Live(svc.folder, len(chosen), svc.config.competition.name, svc.stop))
    finally:
        _keep_index(svc)
    played = result.outcome.played if result.outcome else 0
    for key, why in result.outcome.failures if result.outcome else []:
        log.warning("ladder: block %s failed in the harness: %s", key, why)
        svc.ladder_failures[key] = svc.ladder_failures.get(key, 0) + 1
    log.info("ladder: batch of %d block%s played (%d chosen)%s", played, "s" * (played != 1), len(chosen),
             " and interrupted: the server is stopping" if result.interrupted else "")
    return played, result.interrupted


def _keep_index(svc: Service) -> None:
    """Write the ladder's store index (it names only lines already stored, so any moment will do): the next
    start reads only what was appended after it."""
    try:
        svc.ladder_store.write(svc.folder / STORE_INDEX)
    except OSError as e:
        log.warning("ladder: the store's index not written (the next start reads the whole store): %s", e)


def publish(svc: Service) -> bool:
    """The public site of the store (no host path, no stderr); the site ranks each name's latest version
    that is not retired (``retired_refs``). One build at a time (FOLDER/site.lock): the host's ``--retire``
    rebuilds it from its own process, at once, while the server may be building it after a batch.
    False when every stored block has a retired version in it: nothing is left to rate, so the front page
    and ``GET /api/leaderboard`` rank no one (the site stays as last built) until the ladder plays again."""
    # rebuilt in place, each page replaced whole: only what the batch changed is read and written; the
    # site's state (``publish.site.ledger``) is kept beside the folder, which is served
    # a game's replay file is made when first asked for (``app``: ``replay_on_demand``), not by every build
    import fcntl

    with open(svc.folder / SITE_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        meta = read_meta(svc.folder / "results") or {}
        try:
            built = build_site([svc.folder / "results"], svc.folder / "public",
                               bootstrap=svc.config.competition.site_bootstrap, history_bootstrap=0,
                               state=svc.folder / SITE_STATE, replays=False, retire_played=retired_refs(svc),
                               naming=site_naming(svc.config.competition.name, meta))
        except NothingToRate:
            if read_ratings(svc.folder):  # said once, when the ranking empties
                log.info("nothing left to rate: every stored block has a retired version in it; the ranking is"
                         " empty until the ladder plays again")
            write_ratings(svc.folder, [], meta)
            return False
        write_ratings(svc.folder, built.model.doc.bots, meta, built.model)
        return True


SITE_LOCK = "site.lock"


def retired_refs(svc: Service) -> list[tuple[str, str]]:
    """(name, digest) of each accepted version taken out of the ladder (by the host, with its team, or as
    unplayable) whose ladder copy exists: the public site leaves them out of its ratings and ranking."""
    out = []
    for s in db.retired(svc.engine):
        d = svc.folder / "ladder" / f"{s.name}-v{s.version}"
        if d.is_dir():
            try:
                out.append((s.name, _digest(str(d))))
            except (ManifestError, OSError):
                continue  # a copy the ladder could not read never played
    return out


@functools.lru_cache(maxsize=1024)
def _digest(folder: str) -> str:
    """A ladder copy's identity digest (the copy is whole or absent, and never changes)."""
    return load_entry(folder).digest


def versions_of(meta: Mapping[str, Any]) -> dict[tuple[str, str], int]:
    """(name, digest) -> team version, for each entry of a ladder's tournament (its folder says: TEAM-vN)."""
    out: dict[tuple[str, str], int] = {}
    for e in meta.get("entries") or []:
        m = _VERSION_DIR.search(str(e.get("dir") or "").rstrip("/"))
        if m:
            out[(str(e.get("name")), str(e.get("digest")))] = int(m.group(1))
    return out


def site_naming(name: str, meta: Mapping[str, Any]) -> Naming:
    """What the public site calls things: the competition by its ``name``, each version of the ladder's
    tournament (``meta``) as every page of the server does (``red v3``), and the ladder's batches as batches."""
    labels = {k: label(k[0], v) or k[0] for k, v in versions_of(meta).items()}
    return Naming(name, labels, "batch", "batches")


def write_ratings(folder: Path, board: Sequence[BotRow], meta: Mapping[str, Any],
                  model: SiteModel | None = None) -> None:
    """FOLDER/ratings.json: each row of the site's leaderboard that is a ladder version (the tournament's
    entries say which folder, hence which team version, a name and digest are), by team and version, with
    the figures an entrant reads; with the site's ``model``, also its bot page (relative to the site) and
    its rating after each batch the site's history shows. Written whole (a reader never sees half a file)."""
    version_of = versions_of(meta)
    rows = []
    for b in board:
        v = version_of.get((b.name, str(b.digest)))
        if v is None:
            continue
        rows.append({"team": b.name, "version": v, "rating": b.rating, "ci_low": b.ci_low, "ci_high": b.ci_high,
                     "games": b.games, "score_pct": b.score_pct, "faults": b.faults_total, **_site_part(model, b.bot)})
    tmp = folder / (RATINGS + ".tmp")
    tmp.write_text(json.dumps({"updated": time.time(), "rows": rows}))
    os.replace(tmp, folder / RATINGS)


def _site_part(model: SiteModel | None, bot: str) -> dict[str, Any]:
    """A bot's page on the site and its rating history (batch, rating), as the site's build has them."""
    if model is None or bot not in model.slugs:
        return {}
    history = [{"batch": n, "rating": h[bot].rating} for n, h in zip(model.history_runs, model.history) if bot in h]
    return {"page": f"bots/{model.slugs[bot]}.html", "history": history}


def read_ratings(folder: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """FOLDER/ratings.json by (team, version); empty before the ladder's first site build."""
    try:
        rows = json.loads((folder / RATINGS).read_text())["rows"]
        return {(str(r["team"]), int(r["version"])): r for r in rows}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
