"""What a site is built from: one or more results files, their runs, and every game in them.

The files are read through the site's state (``ledger``): only what was
appended since the last build is read, each line once, and each line is kept
as the ratings and the pages read it (``slim_line``). Its folder's
``runs.jsonl`` (the ladder, ``arena.schedule.ladder``) splits each file into
runs; a file without one is a single run. Files given together are one
competition, their runs in the order given. Dates are the latest
``run.finished_at`` of a run's lines: derived from the results, so the same
results build the same site.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Sequence

from ...results import LoadedResults, ResultLine, ResultsError, combined_digest, line_key, results_path
from ..load import Block, BotInfo, Inputs, _ref, bot_ids
from ..provenance import RunFacts, read_facts
from .ledger import SiteState


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
class SlimResults(LoadedResults):
    """Lines as the site keeps them, with the digest of the lines they stand for (``scored_digest``)."""

    digests: list[str] = field(default_factory=list)
    #: each line's bot ids and rating input, when the competition keeps them (``Competition.inputs``)
    ids: dict[tuple[str, str], BotInfo] | None = None
    blocks: list[Block] | None = None

    @property
    def sha256(self) -> str:
        return combined_digest(zip(map(line_key, self.lines), self.digests))


@dataclass
class Competition:
    sources: list[Path]
    lines: list[ResultLine]  # each kept line as the site keeps it (``ledger.slim_line``)
    metas: list[RunFacts | None]  # each source's tournament.json
    runs: list[Run]
    torn: bool
    duplicates: int
    digests: list[str] = field(default_factory=list)  # each line's ``line_digest``
    entry_of: list[int] = field(default_factory=list)  # each line's entry in the state's ledger
    bots: dict[tuple[str, str], BotInfo] = field(default_factory=dict)
    inputs: Inputs | None = None  # each line's rating input, when the state keeps them

    def loaded(self, end: int | None = None) -> SlimResults:
        """The first ``end`` lines (all by default) as the rating code takes them, with their bot ids and
        rating inputs when they are all the lines (the ids of a prefix may differ) and kept."""
        n = len(self.lines) if end is None else end
        whole = n == len(self.lines) and self.inputs is not None
        return SlimResults(self.sources[0], self.lines[:n], 1 if self.torn else 0, self.duplicates,
                           self.digests[:n], self.bots if whole else None,
                           self.inputs.blocks if whole and self.inputs is not None else None)

    @property
    def meta(self) -> RunFacts | None:
        """The tournament facts of the first file that has them (the leaderboard's provenance)."""
        return next((m for m in self.metas if m), None)

    def game_ref(self, i: int, half: int) -> GameRef:
        ln = self.lines[i]
        st = ln.seating(half)
        ids = [str(g.id) for g in ln.games]
        others = [ids[(half + k) % len(ids)] for k in range(1, len(ids))]
        return GameRef(ids[half], i, half, others[0], [self.bots[_ref(s)].id for s in st.seats],
                       ln.pairing, ln.block, others, st.table)

    @cached_property
    def where(self) -> dict[str, tuple[int, int]]:
        """Game id -> (line, half)."""
        return {str(g.id): (i, h) for i, ln in enumerate(self.lines) for h, g in enumerate(ln.games)}

    def ref(self, gid: str) -> GameRef:
        return self.game_ref(*self.where[gid])

    @property
    def games(self) -> list[GameRef]:
        """Every game, in file order."""
        return [self.game_ref(i, h) for i, ln in enumerate(self.lines) for h in range(len(ln.games))]

    @property
    def game_count(self) -> int:
        return len(self.where)


def utc(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def competition(state: SiteState, kept: Inputs | None = None, key: str = "") -> Competition:
    """The competition the state has read: its kept lines, runs (per file, in the order given), bots (their
    ids from ``kept``, what the state kept of the lines under ``key``, when it still holds)."""
    lines: list[ResultLine] = []
    digests: list[str] = []
    entry_of: list[int] = []
    runs: list[Run] = []
    per_src: list[list[int]] = [[] for _ in state.sources]  # entries of each file, in file order
    for i, e in enumerate(state.entries):
        per_src[e.src].append(i)
    for si, s in enumerate(state.sources):
        start = len(lines)
        own = per_src[si]
        kept_before = [0]
        for i in own:
            e = state.entries[i]
            if e.line is not None:
                lines.append(e.line)
                digests.append(e.digest)
                entry_of.append(i)
            kept_before.append(kept_before[-1] + (e.line is not None))
        n = len(own)
        ends = [r[0] for r in s.runs if 0 < r[0] <= n]
        played = {r[0]: r[1] for r in s.runs}
        if not ends or ends[-1] != n:  # lines after the last recorded run: one more run
            ends.append(n)
        prev = 0
        for end in ends:
            if end <= prev:
                continue
            # a line dropped as a duplicate of an earlier file shifts the boundaries
            stamps = [state.entries[i].at for i in own[prev:end] if state.entries[i].at > 0]
            runs.append(Run(len(runs) + 1, Path(s.path).parent.name, start + kept_before[end],
                            played.get(end, end - prev), utc(max(stamps)) if stamps else None))
            prev = end
    runs = [r for i, r in enumerate(runs) if i == 0 or r.end > runs[i - 1].end] or runs
    for i, r in enumerate(runs):
        r.index = i + 1
    paths = [Path(s.path) for s in state.sources]
    comp = Competition(paths, lines, [read_facts(p) for p in paths], runs, any(s.torn for s in state.sources),
                       sum(s.duplicates for s in state.sources) + sum(e.line is None for e in state.entries),
                       digests, entry_of)
    known = kept.bots(key, lines, digests) if kept is not None else None
    comp.bots = bot_ids(lines) if known is None else known
    return comp


def source_paths(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """Each results file (a folder stands for its results.jsonl), resolved; a missing one is an error."""
    if not paths:
        raise ResultsError("no results files given")
    out = []
    for p in paths:
        rp = results_path(p)
        try:
            rp.stat()
        except OSError as e:
            raise ResultsError(f"{rp}: cannot read results: {e.strerror}") from None
        out.append(rp.resolve())
    return out


def load_competition(paths: Sequence[str | os.PathLike[str]]) -> Competition:
    """Read every results file (in memory, no state kept); refuse a game id that two files give different games."""
    state = SiteState.open(None, {}, source_paths(paths))
    state.read(private=False, bank_ms=None, time_use=False)
    return competition(state)
