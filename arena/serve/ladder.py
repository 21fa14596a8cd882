"""The continuous ladder: play what is missing between the ranked versions, then rebuild the public site.

Each team's latest accepted version is ranked; earlier ones are retired (their
games stay in the results store and their rows on the site as history). The
ladder is today's round robin called as a library (``run_tournament`` with
``extend`` and ``new_versions``): FOLDER/results is the one results store and
its resume plays only what is missing, so a server killed mid-batch continues
where the store ends. A batch is at most ``competition.ladder_blocks`` blocks,
chosen by :func:`pick_batch` (fewest rated games first, ties by name), so the
order of play is a function of the store and the accepted submissions only.
While a batch plays, ``Live`` keeps the live standings (FOLDER/standings.json
and the provisional leaderboard page in FOLDER/live), rewritten after each
stored block.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..players import ManifestError
from ..players.manifest import MANIFEST_NAME, read_manifest
from ..publish.rate import PublishError
from ..publish.site import build_site, write_provisional
from ..results import ResultsError, ResultsStore, read_results, standings
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
    plan,
    run_tournament,
)
from . import db
from .validate import hide_paths

if TYPE_CHECKING:
    from .app import Service

log = logging.getLogger("arena.serve.ladder")


@dataclass(frozen=True)
class Missing:
    """One block not yet in the store: its pairing's key, block number and the two sides' idents."""

    pairing: str
    block: int
    a: str
    b: str


def pick_batch(missing: Sequence[Missing], games: Mapping[str, int], n: int,
               failed: Mapping[tuple[str, int], int] | None = None) -> list[tuple[str, int]]:
    """The blocks to play next: repeatedly the one whose entrants have the fewest rated games.

    Greedy over the batch: a chosen block counts two games for each side, so
    a batch spreads over the least-known entrants instead of piling on one.
    Ties go to the lower block number, then the pairing's name: deterministic.
    A block the harness failed on (``failed``: how often, since the server
    started) goes after every block that failed less, so it cannot starve them.
    """
    failed = failed or {}
    seen = dict(games)
    left = list(missing)
    out: list[tuple[str, int]] = []
    while left and len(out) < n:
        best = min(left, key=lambda m: (failed.get((m.pairing, m.block), 0), seen.get(m.a, 0) + seen.get(m.b, 0),
                                        m.block, m.pairing))
        left.remove(best)
        out.append((best.pairing, best.block))
        seen[best.a] = seen.get(best.a, 0) + 2
        seen[best.b] = seen.get(best.b, 0) + 2
    return out


class Chosen:
    """A stopping rule that lets only the chosen blocks be played (the runner's filter)."""

    def __init__(self, keys: Sequence[tuple[str, int]]) -> None:
        self.keys = set(keys)

    def add(self, task: BlockTask, line: dict[str, Any]) -> None:
        pass

    def wants(self, task: BlockTask) -> bool:
        return task.key in self.keys

    @property
    def done(self) -> bool:
        return False


LIVE = "live"
STANDINGS = "standings.json"
SITE_STATE = "site-state"  # the public site's state (kept out of the folder that is served)
LIVE_STATE = "live-state"


def write_standings(folder: Path, lines: Sequence[dict[str, Any]], *, batch: tuple[int, int] | None) -> None:
    """FOLDER/standings.json: each bot's score rate over its stored games (``arena.results.standings``,
    a progress figure, not the rating) and the batch playing, if any, as (blocks played, blocks chosen)."""
    doc = {"updated": round(time.time(), 3), "blocks_stored": len(lines),
           "batch": {"played": batch[0], "of": batch[1]} if batch else None,
           "standings": [{"bot": s.bot, "games": s.games, "faults": s.faults,
                          "score_rate": round(s.rate, 4) if s.games else None}
                         for s in standings(lines)]}
    tmp = folder / (STANDINGS + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    os.replace(tmp, folder / STANDINGS)


class Live(RunObserver):
    """The live standings while a batch plays: after each stored block, FOLDER/standings.json and the
    provisional leaderboard page in FOLDER/live (the page ``arena run --site`` keeps while it runs; public: no
    path, no stderr). A failure here is logged and never stops the games."""

    def __init__(self, folder: Path, chosen: int) -> None:
        self.folder, self.chosen = folder, chosen
        self.lines: list[dict[str, Any]] = []
        self.stored = self.total = 0
        self.played = 0

    def admitted(self, admission: Admission) -> None:
        self.lines = list(admission.store.lines.values())
        self._write()

    def planned(self, t: Tournament, p: Plan) -> None:
        self.stored, self.total = len(p.stored), len(p.tasks)  # the ladder's blocks between ranked versions

    def line(self, line: dict[str, Any]) -> None:
        self.lines.append(line)
        self.played += 1
        self._write()
        try:
            write_provisional(self.folder / "results", self.folder / LIVE, done=self.stored + self.played,
                              total=self.total, state=self.folder / LIVE_STATE)
        except (PublishError, ResultsError, OSError) as e:
            log.warning("ladder: live page not written (the games go on): %s", e)

    def _write(self) -> None:
        try:
            write_standings(self.folder, self.lines, batch=(self.played, self.chosen))
        except OSError as e:
            log.warning("ladder: live standings not written (the games go on): %s", e)


def entry_dir(folder: Path, sub: Mapping[str, Any]) -> Path:
    """The ladder's copy of an accepted submission, its manifest named after the team (names are unique).

    The copy walks the folder as hostile input (``walk_folder``: no links, no special files, capped, no
    recursion at any depth) and reads the manifest as such (``read_manifest``); FolderRefused or
    ManifestError say why the version cannot play. A partial copy is removed before the error goes on.
    """
    dest = folder / "ladder" / f"{sub['name']}-v{sub['version']}"
    if dest.exists():
        return dest
    tmp = dest.with_name(dest.name + ".tmp")
    remove_tree(tmp)
    dest.parent.mkdir(exist_ok=True)
    try:
        copy_listing(walk_folder(sub["folder"]), tmp)
        _, manifest = read_manifest(tmp / MANIFEST_NAME)
        manifest["name"] = sub["name"]
        (tmp / MANIFEST_NAME).write_text(yaml.safe_dump(manifest, sort_keys=True))
        os.replace(tmp, dest)  # whole or absent after a kill
    finally:
        remove_tree(tmp)
    return dest


def ranked(engine: Any) -> list[dict[str, Any]]:
    """Each team's latest accepted submission that is not retired, by team name."""
    latest: dict[str, dict[str, Any]] = {}
    for s in db.accepted(engine):
        latest[s["name"]] = s
    return [latest[k] for k in sorted(latest)]


_ENTRY_PROBLEM = re.compile(r"^ladder: entries\.(\d+): (.*)$")


def retire(svc: Service, sub: Mapping[str, Any], why: str) -> None:
    """Take a version the ladder cannot play out of it, with the reason on its team's page (no host path);
    the team's previous accepted version (if any) is ranked again and every other team plays on."""
    reason = hide_paths(hide_paths(why, str(svc.folder / "ladder" / f"{sub['name']}-v{sub['version']}.tmp")),
                        str(sub["folder"]))
    reason = hide_paths(reason, str(svc.folder / "ladder" / f"{sub['name']}-v{sub['version']}"))
    log.warning("ladder: %s version %s retired: %s", sub["name"], sub["version"], reason)
    db.retire(svc.engine, sub["id"], reason)


def ladder_tournament(svc: Service) -> Tournament | None:
    """The ladder's tournament of the ranked versions, or None below two. A version whose folder cannot be
    copied or whose entry the tournament refuses (its manifest, profile or limits) is retired, saying why,
    and the tournament is built again without it: one team's broken version never stops the others."""
    c = svc.config.competition
    while True:
        subs = ranked(svc.engine)
        if len(subs) < 2:
            return None
        dirs: list[tuple[dict[str, Any], Path]] = []
        for s in subs:
            try:
                dirs.append((s, entry_dir(svc.folder, s)))
            except (FolderRefused, ManifestError) as e:  # the version's own fault (a full disk is not: it raises)
                retire(svc, s, f"its folder could not be prepared for the ladder: {e}")
        if len(dirs) < len(subs):
            continue
        data = {"name": "ladder", "entries": [str(d) for _, d in dirs],
                "match": svc.config.match.model_dump(mode="json", exclude_unset=True),
                "blocks": c.ladder_pairing_blocks, "seed": c.seed, "backend": "serial", "workers": 1, "nice": None,
                "out": str(svc.folder / "results")}
        try:
            return build_tournament(data, svc.folder, "ladder")
        except ConfigError as e:
            bad: dict[int, list[str]] = {}
            for line in str(e).splitlines():
                m = _ENTRY_PROBLEM.match(line)
                if m and int(m.group(1)) < len(dirs):
                    bad.setdefault(int(m.group(1)), []).append(m.group(2))
            if not bad:
                raise  # not one entry's fault: logged by the loop and tried again later
            for i, problems in sorted(bad.items()):
                retire(svc, dirs[i][0], "the ladder refused it: " + "; ".join(problems))


def run_batch(svc: Service) -> int:
    """Play one batch and rebuild the public site; the number of blocks played (0: nothing missing)."""
    c = svc.config.competition
    t = ladder_tournament(svc)
    if t is None:
        return 0
    out = svc.folder / "results"
    if keep_played_restart(t):  # a ladder played before per-lineage was the default
        log.info("ladder: %s was played per-game and goes on per-game", out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultsStore(out)
    store.load(expect_hash=t.config_hash())
    p = plan(t, store)
    games: dict[str, int] = {}
    for task in p.tasks:
        if task.key in store.lines:
            for ident in (task.side_a[0], task.side_b[0]):
                games[ident] = games.get(ident, 0) + 2
    missing = [Missing(x.pairing, x.block, x.side_a[0], x.side_b[0]) for x in p.todo]
    chosen = pick_batch(missing, games, c.ladder_blocks, svc.ladder_failures)
    if chosen:
        result = run_tournament(t, options=RunOptions(extend=True, new_versions=True, skip_check=True),
                                stop=Chosen(chosen), observer=Live(svc.folder, len(chosen)))
        played = result.outcome.played if result.outcome else 0
        for key, why in result.outcome.failures if result.outcome else []:
            log.warning("ladder: block %s failed in the harness: %s", key, why)
            svc.ladder_failures[key] = svc.ladder_failures.get(key, 0) + 1
    else:
        played = 0
    index = svc.folder / "public" / "index.html"
    # also a site older than the store: a server killed after a batch stored its blocks, before the rebuild
    if played or (store.path.exists() and (not index.exists() or index.stat().st_mtime < store.path.stat().st_mtime)):
        publish(svc)
    if store.path.exists() and (played or not (svc.folder / STANDINGS).exists()):
        write_standings(svc.folder, read_results(out).lines, batch=None)
    return played


def publish(svc: Service) -> None:
    """The public site of the store (no host path, no stderr); the site ranks each name's latest version."""
    # rebuilt in place, each page replaced whole: only what the batch changed is read and written; the
    # site's state (``publish.site.ledger``) is kept beside the folder, which is served
    build_site([svc.folder / "results"], svc.folder / "public", bootstrap=svc.config.competition.site_bootstrap,
               history_bootstrap=0, state=svc.folder / SITE_STATE)


def loop(svc: Service) -> None:
    """Batches while anything is missing; then wait for the next accepted submission (or a minute)."""
    while not svc.stop.is_set():
        try:
            played = run_batch(svc)
        except Exception:  # a broken batch must not end the server; it is logged and tried again later
            log.exception("ladder batch failed")
            played = 0
        if not played:
            svc.ladder_wake.wait(60.0)
            svc.ladder_wake.clear()
