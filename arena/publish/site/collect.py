"""What a site is built from: one or more results files, their runs, and every game in them.

Each results file is read by the one reader (``read_results``). Its folder's
``runs.jsonl`` (the ladder, ``arena.schedule.ladder``) splits it into runs;
a file without one is a single run. Files given together are one
competition, their runs in the order given. Dates are the latest
``run.finished_at`` of a run's lines: derived from the results, so the same
results build the same site.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ...results import LoadedResults, ResultsError, comparable, game_id, read_results
from ...schedule.ladder import read_runs
from ..load import BotInfo, _ref, bot_ids
from ..provenance import read_meta


@dataclass
class Run:
    """One run of the competition: it covers the first ``end`` lines of ``Competition.lines``."""

    index: int  # 1, 2, ...
    source: str  # results file it belongs to (its folder's name)
    end: int
    played: int
    date: str | None  # UTC, from the results


@dataclass
class GameRef:
    """Where one game stands: the line and half (a table's rotation), its bots by seat, its twin (the
    other game of a duplicate block; at a table the next rotation) and every other game of its block."""

    id: str
    line: int
    half: int
    twin: str
    bots: list[str]  # bot id at each seat
    pairing: str
    block: int
    twins: list[str] = field(default_factory=list)
    table: bool = False  # a game of a table of n seats (the line names ``table``)


@dataclass
class Competition:
    sources: list[Path]
    lines: list[dict[str, Any]]
    metas: list[dict[str, Any] | None]
    runs: list[Run]
    torn: bool
    duplicates: int
    bots: dict[tuple[str, str], BotInfo] = field(default_factory=dict)
    games: list[GameRef] = field(default_factory=list)

    def loaded(self) -> LoadedResults:
        """The combined lines as the rating code takes them."""
        return LoadedResults(self.sources[0], self.lines, 1 if self.torn else 0, self.duplicates)

    @property
    def meta(self) -> dict[str, Any] | None:
        """The tournament facts of the first file that has them (the leaderboard's provenance)."""
        return next((m for m in self.metas if m), None)


def utc(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _date(lines: Sequence[dict[str, Any]]) -> str | None:
    stamps = [float((ln.get("run") or {}).get("finished_at") or 0) for ln in lines]
    stamps = [s for s in stamps if s > 0]
    return utc(max(stamps)) if stamps else None


def load_competition(paths: Sequence[str | os.PathLike[str]]) -> Competition:
    """Read every results file; refuse a game id that two files give different games."""
    if not paths:
        raise ResultsError("no results files given")
    sources: list[Path] = []
    lines: list[dict[str, Any]] = []
    metas: list[dict[str, Any] | None] = []
    runs: list[Run] = []
    seen: dict[tuple[str, int], tuple[Path, dict[str, Any]]] = {}
    torn = False
    dups = 0
    for p in paths:
        res = read_results(p)
        sources.append(res.path)
        metas.append(read_meta(res.path))
        torn = torn or res.torn
        dups += res.duplicates
        start = len(lines)
        kept: list[dict[str, Any]] = []
        for ln in res.lines:
            key = (str(ln["pairing"]), int(ln["block"]))
            if key in seen:
                other, old = seen[key]
                if comparable(old) != comparable(ln):
                    raise ResultsError(f"{res.path}: block {key[1]} of {key[0]} is also in {other} with other games;"
                                       " a site shows one competition: give results of the same tournament")
                dups += 1
                continue
            seen[key] = (res.path, ln)
            kept.append(ln)
        lines.extend(kept)
        file_runs = read_runs(res.path.parent)
        ends = [r["lines"] for r in file_runs if 0 < r["lines"] <= len(res.lines)]
        played = {r["lines"]: r.get("played", 0) for r in file_runs}
        if not ends or ends[-1] != len(res.lines):  # lines after the last recorded run: one more run
            ends.append(len(res.lines))
        kept_ids = {id(ln) for ln in kept}
        prev = 0
        for end in ends:
            if end <= prev:
                continue
            # a line dropped as a duplicate of an earlier file shifts the boundaries
            own = res.lines[prev:end]
            covered = start + sum(1 for ln in res.lines[:end] if id(ln) in kept_ids)
            runs.append(Run(len(runs) + 1, res.path.parent.name, covered, played.get(end, end - prev), _date(own)))
            prev = end
    runs = [r for i, r in enumerate(runs) if i == 0 or r.end > runs[i - 1].end] or runs
    for i, r in enumerate(runs):
        r.index = i + 1
    comp = Competition(sources, lines, metas, runs, torn, dups)
    comp.bots = bot_ids(lines)
    for i, ln in enumerate(lines):
        gs = ln["games"]
        ids = [g.get("id") or game_id(str(ln["pairing"]), int(ln["block"]), h) for h, g in enumerate(gs)]
        for h, g in enumerate(gs):
            others = [ids[(h + k) % len(ids)] for k in range(1, len(ids))]
            comp.games.append(GameRef(ids[h], i, h, others[0], [comp.bots[_ref(s)].id for s in g["seats"]],
                                      str(ln["pairing"]), int(ln["block"]), others, ln.get("table") is not None))
    return comp
