"""The freeze and the final evaluation: the end of a competition.

``arena serve FOLDER --freeze`` (or ``competition.closes_at`` passing) writes FOLDER/final/freeze.json once:
the moment and the final versions (each team's ranked version then). From then on uploads are refused and
the ladder stops; the server plays the final evaluation instead: ``final_blocks`` blocks of every pairing
(or table) of the final versions, with a seed derived from the ladder's, no adaptive choice, into its own
results store FOLDER/final/results (resumable like any run, kill -9 safe). When it is complete the final
leaderboard (FOLDER/final/leaderboard) and site (FOLDER/final/public) are written and FOLDER/final/done.json
publishes the final standings and both seeds; every page of the server then says so (``closed_sentence``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from ..publish.board import Leaderboard
from ..publish.leaderboard import main_table
from ..publish.rate import PublishError, rate_results
from ..publish.site import build_site
from ..results import ResultsError
from ..schedule import ConfigError, RunOptions, RunRefused, read_meta, run_tournament
from . import db
from .ladder import build_ladder, ranked, site_naming, waiting_for

if TYPE_CHECKING:
    from .service import Service

log = logging.getLogger("arena.serve.final")
M = TypeVar("M", bound=BaseModel)

FINAL = "final"
FREEZE = "freeze.json"
DONE = "done.json"


def final_seed(seed: str) -> str:
    """The final evaluation's seed: fresh (no deal of the ladder comes again), and derived from the ladder's
    so the host publishes one secret and anyone can check the other."""
    return hashlib.sha256(f"cinch-arena final evaluation\0{seed}".encode()).hexdigest()[:32]


class Freeze(BaseModel):
    """FOLDER/final/freeze.json: when the competition froze, why, and its final versions."""

    frozen_at: str
    why: str
    versions: list[db.Entrant]


class Seeds(BaseModel):
    ladder: str
    final: str


class Standing(BaseModel):
    rank: int
    bot: str
    rating: float


class FinalResult(BaseModel):
    """FOLDER/final/done.json: the final standings (or why there are none) and both seeds."""

    finished_at: str
    seeds: Seeds
    standings: list[Standing]
    table: str | None  # the leaderboard's ranking table, as the terminal prints it
    note: str | None


def _write(path: Path, doc: BaseModel) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc.model_dump(mode="json"), indent=1) + "\n")
    os.replace(tmp, path)


def _read(path: Path, model: type[M]) -> M | None:
    """The file as ``model``; None if it is missing or is not one (as if never written)."""
    try:
        return model.model_validate_json(path.read_bytes())
    except (OSError, ValueError):
        return None


def freeze(svc: Service, why: str = "the host froze it") -> Freeze:
    """Freeze the competition (once: a second call returns the first freeze): its final versions are each
    team's ranked version now."""
    path = svc.folder / FINAL / FREEZE
    done = _read(path, Freeze)
    if done is not None:
        return done
    doc = Freeze(frozen_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), why=why,
                 versions=ranked(svc.engine))
    _write(path, doc)
    log.info("competition frozen (%s): %d final versions; uploads stop, the final evaluation plays", why,
             len(doc.versions))
    svc.ladder_wake.set()
    return doc


def frozen(svc: Service) -> Freeze | None:
    """The freeze, if the competition is frozen; ``closes_at`` passing freezes it here."""
    doc = _read(svc.folder / FINAL / FREEZE, Freeze)
    if doc is None:
        closes = svc.config.competition.closes_at
        if closes is not None and datetime.now(timezone.utc) >= closes:
            doc = freeze(svc, f"closes_at {closes.isoformat()} passed")
    return doc


def result(svc: Service) -> FinalResult | None:
    """FOLDER/final/done.json once the final evaluation is published."""
    return _read(svc.folder / FINAL / DONE, FinalResult)


def run_final(svc: Service) -> bool:
    """Play what is missing of the final evaluation, then publish it; whether it is published."""
    if result(svc) is not None:
        return True
    doc = frozen(svc)
    assert doc is not None
    c = svc.config.competition
    out = svc.folder / FINAL / "results"
    subs = list(doc.versions)
    seeds = Seeds(ladder=c.seed, final=final_seed(c.seed))
    why = waiting_for(svc, len(subs))
    if why:
        _publish(svc, seeds, None, f"no final evaluation: {why.removeprefix('the ladder waits: ')}")
        return True
    try:
        t = build_ladder(svc, subs, out=out, seed=seeds.final, blocks=c.final_blocks, name="final")
        r = run_tournament(t, options=RunOptions(skip_check=True, halt=svc.stop))
    except (ConfigError, RunRefused) as e:
        log.error("final evaluation cannot run: %s", e)
        return False
    if r.interrupted or not r.complete:
        return False  # stopped, or a block the harness failed on: played again at the next call
    try:
        board = rate_results(out, svc.folder / FINAL / "leaderboard", bootstrap=c.site_bootstrap)
        build_site([out], svc.folder / FINAL / "public", bootstrap=c.site_bootstrap, history_bootstrap=0,
                   state=svc.folder / FINAL / "site-state",
                   naming=replace(site_naming(f"{svc.config.competition.name}: final evaluation", read_meta(out) or {}),
                                  run="run", runs="runs"))
    except (PublishError, ResultsError, OSError) as e:
        log.error("final evaluation played, not published yet: %s", e)
        return False
    _publish(svc, seeds, board.doc, None)
    return True


def _publish(svc: Service, seeds: Seeds, doc: Leaderboard | None, note: str | None) -> None:
    standings = [Standing(rank=i + 1, bot=b.bot, rating=b.rating) for i, b in enumerate(doc.bots if doc else [])]
    _write(svc.folder / FINAL / DONE, FinalResult(
        finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), seeds=seeds, standings=standings,
        table=main_table(doc, "simple") if doc else None, note=note))
    log.info("final standings published: %s", note or ", ".join(s.bot for s in standings))


def closed_sentence(svc: Service) -> str | None:
    """The line every page shows once the competition is frozen (None while it is open)."""
    doc = frozen(svc)
    if doc is None:
        return None
    if result(svc) is None:
        return (f"The competition is closed (frozen at {doc.frozen_at}): uploads have stopped and the final"
                " evaluation among the final versions is playing.")
    return f"The competition is closed (frozen at {doc.frozen_at}): the final standings and the seeds are published."


@dataclass(frozen=True)
class FinalView:
    """What /final/ shows: the freeze (None: open), the final versions, and once published the standings
    (``done``: FOLDER/final/done.json, with the seeds; the ladder's seed is secret until then)."""
    frozen: Freeze | None
    versions: list[db.Entrant]
    blocks: int
    done: FinalResult | None


def final_view(svc: Service) -> FinalView:
    doc = frozen(svc)
    return FinalView(doc, list(doc.versions) if doc else [], svc.config.competition.final_blocks,
                     result(svc) if doc else None)
